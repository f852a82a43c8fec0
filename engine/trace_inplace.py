"""The in-place changes no graph op records, for the Trace's recorder (engine/trace.py): which
recorded tensor a change is the change of (a tensor of a node, a ``.grad`` a pass wrote, or another
tensor on the same storage), and the ``Update`` records of them. ``InPlaceNotes`` is the part of the
``Recorder`` that keeps them; the ``Recorder`` sets up its state."""

from __future__ import annotations

import weakref

from .trace_pass import copy_now
from .trace_records import Update


def _weak(obj):
    """A weak reference to ``obj`` (or, for a stand-in without weak references, a strong one)."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj


class InPlaceNotes:
    """The recorder's notes of in-place changes: ``_updated`` (tensors changed since their node was
    recorded), ``_grads`` and ``_grad_owners`` (the .grads passes wrote, and whose), ``_storage``
    (the arrays of recorded leaves and .grads)."""

    def updating(self, tensor) -> tuple | None:
        """``(node, is_grad, subject)`` when ``tensor`` is about to change in place without a graph
        op and the trace knows the tensor that changes (``subject``: ``tensor``, or the recorded
        tensor whose storage it shares): a tensor of a node (or changed in place since), or the
        ``.grad`` a backward pass wrote for a node; else None (nothing is recorded, nor copied)."""
        for subject in (tensor, self._owner(tensor)):
            if subject is None:
                continue
            nid = self._node_if_any(subject)
            if nid is not None:
                return nid, False, subject
            for table in (self._updated, self._grads):
                entry = table.get(id(subject))
                if entry is not None and entry[0]() is subject:
                    return entry[1], table is self._grads, subject
        return None

    def _owner(self, tensor):
        """The recorded leaf or .grad whose array ``tensor`` holds, other than ``tensor``, or None."""
        entry = self._storage.get(id(tensor._data))
        if entry is None or entry[0]() is not tensor._data:
            return None
        owner = entry[1]()
        return owner if owner is not None and owner is not tensor and owner._data is tensor._data else None

    def _share(self, tensor) -> None:
        """Note the array of a recorded leaf or .grad (see ``_owner``)."""
        data = getattr(tensor, "_data", None)  # (what the recorder of real torch hands over has none)
        if data is not None:
            self._storage[id(data)] = (_weak(data), _weak(tensor))

    def updated(self, tensor, known: tuple, op: str, before) -> None:
        """``tensor`` (``known`` from ``updating``) was changed in place by ``op`` from ``before``:
        the next use of a tensor that was a leaf records a new node with the new value."""
        nid, is_grad, tensor = known
        tensor._trace = None  # (when it changed through another tensor on its storage)
        line, col = self._loc()
        index = len(self.trace.updates)
        name = self.trace.nodes[nid].name if is_grad else tensor._name
        self.trace.updates.append(Update(index=index, node=nid, name=name, op=op, before=before,
                                         after=copy_now(tensor), grad=is_grad, line=line, col=col))
        self.trace.events.append(("update", index))
        if is_grad or tensor._grad_fn is not None:
            return  # a .grad is no graph node; a non-leaf keeps its node (its grad_fn)
        entry = self._updated.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            entry[2].append(index)
        else:
            self._updated[id(tensor)] = (_weak(tensor), nid, [index])

    def _wrote_grad(self, nid: int, grad, leaf=None) -> None:
        """A pass wrote ``grad`` as the .grad of node ``nid`` (an in-place change of it is its node's;
        ``leaf``: the tensor of a leaf node)."""
        if leaf is not None:
            self._grad_owners[id(leaf)] = (_weak(leaf), nid)
        if grad is not None:
            self._grads[id(grad)] = (_weak(grad), nid)
            self._share(grad)

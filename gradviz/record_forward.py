"""How a recording sees the forward pass: every aten op torch dispatches (with copies of what it read
and made), the cuts where a gradient stops, and a program's own ``autograd.Function``; each becomes an
op node of the trace once autograd has attached its ``grad_fn`` (gradviz/recording.py)."""

from __future__ import annotations

import os
import sys

import numpy as np

from .record_active import ACTIVE
from .torch_parts import Constant, FnView, TensorView, function_entry, op_entry, param_value, to_numpy

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")


class ForwardCapture:
    """The forward half of a recording session (mixed into ``recording._Session``)."""

    # ---- forward -----------------------------------------------------------------------------------
    def dispatched(self, func, args, kwargs):
        """An aten op: run it; remember it with copies of what it read and made."""
        if self.pending and args and _writes_first(func):
            # Autograd's kernel of an in-place op saves a clone of its target for backward: the
            # clone is not an op of the program.
            target = args[0]
            self.pending = [p for p in self.pending if not (p[0] is self.torch.ops.aten.clone.default
                                                            and p[1] and p[1][0] is target)]
        self.resolve()
        if self.paused:
            return func(*args, **kwargs)
        # What the op reads, before it runs (an in-place op changes its own input).
        snap = [(to_numpy(a), a._version) if isinstance(a, self.torch.Tensor) else a for a in args]
        out = func(*args, **kwargs)
        results = out if isinstance(out, (tuple, list)) else (out,)
        outs = [o for o in results if isinstance(o, self.torch.Tensor)]
        self.cuts(func, args, outs)
        if args and _writes_first(func) and isinstance(args[0], self.torch.Tensor):
            self.grad_changed(func, args[0], snap[0][0])
        if not outs or not any(o.dtype.is_floating_point for o in outs):
            return out
        self.pending.append((func, args, snap, kwargs, outs, [to_numpy(o) for o in outs], self.where(),
                             self.rec.module))
        return out

    def cuts(self, func, args, outs) -> None:
        """An op whose result carries no gradient back to an input that requires grad (a detach,
        ``.data``, ``.item()``, an op under no_grad, an integer or boolean result) is a cut."""
        asked, self.asked = self.asked, None
        if any(o.requires_grad for o in outs) or not self.from_user():
            return
        name = func.overloadpacket.__name__
        floating = outs and all(o.dtype.is_floating_point for o in outs)
        if name == "detach":  # (autograd's own detach, of what an op saves, is not the program's)
            if asked is None:
                return
            how = asked
        elif name == "_local_scalar_dense":
            how = "item"
        elif not self.torch.is_grad_enabled() and floating:
            how = "no_grad"
        elif outs and not floating:
            how = "argmax" if name in ("argmax", "argmin") else "compare" if name in _COMPARE else "integer"
        else:
            return
        from engine.trace import note_cut

        result = self.view_of(outs[0]) if outs else None
        self.rec.location = self.where()
        for a in args:
            if isinstance(a, self.torch.Tensor) and a.requires_grad:
                view = self.view_of(a)
                if a.grad_fn is not None and id(a.grad_fn) in self.outputs:
                    view = self.outputs[id(a.grad_fn)]
                index = note_cut(view, result, how, name, self.rec)
                if index is not None:
                    self.cut_sources.append((index, view))

    def grad_changed(self, func, grad, before) -> None:
        """An op changed a recorded leaf's ``.grad`` in place (``w.grad.zero_()``): an update of
        that gradient, as the engine records one."""
        for view in list(self.tensors.values()):
            t = view.tensor
            if t.is_leaf and t.grad is grad:
                nid = self.rec._node_if_any(view)
                if nid is not None:
                    self.rec.location = self.where()
                    gview = TensorView(grad)
                    op = func.overloadpacket.__name__.rstrip("_")
                    self.rec.updated(gview, (nid, True, gview), op, before)
                return

    def from_user(self) -> bool:
        """Whether the op running now was called by the block's code (through torch's own
        functions), not by gradviz reading a value or by torch's machinery on its own."""
        f = sys._getframe(2)
        while f is not None:
            if self.is_user(f.f_code):
                return True
            name = f.f_code.co_filename
            if f"{os.sep}torch{os.sep}" not in name and name not in self.own_files:
                return False
            f = f.f_back
        return False

    def resolve(self) -> None:
        """Record the ops whose grad_fn autograd has attached since they ran."""
        pending, self.pending = self.pending, []
        for entry in pending:
            func, args, snap, kwargs, outs, values, where, module = entry
            for out, value in zip(outs, values):
                fn = out.grad_fn
                if fn is None or id(fn) in self.fns:
                    continue
                pieces = [(o, v) for o, v in zip(outs, values) if o.grad_fn is fn]
                self.record_op(func, args, snap, kwargs, out, value, fn, where, module,
                               pieces if len(pieces) > 1 else None)
                break

    def record_op(self, func, args, snap, kwargs, out, value, fn, where, module, pieces=None) -> None:
        """Write the op ``func`` ran as an op node: its inputs from ``fn.next_functions`` (each the
        output it names of its node), its arguments as params. ``pieces``: the ``(tensor, value)`` of
        each output of an op with several (unbind, split), drawn as the engine draws them."""
        nexts = fn.next_functions
        schema = getattr(func, "_schema", None)
        names = [a.name for a in schema.arguments] if schema is not None else []
        candidates, params, data_args = [], {}, []
        for i, a in enumerate(args):
            name = names[i] if i < len(names) else f"arg{i}"
            if isinstance(a, self.torch.Tensor):
                if a.dtype.is_floating_point or a.dtype.is_complex:
                    candidates.append((a, snap[i]))
                else:
                    data_args.append((name, a, snap[i]))
            elif isinstance(a, (int, float)) and not isinstance(a, bool) and len(candidates) < len(nexts):
                candidates.append((a, None))
            else:
                params[name] = a
        op = op_entry(fn, kwargs, len(nexts))
        inputs = []
        for i, (nxt, nr) in enumerate(nexts):
            given, value_in = candidates[i] if i < len(candidates) else (None, None)
            inputs.append(self.input_view(nxt, given, value_in, value.dtype, nr))
        for given, _ in candidates[len(nexts):]:
            if not isinstance(given, self.torch.Tensor):
                params.setdefault("other", given)
        for name, _, arr in data_args:
            params[name] = arr[0]
        if getattr(op, "aux", 0):
            inputs += [TensorView(t, None, arr[0]) for _, t, arr in data_args[-op.aux:]]
        params.update({k: v for k, v in kwargs.items() if not isinstance(v, self.torch.Tensor)})
        params = {k: param_value(k, v) for k, v in params.items() if _plain(v)}
        if pieces is not None and getattr(op, "multi", False):  # (an op the engine cuts the same way)
            self.record_pieces(fn, op, inputs, snap[0][0], params.get("dim", 0), pieces, where, module)
            return
        self.record_node(fn, out, value, op, inputs, params, None, where, module)

    def record_pieces(self, fn, op, inputs, whole, dim, pieces, where, module) -> None:
        """An op of several outputs (unbind, split): one node whose value is the ``whole`` it was
        cut along ``dim`` and whose params are the engine's (``dim``, the pieces' ``sizes``, None
        for unbind), and a view of each output with its own output number."""
        dim = int(dim) % max(whole.ndim, 1)
        sizes = None if pieces[0][1].ndim < whole.ndim else [v.shape[dim] for _, v in pieces]
        fn_view = FnView(fn, multi=True)
        self.fns[id(fn)] = fn_view
        views = []
        for nr, (t, v) in enumerate(pieces):
            view = self.view_of(t, fn_view, v)
            view._nr = t.output_nr if hasattr(t, "output_nr") else nr
            views.append(view)
        self.outputs[id(fn)] = views[0]
        self.pieces[id(fn)] = views
        self.rec.location = where
        again = self.enter_module(module)
        try:
            self.rec.op_node(fn_view, op, inputs, TensorView(pieces[0][0], fn_view, whole),
                             {"dim": dim, "sizes": sizes}, None)
        finally:
            if again:
                self.rec.pop_module()

    def record_node(self, fn, out, value, op, inputs, params, extras, where, module) -> None:
        """Write grad_fn ``fn`` (made ``out``, whose value was ``value``) as an op node of the
        trace, where the program ran it (``where``, inside the module call ``module``)."""
        fn_view = FnView(fn)
        self.fns[id(fn)] = fn_view
        out_view = self.view_of(out, fn_view, value)
        self.outputs[id(fn)] = out_view
        self.rec.location = where
        again = self.enter_module(module)
        try:
            self.rec.op_node(fn_view, op, inputs, out_view, params, extras)
        finally:
            if again:
                self.rec.pop_module()

    def input_view(self, nxt, given, value, dtype, nr: int = 0):
        """What fed one input of an op: the leaf of an AccumulateGrad, output ``nr`` of another
        grad_fn, or (no gradient needed there) the tensor or number the op was given."""
        if nxt is not None and type(nxt).__name__ == "AccumulateGrad":
            return self.view_of(nxt.variable)
        if nxt is not None:
            fv = self.fns.get(id(nxt))
            if fv is None:  # made before the recording started: a leaf as far as this trace goes
                if not isinstance(given, self.torch.Tensor):
                    return Constant(float("nan"), dtype)
                return _with_value(self.view_of(given), value)
            out = self.pieces[id(nxt)][nr] if fv.multi else self.outputs.get(id(nxt))
            return TensorView(out.tensor, fv, value[0] if value is not None else out.snapshot, out._nr)
        if isinstance(given, self.torch.Tensor):
            return _with_value(self.view_of(given), value)
        if given is None:
            return Constant(float("nan"), dtype)
        return Constant(given, dtype)

    def view_of(self, tensor, fn_view=None, value=None) -> TensorView:
        """The view of a tensor (one per tensor object, kept while it is not changed in place)."""
        view = self.tensors.get(id(tensor))
        if view is None or view.tensor is not tensor or (fn_view is not None and view.fn_view is not fn_view):
            view = TensorView(tensor, fn_view, value)
            old = self.tensors.get(id(tensor))
            if old is not None and old.tensor is tensor:
                view._name = None
            self.tensors[id(tensor)] = view
        elif value is not None and view.snapshot is None:
            view.snapshot = value
        return view

    # ---- a program's own autograd.Function ---------------------------------------------------------
    def _patch_function_apply(self) -> None:
        """``MyFn.apply(...)`` is seen here (no mode sees it): its node is recorded once it exists."""
        session = self
        owner = self.torch.autograd.Function
        original = owner.__dict__["apply"]
        run = original.__func__

        def apply(cls, *args, **kwargs):
            if getattr(ACTIVE, "session", None) is not session or session.paused:
                return run(cls, *args, **kwargs)
            return session.function_applied(cls, run, args, kwargs)

        owner.apply = classmethod(apply)
        self._patched.append((owner, "apply", original))

    def function_applied(self, cls, run, args, kwargs):
        """Run ``cls.apply``; record the node it attached to its output, as the engine does."""
        self.resolve()
        where, module = self.where(), self.rec.module
        tensors = [(a, (to_numpy(a), a._version)) for a in args if isinstance(a, self.torch.Tensor)]
        # forward runs without gradients: its ops are not nodes of the graph; nor are the aliases
        # torch makes of a saved output while its saved tensors are read here
        self.paused += 1
        try:
            result = run(cls, *args, **kwargs)
            # the output the node is shown with: the first one it made (all share one grad_fn)
            out = next((o for o in (result if isinstance(result, (tuple, list)) else (result,))
                        if isinstance(o, self.torch.Tensor) and o.grad_fn is not None), None)
            fn = out.grad_fn if out is not None else None
            if fn is None or id(fn) in self.fns or not hasattr(fn, "saved_tensors"):
                return result
            extras = {f"saved{i}": to_numpy(t) for i, t in enumerate(fn.saved_tensors)
                      if isinstance(t, self.torch.Tensor)}
            value = to_numpy(out)
        finally:
            self.paused -= 1
        inputs = [self.input_view(nxt, given, snap, value.dtype)
                  for (nxt, _), (given, snap) in zip(fn.next_functions, tensors)]
        self.record_node(fn, out, value, function_entry(cls.__name__), inputs, {"function": cls.__name__},
                         extras, where, module)
        return result

    def enter_module(self, module) -> bool:
        """Record what follows in the module call an op ran in, back then; True when that needed a
        ``push_module`` (undo it with ``pop_module``). Nearly always that call is still open (ops are
        recorded at the next op or at the call's end) and the op joins its scope; an op outside
        every module call stays outside."""
        if module is None or module == self.rec.module:
            return False
        self.rec.push_module(module)
        return True


def _writes_first(func) -> bool:
    """Does the aten op write its first argument (``add_``, ``clamp_``)?"""
    schema = getattr(func, "_schema", None)
    if schema is None or not schema.arguments:
        return False
    alias = schema.arguments[0].alias_info
    return alias is not None and alias.is_write


def _with_value(view: TensorView, value) -> TensorView:
    """``view``, holding ``value`` (an op's snapshot: array and version) as what the op read."""
    if value is not None:
        view.keep(*value)
    return view


def _plain(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str, np.ndarray)) or (
        isinstance(v, (list, tuple)) and all(_plain(x) for x in v))


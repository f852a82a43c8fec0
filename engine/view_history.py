"""The history of views whose base changed in place.

A view shares its base's storage and version counter. When the base is changed in place by a
recorded op, a view taken before reads the new values, so its grad_fn must lead to the base's new
history: PyTorch then gives it an ``AsStridedBackward0`` on the base's new grad_fn. A view made
with a graph is noted on the version counter it shares (weakly, after the version itself), so that
such a change of the base can find it and read it again from the base.

PyTorch reads the view again when its grad_fn is next asked for. Here a change that gave the base
a new grad_fn reads its noted views again at once; a change without one (under no_grad) leaves the
views as they were, and a view read by an op that builds a node, or whose grad_fn a program asks
for, is read again then (``current``): each view keeps the version its history was made at
(``_gv``), as PyTorch does. An output of unbind or split cannot be read again: PyTorch's error.
"""

from __future__ import annotations

import weakref

_PRUNE_AT = 64  # dead views are dropped from a counter once it holds this many more


def note(view) -> None:
    """``view`` (just made by a view op, with a graph) is one of its base's views."""
    vc = view._vc
    vc.append(weakref.ref(view))
    if len(vc) % _PRUNE_AT == 0:  # a base read in a loop: keep only the views still alive
        vc[1:] = [ref for ref in vc[1:] if ref() is not None]


def current(view):
    """``view``'s grad_fn, read again from its base first when the base (or another view of it)
    changed in place since the view's history was made."""
    fn = view._grad_fn
    if fn is not None and view._vc[0] != getattr(view, "_gv", view._vc[0]):
        regenerate(view)
        fn = view._grad_fn
    return fn


def regenerate(view) -> None:
    """The view's history read again from its base (AsStridedBackward0 on the base's grad_fn)."""
    fn = view._grad_fn
    view._gv = view._vc[0]
    if fn.multi:
        from . import errors

        raise RuntimeError(errors.multi_view_inplace(view._nr, fn.name(), base_changed=True))
    base = view._base
    if not base._requires_grad:
        return
    from . import grad_mode

    enabled = grad_mode._enabled
    grad_mode._enabled = True  # as PyTorch, whatever grad mode the view is read in
    try:
        _read_again(view, base)
    finally:
        grad_mode._enabled = enabled


def _read_again(view, base) -> bool:
    """Give ``view`` an AsStridedBackward0 on ``base``'s history (False: it is not laid out in it)."""
    from . import tangents as _tangents
    from . import trace as _trace
    from .dispatch import apply, view_position
    from .ops.table import OPS

    key = view_position(view, base)
    if key is None:
        return False
    fresh = apply(OPS["as_strided"], (base,), {"key": key, "in_shape": tuple(base._data.shape)})
    _trace.forget(view)
    view._grad_fn = fresh._grad_fn
    view._requires_grad = fresh._requires_grad
    view._gv = view._vc[0]
    level = _tangents.ACTIVE
    if level is not None:
        level.set(view, level.get(fresh))
    return True


def refresh(base, skip=None) -> None:
    """``base`` was changed in place: every live view of it noted with a graph (but ``skip``, which
    the caller reads again itself) gets its history read again from the base."""
    vc = base._vc
    if len(vc) == 1 or not base._requires_grad:
        return
    from . import grad_mode

    alive = [ref() for ref in vc[1:]]
    vc[1:] = [weakref.ref(v) for v in alive if v is not None]
    enabled = grad_mode._enabled
    grad_mode._enabled = True  # the change was recorded, so grad mode is on; kept on whatever it was
    try:
        for view in alive:
            if view is None or view is skip or view._base is not base:
                continue
            _read_again(view, base)
    finally:
        grad_mode._enabled = enabled


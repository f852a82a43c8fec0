"""``torch.autograd.functional``: Jacobians, Hessians and their products, built from the one
backward walk (each row of a Jacobian is one ``autograd.grad`` pass, so the page can play them).

As in PyTorch, the function's inputs are first made differentiable copies of the given tensors
(``_grad_preprocess``): detached leaves, or, while an outer Jacobian is being built
(``create_graph=True``), views that keep the outer graph, so a Hessian is the Jacobian of a
Jacobian. Results are detached unless ``create_graph=True``.
"""

from __future__ import annotations

from .. import arguments as A
from .. import grad_mode
from ..tensor import Tensor
from . import grad as _grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# ---- inputs and outputs ------------------------------------------------------------------------------------
def _as_tuple(value, arg: str, fn: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple), with PyTorch's error for anything else."""
    if isinstance(value, Tensor):
        return False, (value,)
    if type(value) in (tuple, list):
        for i, t in enumerate(value):
            if not isinstance(t, Tensor):
                raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but "
                                f"the value at index {i} has type {A.type_name(t)}.")
        return True, tuple(value)
    raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but the given "
                    f"{arg} has type {A.type_name(value)}.")


def _preprocess(inputs: tuple, create_graph: bool) -> tuple:
    """Differentiable copies of ``inputs``: views keeping the graph of an input that requires
    grad when ``create_graph`` (nested derivatives), else detached leaves that require grad."""
    from ..ops.shape import view

    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(view(t, tuple(t._data.shape)))
        else:
            leaf = Tensor._make(t._data, False, t._vc)
            if leaf.dtype.is_floating_point:
                leaf._requires_grad = True
            out.append(leaf)
    return tuple(out)


def _outputs(value, fn: str) -> tuple[bool, tuple]:
    return _as_tuple(value, "outputs of the user-provided function", fn)


def _finish(t: Tensor, create_graph: bool) -> Tensor:
    """A result as PyTorch hands it back: detached unless the graph was asked for."""
    return t if create_graph else Tensor._make(t._data)


def _call(func, inputs: tuple):
    if not callable(func):
        raise TypeError(f"'{A.type_name(func)}' object is not callable")
    return func(*inputs)


# ---- jacobian and hessian --------------------------------------------------------------------------------
def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for each output and input, a tensor shaped
    ``output.shape + input.shape`` (a tuple for several inputs or outputs, as PyTorch nests them)."""
    create_graph = A.flag(create_graph, "jacobian", "create_graph", strict=False)
    _unsupported_options("jacobian", strict, vectorize, strategy)
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with grad_mode.enable_grad():
        inputs = _preprocess(inputs, create_graph)
        out_tuple, outputs = _outputs(_call(func, inputs), "jacobian")
        rows = [[_jacobian_block(out, inp, i, inputs, create_graph) for i, inp in enumerate(inputs)]
                for out in outputs]
    if not out_tuple and not is_tuple:
        return rows[0][0]
    if not out_tuple:
        return tuple(rows[0])
    if not is_tuple:
        return tuple(r[0] for r in rows)
    return tuple(tuple(r) for r in rows)


def _jacobian_block(out: Tensor, inp: Tensor, index: int, inputs: tuple, create_graph: bool) -> Tensor:
    """d out / d inputs[index], shaped ``out.shape + inp.shape``: one backward pass per output element."""
    from ..factory import zeros
    from ..ops.combine import stack
    from ..ops.shape import reshape

    shape = tuple(out._data.shape) + tuple(inp._data.shape)
    n = out._data.size
    if n == 0 or not out.requires_grad:
        return zeros(shape, dtype=inp.dtype)
    flat = reshape(out, (-1,))
    rows = []
    for k in range(n):
        (g,) = _grad(flat[k], (inputs[index],), retain_graph=True, create_graph=create_graph,
                     allow_unused=True)
        rows.append(g if g is not None else zeros(tuple(inp._data.shape), dtype=inp.dtype))
    block = reshape(stack(rows), shape)
    return _finish(block, create_graph)


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``: the Jacobian of its gradient."""
    is_tuple, tupled = _as_tuple(inputs, "inputs", "hessian")
    _unsupported_options("hessian", strict, vectorize, outer_jacobian_strategy)

    def gradient(*inp):
        out = _call(func, inp)
        out_tuple, outs = _outputs(out, "hessian")
        if out_tuple and len(outs) != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0]._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return jacobian(lambda *x: _reshape_scalar(func(*x)), inp if is_tuple else inp[0], create_graph=True)

    return jacobian(gradient, inputs if is_tuple else tupled[0], create_graph=create_graph)


def _reshape_scalar(out):
    from ..ops.shape import reshape

    out = out[0] if type(out) in (tuple, list) else out
    return reshape(out, ())


def _unsupported_options(fn: str, strict, vectorize, strategy) -> None:
    from ..errors import not_supported

    if A.flag(strict, fn, "strict", strict=False):
        raise not_supported(f"{fn}(strict=True)")
    if A.flag(vectorize, fn, "vectorize", strict=False):
        raise not_supported(f"{fn}(vectorize=True)")
    if A.string(strategy, fn, "strategy") != "reverse-mode":
        raise not_supported(f"{fn}(strategy={strategy!r})")


# ---- products ------------------------------------------------------------------------------------------
def _seed(v, outputs: tuple, fn: str, what: str) -> tuple:
    """The vector ``v`` given for ``outputs`` (None: ones for a single-element output)."""
    if v is None:
        if len(outputs) != 1 or outputs[0]._data.size != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} is a single element Tensor.")
        from ..factory import ones_like

        return (ones_like(outputs[0]),)
    _, vs = _as_tuple(v, "v", fn)
    if len(vs) != len(outputs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got {len(vs)}.")
    for vi, o in zip(vs, outputs):
        if vi._data.shape != o._data.shape:
            raise RuntimeError(f"Entry 0 in v has invalid size: should be {list(o.shape)} but got "
                               f"{list(vi.shape)}.")
    return vs


def _zeros_for_none(grads: tuple, like: tuple) -> tuple:
    from ..factory import zeros_like

    return tuple(zeros_like(x) if g is None else g for g, x in zip(grads, like))


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), vᵀ·J)``."""
    create_graph = A.flag(create_graph, "vjp", "create_graph", strict=False)
    is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    with grad_mode.enable_grad():
        inputs = _preprocess(inputs, create_graph)
        out = _call(func, inputs)
        out_tuple, outputs = _outputs(out, "vjp")
        vs = _seed(v, outputs, "vjp", "user-provided function returns")
        grads = _grad(list(outputs), list(inputs), list(vs), create_graph=create_graph, allow_unused=True)
    grads = tuple(_finish(g, create_graph) for g in _zeros_for_none(grads, inputs))
    outs = tuple(_finish(o, create_graph) for o in outputs)
    return (outs if out_tuple else outs[0]), (grads if is_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J·v)``, by PyTorch's double-backward trick (two reverse passes)."""
    from ..factory import zeros_like

    create_graph = A.flag(create_graph, "jvp", "create_graph", strict=False)
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    with grad_mode.enable_grad():
        inputs = _preprocess(inputs, create_graph)
        vs = _seed(v, inputs, "jvp", "input to the user-provided function")
        out_tuple, outputs = _outputs(_call(func, inputs), "jvp")
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        grads = _grad(list(outputs), list(inputs), list(dummies), create_graph=True, allow_unused=True)
        live = [(g, vi) for g, vi in zip(grads, vs) if g is not None]
        if live:
            jv = _grad([g for g, _ in live], list(dummies), [vi for _, vi in live], create_graph=create_graph,
                       allow_unused=True)
        else:
            jv = (None,) * len(dummies)
    jv = tuple(_finish(j, create_graph) for j in _zeros_for_none(jv, outputs))
    outs = tuple(_finish(o, create_graph) for o in outputs)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), vᵀ·H)`` for a scalar ``func``."""
    return _hessian_product("vhp", func, inputs, v, create_graph)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H·v)`` for a scalar ``func`` (H is symmetric: the same as vhp)."""
    return _hessian_product("hvp", func, inputs, v, create_graph)


def _hessian_product(fn: str, func, inputs, v, create_graph: bool):
    create_graph = A.flag(create_graph, fn, "create_graph", strict=False)
    is_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    with grad_mode.enable_grad():
        inputs = _preprocess(inputs, create_graph)
        vs = _seed(v, inputs, fn, "input to the user-provided function")
        out_tuple, outputs = _outputs(_call(func, inputs), fn)
        if len(outputs) != 1 or outputs[0]._data.size != 1:
            raise RuntimeError(f"The function given to {fn} should return a Tensor with a single element")
        grads = _grad(outputs[0], list(inputs), create_graph=True, allow_unused=True)
        live = [(g, vi) for g, vi in zip(grads, vs) if g is not None]
        total = None
        for g, vi in live:
            term = (g * vi).sum()
            total = term if total is None else total + term
        if total is None or not total.requires_grad:
            hv = (None,) * len(inputs)
        else:
            hv = _grad(total, list(inputs), create_graph=create_graph, allow_unused=True)
    hv = tuple(_finish(h, create_graph) for h in _zeros_for_none(hv, inputs))
    out = _finish(outputs[0], create_graph)
    return (out, hv if is_tuple else hv[0])

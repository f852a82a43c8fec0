"""``torch.autograd.gradcheck`` and ``gradgradcheck``: a function's analytical Jacobian (one
backward pass per output element) against central differences (two calls of the function per
input element), compared with ``allclose`` as torch's slow mode does, with torch's messages.

The program's function is called as engine code calls any callable the program gave it, so every
call runs through the runner and its limits. torch's extra checks of a correct backward (running
it twice for reentrancy, with zero and undefined gradients) are not repeated: the engine's
backward is deterministic and always defined.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import arguments as A
from ..tensor import Tensor
from . import grad as _grad


class GradcheckError(RuntimeError):
    """A gradient that does not match its finite-difference estimate (torch's error type)."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _check_inputs(inputs: tuple) -> list[int]:
    """The indices of the inputs to differentiate, with torch's warning and error."""
    wanted = []
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad:
            if x._data.dtype != np.float64:
                warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double "
                              "precision floating point or complex. ", UserWarning, stacklevel=3)
            wanted.append(i)
    if not wanted:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of "
                         "them have requires_grad=True.")
    return wanted


def _outputs(value) -> tuple:
    outs = _as_tuple(value)
    for o in outs:
        if not isinstance(o, Tensor):
            # torch reads requires_grad of every output: Python's error for anything else
            raise AttributeError(f"'{A.type_name(o)}' object has no attribute 'requires_grad'")
    return outs


def _numerical(func, inputs: tuple, index: int, outs: tuple, eps: float) -> list[np.ndarray]:
    """d(every output)/d(input ``index``) by central differences: one (input numel, output numel)
    array per output, in the outputs' dtypes."""
    x = inputs[index]
    data = x._data
    jac = [np.zeros((data.size, o._data.size), dtype=o._data.dtype) for o in outs]
    step = data.dtype.type(eps)
    for k in range(data.size):
        where = np.unravel_index(k, data.shape)
        orig = data[where].copy()
        data[where] = orig - step
        below = [o._data.copy() for o in _outputs(func(*inputs))]  # copies: an output may alias x
        data[where] = orig + step
        above = [o._data.copy() for o in _outputs(func(*inputs))]
        data[where] = orig
        for col, b, a in zip(jac, below, above):
            diff = (a - b) / (2 * eps)
            col[k] = np.asarray(diff, dtype=col.dtype).reshape(-1)
    return jac


def _analytical(output: Tensor, inputs: list[Tensor]) -> list[np.ndarray]:
    """d(output)/d(each input) from backward passes: one (input numel, output numel) array each."""
    jac = [np.zeros((x._data.size, output._data.size), dtype=x._data.dtype) for x in inputs]
    seed = np.zeros(output._data.size, dtype=output._data.dtype)
    for j in range(output._data.size):
        seed[:] = 0
        seed[j] = 1
        grads = _grad([output], inputs, [Tensor._make(seed.reshape(output._data.shape).copy())],
                      retain_graph=True, allow_unused=True)
        for col, g in zip(jac, grads):
            if g is not None:
                col[:, j] = g._data.reshape(-1)
    return jac


def _allclose(a: np.ndarray, n: np.ndarray, rtol: float, atol: float) -> bool:
    a, n = np.asarray(a, np.result_type(a, n)), np.asarray(n, np.result_type(a, n))
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _mismatch(i: int, j: int, numerical: np.ndarray, analytical: np.ndarray) -> str:
    return (f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{Tensor._make(numerical)}\nanalytical:{Tensor._make(analytical)}\n")


def _check(func, inputs: tuple, eps: float, atol: float, rtol: float) -> None:
    wanted = _check_inputs(inputs)
    outs = _outputs(func(*inputs))
    diff_outs = [o for o in outs if o.requires_grad]
    numerical = [_numerical(func, inputs, i, outs, eps) for i in wanted]
    if not diff_outs:
        if any(np.any(col != 0) for per_input in numerical for col in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    diff_index = [i for i, o in enumerate(outs) if o.requires_grad]
    targets = [inputs[i] for i in wanted]
    for i, (o, k) in enumerate(zip(diff_outs, diff_index)):
        for j, a in enumerate(_analytical(o, targets)):
            n = numerical[j][k]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(i, j, n, a))


def _numbers(eps, atol, rtol, raise_exception) -> tuple:
    return (A.real(eps, "gradcheck", "eps"), A.real(atol, "gradcheck", "atol"),
            A.real(rtol, "gradcheck", "rtol"),
            A.flag(raise_exception, "gradcheck", "raise_exception", strict=False))


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **options) -> bool:
    """True when ``func``'s gradients w.r.t. its inputs that require grad match central
    differences (``|analytical − numerical| ≤ atol + rtol·|numerical|``); otherwise raises
    GradcheckError, or returns False with ``raise_exception=False``. Other torch options are
    accepted and change nothing."""
    eps, atol, rtol, raise_exception = _numbers(eps, atol, rtol, raise_exception)
    try:
        _check(func, _as_tuple(inputs), eps, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, raise_exception: bool = True, **options) -> bool:
    """gradcheck of the function (inputs, grad_outputs) → the gradients of ``func``'s outputs
    w.r.t. its inputs, taken with ``create_graph=True``: second derivatives checked against
    differences of first ones. Without ``grad_outputs``, random ones in [−1, 1) drawn from the
    default generator as torch draws them."""
    from ..factory import empty

    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = [o for o in _outputs(func(*inputs)) if o.requires_grad]
        grad_outputs = tuple(empty(tuple(o.shape), dtype=o.dtype).uniform_(-1, 1).requires_grad_()
                             for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    wanted = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivatives(*args):
        outs = [o for o in _outputs(func(*args[:-n_out])) if o.requires_grad]
        diff_inputs = [args[i] for i in wanted]
        grads = _grad(outs, diff_inputs, list(args[-n_out:]), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

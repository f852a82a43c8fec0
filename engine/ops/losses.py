"""The losses of ``torch.nn.functional``: nll_loss (and cross_entropy on it), mse_loss, l1_loss,
and what every loss shares (``reduction_mode``, ``reduce_loss``, ``mean_scaled``, ``reduced_like``,
``loss_inputs``). Their table entries, then the functions with torch's argument checks, error texts
and op structure. The binary losses are in engine/ops/losses_binary.py.

Integer targets and loss weights are not graph inputs in PyTorch (its grad_fn has no edge for
them), so they travel as params: nested tuples, which the trace can show and serialize.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..dtypes import scalar_name
from ..errors import not_supported
from ..tensor import Tensor
from .activations import log_softmax
from .arithmetic import mul, neg, sub
from .cascade import torch_mean, torch_sum
from .cascade_kernels import nll_sum
from .elementwise import abs
from .explain import X0, X1, Ex, G, extra, scaled, vjp
from .losses_common import IGNORE_INDEX, MEAN, NO_SMOOTHING, common_cross_entropy, nll_mean_rows
from .losses_smoothing import check_smoothing, smoothed_nll, smoothed_targets
from .reduce import mean, sum
from .shape import expand, reshape
from .table import OPS, public, register
from .wrappers import check_broadcast


# ---- reductions shared by the losses ------------------------------------------------------------
def reduce_loss(loss: np.ndarray, reduction: str) -> np.ndarray:
    """A loss's elementwise values reduced as ``reduction`` says ("mean", "sum" or "none")."""
    if reduction == "mean":
        return torch_mean(loss)
    if reduction == "sum":
        return torch_sum(loss)
    return loss


def mean_scaled(g, s, n_shape):
    """Upstream gradient ready for elementwise use: divided by n for ``mean``."""
    if s.p["reduction"] == "mean":
        n = int(np.prod(n_shape, dtype=np.int64))
        return g / n
    return g


# ---- nll_loss -----------------------------------------------------------------------------------
def _nll(a, target, weight, reduction, ignore_index):
    if (weight is None and reduction == "mean" and type(target) is list and a.ndim == 2 and target
            and a.dtype.char in "fd" and ignore_index not in target):
        return nll_mean_rows(a, target)  # cross_entropy's every call in training
    t = np.asarray(target, dtype=np.int64)
    # The common case (no class weights, no ignored target) needs no weight array: every weight
    # is 1, so the sums below are those of the general case without the multiplications by 1.
    # (float16, char "e", keeps the general path: its sum of ones is not exact past 2048.)
    ones = False
    if weight is None and a.dtype.char != "e":
        if type(target) is list and t.ndim == 1:  # a flat list: Python's `in` beats NumPy calls here
            ones = ignore_index not in target
        else:
            ones = not (t == ignore_index).any()
    if ones:
        tc = t
    else:
        valid = t != ignore_index
        tc = np.where(valid, t, 0)
    # One (batch, class, spatial...) index per target: the class axis is 0 for a 1-D input, else 1.
    if a.ndim == 1:
        where = (tc,)
    elif t.ndim == 1:
        where = (np.arange(t.shape[0]), tc)
    else:
        grid = np.indices(t.shape, sparse=True)
        where = (grid[0], tc, *grid[1:])
    picked = a[where]
    coef = np.zeros(a.shape, dtype=a.dtype)
    if ones:
        if reduction == "none":
            out = np.negative(picked)
            coef[where] = -1
        else:
            out = nll_sum(np.negative(picked))
            coef[where] = -1
            if reduction == "mean":
                denom = np.asarray(t.size, dtype=a.dtype)
                return np.asarray(out / denom, dtype=a.dtype), {"coef": coef, "denom": denom}
        return np.asarray(out, dtype=a.dtype), {"coef": coef}
    if weight is None:
        wt = valid.astype(a.dtype)
    else:
        wt = (np.asarray(weight, dtype=a.dtype)[tc] * valid).astype(a.dtype, copy=False)
    losses = -wt * picked
    if reduction == "none":
        out, denom = losses, None
    elif reduction == "sum":
        out, denom = nll_sum(losses, valid), None
    else:
        denom = nll_sum(wt, valid) if weight is not None else a.dtype.type(np.count_nonzero(valid))
        out = nll_sum(losses, valid) / denom
    # The gradient of every log-probability: −wₜ where it was picked, 0 elsewhere (0 − wₜ: an ignored
    # target's +0, not −0, as torch leaves it); for mean, the rule first divides the upstream gradient
    # by Σw, as torch does (its last digits are those of (g / Σw) · w, not of g · (w / Σw))
    coef[where] = a.dtype.type(0) - wt
    if denom is None:
        return np.asarray(out, dtype=a.dtype), {"coef": coef}
    return np.asarray(out, dtype=a.dtype), {"coef": coef, "denom": np.asarray(denom, dtype=a.dtype)}


def _nll_vjp(g, s):
    coef = s.x["coef"]
    if type(g) is np.ndarray and s.p["reduction"] == "mean" and g.dtype == coef.dtype:
        return (g / s.x["denom"]) * coef  # the general rule below, without its casts (none is needed)
    xp = s.xp
    if s.p["reduction"] == "none" and coef.ndim > 1:
        gd = xp.data(g)
        g = xp.reshape(g, gd.shape[:1] + (1,) + gd.shape[1:])
    elif s.p["reduction"] == "mean":
        g = g / xp.const(s.x["denom"], xp.data(g))
    return g * xp.const(coef, xp.data(g))


def reduced_like(x, s):
    """A loss's elementwise share of tangent, reduced as the loss is (the 1/n of "mean" is in it)."""
    return x if s.p["reduction"] == "none" else s.xp.sum(x)


def _nll_jvp(t, s):
    """−w·ẋ at each picked log-probability (÷ Σw for mean), summed over the classes (and the batch
    when reduced)."""
    prod = s.x["coef"] * s.xp.data(t)
    if s.p["reduction"] == "mean":
        return prod.sum() / s.x["denom"]
    if s.p["reduction"] != "none":
        return prod.sum()
    return prod.sum(axis=0 if prod.ndim == 1 else 1)


register("nll_loss", "NllLossBackward0", _nll,
         [_nll_vjp],
         ["∂nll/∂xₙ,ₖ = −wₖ (÷ Σw for mean) if k = targetₙ, else 0"],
         description="negative log-likelihood: −w[t]·x[n, t], reduced",
         jvps=[_nll_jvp], jvp_formulas=["−w[t]·ẋ[n, t] (÷ Σw for mean), reduced"],
         explain=vjp("nll_loss({0}, {target})", "负对数似然：−w[t]·x[n, t]，再归约",
                     Ex("per_class", (G,)) * extra("coef")))
register("nll_loss2d", "NllLoss2DBackward0", _nll,
         [_nll_vjp],
         ["∂nll/∂xₙ,ₖ,ᵢ,ⱼ = −wₖ (÷ Σw for mean) if k = targetₙ,ᵢ,ⱼ, else 0"],
         description="negative log-likelihood per position of an (N, C, H, W) input, reduced",
         jvps=[_nll_jvp], jvp_formulas=["−w[t]·ẋ[n, t, i, j] (÷ Σw for mean), reduced"],
         explain=vjp("nll_loss({0}, {target})", "对 (N, C, H, W) 输入的每个位置计算负对数似然，再归约",
                     Ex("per_class", (G,)) * extra("coef")))


# ---- mse_loss -----------------------------------------------------------------------------------
def _mse(a, b, reduction):
    d = a - b
    return reduce_loss(d * d, reduction)


def _mse_vjp_a(g, s):
    return s.xp.mse_loss_backward(g, s.a, s.b, s.p["reduction"])


def _mse_vjp_b(g, s):  # PyTorch's rule for the target: the same formula with the two swapped
    return s.xp.mse_loss_backward(g, s.b, s.a, s.p["reduction"])


def _mse_jvp(t, x, y, s):
    return reduced_like(2 * (x - y) * mean_scaled(t, s, s.xp.data(x).shape), s)


register("mse_loss", "MseLossBackward0", _mse,
         [_mse_vjp_a, _mse_vjp_b],
         ["∂(x−y)²/∂x = 2(x−y) (÷ n for mean)", "∂(x−y)²/∂y = −2(x−y) (÷ n for mean)"],
         saves=("a", "b"), promote=True, description="mean squared error (x − y)², reduced",
         jvps=[lambda t, s: _mse_jvp(t, s.a, s.b, s), lambda t, s: _mse_jvp(t, s.b, s.a, s)],
         jvp_formulas=["2(x−y)·ẋ (÷ n for mean), reduced", "−2(x−y)·ẏ (÷ n for mean), reduced"],
         explain=vjp("mse_loss({0}, {1})", "均方误差 (x − y)²，再归约",
                     2 * (X0 - X1) * scaled(G), -2 * (X0 - X1) * scaled(G)))


# ---- reductions of the losses -------------------------------------------------------------------
def reduction_mode(size_average, reduce, reduction: str, fn: str = "loss") -> str:
    """torch's legacy ``size_average``/``reduce`` arguments folded into ``reduction``."""
    if size_average is not None:
        size_average = A.flag(size_average, fn, "size_average", strict=False)
    if reduce is not None:
        reduce = A.flag(reduce, fn, "reduce", strict=False)
    reduction = A.string(reduction, fn, "reduction")
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", UserWarning, stacklevel=3)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def loss_inputs(fn: str, input, target, weight=None) -> tuple:
    """A loss's tensors, checked: input, target and the optional weight."""
    return (A.tensor(input, fn, "input", 1), A.tensor(target, fn, "target", 2),
            A.optional_tensor(weight, fn, "weight", 3))


def _no_grad_weight(w: Tensor | None, fn: str):
    if w is None:
        return None
    if w.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    return w._data.tolist()


# ---- losses -------------------------------------------------------------------------------------
@public("F")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices (NllLossBackward0); ``input`` holds log-probabilities."""
    input, target, weight = loss_inputs("nll_loss", input, target, weight)
    ignore_index = A.integer(ignore_index, "nll_loss", "ignore_index")
    reduction = reduction_mode(size_average, reduce, reduction, "nll_loss")
    _check_nll_shapes(input, target)
    return _nll_checked(input, target, weight, ignore_index, reduction)


def _nll_checked(input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str) -> Tensor:
    """nll_loss after its argument checks (cross_entropy has run them on the logits already)."""
    nd = input._data.ndim
    n_classes = input._data.shape[0 if nd == 1 else 1]
    t = target._data
    if nd == 2 and t.ndim == 1:  # (batch, classes): the targets as the list the params keep, checked there
        targets = t.tolist()
        if targets and (min(targets) < 0 or max(targets) >= n_classes):
            _check_bounds(t, n_classes, ignore_index)
        return _nll_apply("nll_loss", input, targets, weight, reduction, ignore_index)
    if t.size and _out_of_bounds(t, n_classes):
        _check_bounds(t, n_classes, ignore_index)
    if nd == 1:
        t = t.reshape(())  # a (1,) target for a 1-D input counts as one sample, as in torch
    if nd in (1, 2, 4):
        return _nll_apply("nll_loss2d" if nd == 4 else "nll_loss", input, t, weight, reduction, ignore_index)
    # torch folds other shapes into (N, C, 1, -1) for the 2-D kernel and views the result back.
    n = input.shape[0]
    flat = reshape(input, (n, n_classes, 1, -1))
    out = _nll_apply("nll_loss2d", flat, t.reshape(n, 1, -1), weight, reduction, ignore_index)
    return reshape(out, (n,) + tuple(input.shape[2:])) if reduction == "none" else out


def _check_bounds(t: np.ndarray, n_classes: int, ignore_index: int) -> None:
    """torch's error for the first target outside [0, n_classes) that is not ``ignore_index``."""
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if np.any(bad):
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")


def _out_of_bounds(t: np.ndarray, n_classes: int) -> bool:
    """Some target outside [0, n_classes): one reduction (int64 read as unsigned puts the negatives
    above every class)."""
    if t.dtype == _INT64:
        return bool(np.maximum.reduce(t.view(np.uint64), axis=None) >= n_classes)
    return bool(t.min() < 0 or t.max() >= n_classes)


_TARGET_DTYPES = (np.dtype(np.int64), np.dtype(np.uint8))  # dtype objects: cheaper to compare than types
_INT64 = _TARGET_DTYPES[0]


def _check_target_dtype(target: Tensor) -> None:
    if target._data.dtype not in _TARGET_DTYPES:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_name(target.dtype)}")


def _check_nll_shapes(input: Tensor, target: Tensor) -> None:
    """torch's checks of nll_loss's input and target, in torch's order and with its texts."""
    ishape, tshape = input._data.shape, target._data.shape
    nd = len(ishape)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and ishape[0] != (tshape[0] if tshape else 0):
        raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target batch_size "
                         f"({tshape[0] if tshape else 0}).")
    if nd <= 2:
        if len(tshape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and len(tshape) == 1 and tshape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
    elif nd == 4:
        if tshape[1:] != ishape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(ishape)} , target: {list(tshape)}")
    elif list(tshape) != [ishape[0]] + list(ishape[2:]):
        raise RuntimeError(f"Expected target size {[ishape[0]] + list(ishape[2:])}, got {list(tshape)}")
    _check_target_dtype(target)


def _nll_apply(op: str, input: Tensor, target, weight, reduction: str, ignore_index: int) -> Tensor:
    """The nll op on ``input``; ``target``: an array, or already the list of its values."""
    targets = target if type(target) is list else target.tolist()
    params = {"target": targets, "weight": _no_grad_weight(weight, "nll_loss_forward"),
              "reduction": reduction, "ignore_index": int(ignore_index)}
    return apply(OPS[op], (input,), params)


@public("F")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = IGNORE_INDEX, reduce=None, reduction: str = MEAN,
                  label_smoothing: float = NO_SMOOTHING) -> Tensor:
    """log_softmax over the class dim, then nll_loss (class indices) or −Σ p·log q (probabilities)."""
    if (weight is None and size_average is None and reduce is None and reduction is MEAN
            and ignore_index is IGNORE_INDEX and label_smoothing is NO_SMOOTHING):
        loss = common_cross_entropy(input, target)
        if loss is not None:
            return loss
    input, target, weight = loss_inputs("cross_entropy", input, target, weight)
    ignore_index = A.integer(ignore_index, "cross_entropy", "ignore_index")
    label_smoothing = A.real(label_smoothing, "cross_entropy", "label_smoothing")
    reduction = reduction_mode(size_average, reduce, reduction, "cross_entropy")
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{scalar_name(target.dtype)}")
        logp = log_softmax(input, class_dim)
        if check_smoothing(label_smoothing):
            target = smoothed_targets(target, label_smoothing, input.shape[class_dim])
        return _cross_entropy_probs(logp, target, weight, reduction, class_dim)
    _check_nll_shapes(input, target)
    if input._data.ndim == 2 and input._data.dtype.kind == "f":  # (batch, classes): log_softmax's checks hold
        logp = apply(OPS["log_softmax"], (input,), {"dim": 1})
    else:
        logp = log_softmax(input, class_dim)
    loss = _nll_checked(logp, target, weight, ignore_index, reduction)
    if check_smoothing(label_smoothing):
        loss = smoothed_nll(loss, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim)
    return loss


def _cross_entropy_probs(logp: Tensor, target: Tensor, weight, reduction: str, class_dim: int) -> Tensor:
    """torch's cross_entropy with class-probability targets, op for op."""
    prod = mul(logp, target)
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = weight.shape[0]
        prod = mul(prod, reshape(weight, tuple(shape)))
    if reduction == "none":
        return neg(sum(prod, class_dim))
    total = neg(sum(prod))
    if reduction == "sum":
        return total
    n = logp.numel() / logp.shape[class_dim]
    return apply(OPS["div_scalar"], (total,), {"other": n})


def _warn_broadcast(input: Tensor, target: Tensor) -> None:
    warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                  f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                  "Please ensure they have the same size.", UserWarning, stacklevel=3)


def _expand_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """torch.broadcast_tensors: expand whichever side differs from the common shape."""
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    if tuple(input.shape) != shape:
        input = expand(input, shape)
    if tuple(target.shape) != shape:
        target = expand(target, shape)
    return input, target


@public("F")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error (MseLossBackward0)."""
    input, target, _ = loss_inputs("mse_loss", input, target)
    reduction = reduction_mode(size_average, reduce, reduction, "mse_loss")
    if weight is not None:
        raise not_supported("mse_loss with weight")
    if tuple(target.shape) != tuple(input.shape):
        _warn_broadcast(input, target)
        check_broadcast(input, target)
        input, target = _expand_pair(input, target)
    return apply(OPS["mse_loss"], (input, target), {"reduction": reduction})


@public("F")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Mean absolute error: |x − y| reduced (composite, as torch: AbsBackward0 then Mean/Sum)."""
    input, target, _ = loss_inputs("l1_loss", input, target)
    reduction = reduction_mode(size_average, reduce, reduction, "l1_loss")
    if tuple(target.shape) != tuple(input.shape):
        _warn_broadcast(input, target)
    loss = abs(sub(input, target))
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return sum(loss)
    return loss

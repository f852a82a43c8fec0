"""The losses of ``torch.nn.functional`` (re-exported by the package): nll_loss, cross_entropy, mse_loss,
l1_loss, binary_cross_entropy and binary_cross_entropy_with_logits, with torch's argument checks,
error texts and op structure."""

from __future__ import annotations

import warnings

import numpy as np

from ... import arguments as A
from ...dispatch import apply
from ...ops import api
from ...ops.table import OPS
from ...tensor import Tensor


def _scalar_name(t: Tensor) -> str:
    """torch's ScalarType name of a tensor's dtype: Float, Double, Long, ..."""
    return t.dtype._type_desc[len("torch."):-len("Tensor")]


# ---- reductions of the losses -------------------------------------------------------------------
def _reduction(size_average, reduce, reduction: str, fn: str = "loss") -> str:
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


def _inputs(fn: str, input, target, weight=None) -> tuple:
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
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices (NllLossBackward0); ``input`` holds log-probabilities."""
    input, target, weight = _inputs("nll_loss", input, target, weight)
    ignore_index = A.integer(ignore_index, "nll_loss", "ignore_index")
    reduction = _reduction(size_average, reduce, reduction, "nll_loss")
    _check_nll_shapes(input, target)
    return _nll_checked(input, target, weight, ignore_index, reduction)


def _nll_checked(input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str) -> Tensor:
    """nll_loss after its argument checks (cross_entropy has run them on the logits already)."""
    nd = input._data.ndim
    n_classes = input._data.shape[0 if nd == 1 else 1]
    t = target._data
    if t.size and _out_of_bounds(t, n_classes):
        bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
        if np.any(bad):
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    if nd == 1:
        t = t.reshape(())  # a (1,) target for a 1-D input counts as one sample, as in torch
    if nd in (1, 2, 4):
        return _nll_apply("nll_loss2d" if nd == 4 else "nll_loss", input, t, weight, reduction, ignore_index)
    # torch folds other shapes into (N, C, 1, -1) for the 2-D kernel and views the result back.
    n = input.shape[0]
    flat = api.reshape(input, (n, n_classes, 1, -1))
    out = _nll_apply("nll_loss2d", flat, t.reshape(n, 1, -1), weight, reduction, ignore_index)
    return api.reshape(out, (n,) + tuple(input.shape[2:])) if reduction == "none" else out


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
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar_name(target)}")


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
    params = {"target": target.tolist(), "weight": _no_grad_weight(weight, "nll_loss_forward"),
              "reduction": reduction, "ignore_index": int(ignore_index)}
    return apply(OPS[op], (input,), params)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the class dim, then nll_loss (class indices) or −Σ p·log q (probabilities)."""
    input, target, weight = _inputs("cross_entropy", input, target, weight)
    ignore_index = A.integer(ignore_index, "cross_entropy", "ignore_index")
    label_smoothing = A.real(label_smoothing, "cross_entropy", "label_smoothing")
    reduction = _reduction(size_average, reduce, reduction, "cross_entropy")
    if label_smoothing != 0.0:
        raise RuntimeError("cross_entropy with label_smoothing is not supported by gradviz")
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{_scalar_name(target)}")
        return _cross_entropy_probs(api.log_softmax(input, class_dim), target, weight, reduction, class_dim)
    _check_nll_shapes(input, target)
    logp = api.log_softmax(input, class_dim)
    return _nll_checked(logp, target, weight, ignore_index, reduction)


def _cross_entropy_probs(logp: Tensor, target: Tensor, weight, reduction: str, class_dim: int) -> Tensor:
    """torch's cross_entropy with class-probability targets, op for op."""
    prod = api.mul(logp, target)
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = weight.shape[0]
        prod = api.mul(prod, api.reshape(weight, tuple(shape)))
    if reduction == "none":
        return api.neg(api.sum(prod, class_dim))
    total = api.neg(api.sum(prod))
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
        input = api.expand(input, shape)
    if tuple(target.shape) != shape:
        target = api.expand(target, shape)
    return input, target


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error (MseLossBackward0)."""
    input, target, _ = _inputs("mse_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "mse_loss")
    if weight is not None:
        raise RuntimeError("mse_loss with weight is not supported by gradviz")
    if tuple(target.shape) != tuple(input.shape):
        _warn_broadcast(input, target)
        api._broadcast_check(input, target)
        input, target = _expand_pair(input, target)
    return apply(OPS["mse_loss"], (input, target), {"reduction": reduction})


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Mean absolute error: |x − y| reduced (composite, as torch: AbsBackward0 then Mean/Sum)."""
    input, target, _ = _inputs("l1_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "l1_loss")
    if tuple(target.shape) != tuple(input.shape):
        _warn_broadcast(input, target)
    loss = api.abs(api.sub(input, target))
    if reduction == "mean":
        return api.mean(loss)
    if reduction == "sum":
        return api.sum(loss)
    return loss


def _same_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")


def _weight_like(w: Tensor | None, input: Tensor, fn: str):
    if w is None:
        return None
    if w.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    return np.broadcast_to(w._data, tuple(input.shape)).tolist()


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """−w[y·log p + (1−y)·log(1−p)] with the logs clamped at −100 (BinaryCrossEntropyBackward0)."""
    input, target, weight = _inputs("binary_cross_entropy", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "binary_cross_entropy")
    _same_size(input, target)
    params = {"weight": _weight_like(weight, input, "binary_cross_entropy"), "reduction": reduction}
    return apply(OPS["binary_cross_entropy"], (input, target), params)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy on logits, computed stably (BinaryCrossEntropyWithLogitsBackward0)."""
    fn = "binary_cross_entropy_with_logits"
    input, target, weight = _inputs(fn, input, target, weight)
    pos_weight = A.optional_tensor(pos_weight, fn, "pos_weight")
    reduction = _reduction(size_average, reduce, reduction, fn)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    pw = None
    if pos_weight is not None:
        if pos_weight.requires_grad:
            raise RuntimeError("pos_weight that requires grad is not supported by gradviz")
        pw = np.broadcast_to(pos_weight._data, tuple(input.shape)).tolist()
    params = {"weight": _weight_like(weight, input, "binary_cross_entropy_with_logits"), "pos_weight": pw,
              "reduction": reduction}
    return apply(OPS["binary_cross_entropy_with_logits"], (input, target), params)

"""The Tensor: a NumPy array plus autograd state, with PyTorch's attributes and rules.

Op methods (``x.exp()``, ``x + y``, ...) are published by the op modules next to their table
entries and attached by ``engine.ops.api``; this module holds the state and the autograd-facing
attributes.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import dtypes, errors, grad_mode, view_history
from . import trace as _trace_mod
from .errors import not_supported
from .function import AccumulateGrad
from .naming import torch_path

_SIZE_METHODS = ("count", "index", "numel")


@torch_path("torch")
class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``; immutable, as torch's
    (no attribute can be set)."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        if type(sizes) not in (list, tuple, cls, range):
            raise TypeError(f"'{type(sizes).__name__}' object is not iterable")
        out = []
        for i, s in enumerate(sizes):
            if type(s) is int:
                out.append(s)
            elif isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
                out.append(int(s._data.reshape(()).item()))
            elif type(s) in _NP_INTS:
                out.append(int(s))
            else:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')")
        return tuple.__new__(cls, out)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    __str__ = __repr__

    def __setattr__(self, name: str, value) -> None:
        raise errors.read_only("torch.Size", name, (), _SIZE_METHODS)

    def __delattr__(self, name: str) -> None:
        raise errors.read_only("torch.Size", name, (), _SIZE_METHODS)

    def __setitem__(self, index, value) -> None:
        raise TypeError("'torch.Size' object does not support item assignment")

    def __delitem__(self, index) -> None:
        raise TypeError("'torch.Size' object doesn't support item deletion")

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= int(s)
        return n


@torch_path("torch")
class Tensor:
    """A multi-dimensional array that can record the ops applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_vc", "_retains_grad", "_is_param",
                 "_trace", "_name", "_acc", "_base", "_nr", "_gv", "__weakref__")

    __array_priority__ = 1000  # so ndarray op Tensor defers to Tensor's reflected operators

    def __new__(cls, *args, **kwargs):
        """The legacy constructor ``torch.Tensor(...)``: ``Tensor([[1, 2]])`` (data, as floats of the
        default dtype), ``Tensor(2, 3)`` (a shape: zeros here, uninitialised in PyTorch), ``Tensor()``."""
        from .factory import legacy_tensor

        return legacy_tensor(args, kwargs)

    def __init__(self, *args, **kwargs):
        pass  # everything happened in __new__

    # ---- construction (internal) -------------------------------------------------------
    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False, vc=None) -> Tensor:
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad = None
        t._grad_fn = None
        if vc is None:
            vc = [0] if not grad_mode._inference else grad_mode.InferenceCounter((0,))
        t._vc = vc
        t._retains_grad = False
        t._is_param = False
        t._trace = None
        t._name = None
        t._acc = None
        t._base = None  # for views: the tensor whose storage this one shares
        return t

    def _accumulator(self) -> AccumulateGrad:
        # The leaf holds its AccumulateGrad weakly (the graph holds it strongly), as PyTorch does:
        # a strong pair would be a reference cycle per leaf, freed only by the cyclic GC.
        ref = self._acc
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    # ---- metadata ----------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or the length of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_norm_dim(dim, self._data.ndim, "size")]

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    def nelement(self) -> int:
        return int(self._data.size)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    @property
    def device(self):
        """Always the CPU: gradviz computes there."""
        from .device import CPU

        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def get_device(self) -> int:
        return -1

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
        """Fails as in a PyTorch without GPUs."""
        from .device import NO_CUDA

        raise AssertionError(NO_CUDA)

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        return int(self._data.itemsize)

    def element_size(self) -> int:
        return int(self._data.itemsize)

    @property
    def _version(self) -> int:
        vc = self._vc
        if type(vc) is not list:
            raise RuntimeError("Inference tensors do not track version counter.")
        return vc[0]

    # ---- autograd state ------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad in place (leaves only, as in PyTorch)."""
        if type(requires_grad) is not bool:
            from .arguments import flag

            requires_grad = flag(requires_grad, "requires_grad_", "requires_grad", 1)
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(errors.NON_LEAF_REQUIRES_GRAD)
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError(errors.ONLY_FLOAT_REQUIRES_GRAD_)
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn if self._base is None else view_history.current(self)

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return
        self._retains_grad = True
        fn = self._grad_fn
        if fn.multi:  # an output of a multi-output node: kept by its output number
            fn.retained[self._nr] = self
        else:
            fn.retained = self
        rec = _trace_mod.ACTIVE
        if rec is not None:
            rec.retains_grad(self._grad_fn)

    @property
    def data(self) -> Tensor:
        """The same storage, detached from the graph."""
        t = Tensor._make(self._data, False)
        if self._requires_grad and _trace_mod.ACTIVE is not None:
            _trace_mod.note_cut(self, t, "data")
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def detach(self) -> Tensor:
        """A tensor sharing storage (and version counter), with no history."""
        t = Tensor._make(self._data, False, self._vc)
        if self._requires_grad and _trace_mod.ACTIVE is not None:
            _trace_mod.note_cut(self, t, "detach")
        return t

    def detach_(self) -> Tensor:
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ---- conversion ----------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self._requires_grad and _trace_mod.ACTIVE is not None:
            _trace_mod.note_cut(self, None, "item")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        return self._data

    def __float__(self) -> float:
        if self._requires_grad:
            warnings.warn(errors.SCALAR_OF_GRAD, UserWarning, stacklevel=2)
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __hash__(self) -> int:
        return object.__hash__(self)

    def __repr__(self) -> str:
        from .printing import tensor_repr

        return tensor_repr(self)

    def __str__(self) -> str:
        return self.__repr__()  # so a subclass's __repr__ (nn.Parameter) also prints

    def __format__(self, spec: str) -> str:
        from .printing import tensor_format

        return tensor_format(self, spec, type(self) is Tensor and not self._is_param)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # PyTorch's too: one UnbindBackward0 for all the rows

    # ---- backward --------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Compute the gradient of this tensor w.r.t. graph leaves (see ``engine.autograd``)."""
        _autograd.backward([self], [gradient], retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """Call ``hook(grad)`` with the gradient reaching this tensor in every backward pass; a
        tensor it returns replaces the gradient. Returns a handle whose ``remove()`` undoes this."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not callable(hook):
            raise TypeError(f"'{type(hook).__name__}' object is not callable")
        from .hooks import register

        return register(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after every backward pass writes this leaf's ``.grad``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not callable(hook):
            raise TypeError(f"'{type(hook).__name__}' object is not callable")
        from .hooks import register_post_accumulate

        return register_post_accumulate(self, hook)


def _norm_dim(dim: int, ndim: int, fn: str = "dim") -> int:
    if type(dim) is not int:
        from .arguments import integer

        dim = integer(dim, fn, "dim")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


_NP_INTS = frozenset((np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64))
_CONSTANTS: dict = {}  # (number, dtype) -> a read-only 0-dim Tensor: wrapping 2.0 once, not per op
_CONST_VC = [0]  # wrapped numbers are never written in place: one shared version counter


def as_tensor_like(value, like: Tensor) -> Tensor | None:
    """Wrap a number for an op with ``like`` (torch's wrapped-number promotion); a tensor is
    itself and a numeric array becomes a tensor. None for anything else: the caller refuses it.

    A wrapped number is never handed to the program, written, nor given a gradient, so one
    Tensor serves every use of the same number, except while recording: there each use is a
    leaf of its own in the trace, named by its literal."""
    kind = type(value)
    if kind is float:  # the common case first: this runs for every ``x * 2.0``
        dt = like._data.dtype
        if dt.kind != "f":
            dt = dtypes.get_default_dtype().np
    elif isinstance(value, Tensor):
        return value
    elif kind is bool:
        dt = like._data.dtype
    elif kind is int:
        dt = like._data.dtype if like._data.dtype != np.bool_ else np.int64
    else:
        from . import arguments

        k = arguments.kind(value)
        if k is arguments.NUMBER:
            if kind is complex or value.dtype.kind == "c":
                raise not_supported("complex numbers")
            return as_tensor_like(value.item(), like)
        if k is arguments.ARRAY:
            from .factory import tensor

            return tensor(value)
        return None
    key = (value, dt)
    const = _CONSTANTS.get(key) if value else None  # 0.0 == -0.0: zeros are not shared
    if const is None:
        if len(_CONSTANTS) > 4096:
            _CONSTANTS.clear()
        arr = np.array(value, dtype=dt)
        arr.flags.writeable = False
        const = Tensor._make(arr, False, _CONST_VC)
        if value:
            _CONSTANTS[key] = const
    if _trace_mod.ACTIVE is None:
        return const
    t = Tensor._make(const._data, False, _CONST_VC)
    t._name = repr(value)  # the trace shows it by its literal (the app marks it is_constant)
    return t


# Keep grad_mode importable from here for the op layer's fast path.
grad_enabled = grad_mode.is_grad_enabled


from . import autograd as _autograd  # noqa: E402  (the walk, which builds on Tensor: bound once, not per call)

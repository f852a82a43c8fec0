"""PyTorch's legacy typed constructors (``torch.FloatTensor``, ``torch.LongTensor``, ...), which older
tutorials still use: ``torch.FloatTensor([1, 2])`` is a float32 tensor of that data,
``torch.FloatTensor(2, 3)`` an uninitialised one of that shape (zeros here), and
``isinstance(t, torch.FloatTensor)`` asks for a tensor of that dtype."""

from __future__ import annotations

from . import dtypes, factory
from .naming import torch_path
from .tensor import Size, Tensor

__all__ = ["BoolTensor", "ByteTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor", "LongTensor"]

_SIGNATURES = ("\n * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")


class _TypedMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor) and other.dtype is cls.dtype


def _options(dtype: dtypes.dtype) -> str:
    kind = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "uint8": "unsigned char", "bool": "bool"}[dtype.name]
    return (f"TensorOptions(dtype={kind}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _construct(dtype: dtypes.dtype, args: tuple, keywords: dict) -> Tensor:

    for name in keywords:
        if name != "device":
            got = ", ".join([type(a).__name__ for a in args]
                            + [f"{k}={type(v).__name__}" for k, v in keywords.items()])
            raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected "
                            f"one of:{_SIGNATURES}")
    if keywords.get("device") is not None:
        factory.empty(0, device=keywords["device"])  # the engine's device check and its error
    if not args:
        return factory.empty(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
        return other
    if len(args) == 1 and isinstance(args[0], Size) or all(type(a) is int for a in args):
        return factory.zeros(*args, dtype=dtype)
    if len(args) == 1:
        data = factory.tensor(args[0])
        return data.to(dtype) if data.dtype.is_floating_point and not dtype.is_floating_point else \
            factory.tensor(args[0], dtype=dtype)
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")


def _typed(name: str, dtype: dtypes.dtype) -> type:
    def new(cls, *args, **keywords):
        return _construct(dtype, args, keywords)

    doc = f"``torch.{name}(data)`` or ``torch.{name}(*size)``: a {dtype.name} tensor (legacy constructor)."
    cls = _TypedMeta(name, (), {"__new__": new, "__doc__": doc, "dtype": dtype, "__module__": __name__})
    return torch_path("torch")(cls)


HalfTensor = _typed("HalfTensor", dtypes.float16)
FloatTensor = _typed("FloatTensor", dtypes.float32)
DoubleTensor = _typed("DoubleTensor", dtypes.float64)
IntTensor = _typed("IntTensor", dtypes.int32)
LongTensor = _typed("LongTensor", dtypes.int64)
ByteTensor = _typed("ByteTensor", dtypes.uint8)
BoolTensor = _typed("BoolTensor", dtypes.bool_)

"""``torch.device`` and the device arguments every factory, ``.to`` and ``.cuda`` read.

gradviz computes on the CPU. A program may name any device PyTorch knows (``torch.device("cuda")``
is an ordinary object), but putting data on a GPU fails as it does with a PyTorch built without
CUDA, and ``torch.cuda.is_available()`` is False, so device-agnostic course code takes its CPU path.
"""

from __future__ import annotations

from . import arguments as A
from .errors import not_supported, read_only
from .naming import torch_path

_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
          "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
NO_CUDA = "Torch not compiled with CUDA enabled"
_FIELDS = ("type", "index")


@torch_path("torch")
class device:  # noqa: N801 - torch's name
    """``torch.device("cpu")``, ``torch.device("cuda", 0)``, ``torch.device("cuda:1")``.

    Immutable, as torch's: every tensor's ``.device`` is the one shared ``CPU``, so a device a
    program could change would change what every later program in the process sees."""

    __slots__ = ("type", "index")

    def __new__(cls, type, index=None):  # noqa: A002 - torch's argument name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif A.is_number(type):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        kind = A.string(type, "device", "type", 1)
        if ":" in kind and index is None:
            kind, _, number = kind.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device string: "
                               f"{kind}")
        self = object.__new__(cls)
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", None if index is None else A.integer(index, "device", "index", 2))
        return self

    def __setattr__(self, name: str, value) -> None:
        raise read_only("torch.device", name, _FIELDS)

    def __delattr__(self, name: str) -> None:
        raise read_only("torch.device", name, _FIELDS)

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return type(other) is device and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def check(value, fn: str = "to") -> None:
    """A ``device=`` argument: None, a device or a device string; any device but the CPU fails
    as it does in a PyTorch without GPUs."""
    if value is None:
        return
    if type(value) is not device:
        if type(value) is not str:
            raise TypeError(A.must(fn, "device", None, "torch.device", value))
        value = device(value)
    if value.type == "cpu":
        return
    if value.type == "cuda":
        raise AssertionError(NO_CUDA)
    raise not_supported(f"the '{value.type}' device (gradviz computes on the CPU)")


def is_device(value) -> bool:
    """A device or a string naming one (``.to("cpu")``, ``.to(device)``)."""
    if type(value) is device:
        return True
    if type(value) is str:
        kind = value.partition(":")[0]
        return kind in _TYPES
    return False

"""``torch.cuda`` of a machine without GPUs: nothing is available, and asking for a GPU fails as
it does with a PyTorch built without CUDA."""

from __future__ import annotations

from . import arguments as A
from .device import NO_CUDA

__all__ = ["current_device", "device_count", "get_device_name", "is_available", "manual_seed",
           "manual_seed_all", "synchronize"]


def is_available() -> bool:
    """False: gradviz computes on the CPU."""
    return False


def device_count() -> int:
    return 0


def current_device() -> int:
    raise AssertionError(NO_CUDA)


def get_device_name(device=None) -> str:
    raise AssertionError(NO_CUDA)


def synchronize(device=None) -> None:
    raise AssertionError(NO_CUDA)


def manual_seed(seed) -> None:
    """Seeding the GPUs' generators: nothing to seed (as PyTorch without GPUs, silently)."""
    A.integer(seed, "manual_seed", "seed", 1)


def manual_seed_all(seed) -> None:
    A.integer(seed, "manual_seed_all", "seed", 1)

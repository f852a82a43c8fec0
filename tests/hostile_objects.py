"""Hostile objects for the engine's argument checks: each class defines one of the special methods
NumPy and Python call on the objects they convert (``HAll`` defines them all), and every call of
one is recorded in ``INVOKED``. An engine that only reads what ``engine.arguments`` admits never
runs any of them."""

from __future__ import annotations

import numpy as np

INVOKED: list[tuple[str, str]] = []  # (class, special method) of every call made
_BUFFER = np.zeros(4)  # what the array protocols describe: a real, harmless buffer


def _note(obj, name: str) -> None:
    INVOKED.append((type(obj).__name__, name))


class HArrayInterface:
    @property
    def __array_interface__(self):
        _note(self, "__array_interface__")
        return _BUFFER.__array_interface__


class HArray:
    def __array__(self, dtype=None, copy=None):
        _note(self, "__array__")
        return np.zeros(2)


class HArrayStruct:
    @property
    def __array_struct__(self):
        _note(self, "__array_struct__")
        return _BUFFER.__array_struct__


class HIndex:
    def __index__(self):
        _note(self, "__index__")
        return 1


class HFloat:
    def __float__(self):
        _note(self, "__float__")
        return 1.0


class HInt:
    def __int__(self):
        _note(self, "__int__")
        return 1


class HSequence:
    def __len__(self):
        _note(self, "__len__")
        return 1

    def __getitem__(self, i):
        _note(self, "__getitem__")
        if i == 0:
            return 1.0
        raise IndexError(i)


class HIter:
    def __iter__(self):
        _note(self, "__iter__")
        return iter([1.0])


class HReduce:
    def __reduce__(self):
        _note(self, "__reduce__")
        return (int, ())


class HBuffer:
    def __buffer__(self, flags):
        _note(self, "__buffer__")
        return memoryview(bytearray(16))


class HAll(HArrayInterface, HArray, HArrayStruct, HIndex, HFloat, HInt, HSequence, HIter, HReduce, HBuffer):
    """Every protocol at once (a sequence, a number, an array and a buffer)."""


HOSTILE_CLASSES = (HArrayInterface, HArray, HArrayStruct, HIndex, HFloat, HInt, HSequence, HIter, HReduce,
                   HBuffer, HAll)


def placements(cls) -> list:
    """The ways a hostile object is handed over: alone, and inside lists, tuples and dicts."""
    return [cls(), [cls()], (1, cls()), [[1.0, cls()]], {"weight": cls()}]

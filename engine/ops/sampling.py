"""Tensor methods that fill a tensor in place with random numbers: ``uniform_``, ``normal_``,
``random_``, ``bernoulli_`` (and ``bernoulli``), drawn as PyTorch draws them (``engine.generator``).

They record no graph node: like PyTorch they refuse a leaf that requires grad while grad mode is
on, and a tensor whose value a graph computed is refused too (PyTorch would record a node whose
gradient is zero).
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import factory, grad_mode
from .. import generator as G
from .. import trace as _trace
from ..dispatch import check_inplace
from ..errors import not_supported
from ..tensor import Tensor
from .table import public


def _target(self, fn: str) -> Tensor:
    self = A.tensor(self, fn, "input", 1)
    check_inplace(self)
    if grad_mode._enabled and self._requires_grad:
        raise not_supported(f"Tensor.{fn} of a tensor a graph computed")
    return self


def _written(t: Tensor, fn: str, pending) -> Tensor:
    """``t`` after ``fn`` filled it: the trace notes the new value as any other in-place change."""
    _trace.after_update(t, fn, pending)
    return t


@public("Tensor")
def uniform_(self: Tensor, from_=0.0, to=1.0, *, generator=None) -> Tensor:
    """Fill with U[from, to) samples in place."""
    self = _target(self, "uniform_")
    pending = _trace.before_update(self)
    a, b = A.real(from_, "uniform_", "from", 1), A.real(to, "uniform_", "to", 2)
    return _written(factory.uniform_(self, a, b, generator), "uniform_", pending)


@public("Tensor")
def normal_(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    """Fill with N(mean, std²) samples in place."""
    self = _target(self, "normal_")
    pending = _trace.before_update(self)
    mean, std = A.real(mean, "normal_", "mean", 1), A.real(std, "normal_", "std", 2)
    return _written(factory.normal_(self, mean, std, generator), "normal_", pending)


@public("Tensor")
def random_(self: Tensor, from_=None, to=None, *, generator=None) -> Tensor:
    """Fill with integers in place: in [0, to) or [from, to), or without bounds every integer the
    dtype holds from 0 (for a float type, 0 to 2^mantissa digits)."""
    self = _target(self, "random_")
    pending = _trace.before_update(self)
    gen = G.pick(generator, "random_")
    data = self._data
    if from_ is not None and to is None:
        from_, to = 0, from_
    if from_ is None and to is None:
        values = G.random_full(gen, data.size, data.dtype)
    else:
        low = 0 if from_ is None else A.integer(from_, "random_", "from", 1)
        high = A.integer(to, "random_", "to", 2)
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                               f"to={high}")
        values = G.random_from_to(gen, data.size, data.dtype, low, high)
    self._data[...] = values.reshape(data.shape)
    self._vc[0] += 1
    return _written(self, "random_", pending)


@public("Tensor")
def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 samples in place: 1 with probability ``p`` (a number, or a tensor of them)."""
    self = _target(self, "bernoulli_")
    pending = _trace.before_update(self)
    gen = G.pick(generator, "bernoulli_")
    data = self._data
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, data.shape)
        values = G.bernoulli_tensor(gen, probs)
    else:
        p = A.real(p, "bernoulli_", "p", 1)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        values = G.bernoulli_scalar(gen, data.size, p).reshape(data.shape)
    self._data[...] = values
    self._vc[0] += 1
    return _written(self, "bernoulli_", pending)


@public("Tensor")
def bernoulli(self: Tensor, p=None, *, generator=None) -> Tensor:
    """0/1 samples with the probabilities this tensor holds (or ``p``): ``torch.bernoulli(self)``."""
    return factory.bernoulli(self, p, generator=generator)

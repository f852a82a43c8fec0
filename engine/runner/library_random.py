"""``random``: a read-only subset of Python's standard module, as course code uses it (d2l's
``data_iter`` shuffles indices with ``random.shuffle``; ``random.seed(0)`` makes a lesson repeatable).

The functions are Python's own methods on one ``random.Random`` per run, so a seed gives exactly the
numbers Python gives. Every run starts from ``Random(0)`` (the program runner resets it), so an
unseeded program answers the same each time, as every other generator of a run does. Arguments pass a
gate first: numbers within the run's integer limit, and for the sequence functions lists, tuples,
strings, ranges and tensors only (``shuffle``: a list), so no object of the program runs its methods.
"""

from __future__ import annotations

import random as _random
import types

from .. import limits
from ..errors import LimitError
from ..tensor import Tensor

_STATE = [_random.Random(0)]  # the run's generator (reset per run by engine_state)
_SEQUENCES = (list, tuple, str, range, Tensor)


def _number(value, fn: str):
    if type(value) not in (int, float, bool):
        raise TypeError(f"{fn}(): gradviz's random takes numbers here, not {type(value).__name__}")
    if type(value) is int:
        cap = limits.ACTIVE.max_int_bits if limits.ACTIVE is not None else None
        if cap is not None and value.bit_length() > cap:
            raise LimitError(f"an integer of about {value.bit_length():,} bits is over the limit of {cap:,} "
                             "bits (limit: max_int_bits)")
    return value


def _sequence(value, fn: str):
    if not isinstance(value, _SEQUENCES):
        raise TypeError(f"{fn}(): gradviz's random takes a list, tuple, str, range or tensor, not "
                        f"{type(value).__name__}")
    return value


def seed(a=None, version=2):
    """Seed the run's generator (an int, float or str; None: fresh entropy)."""
    if a is not None and type(a) not in (int, float, str, bool):
        raise TypeError("The only supported seed types are:\nNone, int, float, str, bytes, and bytearray.")
    _STATE[0].seed(_number(a, "seed") if type(a) in (int, float, bool) else a, version)


def random():
    """The next float in [0, 1)."""
    return _STATE[0].random()


def uniform(a, b):
    return _STATE[0].uniform(_number(a, "uniform"), _number(b, "uniform"))


def gauss(mu=0.0, sigma=1.0):
    return _STATE[0].gauss(_number(mu, "gauss"), _number(sigma, "gauss"))


def normalvariate(mu=0.0, sigma=1.0):
    return _STATE[0].normalvariate(_number(mu, "normalvariate"), _number(sigma, "normalvariate"))


def randint(a, b):
    return _STATE[0].randint(_number(a, "randint"), _number(b, "randint"))


def randrange(start, stop=None, step=1):
    stop = None if stop is None else _number(stop, "randrange")
    return _STATE[0].randrange(_number(start, "randrange"), stop, _number(step, "randrange"))


def choice(seq):
    return _STATE[0].choice(_sequence(seq, "choice"))


def sample(population, k):
    population = _sequence(population, "sample")
    if isinstance(population, Tensor):
        raise TypeError("Population must be a sequence.  For dicts or sets, use sorted(d).")
    return _STATE[0].sample(population, _number(k, "sample"))


def shuffle(x):
    """Shuffle a list in place (Python's order for the same seed)."""
    if type(x) is not list:
        raise TypeError(f"shuffle(): gradviz's random shuffles lists, not {type(x).__name__}")
    _STATE[0].shuffle(x)


def _random_module() -> types.ModuleType:
    mod = types.ModuleType("random", "gradviz's read-only subset of Python's random")
    for fn in (seed, random, uniform, gauss, normalvariate, randint, randrange, choice, sample, shuffle):
        setattr(mod, fn.__name__, fn)
    return mod


RANDOM = _random_module()

"""PyTorch's CPU random numbers, bit for bit: ``torch.Generator`` and the draws ATen makes from it.

A generator is ATen's ``CPUGeneratorImpl``: a 32-bit Mersenne Twister (mt19937) seeded with the
low 32 bits of a 64-bit seed by ``init_genrand``, plus the second value of the last Box-Muller
pair (``normal_`` of fewer than 16 elements caches it, as a double). NumPy's ``MT19937`` runs the
same recurrence, so its state is set from ours and its ``random_raw`` gives the 32-bit outputs;
each distribution below then applies ATen's transform to them with the same float arithmetic
(float32 stays float32, and the operations the compiler fuses into FMAs are fused here too).

Every function of this module takes the generator (``None``: the default one) and returns an
array of the dtype asked for; ``engine.factory``, ``engine.nn.init`` and the Tensor methods build
their tensors from it.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import arguments as A
from .addresses import alias
from .avx_math import fill16_f32, fma32
from .device import check as _device
from .device import device
from .naming import torch_path
from .tensor import Tensor

DEFAULT_SEED = 67280421310721  # torch.Generator()'s seed
STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState): what get_state returns
_N = 624  # words of mt19937's state
# CPUGeneratorImplState as it lies in memory on x86-64 (the legacy part keeps 64-bit words).
_LAYOUT = np.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y", "normal_rho",
              "normal_valid", "next_float", "float_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": STATE_BYTES,
})
_F32 = np.float32
# vmap calls running with randomness="error" (torch's default): a random draw inside one is refused
REFUSING = [0]
VMAP_RANDOM = ("vmap: called random operation while in randomness error mode. Please either use the "
               "'same' or 'different' randomness flags on vmap or perform the randomness operation "
               "out of vmap")


def check_draw() -> None:
    """Refuse a random draw inside ``vmap(..., randomness="error")``, with torch's error."""
    if REFUSING[0]:
        raise RuntimeError(VMAP_RANDOM)


@functools.lru_cache(maxsize=64)
def _genrand_key(seed32: int) -> bytes:
    """mt19937's state after ``init_genrand(seed32)`` (a pure function, so kept per seed)."""
    return np.random.RandomState(seed32).get_state()[1].astype("<u4").tobytes()


def _seed_value(seed, fn: str = "manual_seed") -> int:
    """A seed as the 64-bit value PyTorch keeps: a negative one is read as its two's complement."""
    if type(seed) is float:
        seed = int(seed)
    seed = A.integer(seed, fn, "seed", 1)
    if not -(2 ** 63) <= seed < 2 ** 64:
        raise ValueError("Overflow when unpacking long long")
    return seed % 2 ** 64


@torch_path("torch._C")
class Generator:
    """``torch.Generator``: PyTorch's CPU generator, drawing the same numbers as PyTorch for the same
    seed and calls."""

    def __init__(self, device="cpu"):
        _device(device, "Generator")
        self._bits = None  # NumPy's MT19937, made at the first draw (making one takes a millisecond)
        self._reseed(DEFAULT_SEED)

    def _reseed(self, seed: int) -> None:
        self._pending = (np.frombuffer(_genrand_key(seed & 0xFFFFFFFF), "<u4"), _N)
        self._seed = seed
        self._fresh = True  # seeded and not drawn from: ATen's next index is 0 (not 624)
        self._normal = None  # the cached second normal of a Box-Muller pair (double)
        self._normal_float = None  # its float twin, which only set_state can fill on CPU

    @property
    def device(self):
        """The CPU device."""

        return device("cpu")

    def manual_seed(self, seed) -> Generator:
        """Seed the generator (the cached normal is forgotten) and return it."""
        self._reseed(_seed_value(seed))
        return self

    def seed(self) -> int:
        """Seed with a nondeterministic 64-bit number and return it."""
        s = int(np.random.SeedSequence().entropy) % 2 ** 64
        self._reseed(s)
        return s

    def initial_seed(self) -> int:
        """The seed last given (``manual_seed`` or ``seed``)."""
        return self._seed

    def get_state(self):
        """The state as PyTorch's 5056-byte uint8 tensor (the same bytes PyTorch gives)."""

        return Tensor._make(np.frombuffer(self._state_bytes(), np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (this engine's or PyTorch's bytes)."""

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {A.type_name(new_state)}")
        if new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state._data.size != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                               f"RNG state size to be {new_state._data.size}")
        self._load_bytes(np.ascontiguousarray(new_state._data).reshape(-1).tobytes())
        return self

    def clone_state(self) -> Generator:
        """A new generator in this one's state."""
        twin = Generator()
        twin._load_bytes(self._state_bytes())
        return twin

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {alias(self)}>"

    # ---- the state as bytes (get_state / set_state, and the runner's reset between runs) --------
    def _words(self) -> tuple[np.ndarray, int]:
        """mt19937's 624 words and NumPy's index of the next one."""
        if self._pending is not None:
            return self._pending
        st = self._bits.state["state"]
        return st["key"], int(st["pos"])

    def _state_bytes(self) -> bytes:
        key, pos = self._words()
        rec = np.zeros((), _LAYOUT)
        rec["seed"] = self._seed
        rec["left"] = _N + 1 - pos
        rec["seeded"] = 1
        rec["next"] = 0 if self._fresh else pos
        rec["state"] = key
        if self._normal is not None:
            rec["normal_valid"] = 1
            rec["normal_y"] = self._normal
        if self._normal_float is not None:
            rec["float_valid"] = 1
            rec["next_float"] = self._normal_float
        return rec.tobytes()

    def _load_bytes(self, raw: bytes) -> None:
        # The words reach NumPy's generator at the next draw: a run's reset and restore load states
        # that are often never drawn from.
        key, pos, self._seed, self._fresh, self._normal, self._normal_float = _parse_state(bytes(raw))
        self._pending = (key, pos)

    # ---- raw draws ------------------------------------------------------------------------------
    def _u32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs (ATen's ``random()``)."""
        check_draw()
        if n <= 0:
            return np.zeros(0, np.uint32)
        if self._pending is not None:
            key, pos = self._pending
            if self._bits is None:
                self._bits = np.random.MT19937(0)
            self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
            self._pending = None
        self._fresh = False
        return self._bits.random_raw(n).astype(np.uint32)

    def _u64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit draws, each two outputs high word first (ATen's ``random64()``)."""
        r = self._u32(2 * n).astype(np.uint64)
        return (r[0::2] << np.uint64(32)) | r[1::2]


default_generator = Generator()


@functools.lru_cache(maxsize=8)
def _parse_state(raw: bytes) -> tuple:
    """(words, NumPy's index, seed, fresh, cached normal, cached float normal) of state bytes (a pure
    function of them: every run's reset loads the same fresh state)."""
    rec = np.frombuffer(raw, _LAYOUT)[0]
    left, nxt = int(rec["left"]), int(rec["next"]) & 0xFFFFFFFF
    if not (rec["seeded"] & 0xFF and 0 < left <= _N and nxt <= _N):
        raise RuntimeError("Invalid mt19937 state")
    key = rec["state"].astype(np.uint32)
    key.flags.writeable = False
    return (key, _N + 1 - left, int(rec["seed"]), left == 1 and nxt == 0,
            float(rec["normal_y"]) if rec["normal_valid"] else None,
            float(rec["next_float"]) if rec["float_valid"] else None)


def seeded_state(seed: int | None) -> bytes:
    """The default generator's state bytes in a fresh process seeded with ``seed`` (None: entropy)."""
    if seed is None:
        g = Generator()
        g.seed()
        return g._state_bytes()
    return _seeded_state(_seed_value(seed))


@functools.lru_cache(maxsize=16)
def _seeded_state(seed: int) -> bytes:
    g = Generator()
    g.manual_seed(seed)
    return g._state_bytes()


def pick(generator, fn: str) -> Generator:
    """The generator a ``generator=`` argument names (None: the default one)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {A.type_name(generator)}")
    return generator


# ---- the global generator's functions (torch.manual_seed, ...) -----------------------------------
def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it (``torch.manual_seed``)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator with a nondeterministic number and return it (``torch.seed``)."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed (``torch.initial_seed``)."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: a 5056-byte uint8 tensor (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)


# ---- ATen's transforms -------------------------------------------------------------------------
def _unit(gen: Generator, n: int, np_dtype) -> np.ndarray:
    """``uniform_real_distribution(0, 1)``: a mantissa's worth of bits (53 of a 64-bit draw for
    float64, else 24 of a 32-bit draw: float16 is drawn as float32) times 2^-digits."""
    if np_dtype == np.float64:
        return (gen._u64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return (gen._u32(n) & np.uint32((1 << 24) - 1)).astype(_F32) * _F32(2.0 ** -24)


def uniform(gen: Generator, n: int, np_dtype, low: float, high: float) -> np.ndarray:
    """``uniform_(low, high)``: x·(high − low) + low in the tensor's type (float32 for float16),
    fused."""
    np_dtype = np.dtype(np_dtype)
    x = _unit(gen, n, np_dtype)
    if np_dtype == np.float64:
        return _fma64(x, high - low, low)
    lo, span = _F32(low), _F32(high) - _F32(low)
    return fma32(x, span, lo).astype(np_dtype)


def _fma64(a, b: float, c: float) -> np.ndarray:
    """float64 a·b + c rounded once (an FMA), by error-free transformations (TwoProduct, TwoSum)."""
    a = np.asarray(a, np.float64)
    if b == 1.0 and c == 0.0:
        return a + 0.0
    b, c = np.float64(b), np.float64(c)
    p = a * b
    t = 134217729.0 * a  # Dekker's split: 2^27 + 1
    ah = t - (t - a)
    al = a - ah
    t = 134217729.0 * b
    bh = t - (t - b)
    bl = b - bh
    ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + ep == a·b exactly
    s = p + c
    v = s - p
    es = (p - (s - v)) + (c - v)  # s + es == p + c exactly
    out = s + (ep + es)
    return np.where(np.isfinite(out), out, p + c)


def normal(gen: Generator, n: int, np_dtype, mean: float, std: float, contiguous: bool = True) -> np.ndarray:
    """``normal_(mean, std)``: 16 or more contiguous elements by ATen's vectorised Box-Muller in chunks
    of 16 (float32: AVX2's polynomial log and sincos), fewer by the scalar Box-Muller in double that
    caches the pair's second value in the generator."""
    np_dtype = np.dtype(np_dtype)
    if n >= 16 and contiguous:
        # float16 is filled as float32 block by block: the uniforms of a ragged end are drawn
        # once, for the recomputed last 16 only.
        fill_dtype = np_dtype if np_dtype == np.float64 else np.dtype(_F32)
        blocks_only = np_dtype == np.float16
        return _normal_fill(gen, n, fill_dtype, mean, std, blocks_only).astype(np_dtype, copy=False)
    return _normal_scalar(gen, n, mean, std).astype(np_dtype)


def _normal_scalar(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """``normal_distribution<double>`` n times: cos then sin of each pair, starting with a cached sin."""
    check_draw()  # before the cached value, which needs no draw
    out = np.empty(n, np.float64)
    if n == 0:
        return out
    start = 0
    if gen._normal is not None:
        out[0] = gen._normal
        gen._normal = None
        start = 1
    m = n - start
    pairs = (m + 1) // 2
    if pairs:
        u = _unit(gen, 2 * pairs, np.float64)
        u1, u2 = u[0::2], u[1::2]
        r = np.sqrt(-2.0 * np.log1p(-u2))
        theta = 2.0 * math.pi * u1
        both = np.empty(2 * pairs, np.float64)
        both[0::2] = r * np.cos(theta)
        both[1::2] = r * np.sin(theta)
        out[start:] = both[:m]
        if m % 2:
            gen._normal = float(both[-1])
    return _fma64(out, std, mean)


def _normal_fill(gen: Generator, n: int, np_dtype, mean: float, std: float,
                 blocks_only: bool = False) -> np.ndarray:
    """ATen's ``normal_fill``: n uniforms, Box-Muller on each block of 16 (u[0:8] give the radius,
    u[8:16] the angle), and for a ragged end 16 fresh uniforms turned into the last 16 values.
    ``blocks_only`` (float16): uniforms are drawn for the full blocks only, so a ragged end's
    n % 16 leftover draws are not taken."""
    full = n // 16 * 16
    data = _unit(gen, full if blocks_only else n, np_dtype)
    if blocks_only:
        data = np.concatenate([data, np.zeros(n - full, data.dtype)])
    fill = fill16_f32 if np_dtype == np.float32 else _fill16_f64
    out = data.copy()
    out[:full] = fill(data[:full].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        tail = _unit(gen, 16, np_dtype)
        out[n - 16:] = fill(tail.reshape(1, 16), mean, std).reshape(-1)
    return out


def _fill16_f64(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    radius = np.sqrt(-2.0 * np.log(1.0 - u[:, :8]))
    theta = 2.0 * math.pi * u[:, 8:]
    out = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    return _fma64(out, std, mean)


def random_from_to(gen: Generator, n: int, np_dtype, low: int, high: int) -> np.ndarray:
    """``random_(low, high)`` (randint): draw % (high − low) + low, from a 64-bit draw when the range
    is 2^32 or more (for int64, float32 and float64), else from a 32-bit one."""
    span = high - low
    np_dtype = np.dtype(np_dtype)
    if span >= 2 ** 32 and np_dtype in (np.int64, np.float64, np.float32):
        v = gen._u64(n) % np.uint64(span)
    else:
        v = gen._u32(n).astype(np.uint64) % np.uint64(span)
    return (v.astype(np.int64) + np.int64(low)).astype(np_dtype)


def random_full(gen: Generator, n: int, np_dtype) -> np.ndarray:
    """``random_()`` without bounds: [0, max] of an integer type, [0, 2^digits] of a float type."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.bool_:
        return (gen._u32(n) & np.uint32(1)).astype(np.bool_)
    if np_dtype == np.int64:
        return (gen._u64(n) % np.uint64(2 ** 63)).astype(np.int64)
    if np_dtype == np.float64:
        return (gen._u64(n) % np.uint64(2 ** 53 + 1)).astype(np.float64)
    if np_dtype.kind == "f":
        digits = 11 if np_dtype == np.float16 else 24
        return (gen._u32(n) % np.uint32(2 ** digits + 1)).astype(np_dtype)
    top = int(np.iinfo(np_dtype).max) + 1
    return (gen._u32(n).astype(np.uint64) % np.uint64(top)).astype(np_dtype)


def randperm(gen: Generator, n: int) -> np.ndarray:
    """ATen's ``randperm_cpu``: a forward Fisher-Yates shuffle, swapping i with i + draw % (n − i)."""
    out = np.arange(n, dtype=np.int64)
    if n < 2:
        return out
    if n < (2 ** 32 - 1) // 20:
        z = (gen._u32(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)).astype(np.int64)
        z += np.arange(n - 1, dtype=np.int64)
        perm = out.tolist()
        for i, k in enumerate(z.tolist()):
            perm[i], perm[k] = perm[k], perm[i]
        return np.array(perm, np.int64)
    z = (gen._u64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64)
    perm = out.tolist()
    for i, k in enumerate(z.tolist()):
        perm[i], perm[k] = perm[k], perm[i]
    return np.array(perm, np.int64)


def exponential(gen: Generator, n: int, np_dtype, lambd: float) -> np.ndarray:
    """``exponential_(lambd)``: −1/λ · log1p(−u) in double from a 53-bit uniform, then rounded to the
    tensor's type (ATen's CPU transform, one element after another)."""
    u = _unit(gen, n, np.dtype(np.float64))
    return ((-1.0 / lambd) * np.log1p(-u)).astype(np_dtype)


def bernoulli_scalar(gen: Generator, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` for a number p (dropout's mask): a 53-bit uniform < p, as bools."""
    return _unit(gen, n, np.float64) < p


def bernoulli_tensor(gen: Generator, p: np.ndarray) -> np.ndarray:
    """``bernoulli(p)`` for a tensor of probabilities: each element a uniform of p's own precision
    (53 bits for float64, else 24) < p, in order."""
    flat = np.ascontiguousarray(p).reshape(-1)
    if flat.dtype == np.float64:
        return (_unit(gen, flat.size, np.float64) < flat).reshape(p.shape)
    return (_unit(gen, flat.size, np.float32) < flat.astype(_F32)).reshape(p.shape)


__all__ = ["Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]

"""The float32 arithmetic of ATen's AVX2 kernels, as the compiled code rounds it, for the random
numbers of engine/generator.py: ``fma32`` (a fused multiply-add), Cephes' single-precision ``log``
and ``sincos`` of avx_mathfun.h (``log256``, ``sincos256``) and the Box-Muller block of 16 values
built on them (``fill16_f32``)."""

from __future__ import annotations

import math

import numpy as np

_F32 = np.float32
_TWO_PI_F32 = _F32(2.0 * math.pi)


def fma32(a, b, c) -> np.ndarray:
    """float32 a·b + c rounded once (an FMA): the float32 product is exact in float64."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(_F32)


# Constants of avx_mathfun.h (Cephes' single-precision log and sincos), as ATen's AVX2 kernel uses.
_LOG_P = tuple(_F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                  1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                  3.3333331174E-1))
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRTHF = _F32(0.707106781186547524)
_MIN_NORM = np.array([0x00800000], np.int32).view(_F32)[0]
_HALF_BITS = np.array([0.5], _F32).view(np.int32)[0]
_DP = tuple(_F32(v) for v in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8))
_COS_P = tuple(_F32(v) for v in (2.443315711809948E-005, -1.388731625493765E-003, 4.166664568298827E-002))
_SIN_P = tuple(_F32(v) for v in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1))
_FOPI = _F32(1.27323954473516)


def log256(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for x in (0, 1] (what 1 − u is), with the FMAs the compiled kernel has."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _F32(1)
    x = ((bits & ~0x7F800000) | _HALF_BITS).view(_F32)
    small = x < _SQRTHF
    e = e - small.astype(_F32)
    x = (x - _F32(1)) + np.where(small, x, _F32(0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = fma32(y, x, p)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = fma32(-z, _F32(0.5), y)
    return fma32(e, _LOG_Q2, x + y)


def sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` for x ≥ 0 (what 2π·u is), with the compiled kernel's FMAs."""
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    sin_negative = (j & 4) != 0
    cos_negative = (~(j - 2) & 4) != 0
    first = (j & 2) == 0  # the cosine polynomial gives the cosine (else the sine polynomial does)
    for dp in _DP:
        x = fma32(y, dp, x)
    z = x * x
    yc = fma32(_COS_P[0], z, _COS_P[1])
    yc = fma32(yc, z, _COS_P[2])
    yc = yc * z
    yc = fma32(yc, z, -(z * _F32(0.5))) + _F32(1)
    ys = fma32(_SIN_P[0], z, _SIN_P[1])
    ys = fma32(ys, z, _SIN_P[2])
    ys = fma32(ys * z, x, x)
    s = np.where(first, ys, yc)
    c = np.where(first, yc, ys)
    return np.where(sin_negative, -s, s), np.where(cos_negative, -c, c)


def fill16_f32(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """ATen's AVX2 ``normal_fill_16`` on rows of 16 float32 uniforms: u[:8] give the radius, u[8:]
    the angle; the values are mean + std·(radius·cos, radius·sin), fused."""
    radius = np.sqrt(_F32(-2) * log256(_F32(1) - u[:, :8]))
    s, c = sincos256(_TWO_PI_F32 * u[:, 8:])
    mean32, std32 = _F32(mean), _F32(std)
    return np.concatenate([fma32(radius * c, std32, mean32), fma32(radius * s, std32, mean32)], axis=1)

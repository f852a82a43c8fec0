"""Tensors print exactly as PyTorch 2.13 prints them: str(engine tensor) == str(torch tensor)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine

NAN, INF = math.nan, math.inf

NP_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
             "int32": np.int32, "uint8": np.uint8, "bool": np.bool_}


def pair(arr: np.ndarray, mode: str = "plain"):
    """The same array as an engine tensor and a torch tensor; mode plain, leaf (requires_grad) or op."""
    arr = np.array(arr)  # a contiguous copy (ascontiguousarray would make 0-d arrays 1-d)
    e = engine.from_numpy(arr.copy())
    t = torch.from_numpy(arr.copy())
    if mode in ("leaf", "op", "neg"):
        e.requires_grad_()
        t.requires_grad_()
    if mode == "op":
        e, t = e * 1.0, t * 1.0
    elif mode == "neg":
        e, t = -e, -t
    return e, t


def assert_same(arr, mode: str = "plain") -> str:
    e, t = pair(np.asarray(arr), mode)
    expected = str(t)
    assert str(e) == expected
    assert repr(e) == repr(t)
    return expected


# ---- hand-picked cases -----------------------------------------------------------------------

FLOAT_CASES = [
    [2.0, 3.0],
    [2.5],
    [1e-5, 1.0],
    [1e-5],
    [0.1, 0.2, 1000.0],
    [0.1, 0.2, 1000.1],
    [1e8, 1.0],
    [1.0, 1000.0],  # the sci-mode boundaries: ratio 1000, max 1e8, min 1e-4 (strict in torch)
    [0.5, 500.0],
    [1.5, 1500.0],
    [1e8],
    [1e8, 2e5],
    [1e-4, 0.05],
    [1e-4],
    [1e9],
    [123456789.0],
    [1e20, 1.0],
    [1e-300, 1e300],
    [-1.5, 2.25, -3.125],
    [[1.5, -2.25], [3.0, 4.0]],
    [[1.0, 2.0], [3.0, 4.0]],
    [[1e-5, 2.0], [3.0, -4e4]],
    [[[1.0, -2.5], [3.25, 4.0]], [[5.0, 6.0], [-7.75, 8.0]]],
    [NAN, INF, -0.0],
    [NAN, 1.0],
    [INF, -INF],
    [NAN],
    [-0.0, 0.5],
    [-0.0, 0.0],
    [-0.0, 1.0],
    [0.0, 0.0, 0.0],
    [9.99995, 1.0],
    [99999.5, 0.5],
    [0.00015, 0.1],
    [-1e-4, 1e-4, 0.0],
    [1.0, NAN, -INF, 1e-7],
    [3.0, NAN, 1e10],
    [0.333333, 1.0 / 7.0, 2.0 / 3.0],
    list(np.linspace(-1, 1, 100)),
    list(np.arange(30.0) * 1000.0),
    list(np.arange(40.0) / 3.0),
    [[x * 1e-3 for x in range(20)] for _ in range(3)],
]

SCALARS = [2.0, -0.0, 0.0, NAN, INF, -INF, 1e-5, 18.0, 0.1, 123456.789, 1e10, -3.5]


@pytest.mark.parametrize("values", FLOAT_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["plain", "leaf", "op"])
def test_float_cases(values, dtype, mode):
    assert_same(np.array(values, dtype=NP_DTYPES[dtype]), mode)


@pytest.mark.parametrize("value", SCALARS)
@pytest.mark.parametrize("mode", ["plain", "leaf", "op"])
def test_zero_dim(value, mode):
    assert_same(np.array(value, dtype=np.float32), mode)
    assert_same(np.array(value, dtype=np.float64), mode)


def test_known_strings():
    """A few outputs written out, so a torch change would show up here too."""
    assert assert_same(np.array([2.0, 3.0], np.float32)) == "tensor([2., 3.])"
    assert assert_same(np.array([1e-5, 1.0], np.float32)) == "tensor([1.0000e-05, 1.0000e+00])"
    assert assert_same(np.array([2.0], np.float32), "leaf") == "tensor([2.], requires_grad=True)"
    assert assert_same(np.array([[1.5, -2.0], [3.0, 4.0]], np.float64)) == (
        "tensor([[ 1.5000, -2.0000],\n        [ 3.0000,  4.0000]], dtype=torch.float64)")
    assert assert_same(np.array([NAN, INF, -0.0], np.float32)) == "tensor([nan, inf, -0.])"
    assert assert_same(np.zeros((0,), np.float32)) == "tensor([])"
    assert assert_same(np.zeros((0, 3), np.float32)) == "tensor([], size=(0, 3))"
    assert assert_same(np.array([True, False])) == "tensor([ True, False])"


def test_grad_fn_suffix_from_real_ops():
    x = engine.tensor([2.0, 3.0], requires_grad=True)
    w = engine.tensor([4.0, 5.0], requires_grad=True)
    tx = torch.tensor([2.0, 3.0], requires_grad=True)
    tw = torch.tensor([4.0, 5.0], requires_grad=True)
    assert str(x * w) == str(tx * tw) == "tensor([ 8., 15.], grad_fn=<MulBackward0>)"
    assert str((x * w).sum()) == str((tx * tw).sum()) == "tensor(23., grad_fn=<SumBackward0>)"
    assert str(x + w) == str(tx + tw)
    assert str(x.detach()) == str(tx.detach()) == "tensor([2., 3.])"
    with engine.no_grad(), torch.no_grad():
        assert str(x * w) == str(tx * tw)


INT_CASES = [[1, 2, 3], [-200, 3, 45], [0], [[1, -2], [300, 4]], list(range(-50, 50)), [2**40, -1],
             [[[1, 2, 3]], [[4, 5, 6]]]]


@pytest.mark.parametrize("values", INT_CASES)
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_int_cases(values, dtype):
    arr = np.array(values, dtype=np.int64)
    if dtype == "int32":
        arr = (arr % 1000).astype(np.int32)
    assert_same(arr)


@pytest.mark.parametrize("values", [[True, False], [True], [[False, False], [True, True]], True, False])
def test_bool_cases(values):
    assert_same(np.array(values, dtype=np.bool_))


@pytest.mark.parametrize("values", [[1, 2, 255], [[0, 7]], 3])
def test_uint8(values):
    assert_same(np.array(values, dtype=np.uint8))


@pytest.mark.parametrize("values", [[1.5, 2.0], [1e-3, 60000.0], [NAN, 2.0], 3.0])
@pytest.mark.parametrize("mode", ["plain", "leaf", "op"])
def test_float16(values, mode):
    assert_same(np.array(values, dtype=np.float16), mode)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_empty(shape, dtype):
    assert_same(np.zeros(shape, dtype=NP_DTYPES[dtype]))


@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_empty_requires_grad(shape):
    assert_same(np.zeros(shape, dtype=np.float32), "leaf")
    assert_same(np.zeros(shape, dtype=np.float64), "op")


# ---- width, wrapping, summarization ----------------------------------------------------------

@pytest.mark.parametrize("n", [1, 10, 11, 12, 13, 25, 80, 999, 1000, 1001, 5000])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_long_vectors_wrap_and_summarize(n, dtype):
    rng = np.random.default_rng(n)
    arr = (rng.standard_normal(n) * 100).astype(NP_DTYPES[dtype])
    assert_same(arr)
    if dtype != "int64":
        assert_same(arr, "op")


@pytest.mark.parametrize("shape", [(40, 50), (1001, 1), (1, 1001), (7, 7, 7, 7), (3, 400), (400, 3),
                                   (10, 10, 11), (2, 3, 4), (5, 30), (6, 167), (7, 143), (2, 2, 2, 2, 2)])
def test_matrices(shape):
    rng = np.random.default_rng(sum(shape))
    arr = rng.standard_normal(shape).astype(np.float32)
    assert_same(arr)
    assert_same(arr * 1e6)
    assert_same(np.round(arr * 10), "leaf")
    assert_same((arr * 1000).astype(np.int64))


def test_huge_tensor_summarized():
    arr = np.arange(2_000_000, dtype=np.float32).reshape(1000, 2000) / 7
    expected = assert_same(arr)
    # six rows (each wrapped onto two lines) around one "..." row
    assert expected.count("...") == 7 and expected.count("\n") == 12


def test_suffix_wraps_to_new_line():
    # a long last line pushes dtype= and grad_fn= onto lines of their own
    arr = np.array([123456.5, 2.25, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], dtype=np.float64)
    assert "\n" in assert_same(arr, "op")
    assert_same(np.array([1.25] * 9, dtype=np.float64), "leaf")
    assert_same(np.full((2, 9), 1.25, dtype=np.float64), "op")
    assert_same(np.zeros((0, 3), dtype=np.int32))


# ---- print options ---------------------------------------------------------------------------

PRINT_OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"linewidth": 40},
    {"linewidth": 200},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "full", "precision": 6, "sci_mode": True},
]

OPTION_ARRAYS = [
    np.array([1.12345, 2.5, -3.75], np.float32),
    np.array([2.0, 3.0], np.float32),
    np.array([1e-5, 1.0, NAN], np.float64),
    np.arange(10),
    np.arange(2000.0, dtype=np.float32) / 3,
    np.arange(60.0).reshape(3, 4, 5),
    np.array(1.5, np.float32),
    np.zeros((0, 2)),
    np.array([True, False, True, True, False, True, False]),
]


@pytest.fixture
def restore_print_options():
    yield
    engine.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", PRINT_OPTION_SETS)
def test_print_options(options, restore_print_options):
    engine.set_printoptions(**options)
    torch.set_printoptions(**options)
    for arr in OPTION_ARRAYS:
        assert_same(arr)
        if arr.dtype.kind == "f":
            assert_same(arr, "op")


def test_set_printoptions_is_exported_and_resets_sci_mode(restore_print_options):
    from engine import printing_options

    engine.set_printoptions(sci_mode=True)
    assert printing_options.get_printoptions()["sci_mode"] is True
    engine.set_printoptions(precision=3)  # as in torch: sci_mode goes back to automatic
    assert printing_options.get_printoptions() == {
        "precision": 3, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
    with printing_options.printoptions(precision=1):
        assert str(engine.tensor([1.25, 2.0])) == "tensor([1.2, 2.0])"
    assert printing_options.get_printoptions()["precision"] == 3


def test_default_dtype_float64_changes_suffixes():
    engine.set_default_dtype(engine.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for arr in (np.array([1.5], np.float32), np.array([1.5], np.float64), np.zeros(0, np.float32),
                    np.zeros(0, np.float64), np.zeros((0, 2), np.int64)):
            assert_same(arr)
    finally:
        engine.set_default_dtype(engine.float32)
        torch.set_default_dtype(torch.float32)


# ---- Parameter, Size, dtype, grad_fn, format -------------------------------------------------

@pytest.mark.parametrize("values", [[1.0, 2.0], [[0.25, -1.5], [3.0, 4.0]], 2.0, []])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_repr(values, requires_grad):
    arr = np.array(values, dtype=np.float32)
    e = engine.nn.Parameter(engine.from_numpy(arr.copy()), requires_grad=requires_grad)
    p = torch.nn.Parameter(torch.from_numpy(arr.copy()), requires_grad=requires_grad)
    assert repr(e) == str(e) == repr(p) == str(p)
    assert repr(e).startswith("Parameter containing:\ntensor(")


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4), (1, 1, 1)])
def test_size_repr(shape):
    e = engine.zeros(shape)
    t = torch.zeros(shape)
    assert repr(e.shape) == repr(t.shape) and str(e.shape) == str(t.shape)
    assert repr(e.size()) == repr(t.size())


def test_dtype_repr():
    for name in ("float32", "float64", "float16", "int32", "int64", "uint8", "bool"):
        assert repr(getattr(engine, name)) == repr(getattr(torch, name)) == f"torch.{name}"
        assert str(getattr(engine, name)) == str(getattr(torch, name))
    assert repr(engine.tensor([1.0]).dtype) == repr(torch.tensor([1.0]).dtype)
    assert repr(engine.float) == repr(torch.float) and repr(engine.long) == repr(torch.long)


def test_grad_fn_repr():
    pattern = r"<{}Backward0 object at 0x[0-9a-f]+>"
    x = engine.tensor([2.0], requires_grad=True)
    tx = torch.tensor([2.0], requires_grad=True)
    y, ty = x * 3.0, tx * 3.0
    for obj in (y.grad_fn, ty.grad_fn):
        assert re.fullmatch(pattern.format("Mul"), repr(obj))
    acc = re.compile(r"<AccumulateGrad object at 0x[0-9a-f]+>")
    assert acc.fullmatch(repr(y.grad_fn.next_functions[0][0]))
    assert acc.fullmatch(repr(ty.grad_fn.next_functions[0][0]))
    assert str(x.grad_fn) == str(tx.grad_fn) == "None"


@pytest.mark.parametrize("spec", ["", ".2f", "8.3e"])
def test_format_like_torch(spec):
    cases = [np.array(2.75, np.float32), np.array(0.1, np.float32), np.array(0.1, np.float64),
             np.array(3), np.array(True), np.array([1.5], np.float32)]
    for arr in cases:
        e, t = pair(arr)
        if spec and arr.ndim:
            with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
                format(e, spec)
            with pytest.raises(TypeError):
                format(t, spec)
            continue
        assert format(e, spec) == format(t, spec)
    e, t = pair(np.array(2.5, np.float32), "op")
    assert f"{e}" == f"{t}" == "2.5"


# ---- hypothesis: arrays of every kind --------------------------------------------------------

SHAPES = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)


def _float_elements(style: str):
    if style == "int":
        return st.integers(-(10**6), 10**6).map(float)
    if style == "small_int":
        return st.integers(-12, 12).map(float)
    if style == "fixed":
        return st.integers(-(10**6), 10**6).map(lambda k: k / 1000.0)
    if style == "wide":
        return st.builds(lambda m, e: m * 10.0**e, st.floats(-10, 10), st.integers(-12, 12))
    if style == "special":
        return st.sampled_from([NAN, INF, -INF, -0.0, 0.0, 1.0, -2.5, 1e-5, 1e9])
    return st.floats(width=32, allow_nan=True, allow_infinity=True)


@st.composite
def float_arrays(draw):
    shape = draw(SHAPES)
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    n = int(np.prod(shape)) if shape else 1
    styles = draw(st.lists(st.sampled_from(["int", "small_int", "fixed", "wide", "special", "any"]),
                           min_size=1, max_size=2))
    elements = st.one_of(*[_float_elements(s) for s in styles])
    values = draw(st.lists(elements, min_size=n, max_size=n))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=np.float64).astype(dtype).reshape(shape)


@st.composite
def other_arrays(draw):
    shape = draw(SHAPES)
    n = int(np.prod(shape)) if shape else 1
    kind = draw(st.sampled_from(["int64", "bool", "int32"]))
    if kind == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), np.bool_).reshape(shape)
    bound = 2**62 if kind == "int64" else 2**31 - 1
    ints = st.one_of(st.integers(-bound, bound), st.integers(-20, 20))
    return np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=NP_DTYPES[kind]).reshape(shape)


@st.composite
def big_arrays(draw):
    """Arrays around and above the 1000-element threshold, filled from a drawn seed and scale."""
    shape = draw(st.sampled_from([(1001,), (999,), (33, 31), (10, 10, 10), (10, 10, 11), (2, 501),
                                  (12, 12, 12), (1, 1, 1500), (300, 4)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** draw(st.integers(-8, 10))
    arr = rng.standard_normal(shape) * scale
    if draw(st.booleans()):
        arr = np.round(arr)
    if draw(st.booleans()):
        arr.reshape(-1)[rng.integers(0, arr.size, 3)] = draw(st.sampled_from([NAN, INF, -0.0, 0.0]))
    return arr.astype(draw(st.sampled_from([np.float32, np.float64, np.int64])))


HYPO = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HYPO
@given(float_arrays(), st.sampled_from(["plain", "leaf", "op", "neg"]))
def test_hypothesis_float_arrays(arr, mode):
    assert_same(arr, mode)


@HYPO
@given(other_arrays())
def test_hypothesis_int_and_bool_arrays(arr):
    assert_same(arr)


@settings(max_examples=60, deadline=None)
@given(big_arrays(), st.sampled_from(["plain", "op"]))
def test_hypothesis_big_arrays(arr, mode):
    assert_same(arr, mode if arr.dtype.kind == "f" else "plain")


def test_non_contiguous_views_print_like_torch():
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4) / 3
    e = engine.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    assert str(e.transpose(0, 2)) == str(t.transpose(0, 2))
    assert str(e.permute(1, 2, 0)) == str(t.permute(1, 2, 0))
    assert str(engine.from_numpy(a.T)) == str(torch.from_numpy(a.T.copy()))

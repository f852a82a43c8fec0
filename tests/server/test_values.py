"""app/worker/values.py: values in full up to 64 elements, summaries above, JSON-safe numbers."""

import json
import math

import numpy as np

from app.worker import values


def test_small_tensor_in_full():
    v = values.value(np.arange(64, dtype=np.float32).reshape(8, 8))
    assert v["shape"] == [8, 8] and v["dtype"] == "float32"
    assert v["summary"] is None
    assert v["data"][7][7] == 63.0


def test_over_64_elements_is_summarized():
    a = np.arange(65, dtype=np.float64) - 10
    v = values.value(a)
    assert v["data"] is None
    s = v["summary"]
    assert s["min"] == -10 and s["max"] == 54
    assert math.isclose(s["mean"], a.mean())
    assert math.isclose(s["norm"], float(np.linalg.norm(a)))
    assert s["head"] == [-10, -9, -8, -7, -6, -5, -4, -3]


def test_float32_written_shortest():
    v = values.value(np.array([0.1, 1 / 3], dtype=np.float32))
    assert v["data"][0] == 0.1
    assert repr(v["data"][1]) == "0.33333334"


def test_non_finite_become_strings_and_json_is_valid():
    v = values.value(np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32))
    assert v["data"] == ["NaN", "Infinity", "-Infinity", 1.0]
    big = values.value(np.full(100, np.inf))
    assert big["summary"]["max"] == "Infinity"
    json.dumps([v, big], allow_nan=False)  # raises on a bare NaN


def test_ints_bools_and_none():
    assert values.value(np.array([True, False]))["data"] == [True, False]
    assert values.value(np.array([[1, 2]], dtype=np.int64))["dtype"] == "int64"
    assert values.value(None) is None
    assert values.value(np.array(2.5))["data"] == 2.5
    assert values.value(np.zeros((0, 3)))["data"] == []


def test_an_empty_tensor_is_as_small_as_pytorch_prints_it():
    # tensor([], size=(3000000, 0)): its shape must not expand into 3,000,000 empty lists
    v = values.value(np.zeros((3_000_000, 0), dtype=np.float32))
    assert v == {"shape": [3_000_000, 0], "dtype": "float32", "data": [], "summary": None}
    assert len(json.dumps(v)) < 100
    assert values.value(np.zeros((2, 0, 3)))["data"] == []


def _printed(arr: np.ndarray):
    """Each element as NumPy prints it, read back: what the page must be shown."""
    out = [float(str(v)) if np.isfinite(v) else str(v) for v in arr.ravel()]
    return [{"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(v, v) for v in out]


def _flat(data):
    return [x for row in data for x in _flat(row)] if isinstance(data, list) else [data]


def test_float32_and_float16_values_are_their_printed_decimals_also_when_repeated():
    rng = np.random.default_rng(7)
    edges = np.array([0.0, -0.0, 1e-45, -1e-45, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 1.0, 16777216.0,
                      0.1, 1 / 3, np.nan, np.inf, -np.inf, 1e-12, 1e20, 123456790.0, 2.0**-130],
                     dtype=np.float32)
    bits = rng.integers(0, 2**32, size=(40, 64), dtype=np.uint64).astype(np.uint32).view(np.float32)
    scales = 10.0 ** rng.integers(-8, 9, size=(40, 1, 1))
    normal = (rng.standard_normal((40, 8, 8)) * scales).astype(np.float32)
    half = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(-1, 64)
    for arr in [edges, *bits, *normal, *half[::7], normal[0].T, normal[1][::2, 1::3]]:
        for _ in range(2):  # the second time the same tensor is written again
            data = values.value(arr)["data"]
            got = _flat(data)
            want = _printed(arr)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if isinstance(w, str):
                    assert g == w
                else:  # the same float, -0.0 included
                    assert type(g) is float and g == w and math.copysign(1, g) == math.copysign(1, w)
    assert values.value(np.array([-0.0], dtype=np.float32))["data"] == [-0.0]
    assert math.copysign(1, values.value(np.array([-0.0], dtype=np.float32))["data"][0]) == -1


def test_a_written_value_changed_afterwards_does_not_change_the_next():
    a = np.array([[0.1, 0.2]], dtype=np.float32)
    first = values.value(a)["data"]
    first[0][0] = 99.0
    assert values.value(a.copy())["data"] == [[0.1, 0.2]]
    assert values.value(a.astype(">f4"))["data"] == [[0.1, 0.2]]


def test_a_tensor_summarized_again_gives_the_same_summary_however_an_answer_used_the_first():
    a = np.linspace(-1, 1, 100, dtype=np.float32).reshape(10, 10)
    first = values.value(a)["summary"]
    expected = json.loads(json.dumps(first))
    first["max"] = 99.0  # what one part of an answer does with its copy stays its own
    first["head"].append(7.0)
    again = values.value(a.copy())["summary"]
    assert again == expected and again is not first
    other = values.value(a * 2)["summary"]  # same shape and dtype, other numbers
    assert other["max"] == 2.0 and other["min"] == -2.0
    assert values.value(a.astype(np.float64))["summary"]["head"] == [float(x) for x in a.ravel()[:8]]

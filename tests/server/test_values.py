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

"""engine/limits.py: a shape counts by its extent (an empty dim counts as 1), and every result is
checked before it is allocated: factories, reductions, indexing, comparisons, views."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import engine as torch
from engine import limits
from engine.errors import LimitError
from engine.tensor import Tensor


@pytest.fixture
def budget():
    saved = limits.ACTIVE
    limits.ACTIVE = limits.Budget(max_elements=1_000_000, max_bytes=64 * 1024 * 1024)
    yield limits.ACTIVE
    limits.ACTIVE = saved


def test_extent_counts_empty_dims_as_one():
    assert limits.extent((3_000_000, 0)) == 3_000_000
    assert limits.extent((0, 0, 7)) == 7
    assert limits.extent(()) == 1 and limits.extent((2, 3)) == 6


def test_an_empty_tensor_with_millions_of_rows_is_refused(budget):
    with pytest.raises(LimitError, match=r"shape \[3000000, 0\] counts as 3,000,000 elements"):
        torch.zeros(3_000_000, 0)
    with pytest.raises(LimitError, match="max_tensor_elements"):
        torch.zeros(10**9, 0)
    assert torch.zeros(1000, 0).shape == (1000, 0)  # within the limit: PyTorch's semantics


def test_a_reduction_checks_its_result_before_allocating(budget):
    empty = Tensor._make(np.zeros((0, 500_000_000), dtype=np.float32))  # made behind the limits' back
    with pytest.raises(LimitError, match="500,000,000 elements"):
        empty.sum(0)
    with pytest.raises(LimitError):
        empty.mean(0)
    assert empty.sum(1).shape == (0,)


def test_views_of_an_empty_tensor_are_counted_too(budget):
    with pytest.raises(LimitError):
        torch.zeros(0).reshape(10**9, 0)
    with pytest.raises(LimitError):
        torch.zeros(0, 1).expand(0, 10**9)


def test_indexing_checks_its_result_before_allocating(budget):
    x = torch.ones(1000, 1000)
    with pytest.raises(LimitError, match="1,000,000,000 elements"):
        x[torch.zeros(1000, 1000, dtype=torch.long)]
    assert x[torch.zeros(10, dtype=torch.long)].shape == (10, 1000)


def test_comparisons_and_one_hot_check_their_result(budget):
    with pytest.raises(LimitError):
        torch.eq(torch.ones(100_000, 1), torch.ones(1, 100_000))
    with pytest.raises(LimitError):
        torch.nn.functional.one_hot(torch.tensor([3]), 10**9)
    assert torch.nn.functional.one_hot(torch.tensor([0, 2]), 3).tolist() == [[1, 0, 0], [0, 0, 1]]


@pytest.mark.parametrize("key", [
    (slice(None), np.array([0, 2])), (np.array([[0], [1]]), slice(1, 3)), (np.array([0, 1]), 1),
    (np.array([0, 1]), slice(None), np.array([1, 0])), (None, np.array([1]), Ellipsis),
    (1, slice(None), np.array([0, 0, 1])), (np.array([[True, False, True], [False, True, True]]),),
    (Ellipsis, np.array([2, 1])), (slice(0, 2, 2), None, np.array([1])),
])
def test_index_shape_is_numpy_s_without_indexing(key):
    a = np.zeros((2, 3, 4))
    if len(key) and isinstance(key[0], np.ndarray) and key[0].dtype == np.bool_:
        a = np.zeros((2, 3))
    assert limits.index_shape(a.shape, key) == a[key].shape


def test_reduced_shape():
    for dims, keep in itertools.product([None, (0,), (1, 2), 2], [False, True]):
        a = np.zeros((2, 3, 4))
        assert limits.reduced_shape(a.shape, dims, keep) == np.sum(a, axis=dims, keepdims=keep).shape

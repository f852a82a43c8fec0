"""The course corpus: short programs in the style of the courses gradviz is for (d2l, PyTorch's
tutorials, micrograd, CS231n, Chinese tutorials), each run with real PyTorch, with the engine as
``torch``, and through ``POST /api/run``. What they print (warnings included) and how they end must
be the same, object addresses aside."""

from __future__ import annotations

import httpx
import pytest
from corpus_graphs import graphs_of, torch_side
from corpus_harness import _engine_import, direct, from_answer, programs, reference

PROGRAMS = programs()


def test_the_corpus_is_large_enough():
    assert len(PROGRAMS) >= 60


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_direct(path):
    ours, theirs = direct(path), reference(path)
    assert ours.stdout == theirs.stdout
    assert ours.error == theirs.error


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_graphs(path):
    """Every backward pass the program calls walks torch's graph exactly: the same nodes, each
    input leading to the same node and output number (``python tests/corpus/corpus_graphs.py``)."""
    import engine

    ours, theirs = graphs_of(path, engine, _engine_import), torch_side(path)[1]
    assert ours.graphs == theirs.graphs


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_api(server, path):
    r = httpx.post(f"{server}/api/run", json={"source": path.read_text()}, timeout=60)
    assert r.status_code in (200, 400, 403, 422), r.text[:500]
    ours, theirs = from_answer(r.json()), reference(path)
    assert ours.stdout == theirs.stdout
    assert ours.error == theirs.error

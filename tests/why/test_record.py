"""The diagnosis on real PyTorch: each program of the corpus run by torch inside ``gradviz.record()``
gets the same cause and op as on gradviz's engine."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from record.harness import torch_recording  # noqa: E402

from .corpus import check_line, check_words, corpus  # noqa: E402


@pytest.mark.parametrize("stem,source,name,cause,op", corpus(), ids=[c[0] for c in corpus()])
def test_recorded_torch_finds_the_cause(stem, source, name, cause, op):
    rec, error = torch_recording(source)
    assert error is None, error
    why = rec.answer_data()["why"]
    d = why["tensors"].get(name)
    assert d is not None, f"{name}'s gradient was not found suspicious"
    assert (d["cause"], d["op"]) == (cause, op), d["text"]["en"]
    check_words(d, name)
    check_line(rec.source, d)  # (the lines of the block's code, as the page shows it)

"""The corpus of broken programs: each a real mistake, its first line ``# why: NAME CAUSE OP`` (the
tensor whose gradient is wrong, the cause the diagnosis must find, the op it must name)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

PROGRAMS = Path(__file__).parent / "programs"


def corpus() -> list[tuple[str, str, str, str, str]]:
    """(file stem, source, name, cause, op) of every program."""
    out = []
    for path in sorted(PROGRAMS.glob("*.py")):
        source = path.read_text()
        tag, name, cause, op = source.splitlines()[0].split()[1:5]
        assert tag == "why:", path
        out.append((path.stem, source, name, cause, op))
    return out


def check_words(d: dict, name: str) -> None:
    """Both languages say it, in the program's name for the tensor; the Chinese is Chinese."""
    en, zh = d["text"]["en"], d["text"]["zh"]
    assert name in en and name in zh
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh)
    assert en != zh


def check_line(source: str, d: dict) -> None:
    """A diagnosis that blames a ``zero_grad()`` call names its line, the line of that call in the
    program, in both languages."""
    if d["op"] != "zero_grad" or "update" in d["facts"]:
        return
    calls = [i for i, text in enumerate(source.splitlines(), 1) if "zero_grad(" in text]
    assert d["facts"].get("line") in calls, (d["facts"], calls)
    line = d["facts"]["line"]
    assert f"(line {line})" in d["text"]["en"] and f"第 {line} 行" in d["text"]["zh"]


def check_facts(trace, d: dict, grad) -> None:
    """The numbers a diagnosis states, recomputed from the trace's arrays by other means."""
    facts, cause = d["facts"], d["cause"]
    from engine.ops.table import OPS

    if d["at"] is not None:
        assert d["at"] in d["path"]
        if d["op"] in OPS:  # (a cut names how it was made: detach, item, no_grad...)
            assert trace.nodes[d["at"]].op == d["op"]
    for layer in facts.get("layers") or []:
        x = np.asarray(trace.nodes[trace.edges[trace.nodes[layer["node"]].inputs[0]].source].value)
        assert layer["le0"] == int(np.count_nonzero(x <= 0))
        if "dead" in layer:
            assert layer["dead"] == sum(1 for j in range(x.shape[-1]) if (x[..., j] <= 0).all())
    if cause in ("vanish", "explode"):
        assert np.isclose(facts["mean"], np.abs(np.asarray(grad, dtype=np.float64)).mean(), rtol=1e-5)
        # the gradient's size falls (or grows) past the limit at the op blamed, not before it
        chain = facts["chain"]
        k = next(i for i, link in enumerate(chain) if link["node"] == d["at"])
        beyond = (lambda m: m < facts["limit"]) if cause == "vanish" else (lambda m: m > facts["limit"])
        assert not any(beyond(link["before"]) for link in chain[:k])
        for link in chain:
            if link.get("derivative") is not None:
                y = np.asarray(trace.nodes[link["node"]].value, dtype=np.float64)
                local = y * (1 - y) if link["op"] == "sigmoid" else 1 - y * y
                assert np.isclose(link["derivative"], local.mean(), rtol=1e-3, atol=1e-12)
    if cause == "nonfinite" and facts["where"] == "forward":
        ins = [np.asarray(v, dtype=np.float32) for v in facts["inputs"]]
        assert all(np.isfinite(v).all() for v in ins)
        if all(v.shape == ins[0].shape for v in ins) and not trace.nodes[d["at"]].params:
            with np.errstate(all="ignore"):
                out = OPS[d["op"]].forward(*ins)
            out = out[0] if isinstance(out, tuple) else out
            assert not np.isfinite(out).all()

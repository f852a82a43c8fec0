"""Every op's explanation (engine/ops/explain.py beside its rules) is true: on the oracle cases' random
inputs, in float64 and float32, the numbers the page is given for each backward step, combined by
the operations the steps name, give the gradient the engine sent; and no op is without one."""

from __future__ import annotations

import json
import re
import zlib

import numpy as np
import pytest
from oracle_cases import all_cases

import engine
from app.worker.explain.algebra import Walk
from app.worker.serialize import serialize_trace
from engine.ops.explain import WORDS, Ex, compute
from engine.ops.table import OPS
from engine.trace import recording

CASES = [c for c in all_cases() if not c.backward_error]  # where backward() fails there is nothing to show
NO_DERIVATIVE = {c.op for c in all_cases()} - {c.op for c in CASES}  # ops PyTorch defines no derivative for
CJK = re.compile(r"[\u4e00-\u9fff]")
# Words of the sentences an explanation writes: a text holding one must come in both languages.
SENTENCE_WORDS = re.compile(r"\b(if|else|where|copied|summed|over|put|back|zeros|elsewhere|with|was|index|"
                            r"expanded|every|element|repeated|overwritten)\b")


def test_every_op_has_an_explanation_in_both_languages():
    missing = [name for name, op in OPS.items() if op.explain is None]
    assert not missing, f"ops without an explanation: {missing}"
    for name, op in OPS.items():
        spec = op.explain
        assert CJK.search(spec.about_zh) and spec.about_zh != op.description, name
        assert len(spec.rules()) == (1 if op.variadic else len(op.vjps)), name
        assert spec.forward.count("{") >= 1, name


def _words_of(ex):
    yield ex.op
    for arg in ex.args:
        if isinstance(arg, Ex):
            yield from _words_of(arg)


def test_every_word_an_explanation_uses_is_in_the_one_table():
    """A word an op's explanation uses is a word of engine.ops.explain.WORDS the page can write (a
    function or a comparison), or one the walk writes by a rule of its own; every word of the table
    has a meaning."""
    for name, op in OPS.items():
        for rule in op.explain.rules():
            for word in _words_of(rule):
                known = WORDS.get(word)
                writable = known is not None and (known.written is not None or known.sign is not None)
                assert writable or hasattr(Walk, "_" + word), f"{name}: no word {word!r} in the table"
    assert all(callable(w.meaning) for w in WORDS.values())


def _leaves(arrays, dtype):
    out = []
    for a in arrays:
        if a.dtype == np.float64:
            out.append(engine.tensor(a.tolist(), dtype=dtype, requires_grad=True))
        elif a.dtype == np.bool_:
            out.append(engine.tensor(a.tolist(), dtype=engine.bool))
        else:
            out.append(engine.tensor(a.tolist(), dtype=engine.int64))
    return out


def _array(value):
    return None if value is None else np.asarray(value["data"], dtype=np.float64)


def answer_of(case, dtype):
    """The case run with a random upstream gradient, serialized and read back as the page reads it."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = case.inputs(rng)
    with recording() as rec:
        out = case.fn(engine, *_leaves(arrays, dtype))
        out.backward(engine.tensor(rng.uniform(-1, 1, tuple(out.shape)).tolist(), dtype=out.dtype))
    return json.loads(json.dumps(serialize_trace(rec.trace)))


def check_step(step: dict, node: dict) -> list[str]:
    """Recompute every worked step of one backward step from the numbers shown; what disagrees."""
    problems = []
    sent = {f["edge"]: f["grad"] for f in step["sent"]}
    assert step.get("explain"), f"{node['name']}: no explanation"
    edges = node.get("walked") or node["inputs"]  # a CopySlices that wraps an op sends along its inputs'
    if node.get("walked"):
        problems += text_problems(step["explain"]["says"], node["name"])
    for i, work in enumerate(step["explain"]["inputs"]):
        grad = sent.get(edges[i])
        if grad is None:
            assert work is None
            continue
        if work["ok"] is not True:
            problems.append(f"{node['name']} input {i}: not reproduced ({work['rule']})")
            continue
        named = {v["name"]: _array(v["value"]) for v in work["values"]}
        shown = []
        for s in work["steps"]:
            args = []
            for ref in s["args"]:
                if "G" in ref:
                    args.append(_array(step["upstream"]))
                elif "name" in ref:
                    args.append(named[ref["name"]])
                elif "num" in ref:
                    args.append(ref["num"])
                else:
                    args.append(shown[ref["step"]])
            value = compute(s["op"], args, s.get("how"))
            got = _array(s["value"])
            sizes = [float(np.max(np.abs(np.asarray(a, dtype=np.float64)))) for a in args
                     if a is not None and np.size(a)] + [float(np.max(np.abs(got))) if got.size else 0.0]
            if not np.allclose(value, got, rtol=1e-5, atol=1e-6 * max(sizes) + 1e-12, equal_nan=True):
                problems.append(f"{node['name']} input {i}: step {s['op']} does not give the value shown")
            shown.append(got)
        result = work["result"]
        final = _array(step["upstream"]) if "G" in result else shown[result["step"]]
        expect = _array(grad)
        scale = float(np.max(np.abs(expect))) if expect.size else 0.0
        tol = 1e-4 * scale + 1e-12
        same = final.shape == expect.shape and np.allclose(final, expect, rtol=1e-4, atol=tol)
        if not same:
            problems.append(f"{node['name']} input {i}: the worked result is not the gradient sent")
        for text in [work["rule"]] + [s["text"] for s in work["steps"]]:
            problems += text_problems(text, node["name"])
    return problems


def text_problems(text, where: str) -> list[str]:
    """A text with words comes in both languages, the Chinese one in Chinese."""
    if isinstance(text, dict):
        if text["en"] == text["zh"] or not CJK.search(text["zh"]):
            return [f"{where}: {text['en']!r} has no Chinese"]
        return []
    if SENTENCE_WORDS.search(text):
        return [f"{where}: {text!r} has words but one language"]
    return []


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_worked_arithmetic_gives_the_gradient_sent(case, dtype):
    answer = answer_of(case, getattr(engine, dtype))
    nodes = {n["id"]: n for n in answer["graph"]["nodes"]}
    problems = []
    for bp in answer["backward"]:
        for step in bp["steps"]:
            node = nodes[step["node"]]
            if node["kind"] == "op":
                problems += check_step(step, node)
    for n in nodes.values():
        if n["kind"] == "op":
            rules = [r for r in n["explain"]["rules"] if r is not None]
            problems += [p for r in rules for p in text_problems(r, n["name"])]
    assert not problems, problems


def test_the_cases_explain_every_op():
    """The arithmetic test covers every op of the table (a new op needs an oracle case anyway)."""
    seen = set()
    for case in CASES:
        answer = answer_of(case, engine.float64)
        seen |= {n["op"] for n in answer["graph"]["nodes"]
                 if n["kind"] == "op" and any(s["node"] == n["id"] and s.get("explain")
                                              for bp in answer["backward"] for s in bp["steps"])}
    assert seen == set(OPS) - NO_DERIVATIVE, sorted(set(OPS) - NO_DERIVATIVE - seen)


def test_an_op_without_a_derivative_says_so_in_both_languages():
    """floor_divide: PyTorch defines no derivative, backward() fails; its rules say so."""
    a = engine.tensor([3.0, -2.5], requires_grad=True)
    with recording() as rec:
        out = a // 0.7
    answer = json.loads(json.dumps(serialize_trace(rec.trace)))
    node = next(n for n in answer["graph"]["nodes"] if n["kind"] == "op")
    assert NO_DERIVATIVE and node["op"] in NO_DERIVATIVE
    assert re.fullmatch(r"\w+ // 0.7", node["explain"]["expr"]), node["explain"]
    rule = node["explain"]["rules"][0]
    assert "no derivative" in rule["en"] and "没有定义" in rule["zh"], rule
    with pytest.raises(RuntimeError, match="not implemented"):
        out.sum().backward()

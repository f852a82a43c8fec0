"""The "Why?" of a suspicious gradient on the page: asked from the Named tensors row, from a node's
details and from the gradient heat view, its answer reads the worker's diagnosis in the page's
language, states its thresholds, and marks the path from the tensor to the cause on the drawing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from app.worker.why import diagnose_all, engine_subjects
from engine.runner import run_program

from .support import PAIR_A, run_source

SCREENS = PAIR_A  # a laptop in English, a phone in Chinese
PROGRAMS = Path(__file__).parents[1] / "why" / "programs"
DEAD = (PROGRAMS / "dead_relu_bad_init.py").read_text()
SHOTS = Path(os.environ.get("GV_SHOTS", "/tmp/gv/shots/why"))
CJK = re.compile(r"[\u4e00-\u9fff]")


def diagnosis(source: str, name: str) -> dict:
    """What the engine diagnoses for ``name`` in ``source`` (the worker runs the same code)."""
    result = run_program(source)
    return diagnose_all(result.trace, engine_subjects(result.trace, result.variables))["tensors"][name]


def read_answer(shown, d: dict, where: str) -> str:
    answer = shown.page.get_by_test_id("why-answer")
    answer.wait_for(state="visible")
    text = answer.inner_text()
    for line in d["text"][shown.lang].split("\n"):
        assert line in text, (line, text)
    limits = ("tiny (mean |grad| < 0.00001", "huge (mean |grad| > 10000") if shown.lang == "en" else \
        ("过小（平均 |grad| < 0.00001", "过大（平均 |grad| > 10000")
    assert all(s in text for s in limits), text
    assert bool(CJK.search(text)) == (shown.lang == "zh")
    SHOTS.mkdir(parents=True, exist_ok=True)
    shown.page.screenshot(path=str(SHOTS / f"{shown.width}x{shown.height}-{shown.lang}-{where}.png"))
    return text


def assert_marked(page, d: dict) -> None:
    graph = page.get_by_test_id("graph")
    marked = graph.locator("g.node[data-lens~=why]")
    assert marked.count() == len(set(d["path"])), marked.count()
    assert graph.locator("g.edge[data-lens~=why]").count() == len(d["edges"])
    assert "why-cause" in (graph.locator(f"g#n{d['at']}").get_attribute("data-lens") or "")


@pytest.mark.screens(SCREENS)
def test_why_from_the_named_tensors_row(shown):
    page = shown.page
    run_source(page, DEAD)
    d = diagnosis(DEAD, "w1")
    assert (d["cause"], d["op"]) == ("zeroed", "relu")
    assert page.get_by_test_id("why-w1").count() == 1 and page.get_by_test_id("why-w2").count() == 1
    page.get_by_test_id("why-w1").click()
    text = read_answer(shown, d, "row")
    assert "ReLU" in text and "48" in text
    assert_marked(page, d)
    page.get_by_test_id("why-close").click()
    assert page.get_by_test_id("why-answer").is_hidden()
    assert page.get_by_test_id("graph").locator("g[data-lens~=why]").count() == 0


@pytest.mark.screens(SCREENS)
def test_why_from_a_node(shown):
    page = shown.page
    source = (PROGRAMS / "detach_in_the_middle.py").read_text()
    run_source(page, source)
    d = diagnosis(source, "w1")
    page.get_by_test_id("graph").locator(f"g#n{d['node']}").dispatch_event("click")
    ask = page.get_by_test_id("why-node-w1")
    ask.scroll_into_view_if_needed()
    ask.click()
    text = read_answer(shown, d, "node")
    assert ".detach()" in text
    assert_marked(page, d)


@pytest.mark.screens(SCREENS)
def test_why_from_the_gradient_heat_view(shown):
    page = shown.page
    source = (PROGRAMS / "sigmoid_deep_stack.py").read_text()
    run_source(page, source)
    d = diagnosis(source, "w0")
    lens = page.get_by_test_id("lens-heat")
    lens.scroll_into_view_if_needed()
    if lens.get_attribute("aria-pressed") != "true":
        lens.click()
    ask = page.get_by_test_id("why-heat-w0")
    ask.scroll_into_view_if_needed()
    ask.click()
    text = read_answer(shown, d, "heat")
    assert ("σ" in text or "Sigmoid" in text) and d["text"][shown.lang].split("\n")[1] in text

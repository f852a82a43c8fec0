"""The "Why?" in a one-file page, opened from file:// with no server: of a program rendered by
``gradviz.render``, and of a real PyTorch model recorded with ``gradviz.record()`` (its module's
parameters, which the program never bound to names of its own, get their Why? too)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from browser.support import wait_ready  # noqa: E402

import gradviz  # noqa: E402

from .corpus import PROGRAMS  # noqa: E402


def open_file(browser, path, lang):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720},
                              locale="zh-CN" if lang == "zh" else "en-US")
    page = ctx.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "blob:"))
            else problems.append(r.url))
    page.goto(path.as_uri())
    wait_ready(page, timeout=30_000)
    return page, problems


def ask(page, testid: str) -> str:
    page.get_by_test_id(testid).click()
    answer = page.get_by_test_id("why-answer")
    answer.wait_for(state="visible")
    return answer.inner_text()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_rendered_program(browser, tmp_path, lang):
    source = (PROGRAMS / "detach_in_the_middle.py").read_text()
    path = tmp_path / "why.html"
    gradviz.render(source, path, lang=lang, sandbox=False)
    page, problems = open_file(browser, path, lang)
    try:
        text = ask(page, "why-w1")
        assert ".detach()" in text and ("never flows back to w1" if lang == "en" else "传不回 w1") in text
        assert page.get_by_test_id("graph").locator("g[data-lens~=why]").count() >= 2
        assert not problems, problems
    finally:
        page.context.close()


def dead_model():
    torch.manual_seed(0)
    with gradviz.record() as rec:
        model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 1))
        with torch.no_grad():
            model[0].bias.fill_(-20.0)
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        loss.backward()
    return rec, model


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_recorded_torch_model(browser, tmp_path, lang):
    rec, model = dead_model()
    assert not model[0].weight.grad.any()  # the dead units: real torch's own gradient is zero
    why = rec.answer_data()["why"]["tensors"]
    name = next(n for n in why if n.endswith("0.weight"))
    assert (why[name]["cause"], why[name]["op"]) == ("zeroed", "relu")
    path = tmp_path / "rec.html"
    gradviz.render(rec, path, lang=lang)
    page, problems = open_file(browser, path, lang)
    try:
        text = ask(page, f"why-{name}")
        assert "ReLU" in text and "48" in text and ("dead" in text if lang == "en" else "已死" in text)
        assert not problems, problems
    finally:
        page.context.close()

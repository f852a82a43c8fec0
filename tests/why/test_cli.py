"""``gradviz why PROGRAM.py --tensor NAME`` prints the diagnosis the page shows, in the terminal."""

from __future__ import annotations

import pytest

from app.worker.why import diagnose_all, engine_subjects
from engine.runner import run_program
from gradviz.cli import main

from .corpus import PROGRAMS


def diagnosis(path, name):
    result = run_program(path.read_text())
    return diagnose_all(result.trace, engine_subjects(result.trace, result.variables))["tensors"][name]


@pytest.mark.parametrize("stem,name,lang", [("dead_relu_bad_init", "w1", "en"), ("item_in_graph", "w", "zh"),
                                            ("sigmoid_deep_stack", "w0", "en")])
def test_why_prints_the_diagnosis(capsys, stem, name, lang):
    path = PROGRAMS / f"{stem}.py"
    assert main(["why", str(path), "--tensor", name, "--lang", lang, "--no-sandbox"]) == 0
    out = capsys.readouterr().out.splitlines()
    d = diagnosis(path, name)
    said = d["text"][lang].split("\n")
    assert out[:len(said)] == said
    assert out[len(said)].startswith("Path: " if lang == "en" else "路径：") and name in out[len(said)]
    assert "1e-05" in out[-1] and "10000" in out[-1]


def test_why_in_the_sandbox_and_for_a_healthy_or_unknown_name(capsys, tmp_path):
    path = tmp_path / "ok.py"
    path.write_text("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                    "loss = (w * w).sum()\nloss.backward()\n")
    assert main(["why", str(path), "--tensor", "w"]) == 0
    assert capsys.readouterr().out.startswith("w's gradient looks healthy")
    assert main(["why", str(path), "--tensor", "nope", "--no-sandbox"]) == 1
    assert "binds no tensor named 'nope'" in capsys.readouterr().err

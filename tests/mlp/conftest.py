"""Run a generated program under real PyTorch in a child process (the oracle), collecting the value
of every tensor ``backward()`` is called on and what the program printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Prepended to the program: records each loss at backward() and dumps them at exit.
PREAMBLE = """\
import atexit as _atexit, json as _json, sys as _sys
import torch as _torch
_losses = []
_orig_backward = _torch.Tensor.backward
def _backward(self, *args, **kwargs):
    _losses.append(self.item())
    return _orig_backward(self, *args, **kwargs)
_torch.Tensor.backward = _backward
_atexit.register(lambda: _sys.stderr.write("LOSSES " + _json.dumps(_losses) + "\\n"))
"""


def run_in_torch(source: str, workdir: Path) -> tuple[list[float], str]:
    """Run ``source`` with real torch; returns (losses at each backward, stdout)."""
    path = workdir / "program.py"
    path.write_text(PREAMBLE + source)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120,
                          env=env, cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOSSES ")][-1]
    return json.loads(line[len("LOSSES "):]), proc.stdout


@pytest.fixture
def torch_run(tmp_path):
    """``torch_run(source)`` → (losses at each backward, stdout) under real PyTorch."""
    return lambda source: run_in_torch(source, tmp_path)

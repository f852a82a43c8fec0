"""The training view's plain logic (static/js/training_model.js), tested with node's test runner."""

import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).parent / "js"


def test_training_model_js():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = subprocess.run([node, "--test", str(JS)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 10" in proc.stdout

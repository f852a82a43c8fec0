"""The OS layer is required unless switched off on purpose: without bubblewrap the server refuses
to start (saying what to install or set); with GRADVIZ_SANDBOX=language-only it starts, and
/api/health says the OS layer is off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.sandbox import SandboxPool, SandboxSettings, SandboxUnavailable, confinement
from app.settings import AppSettings

ROOT = Path(__file__).resolve().parents[2]


def test_without_bubblewrap_the_full_sandbox_refuses_to_start(monkeypatch):
    monkeypatch.setattr(confinement.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap.*GRADVIZ_SANDBOX=language-only"):
        SandboxPool(SandboxSettings(mode="full"))


def test_python_m_app_refuses_to_start_without_bubblewrap():
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))  # no bwrap on this PATH
    proc = subprocess.run([sys.executable, "-m", "app", "--port", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "bubblewrap is not installed" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown sandbox mode"):
        SandboxPool(SandboxSettings(mode="none"))


def test_language_only_mode_starts_and_says_so():
    app = create_app(AppSettings(pool_workers=1, sandbox_mode="language-only"))
    with TestClient(app) as client:
        health = client.get("/api/health").json()
        assert health["sandbox"] == {"mode": "language-only",
                                     "layers": {"language": True, "process": True, "os": False}}
        r = client.post("/api/run", json={"source": "(a + b) * c", "variables": {
            "a": {"value": 1.0}, "b": {"value": 2.0}, "c": {"value": 3.0}}})
        assert r.status_code == 200 and r.json()["variables"]["c"]["grad"] == 3.0

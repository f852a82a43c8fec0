"""The OS layer on its own: raw Python inside a sandboxed child (the language layer assumed fallen)
cannot read what it was not given, write anything, reach the network or the server, run programs,
touch other processes, or gain privileges. Each attempt is one payload of tests/sandbox/escapes.py."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from app.sandbox import WorkerCrashed, confinement

from .escapes import ATTEMPTS, payload
from .pools import raw

CODE_FILE = str(Path(__file__).resolve().parents[2] / "engine" / "__init__.py")
SANDBOX_CODE_FILE = str(confinement.SANDBOX_ROOT / "engine" / "__init__.py")  # the same file, inside
# Attempts where the kernel killing the child is also a block (a foreign-ABI call; memory).
KILL_IS_BLOCK = {"x32-abi-execve", "allocate-2gb"}


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    """A secret file and a listening port in the server's process, for the payloads to aim at."""
    canary = tmp_path_factory.mktemp("outside") / "secret.txt"
    canary.write_text("the server's secret")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    yield {"canary": str(canary), "port": listener.getsockname()[1], "server_pid": os.getpid(),
           "code_file": SANDBOX_CODE_FILE, "listener": listener}
    listener.close()


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_escape_attempt_is_blocked_by_the_os_layer(os_pool, target, name):
    code = payload(ATTEMPTS[name], **{k: v for k, v in target.items() if k != "listener"})
    try:
        outcome = raw(os_pool, code)
    except WorkerCrashed:
        assert name in KILL_IS_BLOCK, f"{name}: the child died unexpectedly"
        return
    assert outcome["out"] is False, f"{name} got out: {outcome['detail']}"
    if name.startswith("connect-server-port"):
        with pytest.raises(TimeoutError):
            target["listener"].accept()  # nothing reached the listening socket
    assert Path(target["canary"]).read_text() == "the server's secret"
    assert not Path(target["canary"] + ".new").exists()
    assert Path(CODE_FILE).stat().st_size > 0


def test_the_os_layer_is_what_health_reports(os_pool):
    status = raw(os_pool, 'import os\nresult = {"uid": os.getuid(), "pid": os.getpid(), "seccomp": '
                          '[l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:")],'
                          '"root": sorted(os.listdir("/")), "tmp": os.listdir("/tmp"), '
                          '"ns": [os.readlink("/proc/self/ns/" + n) for n in ("pid", "net", "mnt")]}')
    assert os_pool.health() == {"mode": "full", "layers": {"language": True, "process": True, "os": True}}
    assert status["uid"] == 65534 and status["seccomp"] == ["2"]
    assert all(ns != os.readlink(f"/proc/self/ns/{ns.split(':')[0]}") for ns in status["ns"])
    assert "etc" not in status["root"] and "home" not in status["root"]
    assert status["tmp"] == []  # empty, wherever the checkout and the interpreter live


def test_the_sandbox_shows_only_code_directories_of_the_checkout(os_pool):
    root = str(confinement.SANDBOX_ROOT)
    seen = raw(os_pool, f'import os\nresult = sorted(os.listdir({root!r}))')
    assert set(seen) <= {"engine", "app", "tests"}, seen
    assert raw(os_pool, f'import os\nresult = os.path.exists({SANDBOX_CODE_FILE!r})')


def test_escape_counts(os_pool):
    """Every attempt in the table is run above; this keeps the table from shrinking unnoticed."""
    assert len(ATTEMPTS) >= 50

"""Workers die with the server: a server killed outright (SIGKILL, no clean-up) leaves no template,
spare or kept worker behind (bubblewrap's --die-with-parent and each process's parent-death signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from browser.support import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, stack = set(), [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            out.add(c)
            stack.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_server_leaves_no_worker_behind():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, None)
        with httpx.Client(timeout=30) as c:
            c.get(f"{base}/")  # a session cookie, so a worker is kept for this client
            assert c.post(f"{base}/api/run", json={"source": "y = torch.ones(2, requires_grad=True) * 3"}
                          ).status_code == 200
        workers = descendants(proc.pid)
        assert len(workers) >= 3  # bubblewrap, the template, its spares and the kept worker
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.1)
    assert not [p for p in workers if alive(p)]

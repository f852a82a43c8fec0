"""Sandbox pools for the tests, running the tests' job table (which has a raw-payload entry)."""

from __future__ import annotations

from app.sandbox import SandboxPool, SandboxSettings


def make_pool(mode: str, slots: int = 2, reserved: int = 1, **settings) -> SandboxPool:
    return SandboxPool(SandboxSettings(mode=mode, slots=slots, reserved=reserved, memory_mb=1024,
                                       jobs="tests.sandbox.payload_jobs", extra_code=("tests",),
                                       **settings))


def raw(pool: SandboxPool, payload: str, timeout: float = 30.0):
    """Run a raw Python payload in a fresh child; what it left in ``result``."""
    return pool.call("raw", payload, timeout=timeout).value["result"]


# A payload's piece: the nice value of the child's scheduling group (its session's), or None
GROUP_NICE = '''
def group_nice():
    try:
        with open("/proc/self/autogroup") as f:
            return int(f.read().split()[-1])
    except OSError:
        return None  # a kernel without scheduling groups per session
'''

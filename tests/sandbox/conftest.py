"""Pools for the sandbox tests: the OS layer on (the default), or off (to test the process layer as
if the OS layer had fallen)."""

from __future__ import annotations

import pytest

from .pools import make_pool


@pytest.fixture(scope="session")
def os_pool():
    p = make_pool("full")
    yield p
    p.close()


@pytest.fixture(scope="session")
def bare_pool():
    """Process layer only: no namespaces, no seccomp, no user change."""
    p = make_pool("language-only")
    yield p
    p.close()

"""Server settings, read once from the environment (GRADVIZ_*), with defaults for a small machine
(two worker processes)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import package
from .drawing.layout import LayoutSettings
from .sandbox import SandboxSettings
from .server.clients import client_secret


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class AppSettings:
    """What the HTTP layer needs to know (the runner's own limits live in engine.runner.Settings)."""

    max_body_bytes: int = 256 * 1024  # larger request bodies get 413
    pool_workers: int = field(default_factory=lambda: _env_int("GRADVIZ_POOL_WORKERS", 2))
    sandbox_mode: str = field(default_factory=lambda: os.environ.get("GRADVIZ_SANDBOX", "full"))
    sandbox_jobs: str = f"{package.APP}.worker.jobs"  # the job table workers import (tests: their own)
    sandbox_extra_code: tuple[str, ...] = ()  # more checkout directories workers see (tests' job tables)
    timeout_margin_s: float = 2.0  # on top of the runner's wall-time limit: start-up, serializing
    run_timeout_s: float | None = field(
        default_factory=lambda: _env_float("GRADVIZ_RUN_TIMEOUT_S", 0.0) or None)  # None: the runner's
    layout: LayoutSettings = field(default_factory=LayoutSettings)
    layout_budget_s: float = 8.0  # what a request may spend drawing after its run (within its budget)
    # After a run whose answer took open_ahead_after_s or more, when the workers are idle: the
    # answers of up to open_ahead of its boxes opened (one run more, and about open_ahead_s of
    # serializing in the worker), cached for POST /api/open. 0: nothing is done ahead.
    open_ahead: int = field(default_factory=lambda: _env_int("GRADVIZ_OPEN_AHEAD", 4))
    open_ahead_after_s: float = 0.25
    open_ahead_s: float = 2.0
    language: str = field(default_factory=lambda: os.environ.get("GRADVIZ_LANG", "en"))
    # Proxies whose X-Forwarded-For names the client (addresses or CIDRs, comma-separated); from
    # anyone else the header is ignored. Default none: the connection's peer is the client.
    trusted_proxies: str = field(default_factory=lambda: os.environ.get("GRADVIZ_TRUSTED_PROXIES", ""))
    client_secret: bytes = field(default_factory=client_secret, repr=False)

    @property
    def sandbox(self) -> SandboxSettings:
        """How the worker pool confines and sizes its workers."""
        return SandboxSettings(mode=self.sandbox_mode, slots=max(1, self.pool_workers),
                               jobs=self.sandbox_jobs, extra_code=self.sandbox_extra_code)


def load_settings() -> AppSettings:
    """Settings for this process."""
    return AppSettings()

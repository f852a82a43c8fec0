"""The production job table with the runner's wall-time limit raised, for tests that check what a
big program's answer holds on a machine that may be busy with other work (how long it takes is
benchmarks/bench_scale.py's measure, not theirs): every other limit, the sandbox, the answer and
its drawing are the server's own."""

from __future__ import annotations

from dataclasses import dataclass

import engine.runner.run as runner
from app.worker.jobs import JOBS, warm_up  # noqa: F401 - the template reads both from this module
from engine.runner import Settings

ROOMY_TIMEOUT_S = 120.0


@dataclass
class RoomySettings(Settings):
    """The runner's limits, the wall-time one raised."""

    timeout_s: float = ROOMY_TIMEOUT_S


runner.Settings = RoomySettings  # what a run without settings of its own (the job's) uses

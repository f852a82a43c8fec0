"""The production job table with the runner's wall-time limit cut to a fraction of a second, so a
test can see what the server does with a run its runner stopped on the clock (where it stopped
depends on how busy the machine was): every other limit, the sandbox and the answer are the
server's own."""

from __future__ import annotations

from dataclasses import dataclass

import engine.runner.run as runner
from app.worker.jobs import JOBS, warm_up  # noqa: F401 - the template reads both from this module
from engine.runner import Settings

HASTY_TIMEOUT_S = 0.3


@dataclass
class HastySettings(Settings):
    """The runner's limits, the wall-time one cut."""

    timeout_s: float = HASTY_TIMEOUT_S


runner.Settings = HastySettings  # what a run without settings of its own (the job's) uses

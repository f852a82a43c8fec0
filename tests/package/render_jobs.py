"""A job table for the render tests' sandbox: the production jobs, with a ``run`` that stands in
for an engine bug. A program whose first line is ``ESCAPE`` runs as raw Python in the worker (as
if the language layer had fallen); what it could do there comes back as the output of an ordinary
run, in the answer's stdout. A program whose first line is ``CRASH`` kills its worker. Only the
tests' pools import this table."""

from __future__ import annotations

import json
import os

from app.worker.jobs import JOBS as PRODUCTION
from app.worker.jobs import warm_up  # noqa: F401 - the template warms up as the server's does

ESCAPE = "# the language layer has fallen\n"
CRASH = "# the worker dies\n"
PWNED = "/tmp/gradviz_pwned"


def escaped(code: str) -> dict:
    """Run ``code`` as raw Python here: what it raised, whether it left ``PWNED``, and where it ran
    (this process's pid namespace and user)."""
    found = {"pid_ns": os.readlink("/proc/self/ns/pid"), "uid": os.getuid(), "raised": None}
    try:
        exec(compile(code, "<program>", "exec"), {})  # noqa: S102 - the engine bug stood in for
    except BaseException as exc:  # noqa: BLE001 - whatever stopped it is the finding
        found["raised"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    found["pwned"] = os.path.exists(PWNED)
    return found


def run(source: str, variables=None, fold="auto"):
    if source.startswith(CRASH):
        os._exit(3)
    if source.startswith(ESCAPE):
        source = f"print({json.dumps(escaped(source[len(ESCAPE):]))!r})\n"
    return PRODUCTION["run"](source, variables, fold)


JOBS = dict(PRODUCTION, run=run)

"""What each test file costs, so that a run on several cores ends together.

With ``--dist loadfile`` every file runs whole in one worker, and a worker asks for the next file when
it is nearly done. xdist's own order (most tests first) sends the files of thousands of quick engine
cases first and leaves a few browser files of long tests for the end, where one core runs them while
the other idles. Sending the costliest files first (longest processing time first) fills that tail
with the cheap files instead.

The costs are the seconds each file took (setup, call and teardown of its tests) in a full run, in
tests/file_costs.json; a run prints the slowest files, and
``GRADVIZ_TEST_COSTS=tests/file_costs.json scripts/test.sh`` writes the table again."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

TABLE = Path(__file__).with_name("file_costs.json")
# A file the table does not know yet (new since it was written): neither first nor last.
UNKNOWN_S = 10.0


def known_costs() -> dict[str, float]:
    """``{path relative to the checkout: seconds}`` from the table (empty when there is none)."""
    try:
        return {k: float(v) for k, v in json.loads(TABLE.read_text())["seconds"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def costliest_first(items: list) -> list:
    """``items`` with the files that cost most first; a file's own tests keep their order."""
    costs = known_costs()
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::")[0], len(first_seen))

    def key(item):
        path = item.nodeid.split("::")[0]
        return (-costs.get(path, UNKNOWN_S), first_seen[path])

    return sorted(items, key=key)


def seconds_per_file(reports) -> dict[str, float]:
    """Setup, call and teardown time of the reports, summed per file."""
    totals: dict[str, float] = defaultdict(float)
    for rep in reports:
        if getattr(rep, "when", None) in ("setup", "call", "teardown"):
            totals[rep.nodeid.split("::")[0]] += getattr(rep, "duration", 0.0)
    return dict(totals)


def report(terminal, reports, slowest: int = 15) -> None:
    """Print the slowest files and their share; write the table where GRADVIZ_TEST_COSTS says."""
    totals = seconds_per_file(reports)
    if not totals:
        return
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    whole = sum(totals.values())
    terminal.write_sep("=", f"slowest {min(slowest, len(ranked))} test files (of {len(ranked)})")
    for path, seconds in ranked[:slowest]:
        terminal.write_line(f"{seconds:8.1f}s {100 * seconds / whole:5.1f}%  {path}")
    terminal.write_line(f"{whole:8.1f}s in all test files (the sum over every worker)")
    out = os.environ.get("GRADVIZ_TEST_COSTS")
    if out:
        table = {"seconds": {path: round(seconds, 1) for path, seconds in ranked}}
        Path(out).write_text(json.dumps(table, indent=1) + "\n")

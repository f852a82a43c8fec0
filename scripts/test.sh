#!/usr/bin/env bash
# Set up (when needed) and run every check: ruff, then the whole pytest suite (browser tests included).
# Extra arguments go to pytest. The tests run on every core (pytest-xdist), each file's tests in one
# worker, so a file's shared page, server or pool starts once; `scripts/test.sh -n 0` runs them in one process.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" test
cd "$root"
.venv/bin/ruff check .
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# --durations=20: the run also lists its 20 slowest tests (what to make cheaper next)
exec .venv/bin/python -m pytest -n auto --dist loadfile --durations=20 "$@"

#!/usr/bin/env bash
# Set up (when needed) and run every check: ruff, then the whole pytest suite (browser tests included).
# Extra arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" test
cd "$root"
.venv/bin/ruff check .
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
exec .venv/bin/python -m pytest "$@"

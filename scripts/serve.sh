#!/usr/bin/env bash
# Set up (when needed) and start gradviz on http://127.0.0.1:8000 (extra arguments go to `python -m app`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" run
cd "$root"
exec .venv/bin/python -m app --host 127.0.0.1 --port 8000 "$@"

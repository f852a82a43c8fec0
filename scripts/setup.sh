#!/usr/bin/env bash
# Installs what gradviz needs when it is missing, then returns quickly on a second run.
#   scripts/setup.sh run    system graphviz + .venv with the run-time dependencies
#   scripts/setup.sh test   the above + chromium, a CJK font and the test extra (torch, playwright, ...)
set -euo pipefail
mode="${1:-run}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

need_pkgs=()
command -v dot >/dev/null 2>&1 || need_pkgs+=(graphviz)
# The OS sandbox around the workers: bubblewrap, libseccomp (setpriv comes with util-linux).
# (grep without -q below: under pipefail, -q exiting early fails the pipe and reinstalls every time)
command -v bwrap >/dev/null 2>&1 || need_pkgs+=(bubblewrap)
/sbin/ldconfig -p 2>/dev/null | grep 'libseccomp\.so\.2' >/dev/null || need_pkgs+=(libseccomp2)
if [ "$mode" = test ]; then
    [ -x /usr/bin/chromium ] || need_pkgs+=(chromium)
    if ! fc-list 2>/dev/null | grep -i 'Noto Sans CJK' >/dev/null; then need_pkgs+=(fonts-noto-cjk); fi
    # The scale-out test: nginx in front of two replicas sharing the layout cache through Redis.
    [ -x /usr/sbin/nginx ] || need_pkgs+=(nginx)
    # gradviz render's PNG: the SVG drawing rasterized, open loops as on the page
    command -v rsvg-convert >/dev/null 2>&1 || need_pkgs+=(librsvg2-bin)
    command -v redis-server >/dev/null 2>&1 || need_pkgs+=(redis-server)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
    echo "setup: installing system packages: ${need_pkgs[*]}"
    if [ "$(id -u)" = 0 ]; then sudo_cmd=""
    elif command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"
    else
        echo "setup: please install these Debian packages as root: ${need_pkgs[*]}" >&2
        exit 1
    fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_pkgs[@]}"
fi

py=""
# 3.11 first: the test oracle (torch 2.13.0) is installed from a cp311 wheel where one is at hand.
for cand in python3.11 python3 python3.12 python3.13; do
    if command -v "$cand" >/dev/null 2>&1 \
            && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
        py="$cand"; break
    fi
done
[ -n "$py" ] || { echo "setup: Python 3.11 or newer is required" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $py"
    "$py" -m venv .venv
fi

extra=""
[ "$mode" = test ] && extra="[test]"
stamp=".venv/.setup-stamp-$mode"
want="$(sha256sum pyproject.toml | cut -c1-16)"
# The test install includes everything the run install has.
if [ "$mode" = run ] && [ -f .venv/.setup-stamp-test ] && [ "$(cat .venv/.setup-stamp-test)" = "$want" ]; then
    stamp=.venv/.setup-stamp-test
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup: installing Python packages ($mode)"
    # pip's notes about local package mirrors that are absent here are noise: keep real errors.
    .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored: it is neither" || true
    .venv/bin/python -m pip install -q -e ".$extra" 2>&1 | grep -v "is ignored: it is neither" || true
    .venv/bin/python -c "import fastapi, numpy, graphviz, jinja2, uvicorn, pyseccomp" \
        || { echo "setup: Python packages failed to install" >&2; exit 1; }
    if [ "$mode" = test ]; then
        .venv/bin/python -c "import torch, pytest, xdist, playwright, hypothesis, httpx, build, nbclient, ipykernel, qrcode" \
            || { echo "setup: test packages failed to install" >&2; exit 1; }
    fi
    echo "$want" > "$stamp"
fi

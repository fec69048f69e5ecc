#!/usr/bin/env bash
# Creates .venv and installs ndpgpu with its pinned dependencies (idempotent).
# nvcc: taken from PATH when present; otherwise the pinned PyPI wheels are installed (ndpgpu[nvcc]).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "ndpgpu needs Python 3.11 or newer ($PY is $("$PY" --version 2>&1))" >&2; exit 1
fi
if ! command -v g++ >/dev/null 2>&1 && ! command -v c++ >/dev/null 2>&1; then
  echo "ndpgpu needs a host C++ compiler (g++) for nvcc: apt-get install g++" >&2; exit 1
fi
[ -d .venv ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
extras="dev"
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${NDPGPU_NVCC:-}" ]; then
  extras="dev,nvcc"
fi
python -m pip install -q -e ".[${extras}]"
# compile the engine once (numba caches it next to the sources) so parallel test workers load it
python -m ndpgpu.warmup
# the HTML report's browser test needs a headless Chromium (Debian's chromium package); without root or apt
# the test is skipped and says why
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -q chromium >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
      || echo "setup: could not install chromium (apt-get install chromium): the HTML report's browser test will be skipped" >&2
  else
    echo "setup: no chromium, and not root to apt-get install it: the HTML report's browser test will be skipped" >&2
  fi
fi

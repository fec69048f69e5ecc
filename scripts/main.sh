#!/usr/bin/env bash
# The main job on an embedded default: set up, then run every paper's reproduction at small scale
# (`ndpgpu main`, i.e. `ndpgpu reproduce all`; reports in out/main).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
exec ndpgpu main "$@"

#!/usr/bin/env bash
# The main job on an embedded default: set up, then run every built-in workload and check it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
exec ndpgpu main "$@"

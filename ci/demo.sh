#!/usr/bin/env bash
# The main job: install, build, then run ferryd on the simulated Adreno with a guest workload
# through it (`ferry demo`). Extra arguments go to `ferry demo` (e.g. --gpu a660).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/ci/install-deps.sh"
"$top/ci/build.sh" "$top/build"
exec "$top/build/tools/ferry" demo "$@"

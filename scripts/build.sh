#!/usr/bin/env bash
# Configures and builds the Release preset (2 parallel jobs: sized for small machines).
#   scripts/build.sh               everything: the CLI, tests, benchmarks
#   scripts/build.sh smemsim       only those targets (the quickstart builds the CLI alone)
# Extra configure options come from SMEMSIM_CMAKE_ARGS (CI: -DSMEMSIM_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2086
cmake --preset release ${SMEMSIM_CMAKE_ARGS:-} >/dev/null
if (($#)); then
  cmake --build --preset release --target "$@"
else
  cmake --build --preset release
fi

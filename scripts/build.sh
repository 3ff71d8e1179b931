#!/usr/bin/env bash
# Configures and builds the Release preset (2 parallel jobs: sized for small machines).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release

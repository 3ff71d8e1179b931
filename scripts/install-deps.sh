#!/usr/bin/env bash
# Installs smemsim's Debian 12 build and test dependencies (skips apt when all are present).
set -euo pipefail
PKGS=(g++ cmake ninja-build pkg-config libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
      libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libtbb-dev libstb-dev gnuplot-nox
      clang libclang-rt-14-dev)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "smemsim: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# nvcc is optional: it compiles the CUDA kernel suite to PTX (kernels/). It is not a Debian package here;
# CUDA installs put it in /usr/local/cuda/bin.
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "smemsim: note: nvcc not found; the PTX kernel tests will be skipped"
fi

#!/usr/bin/env bash
# Installs smemsim's Debian 12 dependencies (apt runs only for what is missing) and fetches the
# studies' default photographs into the cache (scripts/fetch-images.sh: idempotent, one line).
#   scripts/install-deps.sh          what the CLI needs to build and run (the quickstart)
#   scripts/install-deps.sh --test   that, and what the tests, benchmarks and fuzzers need
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS=(g++ cmake ninja-build pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev
      libtomlplusplus-dev libtbb-dev libstb-dev gnuplot-nox)
if [ "${1:-}" = "--test" ]; then
  PKGS+=(libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev)
  # The Python module and its pytest suite (docs/python.md), for Debian's /usr/bin/python3.
  PKGS+=(pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib)
  # `pip install --no-build-isolation .` and the .deb of CPack, tried by tests/package_test.sh.
  PKGS+=(python3-pip python3-setuptools python3-wheel dpkg-dev)
  # Headless Chromium renders profile --html's page in a test (skipped without it).
  PKGS+=(chromium fonts-dejavu-core)
  # A single-node Slurm started by a test (tests/slurm_study_test.sh; skipped without it).
  PKGS+=(slurm-wlm munge)
fi
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "smemsim: installing ${missing[*]}"
  # Another apt or dpkg (unattended-upgrades, a second install) holding the lock is waited for,
  # up to 10 minutes, instead of failing at once with exit 100 (issue 48).
  lock_wait=(-o DPkg::Lock::Timeout=600)
  $SUDO apt-get "${lock_wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${lock_wait[@]}" install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
# The histogram and Hough studies' default inputs are photographs from Debian packages; without
# them those defaults stop with an error that says how to get them (or --set images=generated).
scripts/fetch-images.sh --quiet || echo "smemsim: warning: the studies' photographs could not be fetched (above); their defaults need them, --set images=generated runs without" >&2
# nvcc is optional: the kernel suite's PTX ships in kernels/ptx. Where nvcc is found the tests also
# compile the real-kernel corpus (tests/corpus) and check that the shipped PTX is current.

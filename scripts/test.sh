#!/usr/bin/env bash
# Installs dependencies, builds, runs every test (CTest), then a bounded libFuzzer run on the parsers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/build.sh
if command -v clang++ >/dev/null; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target fuzzers
  secs="${SMEMSIM_FUZZ_SECONDS:-20}"
  for f in build/fuzz/fuzz/*_fuzz; do
    name=$(basename "$f" _fuzz)
    mkdir -p "build/fuzz/corpus-$name"
    # seed corpora: fuzz/corpus/NAME; for the PTX and executor targets the hand-written PTX seeds
    # (fuzz/corpus/sim), the kernel suite's and the real-kernel corpus's PTX, when nvcc built them
    candidates="fuzz/corpus/$name"
    if [ "$name" = ptx ] || [ "$name" = sim ]; then
      candidates="fuzz/corpus/ptx fuzz/corpus/sim kernels/ptx build/release/tests/corpus_ptx"
    fi
    seeds=""
    for d in $candidates; do
      if [ -d "$d" ]; then seeds="$seeds $d"; fi
    done
    echo "fuzzing $name for ${secs}s"
    "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
      "build/fuzz/corpus-$name" $seeds \
      2>build/fuzz/$name.log || { tail -40 build/fuzz/$name.log; exit 1; }
    tail -1 build/fuzz/$name.log
  done
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The installed package (issue 30, docs/api.md): install into a prefix of this run, then configure,
# build and run examples/consumer against that prefix alone.
echo "== examples/consumer against an installed smemsim =="
cmake --install build/release --prefix "$scratch/prefix" >/dev/null
cmake -S examples/consumer -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
SMEMSIM_PTX_DIR="$scratch/prefix/share/smemsim/ptx" "$scratch/consumer/consumer"
# Last, so that CTest's summary closes the output. The tests' scratch files go to a folder of this
# run (GoogleTest's TEST_TMPDIR), so that two runs on one machine do not overwrite each other's.
mkdir -p "$scratch/tests"
TEST_TMPDIR="$scratch/tests/" ctest --preset release -j2

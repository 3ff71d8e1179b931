#!/usr/bin/env bash
# The flagship job on built-in defaults: install, build, then reproduce seed 001's Algorithm 1 examples
# and analyze a random atomic trace with and without the seed 000 XOR hash.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
S=build/release/apps/smemsim/smemsim
echo
echo "== seed 001 §2.1: atomic latency on a GTX 580 (Algorithm 1) =="
for p in 0..31 0,32,2..31 0,1024,2..31 0,1024,2048,3..31 0,1024,2048,32,4..31; do
  printf '  %-24s %s cycles\n' "$p" "$($S analyze --pattern "$p" --json | sed -n 's/.*"latency_cycles": \([0-9]*\).*/\1/p')"
done
echo
echo "== the worst of them, explained =="
$S analyze --pattern 0,1024,2048,32,4..31
mkdir -p out
$S gen random --space 2048 --count 100000 --seed 1 --op atom -o out/random.trace
echo
echo "== 100,000 random atomic warps over 2048 words: mod vs the XOR hash of seed 000 =="
$S analyze --trace out/random.trace --stats
$S analyze --trace out/random.trace --bank-hash xor --lock-hash xor

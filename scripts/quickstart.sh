#!/usr/bin/env bash
# The flagship job on built-in defaults: install, build, reproduce seed 001's Algorithm 1 examples,
# search a bank hash for the transposed-tile read of seed 002 §3.2.2, time real kernels on the
# cycle-level GPU model (seed 000 §III's atomic measured by the kernel's own clock(), seed 000
# Fig. 4's replication optimum, seed 004's elastic pipeline on a conflicting DCT), then run the
# random-patterns study of seed 001 Fig. 5 (1,000,000 warps per vote-space size), ending in its
# table and figure. It installs and builds only what it runs (the CLI); nvcc is not needed: the
# kernel suite's PTX ships in kernels/ptx.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh smemsim
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
echo
echo "== seed 002 §3.2.2: the transposed 16x16 tile read is an 8-way conflict; which swizzle removes it? =="
$S gen block --matrix 0,1,1,0 --cols 16 --block-x 16 --count 8 -o out/transpose_store.trace
$S hash search --family bvxor --trace out/transpose_store.trace --emit cuda
echo
echo "== seed 000 §III on the cycle-level GTX 580: atomic_bench times its atomicAdd with clock() =="
for c in 1 2 4 8; do
  printf '  %d lanes in bank 0 (seed 000 Eq. 1, stride 32): %s cycles\n' "$c" \
    "$($S sim builtin:atomic_bench --conflicts "$c" --stride 32 --json | sed -n 's/.*"report": "clock() in the kernel: \([0-9]*\) cycles.*/\1/p')"
done
echo
echo "== seed 000 Fig. 4: 64-bin histogram, whole-kernel cycles by replication R =="
echo "   (lock-loop atomics as on the GPU; atomics timed as loads as in the original GPGPU-Sim)"
for r in 1 4 16 64; do
  cyc() { $S sim builtin:histogram --bins 64 --replication "$r" --image noise --width 256 --height 256 --model "$1" --json | grep -m1 '"cycles":' | tr -dc 0-9; }
  printf '  R = %-3d lock loop %8s   loadstore %8s\n' "$r" "$(cyc fsm)" "$(cyc loadstore)"
done
echo
echo "== seed 004: 8x8 DCT of a 512x512 image on its GPU (cf11), padding undone vs padded =="
echo "   (baseline: unified pipeline, round robin; enhanced: elastic pipeline, bank-aware scheduling)"
for v in dct_nopad dct; do
  cyc() { $S sim builtin:dct8x8 --variant "$v" --arch cf11 --pipeline "$1" --scheduler "$2" --json | grep -m1 '"cycles":' | tr -dc 0-9; }
  printf '  %-10s baseline %7s   enhanced %7s cycles\n' "$v" "$(cyc unified lrr)" "$(cyc elastic bank-aware)"
done
echo
echo "== seed 001 §3, Fig. 5: 1,000,000 random atomic warps per vote-space size =="
$S study run random-patterns --out out

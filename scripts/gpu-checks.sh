#!/usr/bin/env bash
# The checks that need a real GPU, in one run (docs/gpu-runs.md "Measured on an H200 and an H100"):
#   scripts/gpu-checks.sh [--quick] OUT [SMEMSIM]
# writes into OUT (eleven files; a device machine returns eight, so pack them: tar czf):
#   replicas.toml  scripts/calibrate: every replica microbenchmark, a measurement file
#   keys.toml      scripts/calibrate --keys: kernels/ubench.cu's chains as timing keys
#   hopper.txt     scripts/hopper_measure.cu: bulk-copy and distributed-shared-memory latencies
#   wgmma.toml     scripts/wgmma_measure.cu: wgmma's latencies (the replicas wgmma_n*, [[figure]]s)
#   memory.txt     scripts/memory_measure.cu: L1/L2/DRAM bandwidth, one-word atomics, DRAM chase
#   scaling.txt    scripts/memory_scaling.cu: the bandwidths from 1 .. every SM, one word's
#                  atomics not aggregated, chases while other SMs load DRAM or the L2
#   ncu_lookups.csv  Nsight's L1 and L2 lookups of memory_scaling --ncu's launches (a line many
#                  SMs read at once; two warps' loads of one sector)
#   sass.txt       the replicas' SASS for sm_70, sm_75, sm_80 and sm_90, and the suite's for sm_90
#   suite.txt      the kernel suite replayed on the GPU (scripts/gpu-replay.cu): outputs against
#                  the executor's, milliseconds; and `sim --threads N` speed (SMEMSIM's --stats)
#   ncu.csv        Nsight Compute over the same launches: cycles, instructions, shared-memory
#                  wavefronts and bank conflicts
#   stalls.csv     Nsight Compute's warp-state and scheduler sections over them (why warps wait)
#   log.txt        everything printed
# SMEMSIM is a smemsim binary (default build/release/apps/smemsim/smemsim); it writes the suite's
# packages (smemsim run --export-gpu) and times itself. Needs nvcc, a CUDA GPU, and for ncu.csv
# Nsight Compute with access to the counters. --quick leaves out keys.toml, stalls.csv, the suite's SASS and
# the speed runs (about a minute less).
set -u
quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi
cd "$(dirname "$0")/.."
usage="usage: scripts/gpu-checks.sh [--quick] OUT [SMEMSIM]"
out="${1:-}"
[ -n "$out" ] || { echo "gpu-checks: no OUT folder ($usage)" >&2; exit 2; }
case "$out" in
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "gpu-checks: unknown option '$out' ($usage)" >&2; exit 2 ;;
esac
[ -e "$out" ] && [ ! -d "$out" ] && { echo "gpu-checks: $out is not a directory" >&2; exit 2; }
smemsim="${2:-build/release/apps/smemsim/smemsim}"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
exec > >(tee "$out/log.txt") 2>&1
step() { echo; echo "== $* ($(date +%T))"; }

step GPU
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
nvcc --version | tail -2

step replicas
timeout 180 scripts/calibrate -o "$out/replicas.toml"
if [ $quick = 0 ]; then
  step keys
  timeout 90 scripts/calibrate --keys -o "$out/keys.toml"
fi

step hopper
nvcc -O2 -arch=sm_90 -o "$tmp/hopper" scripts/hopper_measure.cu &&
  timeout 60 "$tmp/hopper" | tee "$out/hopper.txt"

step wgmma
nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o "$tmp/wgmma" scripts/wgmma_measure.cu &&
  timeout 60 "$tmp/wgmma" | tee "$out/wgmma.toml"

step memory
nvcc -O2 -arch=native -o "$tmp/memory" scripts/memory_measure.cu &&
  timeout 120 "$tmp/memory" | tee "$out/memory.txt"

step scaling
nvcc -O2 -arch=native -o "$tmp/scaling" scripts/memory_scaling.cu &&
  timeout 150 "$tmp/scaling" | tee "$out/scaling.txt"
ml=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
ml+=,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
ml+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
ml+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,dram__bytes_read.sum
timeout 90 ncu --cache-control all --clock-control none --csv --metrics "$ml" "$tmp/scaling" --ncu \
  > "$out/ncu_lookups.csv" 2> "$tmp/ncu.err" || tail -5 "$tmp/ncu.err"

step SASS
{
  for a in 70 75 80 90; do
    echo "######## kernels/ubench_replicas.cu sm_$a"
    nvcc -cubin -O2 -arch=sm_$a -o "$tmp/r$a.cubin" kernels/ubench_replicas.cu &&
      cuobjdump -sass "$tmp/r$a.cubin"
  done
  echo "######## kernels/ptx/wgmma.ptx sm_90a (HGMMA, WARPGROUP.ARRIVE / DEPBAR)"
  ptxas -arch=sm_90a -o "$tmp/w.cubin" kernels/ptx/wgmma.ptx && cuobjdump -sass "$tmp/w.cubin"
  [ $quick = 1 ] || for p in kernels/ptx/*.ptx; do
    a=sm_90
    grep -q '^\.target sm_90a' "$p" && a=sm_90a  # wgmma needs the arch-specific target
    echo "######## $p $a (ptxas -O3, as the driver's JIT)"
    ptxas -arch=$a -o "$tmp/s.cubin" "$p" && cuobjdump -sass "$tmp/s.cubin"
  done
} > "$out/sass.txt" 2>&1
wc -l "$out/sass.txt"

step suite packages
pk="$tmp/pk"
mkdir -p "$pk"
while read -r name builtin opts; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  timeout 60 "$smemsim" run "builtin:$builtin" $opts --export-gpu "$pk/$name" > /dev/null ||
    echo "export $name failed"
done < <(grep -v "^#" scripts/gpu-suite.txt)
# wgmma's layouts (kernels/wgmma.cu, sm_90a): A and B hold 0, 1, 2, ... (f16 iota: every sum
# exact in f32), placed under each swizzle mode and major and read through descriptors; the replay
# compares the GPU's products with the executor's, which checks our reading of the PTX ISA's
# canonical layouts on the hardware. Arguments: mode, trans_a, trans_b, variant, accumulate.
for v in "0 0 0 0 1" "32 1 0 0 0" "64 0 1 0 0" "128 1 1 0 0" "64 1 1 2 1"; do
  # shellcheck disable=SC2086
  set -- $v
  spec="$tmp/wgmma_$1_$2_$3_$4_$5.toml"
  printf 'kernel = "_Z13wgmma_layoutsPKtS0_Pfiiiii"\ngrid = 1\nblock = 128\n' > "$spec"
  printf 'args = ["a", "b", "out", %s, %s, %s, %s, %s]\n' "$1" "$2" "$3" "$4" "$5" >> "$spec"
  printf '[buffers.a]\ntype = "f16"\ncount = 1024\ninit = "iota"\n' >> "$spec"
  printf '[buffers.b]\ntype = "f16"\ncount = 512\ninit = "iota"\n' >> "$spec"
  printf '[buffers.out]\ntype = "f32"\ncount = 2048\n' >> "$spec"
  timeout 60 "$smemsim" run kernels/ptx/wgmma.ptx --launch "$spec" \
    --export-gpu "$pk/wgmma_$1_$2_$3_$4_$5" > /dev/null || echo "export wgmma $v failed"
done
# The TMA examples (tensor maps encoded by the replay with cuTensorMapEncodeTiled): the 128B-
# swizzled tiles of the wgmma GEMM (random f16: its sums differ from the executor's in rounding),
# and tma_rows' unswizzled box (exact).
timeout 60 "$smemsim" run kernels/ptx/wgmma.ptx --launch docs/examples/wgmma_gemm.launch.toml \
  --export-gpu "$pk/wgmma_gemm" > /dev/null || echo "export wgmma_gemm failed"
timeout 60 "$smemsim" run kernels/ptx/tma.ptx --launch docs/examples/tma_rows.launch.toml \
  --export-gpu "$pk/tma_rows" > /dev/null || echo "export tma_rows failed"
# The im2col copy (cuTensorMapEncodeIm2col: the centre tap of a padded 3 x 3 filter, exact), and
# the cluster kernels (exact): the DSM exchange, a bulk copy and a bulk reduction into the partner,
# st.async and red.async completing the partner's mbarrier.
timeout 60 "$smemsim" run kernels/ptx/tma.ptx --launch docs/examples/tma_im2col.launch.toml \
  --export-gpu "$pk/tma_im2col" > /dev/null || echo "export tma_im2col failed"
timeout 60 "$smemsim" run kernels/ptx/cluster.ptx --launch docs/examples/cluster_exchange.launch.toml \
  --export-gpu "$pk/cluster_exchange" > /dev/null || echo "export cluster_exchange failed"
for k in "cluster_push PKiPii s32" "cluster_reduce PKjPji u32"; do
  # shellcheck disable=SC2086
  set -- $k
  spec="$tmp/$1.toml"
  printf 'kernel = "_Z%d%s%s"\ngrid = 8\nblock = 32\nargs = ["in", "out", 256]\n' "${#1}" "$1" "$2" > "$spec"
  printf '[buffers.in]\ntype = "%s"\ncount = 2048\ninit = "iota"\n' "$3" >> "$spec"
  printf '[buffers.out]\ntype = "%s"\ncount = 2048\n' "$3" >> "$spec"
  timeout 60 "$smemsim" run kernels/ptx/cluster.ptx --launch "$spec" \
    --export-gpu "$pk/$1" > /dev/null || echo "export $1 failed"
done
printf 'kernel = "_Z16cluster_st_asyncPj"\ngrid = 8\nblock = 32\nargs = ["out"]\n' > "$tmp/sa.toml"
printf '[buffers.out]\ntype = "u32"\ncount = 264\n' >> "$tmp/sa.toml"
timeout 60 "$smemsim" run kernels/ptx/cluster.ptx --launch "$tmp/sa.toml" \
  --export-gpu "$pk/cluster_st_async" > /dev/null || echo "export cluster_st_async failed"

step suite replay
nvcc -O2 -o "$tmp/replay" scripts/gpu-replay.cu -lcuda || exit 1
{
  # A package that ran (exit 0: identical outputs; 1: a difference) goes on to ncu; one that
  # failed or hung (a kernel that spins forever on the GPU) does not.
  for d in "$pk"/*/; do
    timeout 30 "$tmp/replay" "${d%/}"
    rc=$?
    if [ $rc -le 1 ]; then echo "${d%/}" >> "$tmp/ran"; else echo "exit $rc for $d"; fi
  done
  echo
  [ $quick = 1 ] || for k in "reduction --size 1048576" "matmul --width 512"; do
    for t in 1 2 4 8 16; do
      # shellcheck disable=SC2086
      "$smemsim" sim builtin:$k --arch hopper-h100 --threads $t --stats 2>&1 >/dev/null |
        sed "s|^|sim $k: |"
    done
  done
} | tee "$out/suite.txt"

step ncu
# Kernel names as in the PTX (mangled), so that scripts/gpu-compare.py matches them.
base=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum
base+=,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
base+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
base+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
base+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
base+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
extra=,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
for metrics in "$base$extra" "$base"; do
  if timeout 240 ncu --clock-control none --print-kernel-base mangled --csv --metrics "$metrics" \
    "$tmp/replay" --once $(cat "$tmp/ran") > "$out/ncu.csv" 2> "$tmp/ncu.err" ||
    grep -q '^"ID"' "$out/ncu.csv"; then
    break
  fi
  echo "ncu failed with $metrics:"
  tail -5 "$tmp/ncu.err"
done
wc -l "$out/ncu.csv"

if [ $quick = 0 ]; then
  step stalls
  timeout 300 ncu --clock-control none --print-kernel-base mangled --csv \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    "$tmp/replay" --once $(cat "$tmp/ran") > "$out/stalls.csv" 2> "$tmp/ncu.err" ||
    tail -5 "$tmp/ncu.err"
  wc -l "$out/stalls.csv"
fi
step done

#!/usr/bin/env bash
# The GPU checks that issues 42 and 44 left open after scripts/gpu-checks.sh's runs, in one short
# run (docs/gpu-runs.md "Stalls, FP64 chains and the SASS on an H200"):
#   scripts/gpu-followup.sh [--stalls] OUT PACKAGES
# PACKAGES is a folder of `smemsim run ... --export-gpu` packages, made beforehand where smemsim is
# built (the device needs no smemsim then). Writes into OUT (at most eight files come back from a
# device machine):
#   sass.tar.gz        cuobjdump -sass of every kernels/ptx/*.ptx for sm_75, sm_80 and sm_90
#                      (ptxas -O3, as the driver's JIT), and of scripts/operand_delay.cu's chains
#   operand_delay.txt  scripts/operand_delay.cu: the operand-delay, division, FP64 and branch
#                      chains
#   whole_gpu.toml     scripts/whole_gpu_measure.cu: Accel-Sim's three whole-GPU figures
#   placement.txt      scripts/block_placement.cu: the SM and start of every CTA of three launches
#   stalls.csv         Nsight Compute over the packages' launches (--page raw: every metric of
#                      the sections, one row a launch): warp states (each stall reason's warps
#                      per issue), the schedulers, occupancy, and the L1's and L2's sectors and
#                      hit rates
#   log.txt            everything printed
# --stalls runs the last step alone (stalls.csv and log.txt).
# Needs nvcc, ptxas, cuobjdump, a CUDA GPU and Nsight Compute with access to the counters.
set -u
cd "$(dirname "$0")/.."
usage="usage: scripts/gpu-followup.sh [--stalls] OUT PACKAGES"
only_stalls=0
if [ "${1:-}" = --stalls ]; then
  only_stalls=1
  shift
fi
case "${1:-}" in
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") echo "gpu-followup: no OUT folder ($usage)" >&2; exit 2 ;;
  -*) echo "gpu-followup: unknown option '$1' ($usage)" >&2; exit 2 ;;
esac
out="$1"
pk="${2:-}"
[ -d "$pk" ] || { echo "gpu-followup: no PACKAGES folder '$pk' ($usage)" >&2; exit 2; }
[ -e "$out" ] && [ ! -d "$out" ] && { echo "gpu-followup: $out is not a directory" >&2; exit 2; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
exec > >(tee "$out/log.txt") 2>&1
step() { echo; echo "== $* ($(date +%T))"; }

step GPU
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
nvcc --version | tail -2

mkdir -p "$tmp/sass"
if [ $only_stalls = 1 ]; then
  step build
  nvcc -O2 -o "$tmp/replay" scripts/gpu-replay.cu -lcuda || exit 1
else
  step builds
  # In the background while the SASS is dumped: the three programs this run times.
  (nvcc -O2 -arch=native -o "$tmp/operand_delay" scripts/operand_delay.cu &&
    nvcc -O2 -arch=native -cubin -o "$tmp/sass/operand_delay_native.cubin" scripts/operand_delay.cu) &
  b1=$!
  (nvcc -O2 -arch=native -o "$tmp/whole" scripts/whole_gpu_measure.cu &&
    nvcc -O2 -arch=native -o "$tmp/placement" scripts/block_placement.cu) &
  b2=$!
  (nvcc -O2 -o "$tmp/replay" scripts/gpu-replay.cu -lcuda) &
  b3=$!

  step SASS
  for p in kernels/ptx/*.ptx; do
    tg=$(sed -n 's/^\.target \(sm_[0-9]*a\{0,1\}\).*/\1/p' "$p")
    for a in sm_75 sm_80 sm_90; do
      t=$a
      [ $a = sm_90 ] && [ "$tg" = sm_90a ] && t=sm_90a
      [ "${tg#sm_}" \> "${a#sm_}" ] && [ $a != sm_90 ] && continue  # the PTX needs a later SM
      echo "$p $t"
    done
  done | xargs -P 16 -n 2 sh -c 'n=$(basename "$0" .ptx)_$1; ptxas -arch=$1 -o "'"$tmp"'/sass/$n.cubin" "$0" \
    2> "'"$tmp"'/sass/$n.err" && cuobjdump -sass "'"$tmp"'/sass/$n.cubin" > "'"$tmp"'/sass/$n.sass"; \
    rm -f "'"$tmp"'/sass/$n.cubin"'
  wait $b1 $b2 $b3  # not a bare wait: that would wait for the tee of the log as well
  [ -f "$tmp/sass/operand_delay_native.cubin" ] &&
    cuobjdump -sass "$tmp/sass/operand_delay_native.cubin" > "$tmp/sass/operand_delay_native.sass"
  rm -f "$tmp/sass/"*.cubin
  find "$tmp/sass" -name '*.err' -empty -delete
  ls "$tmp/sass" | wc -l
  tar czf "$out/sass.tar.gz" -C "$tmp" sass

  step operand_delay
  timeout 60 "$tmp/operand_delay" | tee "$out/operand_delay.txt"

  step whole_gpu
  timeout 120 "$tmp/whole" | tee "$out/whole_gpu.toml"

  step placement
  timeout 60 "$tmp/placement" > "$out/placement.txt"
  grep '^#' "$out/placement.txt"
fi

step stalls
m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum
m+=,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum
m+=,gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum
timeout 240 ncu --clock-control none --print-kernel-base mangled --csv --metrics "$m" \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
  --page raw "$tmp/replay" --once "$pk"/* > "$out/stalls.csv" 2> "$tmp/ncu.err" || tail -5 "$tmp/ncu.err"
wc -l "$out/stalls.csv"
step done

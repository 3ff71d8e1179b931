#!/usr/bin/env bash
# The kernel suite's PTX ships in the repository (kernels/ptx/*.ptx), so that every builtin:
# kernel, the cycle-level sections of the quickstart and the whole-kernel studies run where nvcc
# is absent (CUDA is not a Debian package), and give the same results on every machine whatever
# nvcc it has. This script makes that PTX from kernels/*.cu, or checks it.
#
#   scripts/gen-ptx.sh            regenerate every kernels/ptx/NAME.ptx (needs nvcc)
#   scripts/gen-ptx.sh NAME...    regenerate those only (histogram gemm_tc ...)
#   scripts/gen-ptx.sh --check    exit 1 naming each shipped PTX that is stale or missing
#
# Each PTX ends with two lines of ours (at the end, so that its line numbers are nvcc's): the nvcc
# command that made it and the SHA-256 of its sources (the .cu and the kernels/*.cuh it includes). --check recomputes that digest, so it finds
# a PTX older than its source with or without nvcc; where the nvcc on PATH (or in
# /usr/local/cuda/bin) is the release that made the shipped files, it also compiles each .cu again
# and compares the text.
# The PTX must not depend on where the repository is: nvcc writes the source's absolute path in
# the .file lines and hashes it into the names of internal symbols (the debug strings'
# _ZN43_INTERNAL_<hash>_...). So the sources are compiled from one fixed folder,
# /tmp/smemsim-gen-ptx/kernels (under a lock), and the .file paths rewritten: the suite's sources
# become "../NAME.cu" (relative to kernels/ptx/, where smemsim looks for them to print CUDA lines)
# and CUDA's own headers "<cuda>/include/...".
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
kdir="$root/kernels"
out="$kdir/ptx"

nvcc_bin() {
  if command -v nvcc >/dev/null; then command -v nvcc
  elif [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc
  fi
}

arch_of() {  # the kernel's own arch (`// smemsim-arch: sm_80` on its first line), else sm_75
  local a
  a="$(head -n1 "$1" | sed -n 's/.*smemsim-arch: \(sm_[0-9]*a\{0,1\}\).*/\1/p')"
  echo "${a:-sm_75}"
}

sources_digest() {  # the .cu and the suite headers it includes, in that order
  local cu="$1" files=("$1") h
  for h in $(sed -n 's/^#include "\([^"]*\.cuh\)".*/\1/p' "$cu" | sort -u); do
    [ -f "$kdir/$h" ] && files+=("$kdir/$h")
  done
  cat "${files[@]}" | sha256sum | cut -d' ' -f1
}

flags_of() { echo "-ptx -lineinfo -arch=$(arch_of "$1") -DSMEMSIM_TM"; }

stage=/tmp/smemsim-gen-ptx/kernels
stage_sources() {  # the suite's sources, copied to the fixed folder (under an exclusive lock)
  mkdir -p "$stage"
  exec 9>"$stage/../lock"
  flock 9
  rm -f "$stage"/*.cu "$stage"/*.cuh
  cp "$kdir"/*.cu "$kdir"/*.cuh "$stage"/
}

# compile CU DEST: nvcc in the fixed folder, then the machine-independent paths and our two lines.
compile() {
  local cu="$1" dest="$2" nvcc="$3" name tmp flags cudadir
  name="$(basename "$cu")"
  flags="$(flags_of "$cu")"
  tmp="$(mktemp)"
  # shellcheck disable=SC2086
  (cd "$stage" && "$nvcc" $flags "$name" -o "$tmp")
  cudadir="$(cd "$(dirname "$nvcc")/.." && pwd)"
  {
    sed -e "s#\"$stage/#\"../#g" \
        -e "s#\"[^\"]*/targets/[^/\"]*/include/#\"<cuda>/include/#g" \
        -e "s#\"$cudadir/include/#\"<cuda>/include/#g" "$tmp"
    echo "// smemsim: nvcc $flags $name (scripts/gen-ptx.sh; do not edit)"
    echo "// smemsim: sources sha256 $(sources_digest "$cu")"
  } >"$dest"
  rm -f "$tmp"
}

release_of() { sed -n 's#^// Cuda compilation tools, \(release [0-9.]*, V[0-9.]*\).*#\1#p' "$1" | head -n1; }

check() {
  local stale=0 cu name ptx nvcc want got mine tmpdir staged=0
  nvcc="$(nvcc_bin)"
  mine=""
  if [ -n "$nvcc" ]; then
    mine="$("$nvcc" --version | sed -n 's/.*Cuda compilation tools, \(release [0-9.]*, V[0-9.]*\).*/\1/p')"
  fi
  tmpdir="$(mktemp -d)"
  trap 'rm -rf "$tmpdir"' RETURN
  local compared=0
  for cu in "$kdir"/*.cu; do
    name="$(basename "$cu" .cu)"
    ptx="$out/$name.ptx"
    if [ ! -f "$ptx" ]; then
      echo "gen-ptx: kernels/ptx/$name.ptx is missing (kernels/$name.cu has none): run scripts/gen-ptx.sh $name"
      stale=1
      continue
    fi
    want="$(sources_digest "$cu")"
    got="$(sed -n 's#^// smemsim: sources sha256 \([0-9a-f]*\)$#\1#p' "$ptx" | tail -n1)"
    if [ "$want" != "$got" ]; then
      echo "gen-ptx: kernels/ptx/$name.ptx is stale: kernels/$name.cu or a header it includes changed since it was generated: run scripts/gen-ptx.sh $name"
      stale=1
      continue
    fi
    if [ -n "$mine" ] && [ "$mine" = "$(release_of "$ptx")" ]; then
      [ "$staged" = 1 ] || { stage_sources; staged=1; }
      compile "$cu" "$tmpdir/$name.ptx" "$nvcc"
      compared=$((compared + 1))
      if ! cmp -s "$tmpdir/$name.ptx" "$ptx"; then
        echo "gen-ptx: kernels/ptx/$name.ptx differs from what nvcc ($mine) makes of kernels/$name.cu now: run scripts/gen-ptx.sh $name"
        stale=1
      fi
    fi
  done
  for ptx in "$out"/*.ptx; do
    [ -f "$kdir/$(basename "$ptx" .ptx).cu" ] || {
      echo "gen-ptx: kernels/ptx/$(basename "$ptx") has no kernels/$(basename "$ptx" .ptx).cu: remove it"
      stale=1
    }
  done
  if ((stale)); then return 1; fi
  local how="source digests"
  ((compared)) && how="source digests, and $compared files recompiled with nvcc ($mine) and equal"
  [ -z "$mine" ] && how="$how (nvcc not found: not recompiled)"
  [ -n "$mine" ] && ((compared == 0)) && how="$how (nvcc $mine is not the release that made them: not recompiled)"
  echo "gen-ptx: kernels/ptx is current: $(ls "$out"/*.ptx | wc -l) files; $how"
}

if [ "${1:-}" = "--check" ]; then
  check
  exit $?
fi
nvcc="$(nvcc_bin)"
if [ -z "$nvcc" ]; then
  echo "gen-ptx: error: nvcc not found (PATH, /usr/local/cuda/bin): it is needed to regenerate kernels/ptx" >&2
  exit 2
fi
mkdir -p "$out"
stage_sources
if (($#)); then
  names=("$@")
else
  names=()
  for cu in "$kdir"/*.cu; do names+=("$(basename "$cu" .cu)"); done
fi
for name in "${names[@]}"; do
  name="${name%.cu}"
  [ -f "$kdir/$name.cu" ] || { echo "gen-ptx: error: kernels/$name.cu does not exist" >&2; exit 2; }
  compile "$kdir/$name.cu" "$out/$name.ptx" "$nvcc"
  echo "gen-ptx: kernels/ptx/$name.ptx"
done

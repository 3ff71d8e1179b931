#!/usr/bin/env bash
# Runs a smemsim study on a Slurm cluster: its points as a job array of shards
# (`study run --shard i/N`), and `study merge` as a job that starts once every shard succeeded
# (--dependency=afterok). The merged folder equals a one-machine run's (docs/studies.md).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/slurm-study.sh STUDY [options] [-- study run options...]

Submits STUDY's points as a Slurm job array (one shard per task) and the merge as a dependent job.

options:
  --shards N         shards, one array task each (default 4)
  --out DIR          results folder (default study-out): shards in DIR/shards/I, logs in
                     DIR/logs, the merged study in DIR/STUDY
  --cpus C           CPUs per shard (sbatch --cpus-per-task; smemsim --threads; default 1)
  --smemsim PATH     the smemsim binary the nodes run (default: smemsim on PATH, else this
                     checkout's build/release/apps/smemsim/smemsim)
  --sbatch-arg ARG   passed to both sbatch calls (repeatable: --sbatch-arg=--partition=gpu)
  --wait             return when the merge job has ended (sbatch --wait), with its exit status
  --dry-run          print the two sbatch commands instead of running them
  -h, --help         this text

examples:
  scripts/slurm-study.sh histogram --shards 16 --cpus 8 --out /scratch/hist
  scripts/slurm-study.sh random-patterns --shards 4 --wait -- --quick --sweep memory.banks=16,32
EOF
}

die() {
  echo "slurm-study.sh: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; -*) die "the first argument is the study (got '$1'); see --help" ;; esac
study=$1
shift
shards=4 out=study-out cpus=1 smemsim="" wait=0 dry=0
sbatch_args=() run_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shards) shards=${2:-}; shift 2 || die "--shards needs a number" ;;
    --shards=*) shards=${1#*=}; shift ;;
    --out) out=${2:-}; shift 2 || die "--out needs a folder" ;;
    --out=*) out=${1#*=}; shift ;;
    --cpus) cpus=${2:-}; shift 2 || die "--cpus needs a number" ;;
    --cpus=*) cpus=${1#*=}; shift ;;
    --smemsim) smemsim=${2:-}; shift 2 || die "--smemsim needs a path" ;;
    --smemsim=*) smemsim=${1#*=}; shift ;;
    --sbatch-arg) sbatch_args+=("${2:-}"); shift 2 || die "--sbatch-arg needs a value" ;;
    --sbatch-arg=*) sbatch_args+=("${1#*=}"); shift ;;
    --wait) wait=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; run_args=("$@"); break ;;
    *) die "unknown option '$1' (study run options go after --); see --help" ;;
  esac
done
# The ranges are checked on the text first (at most 5 digits), so that bash's 64-bit arithmetic
# never sees a number that wraps (18446744073709551617 passed as 1).
[[ $shards =~ ^[1-9][0-9]{0,4}$ ]] && ((shards <= 10000)) || die "--shards '$shards': give 1 to 10000"
[[ $cpus =~ ^[1-9][0-9]{0,4}$ ]] && ((cpus <= 1024)) || die "--cpus '$cpus': give 1 to 1024"
[[ -n $out ]] || die "--out: empty folder name"

if [[ -z $smemsim ]]; then
  smemsim=$(command -v smemsim || true)
  [[ -n $smemsim ]] || smemsim="$(cd "$(dirname "$0")/.." && pwd)/build/release/apps/smemsim/smemsim"
fi
[[ -x $smemsim && ! -d $smemsim ]] || die "--smemsim '$smemsim' is not an executable (build it: cmake --build --preset release)"
smemsim=$(realpath "$smemsim")

# The study is checked before anything is queued (its run options are checked by each shard).
studies=$("$smemsim" study list 2>/dev/null) || die "'$smemsim study list' failed"
awk '/^[^ ]/ {print $1}' <<<"$studies" | grep -qxF -- "$study" ||
  die "'$study' is not a study ($smemsim study list)"
command -v sbatch >/dev/null || ((dry)) || die "sbatch not found: Slurm's client commands are not installed on this machine"

mkdir -p "$out/shards" "$out/logs" 2>/dev/null || die "cannot create '$out/shards' and '$out/logs'"
out=$(realpath "$out")
# Shell-quoted words, one space apart (nothing for no words).
q() {
  [[ $# -gt 0 ]] || return 0
  printf '%q' "$1"
  shift
  local w
  for w in "$@"; do printf ' %q' "$w"; done
}
shard_cmd="$(q "$smemsim" study run "$study" ${run_args[@]+"${run_args[@]}"} --threads "$cpus") --shard \${SLURM_ARRAY_TASK_ID}/$shards --out $(q "$out")/shards/\${SLURM_ARRAY_TASK_ID}"
merge_cmd="$(q "$smemsim" study merge) $(q "$out")/shards/*/$(q "$study") --out $(q "$out")"

array=(sbatch --parsable --job-name="smemsim-$study" --array="0-$((shards - 1))"
  --cpus-per-task="$cpus" --output="$out/logs/shard-%a.out" ${sbatch_args[@]+"${sbatch_args[@]}"}
  --wrap "$shard_cmd")
if ((dry)); then
  echo "$(q "${array[@]}")"
  echo "$(q sbatch --parsable --job-name="smemsim-$study-merge" --dependency=afterok:JOBID \
    --kill-on-invalid-dep=yes --output="$out/logs/merge.out" ${sbatch_args[@]+"${sbatch_args[@]}"} \
    --wrap "$merge_cmd")"
  exit 0
fi
if ! job=$("${array[@]}" 2>&1); then
  die "sbatch of the shards failed: $(echo "$job" | tr '\n' ' ' | sed 's/ *$//')"
fi
job=${job%%;*}
[[ $job =~ ^[0-9]+$ ]] || die "sbatch gave no job id for the shards (it said: $job)"
merge=(sbatch --parsable --job-name="smemsim-$study-merge" --dependency="afterok:$job"
  --kill-on-invalid-dep=yes --output="$out/logs/merge.out" ${sbatch_args[@]+"${sbatch_args[@]}"})
((wait)) && merge+=(--wait)
echo "slurm-study.sh: shards submitted as job array $job ($shards tasks, logs in $out/logs)"
if ! mjob=$("${merge[@]}" --wrap "$merge_cmd" 2>&1); then
  ((wait)) && [[ ${mjob%%;*} =~ ^[0-9]+$ ]] && die "the merge job ${mjob%%;*} failed (see $out/logs/merge.out and the shard logs)"
  die "sbatch of the merge failed: $(echo "$mjob" | tr '\n' ' ' | sed 's/ *$//') (the shards, job $job, still run; merge by hand: $merge_cmd)"
fi
mjob=${mjob%%;*}
if ((wait)); then
  # sbatch --wait returns 0 for a merge cancelled because a shard failed: ask for its state.
  state=$(scontrol show job "$mjob" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  [[ -z $state || $state == COMPLETED ]] ||
    die "the merge job $mjob ended $state, a shard of job $job failed or was cancelled (see $out/logs)"
  echo "slurm-study.sh: merge job $mjob done; results in $out/$study"
else
  echo "slurm-study.sh: merge submitted as job $mjob (after job $job succeeds); results in $out/$study"
fi

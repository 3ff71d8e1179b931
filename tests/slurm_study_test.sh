#!/usr/bin/env bash
# scripts/slurm-study.sh on a real, single-node Slurm (issue 31, item 5): munged, slurmctld and
# slurmd from Debian's slurm-wlm and munge packages, configured in a temporary folder, listening on
# localhost, started and stopped here. A study submitted as a job array of 3 shards plus a
# dependent merge must give the same points.csv, config.json and summary.json, byte for byte, as
# one run on this machine; a submission Slurm refuses must be a one-line error with exit 2.
# Exit 77 (CTest: skipped) with a note where the daemons are not installed or cannot start.
#
# usage: tests/slurm_study_test.sh SMEMSIM_BINARY
set -uo pipefail
smemsim=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

skip() {
  echo "SKIPPED: $*"
  exit 77
}
fail() {
  echo "FAILED: $*"
  exit 1
}
for t in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$t" >/dev/null ||
    skip "'$t' not found: Slurm and munge are not installed (scripts/install-deps.sh --test)"
done
[[ $(id -u) == 0 ]] || skip "slurmd runs jobs as their submitter and needs root for it"

tmp=$(mktemp -d /tmp/smemsim-slurm.XXXXXX)
chmod 755 "$tmp"
stop() {
  [[ -f $tmp/slurmd.pid ]] && kill "$(cat "$tmp/slurmd.pid")" 2>/dev/null
  [[ -f $tmp/slurmctld.pid ]] && kill "$(cat "$tmp/slurmctld.pid")" 2>/dev/null
  [[ -f $tmp/munged.pid ]] && kill "$(cat "$tmp/munged.pid")" 2>/dev/null
  sleep 1
  rm -rf "$tmp"
}
trap stop EXIT
logs() {
  for f in munged slurmctld slurmd; do
    [[ -f $tmp/$f.log ]] && { echo "--- $f.log (last lines)"; tail -5 "$tmp/$f.log"; }
  done
}

# munge: a key of this run, its own socket.
head -c 1024 /dev/urandom >"$tmp/munge.key"
chmod 400 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" ||
  { logs; skip "munged did not start"; }

# Two free ports (the kernel picks them).
read -r p1 p2 < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=smemsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -f "$SLURM_CONF" || { logs; skip "slurmctld did not start"; }
slurmd -f "$SLURM_CONF" -N "$host" || { logs; skip "slurmd did not start"; }
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || { logs; skip "the node did not come up (state '${state:-none}')"; }
echo "slurm: node $host idle (slurmctld on 127.0.0.1:$p1, slurmd on :$p2)"

# The study: 3 shards and the merge on Slurm, then one run here.
opts=(--quick --set patterns=2000)
out=$tmp/out
"$root/scripts/slurm-study.sh" random-patterns --shards 3 --out "$out" --smemsim "$smemsim" \
  --wait -- "${opts[@]}" || { logs; cat "$out"/logs/*.out 2>/dev/null; fail "slurm-study.sh"; }
"$smemsim" study run random-patterns "${opts[@]}" --no-plots --out "$tmp/one" >/dev/null ||
  fail "the one-machine run"
for f in points.csv config.json summary.json; do
  cmp "$out/random-patterns/$f" "$tmp/one/random-patterns/$f" || fail "$f differs from one machine's"
  echo "identical: $f ($(wc -c <"$tmp/one/random-patterns/$f") bytes)"
done
for i in 0 1 2; do
  [[ -s $out/shards/$i/random-patterns/points.csv ]] || fail "shard $i wrote no points"
done

# A submission Slurm refuses: one line, exit 2.
msg=$("$root/scripts/slurm-study.sh" random-patterns --shards 2 --out "$tmp/bad" \
  --smemsim "$smemsim" --sbatch-arg=--partition=nosuch -- --quick 2>&1)
rc=$?
[[ $rc == 2 ]] || fail "a refused submission exited $rc: $msg"
[[ $(echo "$msg" | wc -l) == 1 && $msg == *"sbatch of the shards failed"*nosuch* ]] ||
  fail "a refused submission said: $msg"
echo "refused: $msg"

# Shards that fail (a study option only `study run` can check): the merge never runs, and --wait
# says so in one line, exit 2, pointing at the logs.
msg=$(timeout 120 "$root/scripts/slurm-study.sh" random-patterns --shards 2 --out "$tmp/failing" \
  --smemsim "$smemsim" --wait -- --quick --set nosuch=1 2>&1)
rc=$?
last=$(echo "$msg" | tail -1)
[[ $rc == 2 && $last == *"merge job"*"shard"*"failed"*logs* ]] || fail "failing shards: rc $rc: $msg"
grep -q "nosuch" "$tmp/failing/logs/shard-0.out" || fail "the shard log does not name the option"
echo "failing shards: $last"
echo "PASSED"

#!/usr/bin/env python3
"""Per-warp states of one launch, GPU against model.

The GPU's come from a Nsight Compute CSV with the smsp__average_warps_issue_stalled_*_per_issue_active
metrics (calibration/runs/h200-2026-11-28/stalls.csv, made by scripts/gpu-checks.sh): a state's
warp-cycles are its ratio x the instructions issued, per warp of the launch. The model's come from
`smemsim profile --timing --json` (each instruction's warp_states, summed, per warp).

  /usr/bin/python3 scripts/warp-states.py calibration/runs/h200-2026-11-28/stalls.csv \\
      --kernel gemm_bk64 -- builtin:gemm
  /usr/bin/python3 scripts/warp-states.py STALLS.csv --kernel transpose_naive --states drain \\
      -- builtin:transpose

--kernel picks the CSV's first launch whose kernel name contains it; what follows `--` (required)
is the profile's kernel and options. Exit 2 on bad input (a missing file, no such launch).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

PREFIX = "smsp__average_warps_issue_stalled_"
SUFFIX = "_per_issue_active.ratio"


def fail(msg):
    print(f"warp-states: {msg}", file=sys.stderr)
    sys.exit(2)


def gpu_states(path, kernel):
    if not os.path.isfile(path):
        fail(f"{path}: not a file" if os.path.exists(path) else f"{path}: No such file or directory")
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(line for line in f if line.startswith('"')))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if not rows:
        fail(f"{path}: no CSV rows")
    head = {k: i for i, k in enumerate(rows[0])}
    for need in ("Kernel Name", "launch__grid_size", "launch__block_size", "smsp__inst_executed.sum"):
        if need not in head:
            fail(f"{path}: no column '{need}' (a Nsight Compute --csv --page raw export)")
    for row in rows[1:]:
        if kernel not in row[head["Kernel Name"]]:
            continue

        def num(k):
            return float(row[head[k]].replace(",", ""))

        warps = num("launch__grid_size") * num("launch__block_size") / 32
        inst = num("smsp__inst_executed.sum")
        states = {}
        for k, i in head.items():
            if k.startswith(PREFIX) and k.endswith(SUFFIX):
                states[k[len(PREFIX):-len(SUFFIX)]] = num(k) * inst / warps
        return warps, states
    fail(f"{path}: no launch whose kernel name contains '{kernel}'")


def model_states(smemsim, arch, args):
    cmd = [smemsim, "profile", *args, "--arch", arch, "--timing", "--json"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        fail(f"{smemsim}: {e.strerror}")
    if run.returncode != 0:
        fail(f"{' '.join(cmd)}: {run.stderr.strip() or 'exit ' + str(run.returncode)}")
    j = json.loads(run.stdout)
    t = j["timing"] if "timing" in j else j["launches"][0]["timing"]
    total = {}
    for ins in t["instructions"]:
        for k, v in ins.get("warp_states", {}).items():
            total[k] = total.get(k, 0) + v
    return total


# The JSON's aliases for schema 1 repeat other states (docs/json.md).
ALIASES = {"issued", "scoreboard", "memory", "control", "dispatch"}


def main():
    p = argparse.ArgumentParser(
        usage="%(prog)s STALLS_CSV --kernel NAME [--smemsim BIN] [--arch A] [--states S,...] "
        "-- KERNEL [PROFILE OPTIONS]",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stalls_csv")
    p.add_argument("--kernel", required=True, help="a substring of the CSV's kernel name")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--smemsim", default=os.path.join(root, "build/release/apps/smemsim/smemsim"),
                   help="the CLI (default: this tree's release build)")
    p.add_argument("--arch", default="hopper-h100")
    p.add_argument("--states", help="comma list of states to print (default: every state over 1 cycle)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:cut])
    prof = argv[cut + 1:]
    if not prof:
        fail("give the profile's kernel after --, e.g. -- builtin:gemm")
    warps, gpu = gpu_states(a.stalls_csv, a.kernel)
    model = {k: v / warps for k, v in model_states(a.smemsim, a.arch, prof).items() if k not in ALIASES}
    want = set(a.states.split(",")) if a.states else None
    keys = sorted(set(gpu) | set(model), key=lambda k: -max(gpu.get(k, 0), model.get(k, 0)))
    print(f"{a.kernel}: {warps:.0f} warps; cycles a warp in each state")
    print(f"{'state':22} {'GPU':>10} {'model':>10}")
    for k in keys:
        g, m = gpu.get(k, 0.0), model.get(k, 0.0)
        if (want and k in want) or (not want and (g > 1 or m > 1)):
            print(f"{k:22} {g:10.1f} {m:10.1f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares the kernel suite measured on a GPU (scripts/gpu-checks.sh: ncu.csv) with the model.

    scripts/gpu-compare.py NCU_CSV [--smemsim BIN] [--arch hopper-h100] [--set KEY=VALUE ...]
                           [--warm-l2]

For each launch of scripts/gpu-suite.txt it reads Nsight Compute's figures (cycles, shared-memory
instructions, wavefronts and bank conflicts, summed over the package's launches) and runs the same
launch in smemsim (`sim --json` for cycles, `profile --json` for the shared-memory counts), and
prints a Markdown table. Where the CSV has Nsight's L2 read lookups from the L1
(ncu_cache_all.csv, ncu_cache_none.csv), two columns more: the GPU's L2 read hits and lookups,
the model's L2 hit sectors and the sectors its L1s did not hold (stores and atomics included). Nsight's rows are matched to the packages in the order gpu-checks.sh ran
them (the packages' names sorted), each row's kernel name checked against the package's launches.
A last line sums the launches up: the geometric mean of model/GPU cycles, the median distance
from 1 (|log|), and how many are within 10 % and 25 % of the GPU and how many over 1.15. Beside
the cycles, Nsight's sm__cycles_active.max and the model's busiest SM's busy_cycles (cycles with a
CTA resident), their ratio and a line summing those up: a launch's own time without the launch's
fixed cost (a pipeline of several launches reads n/a: its JSON has no per-SM rows). Where the
CSV has the warp instructions the GPU executed (smsp__inst_executed.sum: ncu_opcodes_h200.csv), a
column of those beside the model's lowered warp instructions (what it issues: the code as ptxas
would emit it, docs/timing.md "Lowering") and their ratio, and a line summing the ratios up.
"""
import argparse
import math
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def die(msg):
    print(f"gpu-compare: {msg}", file=sys.stderr)
    sys.exit(2)


HIT = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
MISS = "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"


def l2_cells(g, s):
    """The GPU's L2 read hits / lookups and the model's L2 hit sectors / sectors past its L1s."""
    hit, miss = g.get(HIT, 0), g.get(MISS, 0)
    u = s["timing"]["units"] if s else {}
    past = u.get("global_sectors", 0) - u.get("l1_hit_sectors", 0)
    return f" {hit:,.0f} / {hit + miss:,.0f} | {u.get('l2_hit_sectors', 0):,} / {past:,} |"


def read_ncu(path):
    """{launch ID: (kernel, {metric: value})} in ID order."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    rows = [l for l in lines if l.startswith('"')]
    if not rows:
        die(f"{path}: no Nsight Compute CSV rows")
    launches = {}
    for r in csv.DictReader(rows):
        try:
            i = int(r["ID"])
            # A per-opcode breakdown ("585,960 (LDS: 187,096; ...)") counts as its total.
            v = float(r["Metric Value"].split(" (")[0].replace(",", ""))
        except (KeyError, ValueError):
            die(f"{path}: a row without ID or a numeric Metric Value: {r}")
        launches.setdefault(i, (r["Kernel Name"], {}))[1][r["Metric Name"]] = v
    return [launches[i] for i in sorted(launches)]


def suite():
    out = []
    for line in open(os.path.join(HERE, "gpu-suite.txt"), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        name, builtin, *opts = line.split()
        out.append((name, builtin, opts))
    return sorted(out)


def gatom(g):
    n = g.get("smsp__sass_inst_executed_op_shared_atom.sum", 0)
    return f" (+{n:,.0f} atom)" if n else ""


def same_kernel(ncu_name, ptx_name):
    """Nsight prints a C++ kernel demangled ("attention(const __half *, ...)"): its base name
    is then inside the mangled PTX name (_Z9attentionPK6__half...)."""
    if ncu_name == ptx_name:
        return True
    base = ncu_name.split("(")[0].split("<")[0].split("::")[-1].strip()
    return ptx_name.startswith("_Z") and f"{len(base)}{base}" in ptx_name


def spread(ratios):
    """The geometric mean of model/GPU ratios and their median distance from 1 (|log|)."""
    logs = sorted(abs(math.log(x)) for x in ratios)
    n = len(logs)
    med = logs[n // 2] if n % 2 else (logs[n // 2 - 1] + logs[n // 2]) / 2
    return math.exp(sum(math.log(x) for x in ratios) / n), med


def smemsim_json(binary, args):
    r = subprocess.run([binary] + args + ["--json"], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ncu_csv")
    ap.add_argument("--smemsim", default=os.path.join(HERE, "..", "build/release/apps/smemsim/smemsim"))
    ap.add_argument("--arch", default="hopper-h100")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override an arch key of the model (repeatable), as smemsim's --set")
    ap.add_argument("--warm-l2", action="store_true",
                    help="run the model with --warm-l2 (the inputs in the L2 at the start), for a "
                    "profile taken with Nsight's --cache-control none")
    a = ap.parse_args()
    # The arch and its overrides are checked once, before any launch runs (each would fail alike).
    check = [a.smemsim, "arch", "show", "--arch", a.arch]
    for kv in a.set:
        check += ["--set", kv]
    try:
        r = subprocess.run(check, capture_output=True, text=True)
    except OSError as e:
        die(f"--smemsim {a.smemsim}: {e.strerror}")
    if r.returncode != 0:
        die(r.stderr.strip().splitlines()[-1].removeprefix("smemsim: error: ") if r.stderr.strip()
            else f"{a.smemsim} did not run")
    ratios = []
    ncu = read_ncu(a.ncu_csv)
    at = 0
    # Nsight's L2 read lookups from the L1 (ncu_cache_all/none.csv have them): a column of the GPU's
    # hits / lookups beside the model's L2 hit sectors / sectors its L1s did not hold (stores and
    # atomics included in the model's).
    l2 = any(HIT in m for _, m in ncu)
    # The SASS warp instructions (ncu_opcodes_h200.csv): a column GPU / model lowered / ratio.
    INST = "smsp__inst_executed.sum"
    insts = any(INST in m for _, m in ncu)
    inst_ratios = []
    act_ratios = []
    print(f"| launch | kernels | GPU cycles | model cycles | model/GPU | GPU SM active | model SM active | "
          f"model/GPU active | GPU shared ld/st | "
          f"model ld/st | GPU wavefronts ld/st | GPU conflicts ld/st | model conflicts |"
          + (" GPU L2 read hits / lookups | model L2 hits / past L1 |" if l2 else "")
          + (" GPU SASS inst | model lowered inst | model/GPU inst |" if insts else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if l2 else "")
          + ("---:|---:|---:|" if insts else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for name, builtin, opts in suite():
            pk = os.path.join(tmp, name)
            r = subprocess.run([a.smemsim, "run", f"builtin:{builtin}", *opts, "--export-gpu", pk],
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):  # not replayable (a TM kernel): no GPU row either
                why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
                print(f"| {name} | not replayable: {why.removeprefix('smemsim: error: ')} | | | | | | | | | | | |")
                continue
            kernels = [l.split()[1] for l in open(os.path.join(pk, "replay.txt")) if l.startswith("launch ")]
            mine = ncu[at:at + len(kernels)]
            if len(mine) != len(kernels) or not all(same_kernel(k, n) for (k, _), n in zip(mine, kernels)):
                print(f"| {name} | not in the Nsight rows (the GPU did not run it) | | | | | | | | | | | |")
                continue
            at += len(kernels)
            g = {}
            for _, m in mine:
                for k, v in m.items():
                    g[k] = g.get(k, 0) + v
            base = [f"builtin:{builtin}", *opts, "--arch", a.arch]
            for kv in a.set:
                base += ["--set", kv]
            s = smemsim_json(a.smemsim, ["sim"] + base + (["--warm-l2"] if a.warm_l2 else []))
            p = smemsim_json(a.smemsim, ["profile"] + base)
            cyc = s["timing"]["cycles"] if s else float("nan")
            ld = sum(x["accesses"] for x in p["rows"] if x["op"] == "ld") if p else 0
            st = sum(x["accesses"] for x in p["rows"] if x["op"] == "st") if p else 0
            oth = p["totals"]["accesses"] - ld - st if p else 0
            conf = p["totals"]["bank_conflicts"] if p else 0
            gc = g.get("gpc__cycles_elapsed.max", float("nan"))

            def inst_cells(g, s):
                if not insts:
                    return ""
                gi = g.get(INST, 0)
                mi = s["timing"]["lowered"]["warp_instructions"] if s else 0
                if gi > 0 and mi > 0:
                    inst_ratios.append(mi / gi)
                return f" {gi:,.0f} | {mi:,} | {mi / gi if gi else float('nan'):.2f} |"
            if s and gc > 0:
                ratios.append(cyc / gc)
            # Cycles an SM had a CTA resident, the busiest SM: Nsight's sm__cycles_active.max
            # (summed over a pipeline's launches) beside the model's busy_cycles. Without the
            # launch's fixed cost, this is where a small kernel's own time shows.
            ga = g.get("sm__cycles_active.max", float("nan"))
            ma = max((m["busy_cycles"] for m in s["timing"]["sms"]), default=0) if s else float("nan")
            if s and ga > 0 and ma > 0:
                act_ratios.append(ma / ga)
            print(f"| {name} | {len(kernels)} | {gc:,.0f} | {cyc:,.0f} | {cyc / gc:.2f} | "
                  + (f"{ga:,.0f} | {ma:,.0f} | {ma / ga:.2f} | " if ga > 0 and ma > 0
                     else f"{ga:,.0f} | n/a | n/a | ")  # a pipeline's JSON has no per-SM rows
                  + f"{g.get('smsp__sass_inst_executed_op_shared_ld.sum', 0):,.0f} / "
                  f"{g.get('smsp__sass_inst_executed_op_shared_st.sum', 0):,.0f}"
                  f"{gatom(g)} | "
                  f"{ld:,} / {st:,}{f' (+{oth:,} atom)' if oth else ''} | "
                  f"{g.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', 0):,.0f} / "
                  f"{g.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 0):,.0f} | "
                  f"{g.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum', 0):,.0f} / "
                  f"{g.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum', 0):,.0f} | "
                  f"{conf:,} |" + (l2_cells(g, s) if l2 else "") + inst_cells(g, s))
    if ratios:
        gm, med = spread(ratios)
        print(f"\n{len(ratios)} launches: geometric mean of model/GPU {gm:.2f}, "
              f"median |log(model/GPU)| {med:.3f}; "
              f"within 10 %: {sum(0.9 <= x <= 1.1 for x in ratios)}, "
              f"within 25 %: {sum(abs(math.log(x)) <= math.log(1.25) for x in ratios)}, "
              f"over 1.15: {sum(x > 1.15 for x in ratios)}")
    if act_ratios:
        gm, med = spread(act_ratios)
        print(f"\n{len(act_ratios)} launches' SM active cycles (the busiest SM): geometric mean of "
              f"model/GPU {gm:.2f}, median |log| {med:.3f}; "
              f"within 10 %: {sum(0.9 <= x <= 1.1 for x in act_ratios)}")
    if inst_ratios:
        gm, med = spread(inst_ratios)
        print(f"\n{len(inst_ratios)} launches' warp instructions: geometric mean of model "
              f"lowered/GPU SASS {gm:.3f}, median |log| {med:.3f}; "
              f"within 10 %: {sum(0.9 <= x <= 1.1 for x in inst_ratios)}")
    if at != len(ncu):
        print(f"\n{len(ncu) - at} Nsight rows were not matched to a launch", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`sim --sample-ctas K` against the full run (issue 31, item 4): for each kernel, the full
cycle count, the estimate, its error and range, and both wall times, as a markdown table
(docs/timing.md "Sampling" shows its output).

usage: scripts/sample-error.py [--smemsim PATH] [--k K] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import time

# (target and options, arch): grids of several waves on the arch, so that there is something to
# extrapolate; each full run takes seconds on one core.
KERNELS = [
    ("builtin:reduction --size 1048576", "volta-v100"),
    ("builtin:reduction --size 262144", "fermi-gtx580"),
    ("builtin:transpose --width 1024 --height 1024", "volta-v100"),
    ("builtin:transpose --width 512 --height 512 --variant padded", "fermi-gtx580"),
    ("builtin:aes --size 65536", "fermi-gtx580"),
    ("builtin:dct8x8 --width 512 --height 512", "fermi-gtx580"),
    ("builtin:conv --width 1024 --height 1024", "fermi-gtx480"),
    ("builtin:gemm --height 4096 --width 4096 --size 64", "ampere-a100"),
]


def run(smemsim, target, arch, extra):
    cmd = [smemsim, "sim", *target.split(), "--arch", arch, "--json", *extra]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"sample-error.py: {' '.join(cmd)} failed: {p.stderr.strip().splitlines()[-1:]}")
    return json.loads(p.stdout)["timing"], wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--smemsim", default=os.path.join(here, "..", "build/release/apps/smemsim/smemsim"))
    ap.add_argument("--k", type=int, default=1, help="CTAs per SM timed (default 1: one residency)")
    ap.add_argument("--quick", action="store_true", help="the first three kernels only")
    a = ap.parse_args()
    rows = []
    for target, arch in KERNELS[:3] if a.quick else KERNELS:
        full, wf = run(a.smemsim, target, arch, [])
        est, ws = run(a.smemsim, target, arch, ["--sample-ctas", str(a.k)])
        s = est["sampling"]
        err = 100.0 * (s["cycles_estimate"] - full["cycles"]) / full["cycles"]
        inside = s["cycles_low"] <= full["cycles"] <= s["cycles_high"]
        rows.append((target.replace("builtin:", ""), arch, s["ctas_timed"], s["ctas_total"],
                     full["cycles"], s["cycles_estimate"], f"{err:+.1f} %",
                     f"{s['cycles_low']}-{s['cycles_high']}", "yes" if inside else "no",
                     f"{wf:.2f}", f"{ws:.2f}"))
    print("| kernel | arch | CTAs timed | CTAs | cycles (full) | estimate | error | range | "
          "full in range | wall full (s) | wall sampled (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()

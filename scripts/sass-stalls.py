#!/usr/bin/env python3
"""Predicate and register latencies as ptxas schedules them, read from the stall counts of
cuobjdump's SASS.

Each Volta-and-later SASS instruction is 128 bits; bits 105-108 of it (bits 41-44 of the second
64-bit word that cuobjdump prints) are its stall count: the cycles the warp waits before issuing
its next instruction. For every instruction that reads a predicate written by an ISETP, FSETP,
LOP3, PLOP3 or FCHK earlier in the same block, this sums the stall counts from the writer to the
reader and tabulates them by how the predicate is read: as the guard of a branch (@P BRA), as the
guard of any other instruction, or as an operand (SEL, PLOP3, ISETP ...); and the stall counts of
the branches themselves. docs/gpu-runs.md "Guard delays and branches", sm.guard_delay and
sm.lat_branch (docs/timing.md) are read from its output.

A second table does the same for registers between the two fixed-latency pipes: from an ALU
instruction (IADD3, LOP3, SHF, LEA, ISETP) or an FMA-pipe one (IMAD, FFMA, FMUL, FADD) to the next
such instruction that reads its destination, where the reader waits on no scoreboard (its control
code's wait mask, bits 52-57 of the second word, is empty): sm.xpipe_delay is read from it.

  scripts/sass-stalls.py /tmp/sass/sass/*_sm_90.sass
(the SASS: mkdir -p /tmp/sass && tar xzf calibration/runs/h200-2026-11-28/sass.tar.gz -C /tmp/sass)
"""
import collections
import re
import sys

INS = re.compile(r"\s+/\*([0-9a-f]{4,5})\*/\s+(.*?)\s*;\s+/\* (0x[0-9a-f]+) \*/")
CTL = re.compile(r"/\* (0x[0-9a-f]+) \*/")
WRITERS = re.compile(r"(ISETP|FSETP|LOP3|PLOP3|FCHK)\b")
ENDS = re.compile(r"\b(BRA|EXIT|BSYNC|BAR|RET|CALL)\b")


def functions(path):
    """(name, [(text, stall, wait mask)]) for each function of a cuobjdump -sass listing."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:  # a missing file, a directory, no permission: one line, exit 2
        sys.stderr.write(f"sass-stalls.py: {path}: {e.strerror or e}\n")
        sys.exit(2)
    name, code = None, []
    for i, line in enumerate(lines):
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, code
            name, code = m.group(1), []
        m = INS.match(line)
        if m and name and i + 1 < len(lines):
            hi = CTL.search(lines[i + 1])
            if hi:
                word = int(hi.group(1), 16)
                code.append((m.group(2), (word >> 41) & 0xF, (word >> 52) & 0x3F))
    if name:
        yield name, code


def split(text):
    """(guard or None, opcode, operands)"""
    guard = None
    if text.startswith("@"):
        guard, text = text.split(None, 1)
        guard = guard[1:].lstrip("!")
    parts = text.split(None, 1)
    ops = [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []
    return guard, parts[0], ops


ALU = ("IADD3", "LOP3", "SHF", "LEA", "ISETP")
FMA = ("IMAD", "FFMA", "FMUL", "FADD")


def pipe(op):
    base = op.split(".")[0]
    return "ALU" if base in ALU else "FMA" if base in FMA else None


def registers(code, pipes):
    """Adds to pipes[(writer's pipe, reader's pipe)] the stall cycles from each ALU or FMA-pipe
    instruction to the next one in its block that reads its destination register, when the
    reader waits on no scoreboard."""
    for k, (text, _, _) in enumerate(code):
        _, op, ops = split(text)
        if not pipe(op) or not ops or not re.fullmatch(r"R\d+", ops[0]) or ops[0] == "RZ":
            continue
        dst, cycles = ops[0], 0
        for j in range(k + 1, min(k + 40, len(code))):
            cycles += code[j - 1][1]
            t2, _, waits = code[j]
            if ENDS.search(t2):
                break
            _, op2, ops2 = split(t2)
            if any(dst in re.findall(r"R\d+", o) for o in ops2[1:]):
                if pipe(op2) and not waits:
                    pipes[(pipe(op), pipe(op2))][cycles] += 1
                break
            if ops2 and ops2[0] == dst:
                break


def main(paths):
    table = collections.defaultdict(collections.Counter)
    pipes = collections.defaultdict(collections.Counter)
    branches = collections.Counter()
    read = 0
    for path in paths:
        for _, code in functions(path):
            read += 1
            registers(code, pipes)
            for k, (text, stall, _) in enumerate(code):
                guard, op, ops = split(text)
                # A branch's own stall; the padding loop after EXIT, RET or a branch is never
                # reached and has none.
                after_end = k and split(code[k - 1][0])[1].startswith(("EXIT", "RET", "BRA"))
                if op.startswith("BRA") and not (stall == 0 and after_end):
                    branches[stall] += 1
                # Predicates read: the guard, and predicate operands after the destinations.
                first = 2 if re.match(r"U?(ISETP|FSETP|PLOP3|DSETP)", op) else 1
                # PT is the constant true predicate; UP registers are the uniform datapath's.
                reads = [(guard, "guard")] if guard and guard != "PT" and not guard.startswith("UP") else []
                reads += [(o.lstrip("!"), "operand") for o in ops[first:]
                          if re.fullmatch(r"!?P[0-6]", o)]
                for pred, how in reads:
                    cycles = 0
                    for j in range(k - 1, max(-1, k - 40), -1):
                        t2, st2, _ = code[j]
                        cycles += st2
                        if ENDS.search(t2):
                            break
                        _, op2, ops2 = split(t2)
                        if pred in ops2[:2]:
                            m = WRITERS.match(op2)
                            if m:
                                kind = ("@P BRA" if op.startswith("BRA") else "@P other") \
                                    if how == "guard" else "operand"
                                table[(m.group(1), kind)][cycles] += 1
                            break
    if not read:
        sys.stderr.write("sass-stalls.py: no SASS function (cuobjdump -sass's 'Function :') in "
                         + ", ".join(paths) + "\n")
        sys.exit(2)
    print("| writer | read as | pairs | least | most common (pairs) |")
    print("|---|---|---:|---:|---:|")
    for (writer, kind), c in sorted(table.items()):
        mode, n = c.most_common(1)[0]
        print(f"| {writer} | {kind} | {sum(c.values())} | {min(c)} | {mode} ({n}) |")
    if branches:
        mode, n = branches.most_common(1)[0]
        print(f"\nBRA's own stall: {sum(branches.values())} branches, least {min(branches)}, "
              f"most common {mode} ({n})")
    print("\n| register from | to | pairs | least | most common (pairs) | fewer than that |")
    print("|---|---|---:|---:|---:|---:|")
    for (w, r), c in sorted(pipes.items()):
        mode, n = c.most_common(1)[0]
        fewer = sum(v for k, v in c.items() if k < mode)
        print(f"| {w} | {r} | {sum(c.values())} | {min(c)} | {mode} ({n}) | {fewer} |")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    main(sys.argv[1:])

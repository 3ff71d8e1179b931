// The code as ptxas would run it (issue 42, DESIGN.md "Three programs, one kernel"): a pass over
// the decoded kernel that marks the PTX instructions the GPU's own instruction set makes free. The
// functional executor still executes every PTX instruction; the cycle model times the lowered
// form, in which an absorbed instruction takes no issue slot, no unit and no latency: it issues
// with the next instruction of its warp (its registers count in that instruction's scoreboard
// check). docs/timing.md "Lowering" gives each rule's source.
//
// Rules (arch key sm.lower, a comma list; each can be left out to compare):
//   fma   mul + add/sub of one float type, neither with a rounding modifier, the product used
//         only by the add: one fused multiply-add (PTX ISA, mul/add: "mul/add sequences with no
//         rounding modifiers may be optimized to use fused-multiply-add instructions").
//   imad  integer mul.lo/mul.wide (or mad's add half) feeding only an add: one IMAD / IMAD.WIDE
//         on the FMA pipe; feeding only adds (the first right after it), an IMAD.WIDE each.
//   lea   shl by an immediate feeding only an add: one LEA (ALU pipe).
//   addr  add of an immediate whose sum is only a memory operand's base: [R+imm] (every
//         load/store/atomic form from Fermi on has a signed immediate offset); for a shared
//         address also of a constant base (a symbol, or a register holding only a symbol's
//         address: a shared variable's address is an immediate offset in the shared window).
//   scaled  shl by 2, 3 or 4 (of a register) + add of a constant base (an immediate, a symbol,
//         or a register holding only a symbol's address) used only as a shared-memory address:
//         [R.X4/.X8/.X16+imm] (Volta and later LDS/STS/ATOMS).
//   cvt   cvt between integer types to the same or a narrower width, no saturation: the low
//         register of a pair, no instruction.
//   mov   mov of one register to another of the same width: removed by register coalescing.
//   imm   mov of a constant (an immediate, a symbol's address) into a register nothing else
//         writes: zero is RZ, any other 32-bit value an immediate operand of its readers, when
//         none is a memory access taking it as data, a call, a vector operand or an instruction
//         with another constant (SASS has one immediate field); ptxas 13.0's SASS for sm_90 of
//         atomic_bench, `STS [R2], RZ` and the shared base folded. Its register is no result the
//         group it issues with makes anyone wait for.
//   lop3  and/or/xor/not (not on predicates) whose result is read only by an and/or/xor of the
//         same width that takes in no other: one LOP3.LUT, any bitwise function of three
//         registers (PTX ISA, lop3; SASS from Maxwell on: `LOP3.LUT R5, R4, UR4, R3, 0xfe` is
//         the OR of three values).
//   iadd3 an integer add/sub (32 bits at most, no carry, no saturation) whose result only one
//         add/sub of the same width reads, which takes in no other nor adds it to itself, at
//         most one of the three values a constant: one IADD3 (three inputs, any negated). A
//         chain of adds is pairs:
//         histogram's sum of 16 counts is 8 IADD3s in ptxas 13.0's SASS for sm_75, sm_80 and
//         sm_90 (calibration/runs/h200-2026-11-28/sass.tar.gz).
//   vector  2 or 4 scalar 32-bit (or 2 64-bit) ld/st.shared of adjacent words from one base, 8 or
//   16 bytes
//         aligned to their width: one LDS.64 / LDS.128 (vector.hpp: the loads are first brought
//         together; all but the last are absorbed into it, which makes the whole access).
// and `schedule`, the list scheduler (schedule.hpp), which reorders rather than absorbs, and
//   sincos  sin/cos.approx.f32 as two instructions: an FMUL.RZ by 1/(2 pi) on the FMA pipe (the
//         range reduction), then MUFU.SIN/COS on its result (the SASS ptxas 13.0 emits for sm_90;
//         docs/calibration.md): the cycle model issues the FMUL first, then the PTX instruction.
//   ex2   ex2.approx.f32 without .ftz as FSETP, FMUL, MUFU.EX2, FMUL (an input below -126 halved,
//         the result squared: MUFU.EX2 flushes subnormals); the H200's opcode counts of lavamd
//         and attention, one FSETP and two FMULs more per ex2 (src/timing/expand.cpp).
//   divide  div/rem.u32/s32 by a register, div.rn.f32 by a register and sqrt.rn.f32 as the
//         sequences ptxas 13.0 emits for sm_90 (10-25 instructions; src/timing/expand.cpp): the
//         cycle model issues the sequence's steps, then the PTX instruction.
//   wide  a 64-bit integer op that issues (not absorbed, not an IMAD.WIDE) as two: the low
//         word, then the high word (IADD3 + IADD3.X, LEA + LEA.HI.X, ISETP + ISETP.EX); it
//         adds an issue slot (timing/expand.hpp). On no preset yet (docs/timing.md).
//   aggregate  an integer atom/red add of a warp-uniform value, or an unused and/or/xor, to a
//         warp-uniform address, and an unused add of zero: ptxas's one-lane atomic (VOTEU.ANY,
//         FLO, @P ATOM), timed as the lowest active lane's access (aggregate.hpp).
//   unroll  an innermost loop with a counter stepped by a constant and a trip count known only at
//         run time: ptxas runs four trips as one, so the counter's step, the compare and the
//         branch issue in one trip of four (unroll.hpp; the SM skips them in the other three).
#pragma once

#include <cstdint>
#include <vector>

#include "lower/rules.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// What the pass decided for one instruction.
struct Lowered {
  Rule absorbed = Rule::None;  // not None: the instruction is free, by this rule
  // The instruction it issues with (the next one that is not absorbed; only when absorbed).
  std::uint32_t issue_with = 0;
  // It absorbed an integer multiply (imad): it runs on the FMA pipe as an IMAD.
  bool imad = false;
};

// The registers an instruction reads and writes (each operand occurrence once), as the timing
// model's scoreboard sees them.
struct RegUse {
  std::vector<std::uint32_t> reads, writes;
};

// Instructions that end a basic block: control flow and the synchronising ones (bar, fences,
// mbarrier, cp.async.wait_group, transactions): nothing is merged or moved across them.
bool ends_block(ptx::Opcode op);
// The same, except for a wgmma.mma_async: only its fence, commit_group and wait_group end a block.
// The product between them reads its registers and shared memory like a load, and the list
// scheduler keeps it in order with every memory instruction, so that a loop's counter
// moves above it as ptxas moves it (the sm_90a SASS of kernels/wgmma.cu's latency loops).
bool ends_block(const ptx::Instruction& ins);
// An instruction nothing moves across (the list scheduler, the vector rule): it reads a clock,
// so a kernel timing itself sees the code it timed.
bool reads_clock(const ptx::Instruction& ins);
// The label an instruction names (a branch's target, as an instruction index), ptx::kNone if none.
std::uint32_t branch_target(const ptx::Instruction& ins);
// The basic block of each instruction (0, 1, ...): a block starts at a branch target, a linked
// function's entry, and after an instruction that ends_block().
std::vector<std::uint32_t> blocks(const ptx::Kernel& kernel);

// One entry per instruction of kernel.code. `uses[i]` are instruction i's registers.
std::vector<Lowered> lower(const ptx::Kernel& kernel, const std::vector<RegUse>& uses,
                           const Rules& rules);

}  // namespace smemsim::lower

// The expansions' table (expand.hpp). Each comment is the SASS of ptxas 13.0 for sm_90, in
// order; `c` marks the steps on the critical path (chain), the rest take an issue slot only.
// `Bh`: a BRA or BSYNC step, which holds its warp as a branch does (BSSY does not: its stall
// count in the SASS is as little as 1, a BSYNC's always 5).
// A chain step that writes a predicate (ISETP, FSETP) and the chain step its predicate guards
// (@P ...) are `p` and `g` in the tables: the guard is read sm.guard_delay late (ptxas's control
// codes: 13 cycles from the FSETP to the @!P FMUL of ex2 in lavamd's sm_90 SASS).
// Conversions (I2F, F2I) run on the SFU as MUFU does (Accel-Sim's configs put them on the SFU);
// BSSY, BSYNC and a branch not taken on the branch unit; FCHK on the ALU.
#include "timing/expand.hpp"

namespace smemsim::timing {
namespace {

// The steps: on the ALU, the FMA pipe, the SFU or the branch unit; `c`: on the chain.
// `p`: a chain step writing the predicate that a later `g` step is guarded by.
constexpr ExpandStep kA{Unit::Alu, false}, kAc{Unit::Alu, true}, kF{Unit::Fma, false},
    kFc{Unit::Fma, true}, kSc{Unit::Sfu, true}, kB{Unit::Branch, false},
    kBh{Unit::Branch, false, false, false, true}, kAp{Unit::Alu, true, true},
    kAg{Unit::Alu, true, false, true}, kFg{Unit::Fma, true, false, true},
    kBhg{Unit::Branch, true, false, true, true};

constexpr Expansion kExpandNone{Unit::Alu, 0, {}};
// sin/cos.approx.f32: FMUL.RZ by 1/(2 pi) (c), then MUFU.SIN/COS (the instruction, on the SFU).
constexpr Expansion kExpandSinCos{Unit::Sfu, 1, {kFc}};
// ex2.approx.f32 (no .ftz; MUFU.EX2 flushes subnormals, so an input below -126 is halved and the
// result squared): FSETP.GEU p, x, -126 (c), @!p FMUL x, x, 0.5 (c), MUFU.EX2 (the instruction),
// @!p FMUL r, r, r (c). The last FMUL reads the MUFU's result; here it issues before it (a step
// issues before its instruction), so the chain's sum, FSETP + FMUL + FMUL + MUFU, is what a
// dependent instruction waits for, and the issue slots are the same four. ex2.approx.ftz.f32 is
// the MUFU.EX2 alone.
constexpr Expansion kExpandEx2{Unit::Sfu, 3, {kAp, kFg, kFc}};
// div.u32 by a register: I2F.U32.RP (c), IADD3 -d, ISETP.NE d, MUFU.RCP (c), IADD3 (c), F2I (c),
// IMAD.MOV 0, IMAD (c), IMAD.HI (c), IMAD.HI (c), IADD3 (c), IMAD (c), ISETP.GE (c),
// @P IMAD.IADD (c), @P IADD3, ISETP.GE (c), @P IADD3 (c), then @!P LOP3 (d = 0): 18.
constexpr Expansion kExpandDivU32{
    Unit::Alu,
    17,
    {kSc, kA, kA, kSc, kAc, kSc, kF, kFc, kFc, kFc, kAc, kFc, kAp, kFg, kA, kAp, kAg}};
// rem.u32: I2F.U32.RP (c), IADD3, ISETP.NE, MUFU.RCP (c), IADD3 (c), F2I (c), HFMA2.MMA 0,
// IMAD (c), IMAD.HI (c), IMAD.HI (c), IMAD.MOV -q (c), IMAD (c), ISETP.GE (c), @P IADD3 (c),
// ISETP.GE (c), @P IMAD.IADD (c), then @!P LOP3: 17.
constexpr Expansion kExpandRemU32{
    Unit::Alu, 16, {kSc, kA, kA, kSc, kAc, kSc, kF, kFc, kFc, kFc, kFc, kFc, kAp, kAg, kAp, kFg}};
// div.s32: IABS |d| (c), IABS, I2F.RP (c), IABS |n|, IADD3, MOV, LOP3 sign, ISETP sign,
// MUFU.RCP (c), VIADD (c), F2I (c), IMAD.MOV 0, IMAD.MOV -r (c), IMAD (c), IMAD.HI (c),
// IMAD.HI (c), IMAD (c), ISETP.GT (c), @!P IMAD.IADD (c), @!P IADD3, ISETP.NE, ISETP.GE (c),
// @P VIADD (c), @!P IADD3 -q (c), then @!P LOP3: 25.
constexpr Expansion kExpandDivS32{
    Unit::Alu, 24, {kAc, kA,  kSc, kA,  kA,  kA,  kA,  kA, kSc, kAc, kSc, kF,
                    kFc, kFc, kFc, kFc, kFc, kAp, kFg, kA, kA,  kAp, kAg, kAc}};
// rem.s32: IABS |d| (c), IABS, I2F.RP (c), IABS |n|, IADD3, MOV, ISETP sign, MUFU.RCP (c),
// VIADD (c), F2I (c), IMAD.MOV 0, IMAD.MOV -r (c), IMAD (c), IMAD.HI (c), IMAD.HI (c), IMAD (c),
// ISETP.GT (c), @!P IMAD.IADD (c), ISETP.NE, ISETP.GT (c), @!P IADD3 (c), @!P IMAD.MOV -r (c),
// then @!P LOP3: 23.
constexpr Expansion kExpandRemS32{
    Unit::Alu, 22, {kAc, kA,  kSc, kA,  kA,  kA,  kA,  kSc, kAc, kSc, kF,
                    kFc, kFc, kFc, kFc, kFc, kAp, kFg, kA,  kAp, kAg, kFc}};
// div.rn.f32 (and div.f32 by default): BSSY, MUFU.RCP (c), FCHK, FFMA (c) x 4, @!P BRA (the
// slow path's call not taken), BSYNC, then the last FFMA: 10 (the attention kernel's SASS).
constexpr Expansion kExpandDivF32{Unit::Fma, 9, {kB, kSc, kA, kFc, kFc, kFc, kFc, kBh, kBh}};
// The same division when a lane's operands fail FCHK (Executor::fdiv_slow): after the fast path's
// steps and its @!P BRA (not taken), MOV of the return address, CALL, the slow-path subroutine as
// fft_dit's SASS runs it for a zero dividend (0x8c0-0xf30 of fft_sm_90.sass, the path of the
// first test's special cases to the signed zero: 31 instructions), IMAD.MOV of its result, BSYNC,
// then the instruction: 44, the fast path's 10 and 34. The subroutine: SHF (c), BSSY, SHF,
// IMAD.MOV, LOP3 (c), LOP3, VIADD (c), VIADD, ISETP (c), ISETP.OR (p), @!P IMAD.MOV, @!P BRA (g);
// FSETP, IMAD.MOV, FSETP, PLOP3 (p), @P BRA (g); LOP3 (p), @!P BRA (g); FSETP, FSETP, FSETP (p),
// @!P BRA (g); LOP3, PLOP3 (p), @P BRA (g); LOP3 (c), BRA; BSYNC, IMAD.MOV, RET. Its taken
// branches (CALL, two BRAs, RET) hold the warp as a branch does; their fetch is not added.
constexpr Expansion kExpandDivF32Slow{
    Unit::Fma, 43, {kB, kSc, kA,   kFc, kFc, kFc,  kFc,  kBh, kA,  kBh, kAc, kB,   kA,  kF,   kAc,
                    kA, kFc, kF,   kAc, kAp, kF,   kBhg, kA,  kF,  kA,  kAp, kBhg, kAp, kBhg, kA,
                    kA, kAp, kBhg, kA,  kAp, kBhg, kAc,  kBh, kBh, kF,  kBh, kF,   kBh}};
// sqrt.rn.f32: BSSY, IADD3, MUFU.RSQ (c), ISETP.GT, @!P BRA, FMUL.FTZ (c), FMUL.FTZ, FFMA (c),
// BSYNC, and the last FFMA: 10.
constexpr Expansion kExpandSqrtF32{Unit::Fma, 9, {kB, kA, kSc, kA, kBh, kFc, kF, kFc, kBh}};

// A 64-bit integer op (wide): the low word (IADD3, LEA, ISETP.U32, SHF, LOP3) (c), then the
// instruction as the high word with the carry or the low word's result (IADD3.X, LEA.HI.X,
// ISETP.EX, SHF.HI, LOP3): 2.
constexpr Expansion kExpandWide{Unit::Alu, 1, {kAc}};

// Convergence barriers (bssy, src/lower/converge.hpp): BSSY before a branch that may split the
// warp, BSYNC before the instruction where its lanes meet (which issues on its own unit: `last`
// is not used for it).
constexpr Expansion kExpandBssy{Unit::Branch, 1, {kB}};
constexpr Expansion kExpandBsync{Unit::Alu, 1, {kBh}};

}  // namespace

const Expansion& expansion(Expand e) {
  switch (e) {
    case Expand::Wide:
      return kExpandWide;
    case Expand::Bssy:
      return kExpandBssy;
    case Expand::Bsync:
      return kExpandBsync;
    case Expand::SinCos:
      return kExpandSinCos;
    case Expand::Ex2:
      return kExpandEx2;
    case Expand::DivU32:
      return kExpandDivU32;
    case Expand::RemU32:
      return kExpandRemU32;
    case Expand::DivS32:
      return kExpandDivS32;
    case Expand::RemS32:
      return kExpandRemS32;
    case Expand::DivF32:
      return kExpandDivF32;
    case Expand::SqrtF32:
      return kExpandSqrtF32;
    case Expand::DivF32Slow:
      return kExpandDivF32Slow;
    case Expand::None:
      break;
  }
  return kExpandNone;
}

}  // namespace smemsim::timing

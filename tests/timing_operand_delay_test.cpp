// The operand delay (sm.mio_delay_alu / _fma, docs/timing.md "Operand delay") and sm.lower's
// sincos, ex2 and divide expansions (issue 42). Each case runs a dependent chain of N links between
// two clock reads, for two lengths, so that the clock reads' constant cancels: (N2 - N1) x the
// link's cost, against the cost derived from the keys.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "smemsim/arch.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// hopper-h100 on one SM with the lowering off unless a case turns a rule on: the chains are
// timed as written.
Arch hopper(const std::string& lower = "none") {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.sm.lower = lower;
  return a;
}

// One warp: %r2 holds the address of s[0], which holds its own address, %r3 = 0 and %r4 = 1 in
// registers (no rule can fold them), %f1 = 2.0. `link(k)` is link k's text, reading %r{10 + k}
// or %f{10 + k} and writing %r{11 + k} or %f{11 + k}; out[0] = the chain's cycles, out[1] its
// value.
std::string chain(int n, const std::function<std::string(int)>& link, bool fp) {
  std::string body;
  for (int k = 0; k < n; ++k) body += link(k);
  return clock_timed("chain",
                     "  .reg .b32 %r<400>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<400>;\n"
                     "  .reg .f64 %fd<400>;\n  .shared .align 4 .b8 s[64];\n",
                     "  mov.u32 %r2, s;\n  st.shared.u32 [%r2], %r2;\n  mov.u32 %r1, %tid.x;\n"
                     "  and.b32 %r3, %r1, 0;\n  add.u32 %r4, %r3, 1;\n  mov.u32 %r10, %r2;\n"
                     "  mov.f32 %f10, 0f40000000;\n  cvt.f64.f32 %fd1, %f1;\n"
                     "  sub.f64 %fd1, %fd1, %fd1;\n",
                     body,
                     fp ? fmt::format("st.global.f32 [%rd2+4], %f{};", 10 + n)
                        : fmt::format("st.global.u32 [%rd2+4], %r{};", 10 + n));
}

struct Cost {
  std::uint32_t per_link = 0, value = 0;
  timing::TimingStats stats;
  // Issue-slot cycles a link adds by reason (24 links' less 8 links', over 16).
  std::uint64_t wait = 0, short_sb = 0;
};

// The cost of one link: the cycles of 24 links less those of 8, over 16.
Cost link_cost(const Arch& a, const std::function<std::string(int)>& link, bool fp = false) {
  TimedKernel k8(chain(8, link, fp), 32, 2), k24(chain(24, link, fp), 32, 2);
  const timing::TimingStats s8 = k8.run(a);
  Cost c;
  c.stats = k24.run(a);
  c.wait = (c.stats.issue[timing::Stall::Wait] - s8.issue[timing::Stall::Wait]) / 16;
  c.short_sb =
      (c.stats.issue[timing::Stall::ShortScoreboard] - s8.issue[timing::Stall::ShortScoreboard]) /
      16;
  const std::uint32_t d = k24.out()[0] - k8.out()[0];
  EXPECT_EQ(d % 16, 0u) << d;
  c.per_link = d / 16;
  c.value = k24.out()[1];
  return c;
}

// ld.shared then an ALU add of the zero register: the load's result feeds the add with no delay
// (a variable-latency producer), the add's feeds the next load late.
std::string lds_add(int k) {
  return fmt::format("  ld.shared.u32 %r{0}, [%r{1}];\n  add.u32 %r{2}, %r{0}, %r3;\n", 200 + k,
                     10 + k, 11 + k);
}
// ld.shared then an integer multiply-add (x * 1 + 0): IMAD on the FMA pipe.
std::string lds_mad(int k) {
  return fmt::format("  ld.shared.u32 %r{0}, [%r{1}];\n  mad.lo.u32 %r{2}, %r{0}, %r4, %r3;\n",
                     200 + k, 10 + k, 11 + k);
}
std::string lds_lds(int k) {
  return fmt::format("  ld.shared.u32 %r{}, [%r{}];\n", 11 + k, 10 + k);
}
std::string add_add(int k) {
  return fmt::format("  add.u32 %r{}, %r{}, %r3;\n", 11 + k, 10 + k);
}
// sqrt.approx then fma.rn (x * 1 + 0): MUFU, then FFMA.
std::string sqrt_fma(int k) {
  return fmt::format(
      "  sqrt.approx.ftz.f32 %f{0}, %f{1};\n  fma.rn.f32 %f{2}, %f{0}, 0f3F800000, "
      "0f00000000;\n",
      200 + k, 10 + k, 11 + k);
}
std::string sin_sin(int k) {
  return fmt::format("  sin.approx.ftz.f32 %f{}, %f{};\n", 11 + k, 10 + k);
}

// hopper-h100: lat_shared_ld 23, lat_alu 4, lat_fma 4, lat_sfu 17, mio_delay_alu 2, _fma 2 (the
// H100's and H200's chains: 29.0, 30.17, 24.17 a step, their loops' guard delays counted;
// docs/calibration.md).
TEST(OperandDelay, AFixedLatencyResultReachesAnMioInstructionLate) {
  const Arch h = hopper();
  ASSERT_EQ(h.sm.lat_shared_ld, 23u);
  ASSERT_EQ(h.sm.mio_delay_alu, 2u);
  ASSERT_EQ(h.sm.mio_delay_fma, 2u);
  // LDS, IADD, LDS: 23 + 4 + 2; without the delay 23 + 4.
  EXPECT_EQ(link_cost(h, lds_add).per_link, 29u);
  Arch none = h;
  none.sm.mio_delay_alu = none.sm.mio_delay_fma = 0;
  EXPECT_EQ(link_cost(none, lds_add).per_link, 27u);
  // LDS, IMAD, LDS: 23 + 4 + 2 (the FMA pipe's delay).
  EXPECT_EQ(link_cost(h, lds_mad).per_link, 29u);
  EXPECT_EQ(link_cost(none, lds_mad).per_link, 27u);
  // MUFU.SQRT, FFMA, MUFU.SQRT: 17 + 4 + 2.
  EXPECT_EQ(link_cost(h, sqrt_fma, true).per_link, 23u);
  EXPECT_EQ(link_cost(none, sqrt_fma, true).per_link, 21u);
  // A larger delay moves the chain by exactly the difference.
  Arch big = h;
  big.sm.mio_delay_alu = 9;
  EXPECT_EQ(link_cost(big, lds_add).per_link, 23u + 4u + 9u);
}

// A conversion to or from f64 on hopper-h100 (sm.lat_cvt64 18, the H200's F2F pair 36.48 a step):
// F2F.F64.F32 then F2F.F32.F64 on its result, 18 + 18 = 36 a link; the second reads an SFU
// result, which has no operand delay. With lat_cvt64 0 they take the SFU's 17: 34. With a DADD of
// zero between them (lat_fp64 8), the F2F.F32.F64 reads an FP64 result mio_delay_fp64 = 3 late:
// 18 + 8 + 3 + 18 = 47 (the H200's 46.68); without the delay 44. The DADD reads the F2F's result
// without one (an MIO producer). The value is 2.0 throughout.
std::string f2f_pair(int k) {
  return fmt::format("  cvt.f64.f32 %fd{0}, %f{1};\n  cvt.rn.f32.f64 %f{2}, %fd{0};\n", 200 + k,
                     10 + k, 11 + k);
}
std::string f2f_dadd(int k) {
  return fmt::format(
      "  cvt.f64.f32 %fd{0}, %f{1};\n  add.rn.f64 %fd{3}, %fd{0}, %fd1;\n  cvt.rn.f32.f64 "
      "%f{2}, %fd{3};\n",
      200 + k, 10 + k, 11 + k, 300 + k);
}
TEST(OperandDelay, ConversionsToAndFromF64TakeTheirOwnLatency) {
  const Arch h = hopper();
  ASSERT_EQ(h.sm.lat_cvt64, 18u);
  ASSERT_EQ(h.sm.lat_fp64, 8u);
  ASSERT_EQ(h.sm.mio_delay_fp64, 3u);
  const Cost pair = link_cost(h, f2f_pair, true);
  EXPECT_EQ(pair.per_link, 36u);
  float v = 0;
  std::memcpy(&v, &pair.value, 4);
  EXPECT_EQ(v, 2.0f);
  Arch sfu = h;
  sfu.sm.lat_cvt64 = 0;
  EXPECT_EQ(link_cost(sfu, f2f_pair, true).per_link, 34u);
  const Cost dadd = link_cost(h, f2f_dadd, true);
  EXPECT_EQ(dadd.per_link, 47u);
  EXPECT_EQ(dadd.value, pair.value);
  Arch none = h;
  none.sm.mio_delay_fp64 = 0;
  EXPECT_EQ(link_cost(none, f2f_dadd, true).per_link, 44u);
  // The F2Fs' waits are on MIO results (short scoreboard), the delay a fixed pipe's (wait): the
  // DADD waits 17 after its F2F issues, the second F2F 7 + 3 after the DADD, the first 17.
  EXPECT_EQ(dadd.short_sb, 17u + 17u);
  EXPECT_EQ(dadd.wait, 10u);
}

// The delay is the MIO instruction's: a load fed by a load, and an ALU op fed by an ALU op, wait
// only for their producers' latencies.
TEST(OperandDelay, OnlyMioInstructionsFedByFixedPipesWait) {
  const Arch h = hopper();
  EXPECT_EQ(link_cost(h, lds_lds).per_link, 23u);
  EXPECT_EQ(link_cost(h, add_add).per_link, 4u);
  // The chase's value: s[0] holds its own address, so every load returns it (the executor runs
  // the PTX as written whatever the delay).
  const Cost c = link_cost(h, lds_add);
  Arch none = h;
  none.sm.mio_delay_alu = 0;
  EXPECT_EQ(c.value, link_cost(none, lds_add).value);
}

// Nsight Compute's names for the two waits of a link (issue 47): LDS, IADD, LDS on one warp is 29
// cycles, 2 of them issuing. The IADD waits for the LDS's data: issued 23 after it, so 22 cycles
// on an MIO op's result, `short_scoreboard`. The next LDS waits for the IADD's result, 4 + 2 after
// it: 5 cycles on a fixed-latency pipe, `wait` (the operand delay is that wait's end). The
// old `scoreboard` is their sum. With the delay off the wait is 3 (27 = 2 + 22 + 3).
TEST(OperandDelay, ALinksWaitsAreNamedByTheirProducer) {
  const Arch h = hopper();
  const Cost c = link_cost(h, lds_add);
  EXPECT_EQ(c.short_sb, 22u);
  EXPECT_EQ(c.wait, 5u);
  Arch none = h;
  none.sm.mio_delay_alu = none.sm.mio_delay_fma = 0;
  const Cost n = link_cost(none, lds_add);
  EXPECT_EQ(n.short_sb, 22u);
  EXPECT_EQ(n.wait, 3u);
  // An ALU chain waits only on fixed-latency results: 4 a link, 3 of them waiting.
  const Cost a = link_cost(h, add_add);
  EXPECT_EQ(a.wait, 3u);
  EXPECT_EQ(a.short_sb, 0u);
  // A shared chain only on MIO results: 23 a link, 22 waiting.
  const Cost l = link_cost(h, lds_lds);
  EXPECT_EQ(l.short_sb, 22u);
  EXPECT_EQ(l.wait, 0u);
}

// sincos: sin.approx issues as an FMUL.RZ (lat_fma) whose result the MUFU.SIN reads after the
// FMA pipe's operand delay: 4 + 2 + 17 = 23 a link (the H100's sin chain: 23.04); without the
// rule, the MUFU alone, 17. The value is the PTX's either way, and the JSON counts one expanded
// warp instruction a sin.
TEST(OperandDelay, SinCosExpandIntoAnFmulAndAMufu) {
  const Cost on = link_cost(hopper("sincos"), sin_sin, true);
  const Cost off = link_cost(hopper("none"), sin_sin, true);
  EXPECT_EQ(on.per_link, 23u);
  EXPECT_EQ(off.per_link, 17u);
  EXPECT_EQ(on.value, off.value);
  float v = 0;
  std::memcpy(&v, &on.value, 4);
  float x = 2.0f;
  for (int k = 0; k < 24; ++k) x = std::sin(x);
  EXPECT_NEAR(v, x, 1e-3);
  EXPECT_EQ(on.stats.expanded, 24u);
  EXPECT_EQ(off.stats.expanded, 0u);
  EXPECT_EQ(on.stats.warp_instructions, off.stats.warp_instructions);
}

// ex2: ex2.approx.f32 without .ftz issues as FSETP.GEU, @!P FMUL x 0.5, MUFU.EX2, @!P FMUL r r
// (MUFU.EX2 flushes subnormals; the H200's opcode counts, src/timing/expand.cpp). A link: the
// FSETP reads the previous MUFU's result (an ALU instruction, no operand delay) 4, the first FMUL
// is guarded by its predicate, 9 later (sm.guard_delay: 13 cycles from the FSETP to the @!P FMUL
// in lavamd's sm_90 SASS), the two FMULs 4 + 4, the MUFU reads an FMA result 2 late
// (mio_delay_fma) and takes 17: 4 + 9 + 8 + 2 + 17 = 40 (the model issues the last FMUL before
// the MUFU; the chain's sum is the same). With .ftz, or without the rule,
// the MUFU alone: 17. Three expanded warp instructions an ex2; the value is the PTX's.
std::string ex2_ex2(int k) {
  return fmt::format("  ex2.approx.f32 %f{}, %f{};\n", 11 + k, 10 + k);
}
std::string ex2_ftz(int k) {
  return fmt::format("  ex2.approx.ftz.f32 %f{}, %f{};\n", 11 + k, 10 + k);
}
TEST(Expand, Ex2WithoutFtzIsPtxassFourInstructions) {
  const Cost on = link_cost(hopper("ex2"), ex2_ex2, true);
  const Cost off = link_cost(hopper("none"), ex2_ex2, true);
  const Cost ftz = link_cost(hopper("ex2"), ex2_ftz, true);
  EXPECT_EQ(on.per_link, 40u);
  EXPECT_EQ(off.per_link, 17u);
  EXPECT_EQ(ftz.per_link, 17u);
  EXPECT_EQ(on.value, off.value);
  EXPECT_EQ(on.stats.expanded, 3u * 24u);  // 24 links, one warp
  EXPECT_EQ(ftz.stats.expanded, 0u);
  EXPECT_EQ(on.stats.warp_instructions, off.stats.warp_instructions);
}

// divide: a div.u32 by a register issues as ptxas 13.0's 18 instructions for sm_90 (17 steps,
// then the PTX instruction as the last LOP3; src/timing/expand.cpp). Its critical path, from the
// previous link's LOP3 (ALU) on: I2F (an SFU step: the ALU's result reaches it 2 late) 4 + 2,
// MUFU.RCP 17, IADD3 17, F2I 4 + 2, then IMAD, IMAD.HI, IMAD.HI, IADD3, IMAD, ISETP, IMAD.IADD,
// ISETP, IADD3 and the LOP3, 17 + 9 x 4, and each of the two guarded steps (@P IMAD.IADD, @P
// IADD3) reads its ISETP's predicate 9 late (sm.guard_delay): 6 + 17 + 17 + 6 + 17 + 36 + 18 =
// 117 a link (the steps off the path issue in its shadow; 99 without the guard delay). And each
// result that crosses between the ALU and the FMA pipe is read 1 later (sm.xpipe_delay): IMAD.HI
// to IADD3, IADD3 to IMAD, IMAD to ISETP, IMAD.IADD to ISETP, 4 (ISETP to @P IMAD.IADD is the
// fifth, hidden by the guard's longer wait): 121 a link, 99 + 5 = 104 without the guard. Without
// the rule one SFU op, 17. Dividing by %r4 = 1 keeps the value. (The H200, with the divisor on
// the chain so that ptxas hoists nothing, takes 131.0 a link: scripts/operand_delay.cu's
// div_u32_by_chain; the keys give each step less than the GPU does.)
std::string div_u32(int k) {
  return fmt::format("  div.u32 %r{}, %r{}, %r4;\n", 11 + k, 10 + k);
}
TEST(Expand, AnIntegerDivisionIsPtxassSequence) {
  const std::string rules = "sincos,divide";
  const Cost on = link_cost(hopper(rules), div_u32);
  const Cost off = link_cost(hopper("none"), div_u32);
  EXPECT_EQ(on.per_link, 121u);
  Arch no_guard = hopper(rules);
  no_guard.sm.guard_delay = 0;
  EXPECT_EQ(link_cost(no_guard, div_u32).per_link, 104u);
  no_guard.sm.xpipe_delay = 0;
  EXPECT_EQ(link_cost(no_guard, div_u32).per_link, 99u);
  EXPECT_EQ(off.per_link, 17u);
  EXPECT_EQ(on.value, off.value);
  EXPECT_EQ(on.stats.expanded, 24u * 17u);
  EXPECT_EQ(off.stats.expanded, 0u);
}

// div.rn.f32 by a register: BSSY, MUFU.RCP, FCHK, four FFMAs, BRA, BSYNC, then the last FFMA (10,
// the attention kernel's SASS). The path from the previous link's last FFMA: MUFU.RCP reads it
// 4 + 2 late (the FMA pipe's operand delay), then 17, and 4 for each FFMA after: 6 + 17 + 4 x 4 =
// 39 a link to the last FFMA's operand. But BRA and BSYNC hold the warp as a branch does
// (sm.lat_branch = 5; ptxas gives both a stall count of 5): the BRA issues the cycle after the
// fourth chain FFMA, the BSYNC 5 later and the last FFMA 5 after that, 1 + 5 + 5 = 11 after the
// fourth FFMA instead of its 4: 39 + 7 = 46 a link. x / 2 each link.
std::string div_f32(int k) {
  return fmt::format("  div.rn.f32 %f{}, %f{}, %f10;\n", 11 + k, 10 + k);
}
TEST(Expand, AnIeeeFloatDivisionIsTenInstructions) {
  const Cost on = link_cost(hopper("divide"), div_f32, true);
  const Cost off = link_cost(hopper("none"), div_f32, true);
  EXPECT_EQ(on.per_link, 46u);
  EXPECT_EQ(off.per_link, 17u);
  EXPECT_EQ(on.value, off.value);
  float v = 0;
  std::memcpy(&v, &on.value, 4);
  EXPECT_FLOAT_EQ(v, std::ldexp(1.0f, -23));  // 2 / 2^24
  EXPECT_EQ(on.stats.expanded, 24u * 9u);
}

// How many steps each form adds (the SASS counts less one, expand.cpp): the signed forms take the
// absolute values and the sign (IABS, LOP3), the remainders no quotient fix-up. Division by an
// immediate (ptxas multiplies by the inverse), .approx and .full are not expanded.
TEST(Expand, EachFormAddsItsSequencesSteps) {
  const auto steps = [](const std::string& link, bool fp = false) {
    const Cost c = link_cost(
        hopper("divide"), [&](int k) { return fmt::format(fmt::runtime(link), 11 + k, 10 + k); },
        fp);
    return c.stats.expanded / 24;
  };
  EXPECT_EQ(steps("  rem.u32 %r{}, %r{}, %r4;\n"), 16u);
  EXPECT_EQ(steps("  div.s32 %r{}, %r{}, %r4;\n"), 24u);
  EXPECT_EQ(steps("  rem.s32 %r{}, %r{}, %r4;\n"), 22u);
  EXPECT_EQ(steps("  sqrt.rn.f32 %f{}, %f{};\n", true), 9u);
  EXPECT_EQ(steps("  div.u32 %r{}, %r{}, 3;\n"), 0u);
  EXPECT_EQ(steps("  div.approx.f32 %f{}, %f{}, %f10;\n", true), 0u);
  EXPECT_EQ(steps("  div.full.f32 %f{}, %f{}, %f10;\n", true), 0u);
}

}  // namespace
}  // namespace smemsim::test

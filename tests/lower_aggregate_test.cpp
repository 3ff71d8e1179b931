// sm.lower's `aggregate` (issue 42, src/lower/aggregate.hpp): the atomics ptxas 13.0 turns into
// one lane's (VOTEU.ANY, FLO, then `@P ATOM` by the lowest active lane), as the SASS of this
// repository's kernels shows (calibration/runs/h200-2026-11-28/sass.tar.gz):
//   rep_atomic_conflict  `sum += atomicAdd(&word[0], 10)`: POPC, IMAD x 10, @P1 ATOMG.E.ADD;
//   isa_mix              atomicAnd/Or/Xor(&flags[k], v), result unused: REDUX, @P2 ATOMS.AND;
//                        atomicInc/Dec(&flags[k], 1000): every lane's ATOMS.INC / ATOMS.DEC;
//   cg_tiles             atomicOr with its result used: every lane's ATOM.E.OR ... R11;
//   rep_shared_atomic_contention  atomicAdd(&s[p], 0), result unused, p loaded: @P0 ATOMS.ADD.
#include <gtest/gtest.h>

#include "lower/converge.hpp"
#include "lower/aggregate.hpp"
#include "lower_test_util.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kAtomics = R"(
.visible .entry atomics(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 flags[64];
  mov.u32 %r1, %tid.x;                 // 0  not uniform: a lane's id
  mov.u32 %r2, %ctaid.x;               // 1  uniform
  mov.u32 %r3, flags;                  // 2  uniform: a symbol's address
  add.s32 %r4, %r3, 8;                 // 3  uniform
  shl.b32 %r5, %r1, 2;                 // 4  not
  add.s32 %r6, %r3, %r5;               // 5  not: a lane's word
  ld.param.u64 %rd1, [out];            // 6  uniform
  cvta.to.global.u64 %rd2, %rd1;       // 7  uniform
  mov.u32 %r7, 0;                      // 8  uniform: both writes are (a loop's counter)
  add.s32 %r7, %r7, 1;                 // 9
  ld.shared.u32 %r8, [%r4];            // 10 uniform: every lane reads one word
  setp.eq.u32 %p1, %r2, 0;             // 11 uniform
  @%p1 add.s32 %r9, %r2, 1;            // 12 uniform: guarded by a uniform predicate
  mul.lo.s32 %r10, %r2, 10;            // 13 uniform
  atom.shared.add.u32 %r11, [%r4], %r10;    // 14 aggregated: uniform address and value
  red.shared.add.u32 [%r6], 1;              // 15 not: each lane's word
  red.shared.add.u32 [%r6], 0;              // 16 aggregated: an add of zero, unused
  atom.shared.add.u32 %r12, [%r6], 0;       // 17 not: its result is read (instruction 27)
  red.shared.and.b32 [flags+4], %r1;        // 18 aggregated: uniform address, unused
  atom.shared.or.b32 %r13, [%r4], %r1;      // 19 not: its result is read
  atom.shared.xor.b32 %r14, [%r4], %r1;     // 20 aggregated: its result is not read
  atom.shared.inc.u32 %r15, [%r4], 1000;    // 21 not: inc
  atom.shared.add.u32 %r16, [%r4], %r1;     // 22 not: a lane's value
  atom.shared.add.f32 %f1, [%r4], 0f3F800000;  // 23 not: a float add
  red.global.add.u32 [%rd2], 10;            // 24 aggregated: uniform address and value
  atom.global.add.u32 %r17, [%rd2+4], %r7;  // 25 aggregated: the counter is uniform
  atom.shared.exch.b32 %r18, [%r4], %r2;    // 26 not: exch
  add.s32 %r19, %r12, %r13;                 // 27
  st.global.u32 [%rd2], %r19;               // 28
  ret;                                      // 29
}
)";

TEST(LoweringAggregate, VaryingRegistersAndTheAtomicsPtxasAggregates) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kAtomics, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 30u);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<lower::RegUse> uses = timing::reg_uses(info);
  const std::vector<std::uint8_t> varying = lower::varying_registers(k, uses);
  const auto reg = [&](const char* name) {
    for (std::uint32_t r = 0; r < k.regs.size(); ++r)
      if (k.regs[r].name == name) return r;
    ADD_FAILURE() << name;
    return 0u;
  };
  for (const char* u : {"%r2", "%r3", "%r4", "%rd1", "%rd2", "%p1", "%r7", "%r8", "%r9", "%r10"})
    EXPECT_EQ(varying[reg(u)], 0) << u;
  for (const char* u : {"%r1", "%r5", "%r6", "%r11", "%r13"}) EXPECT_EQ(varying[reg(u)], 1) << u;
  const std::vector<std::uint8_t> agg = lower::aggregated_atomics(k, uses);
  std::vector<std::uint32_t> marked;
  for (std::uint32_t i = 0; i < agg.size(); ++i)
    if (agg[i]) marked.push_back(i);
  EXPECT_EQ(marked, (std::vector<std::uint32_t>{14, 16, 18, 20, 24, 25}));
  // The rule's name, and `all` has it.
  EXPECT_TRUE(lower::parse_rules("aggregate").aggregate);
  EXPECT_TRUE(lower::parse_rules("all").aggregate);
  EXPECT_EQ(lower::to_string(lower::parse_rules("imm,aggregate")), "imm,aggregate");
}

// A call's parameters are a lane's values: `twice` returns its argument doubled, called with the
// thread index; inside it the argument's load and, in the kernel, the result's load are not
// uniform, the kernel parameter's is. An add of the returned value is each lane's atomic.
const char* kCall = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %q<4>;
  ld.param.u32 %q1, [x];
  add.u32 %q2, %q1, %q1;
  st.param.b32 [r+0], %q2;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 word;
  mov.u32 %r1, %tid.x;
  {
  .param .b32 a;
  st.param.b32 [a+0], %r1;
  .param .b32 b;
  call.uni (b), twice, (a);
  ld.param.b32 %r2, [b+0];
  }
  ld.param.u32 %r3, [n];
  red.shared.add.u32 [word], %r2;
  red.shared.add.u32 [word], %r3;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}
)";

TEST(LoweringAggregate, ACallsParametersAreALanes) {
  const ptx::Module m = ptx::parse(kCall, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<lower::RegUse> uses = timing::reg_uses(timing::decode_kernel(k));
  const std::vector<std::uint8_t> varying = lower::varying_registers(k, uses);
  std::vector<std::uint32_t> reds, agg;
  const std::vector<std::uint8_t> marked = lower::aggregated_atomics(k, uses);
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    if (k.code[i].op != ptx::Opcode::Red) continue;
    reds.push_back(i);
    if (marked[i]) agg.push_back(i);
  }
  ASSERT_EQ(reds.size(), 2u);
  EXPECT_EQ(agg, std::vector<std::uint32_t>{reds[1]});  // the kernel parameter's add only
  for (std::uint32_t r = 0; r < k.regs.size(); ++r) {
    const std::string& name = k.regs[r].name;
    if (name == "%q1" || name == "%q2" || name == "%r2") EXPECT_EQ(varying[r], 1) << name;
    if (name == "%r3" || name == "%rd2") EXPECT_EQ(varying[r], 0) << name;
  }
}

// One warp adds 1 to one shared word 16 times between two clock reads (red: the result unused;
// the address a symbol's, uniform), then thread 0 stores the clock span and the word. With the
// rule the 32 lanes' reds are timed as the lowest lane's, so the span is exactly that of a CTA of
// one thread, whose warp has only that lane; without it, each red's 32 lanes on one word
// serialise, one pass a lane on the word at the least (a pass takes a cycle or more), so the span
// is longer than one lane's by at least 31 x 16 cycles. The word holds 32 x 16 either way: the
// executor runs every lane's atomic.
std::string same_word() {
  std::string reds;
  for (int k = 0; k < 16; ++k) reds += "  red.shared.add.u32 [word], 1;\n";
  return R"(
.visible .entry same_word(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 word;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r7, 0;
  @%p1 st.shared.u32 [word], %r7;
  bar.sync 0;
  mov.u32 %r2, %clock;
)" + reds +
         R"(  ld.shared.u32 %r4, [word];
  mov.u32 %r3, %clock;
  sub.s32 %r5, %r3, %r2;
  bar.sync 0;
  ld.shared.u32 %r6, [word];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  @%p1 st.global.u32 [%rd2], %r5;
  @%p1 st.global.u32 [%rd2+4], %r6;
  ret;
}
)";
}

TEST(LoweringAggregate, AnAggregatedAtomicIsTheLowestLanesAccess) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  const auto span = [&](const char* rules, std::uint32_t threads) {
    a.sm.lower = rules;
    TimedKernel k(same_word(), threads, 4);
    k.run(a);
    EXPECT_EQ(k.out()[1], 16u * threads) << rules << " " << threads;
    return k.out()[0];
  };
  const std::uint32_t one = span("none", 1);
  EXPECT_EQ(span("aggregate", 32), one);
  EXPECT_EQ(span("aggregate", 1), one);
  const std::uint32_t all = span("none", 32);
  EXPECT_GE(all, one + 16u * 31u) << all << " " << one;
}

}  // namespace
}  // namespace smemsim::test

// The lowering rule imm (issue 42, src/lower/lower.hpp): a mov of a constant into a register
// nothing else writes is no instruction when its readers can take the constant as an operand. The
// SASS it models is ptxas 13.0's for sm_90 (calibration/runs/h200-2026-11-28/sass.tar.gz,
// atomic_bench_sm_90.sass): atomic_bench's PTX loop that zeroes the counters,
//   shl; mov %r24, counters; add; mov %r26, 0; st.shared [%r25], %r26; add; setp; bra
// is IMAD R2, R0, 0x4, R5; IMAD.IADD; STS [R2], RZ; ISETP; BRA: the symbol's address is a
// constant and the zero is RZ. The next loop's `mov %r, 1` read by atom.shared.add stays a MOV
// (IMAD.MOV.U32 R9, RZ, RZ, 0x1 before ATOMS.ADD R7, [R8], R9): an atomic's data is a register.
#include <gtest/gtest.h>

#include "lower/lower.hpp"
#include "lower_test_util.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kConstants = R"(
.visible .entry constants(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 words[512];
  mov.u32 %r1, %tid.x;            // 0  a special register: stays (S2R)
  mov.u32 %r2, words;             // 1  imm: a shared symbol's address, read by an add
  shl.b32 %r3, %r1, 2;            // 2
  add.s32 %r4, %r2, %r3;          // 3
  mov.u32 %r5, 0;                 // 4  imm: zero is RZ, also as a store's data
  st.shared.u32 [%r4], %r5;       // 5
  mov.u32 %r6, 1;                 // 6  stays: an atomic's data is a register
  atom.shared.add.u32 %r7, [%r4], %r6;  // 7
  mov.u32 %r8, 7;                 // 8  imm: its one reader has no other immediate
  add.s32 %r9, %r7, %r8;          // 9
  mov.u32 %r10, 9;                // 10 stays: its reader has an immediate already
  mad.lo.s32 %r11, %r9, %r10, 3;  // 11
  mov.f32 %f1, 0f3F800000;        // 12 imm: 1.0 into an fma of registers
  cvt.rn.f32.u32 %f2, %r11;       // 13
  fma.rn.f32 %f3, %f2, %f2, %f1;  // 14
  mov.u32 %r12, 5;                // 15 stays: written twice (a loop's initial value)
  add.s32 %r12, %r12, %r9;        // 16
  mov.b64 %rd1, 12345;            // 17 stays: a 64-bit value other than zero
  mov.b64 %rd2, 0;                // 18 imm: zero
  add.s64 %rd3, %rd1, %rd2;       // 19
  mov.u32 %r13, 3;                // 20 stays: one of its readers stores it
  add.s32 %r14, %r13, %r12;       // 21
  st.shared.u32 [%r4+4], %r13;    // 22
  cvt.rzi.u32.f32 %r15, %f3;      // 23
  add.s32 %r16, %r15, %r14;       // 24
  cvt.u32.u64 %r17, %rd3;         // 25
  add.s32 %r18, %r16, %r17;       // 26
  ld.param.u64 %rd4, [out];       // 27
  cvta.to.global.u64 %rd5, %rd4;  // 28
  st.global.u32 [%rd5], %r18;     // 29
  ret;                            // 30
}
)";

TEST(LoweringImm, ConstantsTheReadersTakeAsOperandsAreFree) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kConstants, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 31u);
  EXPECT_EQ(absorbed_by(k, "imm"), (std::vector<std::uint32_t>{1, 4, 8, 12, 18}));
  // Off (and under every other rule) none of the constants is free: mov counts only copies of a
  // register (`mov` leaves 0 alone, a special register's read, and every immediate).
  EXPECT_EQ(absorbed_by(k, "mov"), (std::vector<std::uint32_t>{}));
  EXPECT_NE(lower::to_string(lower::parse_rules("all")).find("imm"), std::string::npos);
}

// The zeroing loop of atomic_bench, one warp: each iteration is 8 PTX instructions, 5 SASS ones.
// With lea, addr and mov the model issues all 8: the add of the address would be taken into the
// store (addr) only if the store came next, and the mov of 0 stands between them; the add being a
// candidate of addr, the shl is not one of lea. With imm as well the two movs are free, so the
// add is taken into the store: shl (ptxas's IMAD), st, add, setp, bra, 5, ptxas's count. Over 16
// iterations imm saves 3 x 16 issue slots, and one more after the loop (the mov of `words`; its
// add is taken into the load either way); what the kernel computes is the same.
const char* kZeroLoop = R"(
.visible .entry zero(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 words[2048];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r10, %r1;
$L1:
  shl.b32 %r23, %r10, 2;
  mov.u32 %r24, words;
  add.s32 %r25, %r24, %r23;
  mov.u32 %r26, 0;
  st.shared.u32 [%r25], %r26;
  add.s32 %r10, %r10, %r2;
  setp.lt.s32 %p2, %r10, 512;
  @%p2 bra $L1;
  bar.sync 0;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, words;
  add.s32 %r5, %r4, %r3;
  ld.shared.u32 %r7, [%r5];
  add.s32 %r6, %r7, %r1;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";

TEST(LoweringImm, AtomicBenchZeroLoopIssuesPtxasCount) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  std::uint64_t absorbed[2];
  for (int on = 0; on < 2; ++on) {
    a.sm.lower = on ? "lea,addr,mov,imm" : "lea,addr,mov";
    TimedKernel k(kZeroLoop, 32, 32);
    const timing::TimingStats s = k.run(a);
    absorbed[on] = s.absorbed;
    const std::vector<std::uint32_t> out = k.out();
    for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t);  // 0 from the loop, + t
  }
  // 512 / 32 = 16 iterations a warp, 3 instructions each; and the mov of `words` after the loop.
  EXPECT_EQ(absorbed[1] - absorbed[0], 16u * 3u + 1u);
}

// The scheduler keeps a constant's readers after it. The mov of 7 issues with the add that follows
// it (q, whose result is needed only at the end), and its reader computes a load's address, so
// the list scheduler puts the reader first (the longest path): it must still see the 7, though
// the group's registers leave the constant out (no reader waits for it). out[t] = t + 7 (the
// loaded out[t + 7], 0, added) + t + 1.
const char* kHoist = R"(
.visible .entry hoist(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r5, 7;
  add.u32 %r9, %r1, 1;
  add.u32 %r6, %r1, %r5;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  add.u32 %r8, %r7, %r6;
  add.u32 %r10, %r8, %r9;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r10;
  ret;
}
)";

TEST(LoweringImm, ScheduledReadersStillSeeTheConstant) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.sm.lower = "imm,schedule";
  TimedKernel k(kHoist, 32, 64);
  const timing::TimingStats s = k.run(a);
  EXPECT_EQ(s.absorbed, 1u);
  const std::vector<std::uint32_t> out = k.out();
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], 2 * t + 8) << t;
}

}  // namespace
}  // namespace smemsim::test

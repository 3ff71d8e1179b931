// The lowering rule iadd3 (issue 42, src/lower/lower.hpp): an integer add whose result only one
// add reads is one IADD3 with it (three inputs). The SASS it models: ptxas 13.0 sums histogram's
// 16 counts in 8 IADD3s (calibration/runs/h200-2026-11-28/sass.tar.gz, histogram_sm_90.sass:
// `IADD3 R9, R12, R11, R9` ...), and ptxas 11.8 makes scripts/operand_delay.cu's 32 adds of a
// register 16 IADD3s for sm_90. Checked on a hand-read kernel (which adds are taken in, which
// stay and why) and on a chain's cycles, with the rule on and off.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "lower/lower.hpp"
#include "lower_test_util.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kSums = R"(
.visible .entry sums(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;            // 0
  mov.u32 %r2, %ntid.x;           // 1
  add.s32 %r3, %r1, %r2;          // 2  iadd3, with 3
  add.s32 %r4, %r3, %r1;          // 3  took 2 in: not taken in itself (four inputs)
  add.s32 %r5, %r4, 7;            // 4  stays: its reader has an immediate too (two constants)
  sub.s32 %r6, %r5, 9;            // 5  iadd3, with 6 (one immediate among the three)
  add.s32 %r7, %r6, %r1;          // 6
  add.s32 %r8, %r7, %r2;          // 7  stays: read by two (8 and 9)
  add.s32 %r9, %r8, %r1;          // 8  iadd3, with 9
  add.s32 %r10, %r8, %r9;         // 9
  add.s32 %r11, %r10, %r10;       // 10 iadd3, with 11: the value is read by 11 only, and 11
  add.s32 %r11, %r11, %r2;        // 11 writes the register again (compiled PTX reuses a sum's)
  add.s32 %r12, %r11, %r1;        // 12 stays: its reader is a 64-bit add after a cvt
  cvt.u64.u32 %rd1, %r12;         // 13
  add.s64 %rd2, %rd1, 5;          // 14 stays: 64 bits (IADD3 and IADD3.X)
  add.s64 %rd3, %rd2, %rd1;       // 15
  add.cc.u32 %r13, %r12, 1;       // 16 stays: a carry out
  addc.u32 %r14, %r13, 0;         // 17
  mul.lo.s32 %r15, %r14, %r1;     // 18 imad, with 19
  add.s32 %r16, %r15, %r2;        // 19 iadd3, with 20; with imad an IMAD, which takes in no add
  add.s32 %r17, %r16, %r1;        // 20 stays: 19 took one in; with imad, 22 is not next to it
  cvt.u32.u64 %r18, %rd3;         // 21
  add.s32 %r19, %r17, %r18;       // 22
  mul.lo.s32 %r20, %r19, %r19;    // 23 imad, with 24
  add.s32 %r21, %r20, %r1;        // 24 stays: its reader adds it to itself (four inputs), and
  add.s32 %r21, %r21, %r21;       // 25 writes the register again
  ld.param.u64 %rd4, [out];       // 26
  cvta.to.global.u64 %rd5, %rd4;  // 27
  st.global.u32 [%rd5], %r21;     // 28
  ret;                            // 29
}
)";

TEST(LoweringIadd3, TakesInOneSumPerConsumer) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kSums, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 30u);
  EXPECT_EQ(absorbed_by(k, "iadd3"), (std::vector<std::uint32_t>{2, 5, 8, 10, 19}));
  EXPECT_EQ(absorbed_by(k, "imad,iadd3"), (std::vector<std::uint32_t>{2, 5, 8, 10, 18, 23}));
  // Off, only the other rules' (the IMAD, the truncation 21).
  EXPECT_EQ(absorbed_by(k, "fma,imad,lea,addr,cvt,mov,lop3"),
            (std::vector<std::uint32_t>{18, 21, 23}));
}

// Each link is x = (x + a) + b. Off, the two adds wait on each other: 2 x lat_alu a link. With
// iadd3 the first issues with the second, which waits for the previous link: lat_alu a link. The
// clock reads add a constant, so two chain lengths' difference is (N2 - N1) x the link's cost.
std::string add_chain(int n) {
  std::string body;
  for (int k = 0; k < n; ++k)
    body += fmt::format("  add.s32 %r{0}, %r{1}, %r100;\n  add.s32 %r{2}, %r{0}, %r101;\n",
                        2 * k + 200, k == 0 ? 1 : 2 * k + 199, 2 * k + 201);
  return fmt::format(
      ".visible .entry chain(.param .u64 out)\n{{\n  .reg .b32 %r<400>;\n  .reg .b64 %rd<8>;\n"
      "  mov.u32 %r1, %tid.x;\n  mov.u32 %r100, %ntid.x;\n  neg.s32 %r101, %r100;\n"
      "  mov.u32 %r390, %clock;\n{}  mov.u32 %r391, %clock;\n  sub.s32 %r392, %r391, %r390;\n"
      "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  st.global.u32 [%rd2], %r392;\n  st.global.u32 [%rd2+4], %r{};\n  ret;\n}}\n",
      body, 2 * n + 199);
}

TEST(LoweringIadd3, AddPairTakesOneAluLatencyALink) {
  Arch a = find_preset("volta-v100");
  a.sm.count = 1;
  const std::uint32_t alu = a.sm.lat_alu;
  std::uint32_t cycles[2][2], value[2];
  std::uint64_t absorbed[2];
  for (int on = 0; on < 2; ++on) {
    a.sm.lower = on ? "iadd3" : "none";
    for (int len = 0; len < 2; ++len) {
      TimedKernel k(add_chain(len ? 24 : 8), 1, 2);
      const timing::TimingStats s = k.run(a);
      cycles[on][len] = k.out()[0];
      value[on] = k.out()[1];
      absorbed[on] = s.absorbed;
    }
  }
  EXPECT_EQ(cycles[1][1] - cycles[1][0], 16 * alu);
  EXPECT_EQ(cycles[0][1] - cycles[0][0], 16 * 2 * alu);
  // The PTX still runs as written: each link adds ntid and takes it away, leaving the thread
  // index (0).
  EXPECT_EQ(value[1], value[0]);
  EXPECT_EQ(value[1], 0u);
  EXPECT_EQ(absorbed[1], 24u);
  EXPECT_EQ(absorbed[0], 0u);
}

}  // namespace
}  // namespace smemsim::test

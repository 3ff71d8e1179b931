// The lowering rule bssy (issue 42, src/lower/converge.hpp): a branch whose lanes may part issues
// a BSSY before it and the instruction where they meet a BSYNC, as ptxas brackets a divergent
// region for Volta and later; a branch every lane takes alike gets neither. Checked on a
// hand-read kernel: which registers vary, where the barriers go, and how many more instructions
// one warp issues.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/converge.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kBranches = R"(
.visible .entry branches(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;            // 0  varies: the thread index
  mov.u32 %r2, %ctaid.x;          // 1  uniform
  ld.param.u64 %rd1, [out];       // 2  uniform
  setp.lt.u32 %p1, %r1, 16;       // 3  varies
  setp.eq.u32 %p2, %r2, 0;        // 4  uniform
  mov.u32 %r3, 0;                 // 5
  @%p1 bra $L1;                   // 6  varies, forward: BSSY here, BSYNC at 8
  add.u32 %r3, %r3, 1;            // 7  written where the lanes are apart: r3 varies
$L1:
  setp.ne.u32 %p3, %r3, 0;        // 8  varies (r3)
  @%p2 bra $L2;                   // 9  uniform: nothing
  add.u32 %r4, %r2, 1;            // 10
$L2:
  @%p3 bra $L3;                   // 11 varies: BSSY, BSYNC at 13
  add.u32 %r5, %r2, 2;            // 12 r5 varies (written apart)
$L3:
  mov.u32 %r6, 0;                 // 13
$L4:
  add.u32 %r6, %r6, 1;            // 14 a uniform loop counter
  setp.lt.u32 %p4, %r6, 4;        // 15
  @%p4 bra $L4;                   // 16 backward, uniform: nothing
  vote.sync.ballot.b32 %r7, %p1, 0xffffffff; // 17 the same on every lane
  setp.ne.u32 %p5, %r7, 0;        // 18 uniform
  @%p5 bra $L5;                   // 19 uniform: nothing
  add.u32 %r8, %r1, 1;            // 20
$L5:
  @%p1 bra $DONE;                 // 21 varies, but the lanes meet at ret: a predicated EXIT
  cvta.to.global.u64 %rd2, %rd1;  // 22
  st.global.u32 [%rd2], %r6;      // 23
$DONE:
  ret;                            // 24
}
)";

TEST(LoweringBssy, VaryingRegistersAndWhereTheBarriersGo) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kBranches, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 25u);
  const auto uses = timing::reg_uses(timing::decode_kernel(k));
  const std::vector<std::uint8_t> v = lower::varying_registers(k, uses);
  auto varies = [&](const char* name) {
    for (std::size_t r = 0; r < k.regs.size(); ++r)
      if (k.regs[r].name == name) return v[r] != 0;
    ADD_FAILURE() << name;
    return false;
  };
  for (const char* r : {"%r1", "%p1", "%r3", "%p3", "%r5", "%r8"}) EXPECT_TRUE(varies(r)) << r;
  for (const char* r : {"%r2", "%rd1", "%p2", "%r4", "%r6", "%p4", "%r7", "%p5"})
    EXPECT_FALSE(varies(r)) << r;
  const lower::Convergence c = lower::convergence_barriers(k, uses);
  EXPECT_EQ(c.bssy, (std::vector<std::uint32_t>{6, 11}));
  EXPECT_EQ(c.bsync, (std::vector<std::uint32_t>{8, 13}));
}

// One warp runs it once: 2 BSSY + 2 BSYNC issue more with the rule, the PTX's own count is the
// same, and so is what it stores (the loop's 4). Without the guard delay they cost cycles; with
// it (sm.guard_delay 9 on hopper-h100) each BSSY issues while its branch waits for its predicate,
// as ptxas places BSSY in an ISETP's shadow, so they need not.
TEST(LoweringBssy, OneWarpIssuesFourMore) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.sm.guard_delay = 0;
  timing::TimingStats s[2];
  std::uint32_t stored[2];
  for (int on = 0; on < 2; ++on) {
    a.sm.lower = on ? "fma,imad,lea,addr,cvt,mov,bssy" : "fma,imad,lea,addr,cvt,mov";
    TimedKernel t(kBranches, 32, 1);
    s[on] = t.run(a);
    stored[on] = t.out()[0];
  }
  EXPECT_EQ(s[1].expanded - s[0].expanded, 4u);
  EXPECT_EQ(s[1].warp_instructions, s[0].warp_instructions);
  EXPECT_EQ(stored[0], stored[1]);
  EXPECT_GT(s[1].cycles, s[0].cycles);
}

}  // namespace
}  // namespace smemsim::test

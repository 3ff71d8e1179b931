// mbarrier.try_wait suspends its threads (PTX ISA: "a potentially blocking instruction ... the
// executing thread may be suspended until the specified phase completes or a system-dependent
// time limit"): under the cycle model a try_wait that finds its phase incomplete does not complete
// until the phase does, and its predicate is taken then; after kTryWaitSuspend cycles it returns
// false and the wait loop tries again. Derived by hand on a kernel whose warp 1 runs a chain of N
// dependent FMAs before it arrives, while warp 0 waits in a try_wait loop.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "smemsim/arch.hpp"
#include "timing/sm.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

std::string kernel(int n) {
  std::string chain;
  for (int k = 0; k < n; ++k) chain += "  fma.rn.f32 %f1, %f1, %f2, %f3;\n";
  return fmt::format(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry tw(.param .u64 out)
{{
  .reg .pred %p<8>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r2], 1;
INITED:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra WAITER;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f00000000;
{}  setp.ne.u32 %p3, %r1, 32;
  @%p3 bra DONE;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  bra DONE;
WAITER:
  mov.u32 %r5, 0;
LOOP:
  mbarrier.try_wait.parity.shared.b64 %p4, [%r2], %r5;
  @!%p4 bra LOOP;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd2;
  st.global.u32 [%rd3], %r1;
DONE:
  ret;
}}
)",
                     chain);
}

struct WaitRun {
  std::uint64_t cycles, warp_instructions;
};

WaitRun run(int n) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  const ptx::Module m = ptx::parse(kernel(n), "tw.ptx");
  exec::GlobalMemory mem;
  const std::uint32_t out =
      mem.add(exec::Buffer{"out", exec::ElemType::U32, std::vector<std::uint8_t>(8)});
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {64, 1, 1};
  launch.args = {exec::Arg::buf(out)};
  timing::GpuSim sim(m, m.kernels.at(0), a, launch, mem, {});
  const timing::TimingStats s = sim.run();
  return {s.cycles, s.warp_instructions};
}

TEST(TryWait, SuspendsItsThreadsUntilThePhaseCompletes) {
  const std::uint32_t fma = find_preset("hopper-h100").sm.lat_fma;  // 4
  const WaitRun a = run(8), b = run(64);
  // Warp 0 issues the same instructions whatever the wait (its try_wait once, then its exit):
  // only warp 1's 56 more FMAs are more instructions; without the suspension the loop turned
  // once a poll while the chain ran.
  EXPECT_EQ(b.warp_instructions - a.warp_instructions, 56u);
  // And the kernel ends the chain's growth later (the waiter resumes when the arrival lands).
  EXPECT_NEAR(double(b.cycles - a.cycles), 56.0 * fma, 4.0);
}

TEST(TryWait, ReturnsAfterTheLimitAndTheLoopTriesAgain) {
  // A chain of 1,100 FMAs (4,400 cycles) outlasts one suspension (kTryWaitSuspend = 4,096): the
  // try_wait returns false once and the loop issues it and its branch again, 2 instructions more.
  ASSERT_LT(timing::kTryWaitSuspend, 1100u * 4);
  ASSERT_GT(2 * timing::kTryWaitSuspend, 1100u * 4);
  const WaitRun a = run(8), c = run(1100);
  EXPECT_EQ(c.warp_instructions - a.warp_instructions, 1092u + 2);
}

}  // namespace
}  // namespace smemsim::test

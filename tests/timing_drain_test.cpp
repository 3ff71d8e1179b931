// Nsight Compute's `drain` (docs/timing.md "Stall reasons"): a warp past its exit waits for its
// instructions still in flight, its last stores above all, and the state is counted at the exit.
#include <gtest/gtest.h>

#include <algorithm>

#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

// One warp stores a word from every lane, then returns. Lane l writes word 32 l of `out`: 32
// sectors, each in its own line (0 when `spread` is off: all lanes in one sector).
std::string stores_then_ret(bool spread) {
  return std::string(R"(
.visible .entry drain(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  )") + (spread ? "shl.b32 %r2, %r1, 7;" : "shl.b32 %r2, %r1, 0;\n  and.b32 %r2, %r2, 0;") +
         R"(
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";
}

// The drain is every cycle from the one after the exit issued to the warp's last completion: the
// ret's own pipeline (5 cycles on the Fig. 4 pipeline, as TimingPipeline's chain shows), or the
// store's, whichever ends later. The slot has no other warp, so the issue slot's reason is the
// warp's; and the warp's per-instruction states put all of it on the ret.
TEST(TimingDrain, AWarpPastItsExitDrainsUntilItsLastInstructionIsDone) {
  for (const bool spread : {false, true}) {
    SCOPED_TRACE(spread ? "32 sectors" : "one sector");
    const std::string body = stores_then_ret(spread);
    TimedKernel k(body, 32, 32 * 32);
    Recorder rec;
    const timing::TimingStats s = k.run(fig4_arch(), &rec, true);
    const std::uint32_t ret = spread ? 6 : 7, st = ret - 1;
    const std::uint64_t exit_at = rec.issued(0, ret);
    const std::uint64_t last = std::max(rec.completed(0, st), rec.completed(0, ret));
    EXPECT_EQ(s.issue[Stall::Drain], last - exit_at);
    EXPECT_EQ(s.issue[Stall::Idle], 0u);
    ASSERT_GT(s.instructions.size(), ret);
    EXPECT_EQ(s.instructions[ret].warp_states[Stall::Drain], last - exit_at);
    for (std::size_t i = 0; i < s.instructions.size(); ++i)
      if (i != ret) EXPECT_EQ(s.instructions[i].warp_states[Stall::Drain], 0u) << i;
    EXPECT_EQ(timing::stall_name(Stall::Drain), "drain");
    if (spread) {
      // 32 sectors leave the SM's queue one after another: the store outlasts the ret.
      EXPECT_GT(rec.completed(0, st), rec.completed(0, ret));
      EXPECT_GT(s.issue[Stall::Drain], 5u);
    }
  }
}

}  // namespace
}  // namespace smemsim::test

// CTA dispatch (docs/timing.md, "The GPU"): at most one CTA per SM per cycle, SMs in rotating order.
#include <gtest/gtest.h>

#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// Four SMs, four CTAs of one warp, every SM free: the first cycle's pass visits SMs 0, 1, 2, 3 once
// each, so each gets one CTA. (Until issue 14 the pass advanced its start inside the loop and
// visited 0, 2, 1, 1: SM 1 took two CTAs in one cycle and SM 3 none.)
TEST(TimingDispatch, OneCtaPerSmPerCycleInRotatingOrder) {
  Arch a = fig4_arch();
  a.sm.count = 4;
  TimedKernel k(kChain, 32, 64, 4);
  const auto s = k.run(a);
  ASSERT_EQ(s.sms.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(s.sms[i].ctas, 1u) << "SM " << i;
  EXPECT_EQ(s.cycles, 25u);  // the four CTAs run side by side: one CTA's 25 cycles
}

}  // namespace
}  // namespace smemsim::test

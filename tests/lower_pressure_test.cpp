// The list scheduler's register budget (sm.sched_regs, src/lower/schedule.hpp): past the budget,
// the ready instruction that adds the fewest live words goes first, and the scheduler waits for
// one rather than start another chain, as ptxas issues each of lavamd's four unrolled iterations
// whole in its sm_90 SASS (calibration/runs/h200-2026-11-28, sass.tar.gz: lavamd_sm_90.sass).
// The orders are derived by hand below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/schedule.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// Two chains of doubles, A (1-4) and B (5-8): a global load, a multiply, an add, a shared store.
// Each f64 value is 2 words, and so is the address rd1, which 9 reads after both loads. B's
// global load may pass A's shared store (`spaces`); the stores keep their order.
constexpr const char* kChains = R"(
.visible .entry chains(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  .reg .f64 %fd<8>;
  .shared .align 8 .b8 s[64];
  ld.param.u64 %rd1, [out];            // 0
  ld.global.f64 %fd1, [%rd1];          // 1 A
  mul.f64 %fd2, %fd1, %fd1;            // 2 A
  add.f64 %fd3, %fd2, %fd1;            // 3 A: the last reader of fd1 and fd2
  st.shared.f64 [s], %fd3;             // 4 A: the last reader of fd3
  ld.global.f64 %fd4, [%rd1+8];        // 5 B
  mul.f64 %fd5, %fd4, %fd4;            // 6 B
  add.f64 %fd6, %fd5, %fd4;            // 7 B
  st.shared.f64 [s+8], %fd6;           // 8 B
  st.global.u64 [%rd1+16], %rd1;       // 9 keeps rd1 live past both loads
  ret;                                 // 10
}
)";

std::vector<std::uint32_t> positions(std::uint32_t budget) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kChains, "chains.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  std::vector<std::uint32_t> latency(k.code.size(), 8);
  latency[1] = latency[5] = 500;  // the global loads
  std::vector<std::uint32_t> order =
      lower::schedule(k, timing::reg_uses(info), latency, {}, true, budget);
  if (order.empty())
    for (std::uint32_t i = 0; i < k.code.size(); ++i) order.push_back(i);
  std::vector<std::uint32_t> pos(order.size());
  for (std::uint32_t p = 0; p < order.size(); ++p) pos[order[p]] = p;
  return pos;
}

// No budget: after load 1 (cycle 1), B's load 5 is the highest ready node (500 + 8 + 8 + 8 to
// the end, against nothing else ready), so it issues at once, before A's multiply.
TEST(LowerPressure, WithoutABudgetTheSecondChainStartsAtOnce) {
  const std::vector<std::uint32_t> p = positions(0);
  ASSERT_EQ(p.size(), 11u);
  EXPECT_LT(p[5], p[2]);
}

// Budget 4 words: after 0 and 1, rd1 and fd1 are live (4). Load 5 would add 2 (fd4; rd1 is read
// by 9 still) and A's multiply is waiting: the scheduler waits. At cycle 501 both 2 and 5 add 2
// words (2 defines fd2 and fd1 stays live for 3): the first in program order, 2 (6 live). Then 3
// frees fd1 and fd2 and adds fd3 (net -2) and goes first, then the store 4 frees fd3 (-2); only
// then is there room for 5 (2 + 2 = 4). So A issues whole before B starts.
TEST(LowerPressure, ABudgetFinishesAChainBeforeTheNextStarts) {
  const std::vector<std::uint32_t> p = positions(4);
  ASSERT_EQ(p.size(), 11u);
  EXPECT_LT(p[1], p[2]);
  EXPECT_LT(p[2], p[3]);
  EXPECT_LT(p[3], p[4]);
  EXPECT_LT(p[4], p[5]);
}

// A budget of 6 words holds rd1 and both loads' values (2 + 2 + 2): B's load goes up again, as
// without one.
TEST(LowerPressure, ABudgetThatHoldsBothLoadsLetsTheSecondStart) {
  const std::vector<std::uint32_t> p = positions(6);
  ASSERT_EQ(p.size(), 11u);
  EXPECT_LT(p[5], p[2]);
}

// The presets that schedule (sm.lower's `schedule`) take the fitted budget.
TEST(LowerPressure, ThePresetsBudget) {
  EXPECT_EQ(find_preset("hopper-h100").sm.sched_regs, 16u);
}

}  // namespace
}  // namespace smemsim::test

// Asleep SMs (issue 31 item 2): an SM with nothing resident and nothing in flight is not ticked;
// its issue slots are counted as idle in one go when a CTA wakes it or at the end. What a person
// sees must not change: every SM accounts for exactly cycles x sub-cores slots, an SM that never
// got a CTA has them all idle, and a run in which every cycle is looked at (an observer turns
// the skipping of quiet cycles off) gives the same cycles and per-SM counts.
#include <gtest/gtest.h>

#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

Arch eight_sms(std::uint32_t max_ctas) {
  Arch a = fig4_arch();
  a.sm.count = 8;
  a.sm.subcores = 2;
  a.sm.max_ctas = max_ctas;
  validate(a);
  return a;
}

void expect_conserved(const timing::TimingStats& s, std::uint32_t subcores) {
  for (const timing::SmStats& sm : s.sms) {
    std::uint64_t slots = 0;
    for (const auto c : sm.issue.cycles) slots += c;
    EXPECT_EQ(slots, s.cycles * subcores);
    if (sm.ctas == 0) EXPECT_EQ(sm.issue[Stall::Idle], s.cycles * subcores);
  }
}

// 3 CTAs on 8 SMs: five SMs sleep throughout.
TEST(TimingIdleSms, AnSmWithoutWorkCountsEveryCycleAsIdle) {
  TimedKernel k(kChain, 64, 64, 3);
  const auto s = k.run(eight_sms(8));
  std::uint64_t ctas = 0;
  for (const auto& sm : s.sms) ctas += sm.ctas;
  EXPECT_EQ(ctas, 3u);
  expect_conserved(s, 2);
  EXPECT_EQ(s.sms[7].issue[Stall::Idle], s.cycles * 2);
}

// 20 CTAs on 8 SMs of one CTA each: SMs finish, sleep, and wake for the next wave; the counts
// equal a run that looks at every cycle.
TEST(TimingIdleSms, WavesSleepAndWakeWithTheSameCounts) {
  TimedKernel k(kChain, 64, 64, 20);
  const auto fast = k.run(eight_sms(1));
  TimedKernel k2(kChain, 64, 64, 20);
  Recorder rec;  // an observer: GpuSim visits every cycle
  const auto slow = k2.run(eight_sms(1), &rec);
  EXPECT_EQ(fast.cycles, slow.cycles);
  ASSERT_EQ(fast.sms.size(), slow.sms.size());
  for (std::size_t i = 0; i < fast.sms.size(); ++i) {
    EXPECT_EQ(fast.sms[i].ctas, slow.sms[i].ctas) << i;
    EXPECT_EQ(fast.sms[i].busy_cycles, slow.sms[i].busy_cycles) << i;
    EXPECT_EQ(fast.sms[i].issue.cycles, slow.sms[i].issue.cycles) << i;
  }
  expect_conserved(fast, 2);
  std::uint64_t ctas = 0;
  for (const auto& sm : fast.sms) ctas += sm.ctas;
  EXPECT_EQ(ctas, 20u);
}

}  // namespace
}  // namespace smemsim::test

// WarpMask::next_from, the round-robin scheduler's pick (issue 49 made it scan words, not slots):
// against its definition, the first member of (from + k) % n for k = 0, 1, ..., n - 1.
#include <gtest/gtest.h>

#include <random>

#include "timing/scheduler.hpp"

namespace {

using smemsim::timing::WarpMask;

int by_definition(const WarpMask& m, std::uint32_t from, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t w = (from + k) % n;
    if (m.test(w)) return int(w);
  }
  return -1;
}

TEST(WarpMask, NextFromHandPicked) {
  WarpMask m;
  EXPECT_EQ(m.next_from(0, 64), -1);
  m.set(5);
  m.set(70);
  EXPECT_EQ(m.next_from(0, 128), 5);
  EXPECT_EQ(m.next_from(6, 128), 70);    // across the word boundary
  EXPECT_EQ(m.next_from(71, 128), 5);    // wraps
  EXPECT_EQ(m.next_from(6, 64), 5);      // 70 is not a slot of 64: wraps to 5
  EXPECT_EQ(m.next_from(~0u, 48), 5);    // LRR's first pick: (~0u + 1) = 0
  EXPECT_EQ(m.next_from(198, 128), 70);  // `from` is taken modulo n: 198 % 128 = 70
  EXPECT_EQ(m.next_from(200, 128), 5);   // 200 % 128 = 72: past 70, wraps
}

TEST(WarpMask, NextFromMatchesDefinition) {
  std::mt19937_64 rng(49);
  for (int t = 0; t < 20000; ++t) {
    WarpMask m;
    m.bits = {rng() & rng(), rng() & rng() & rng()};
    if (t % 7 == 0) m.bits[0] = 0;
    if (t % 11 == 0) m.bits[1] = 0;
    const std::uint32_t n = 1 + std::uint32_t(rng() % 128);
    const std::uint32_t from = t % 5 == 0 ? std::uint32_t(rng()) : std::uint32_t(rng() % 130);
    ASSERT_EQ(m.next_from(from, n), by_definition(m, from, n)) << "from " << from << " n " << n;
  }
}

}  // namespace

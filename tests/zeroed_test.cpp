// util::Zeroed (src/util/zeroed.hpp): a block starts all zero, also when it is one a previous
// user of the same size wrote and freed (the kept blocks of zeroed.cpp are cleared page by page).
#include <gtest/gtest.h>

#include <cstdint>

#include "util/zeroed.hpp"

namespace smemsim::util {
namespace {

bool all_zero(const Zeroed<std::uint64_t>& z) {
  for (std::size_t i = 0; i < z.size(); ++i)
    if (z[i] != 0) return false;
  return true;
}

TEST(Zeroed, EverySizeStartsZero) {
  // Below the mapped range, in it, and above it (calloc's own mapping).
  for (const std::size_t n :
       {std::size_t(100), std::size_t(4096), std::size_t(12000), std::size_t(40000)}) {
    Zeroed<std::uint64_t> z(n);
    ASSERT_EQ(z.size(), n);
    EXPECT_TRUE(all_zero(z)) << n;
  }
}

TEST(Zeroed, AReusedBlockIsZeroWhateverItsLastUserDid) {
  // 8,000 words: 62.5 KiB, in the mapped range, over 16 pages. The first user writes every word
  // of some pages, one word of others, only reads others (the system's zero page) and leaves the
  // rest; the next blocks of that size must read zero everywhere.
  constexpr std::size_t n = 8000;
  for (int round = 0; round < 3; ++round) {
    Zeroed<std::uint64_t> a(n);
    ASSERT_TRUE(all_zero(a)) << round;
    std::uint64_t sink = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t page = i / 512;
      if (page % 4 == 0) a[i] = i + 1;                    // every word
      if (page % 4 == 1 && i % 512 == 100) a[i] = ~0ull;  // one word
      if (page % 4 == 2) sink += a[i];                    // read only
    }
    EXPECT_EQ(sink, 0u);
    a[n - 1] = 7;                // the last, partial page
    Zeroed<std::uint64_t> b(n);  // `a` still holds its block: this one is another
    EXPECT_TRUE(all_zero(b));
    b[3] = 9;
  }
  // And a block moved from keeps nothing: its new owner frees it once.
  Zeroed<std::uint64_t> c(n);
  c[0] = 1;
  Zeroed<std::uint64_t> d(std::move(c));
  EXPECT_EQ(d[0], 1u);
  EXPECT_EQ(c.size(), 0u);
  d = Zeroed<std::uint64_t>(n);
  EXPECT_TRUE(all_zero(d));
}

}  // namespace
}  // namespace smemsim::util

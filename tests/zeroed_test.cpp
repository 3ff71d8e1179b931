// util::Zeroed (src/util/zeroed.hpp): a block starts all zero, also when it is one a previous
// user of the same size wrote and freed (the kept blocks of zeroed.cpp are cleared page by page).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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
  // 8,011 words: 62.6 KiB, in the mapped range (a size no other test asks for), over 16 pages of
  // 4 KiB. The first user writes every word of some pages, one word of others, only reads others
  // (the system's zero page), leaves the rest and writes the last, partial page.
  constexpr std::size_t n = 8011;
  const std::uint64_t* first = nullptr;
  {
    Zeroed<std::uint64_t> a(n);
    ASSERT_TRUE(all_zero(a));
    std::uint64_t sink = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t page = i / 512;
      if (page % 4 == 0) a[i] = i + 1;                    // every word
      if (page % 4 == 1 && i % 512 == 100) a[i] = ~0ull;  // one word
      if (page % 4 == 2) sink += a[i];                    // read only
    }
    EXPECT_EQ(sink, 0u);
    a[n - 1] = 7;
    first = a.data();
  }
  // The block is kept: one of the next blocks of its size is it (the pool may hold others of
  // this size from earlier rounds of the test), and every one reads zero.
  std::vector<Zeroed<std::uint64_t>> next;
  bool reused = false;
  for (int k = 0; k < 8 && !reused; ++k) {
    next.emplace_back(n);
    EXPECT_TRUE(all_zero(next.back())) << k;
    reused = next.back().data() == first;
  }
  EXPECT_TRUE(reused);
  // A block moved from keeps nothing: its new owner frees it once.
  Zeroed<std::uint64_t> c(n);
  c[0] = 1;
  Zeroed<std::uint64_t> d(std::move(c));
  EXPECT_EQ(d[0], 1u);
  EXPECT_EQ(c.size(), 0u);
  d = Zeroed<std::uint64_t>(n);
  EXPECT_TRUE(all_zero(d));
}

// ZeroedSource::Mapped above calloc's range (an SM's per-register tables): the block is one of
// this file's (kept when freed, so the next of its size is that block again, on Linux where
// blocks are mapped here) and reads zero again after its last user wrote pages of it.
TEST(Zeroed, AMappedBlockAboveCallocsRangeReadsZeroWhenReused) {
  constexpr std::size_t n = 24013;  // 187.6 KiB: above kCallocBytes, a size no other test asks for
  static_assert(n * sizeof(std::uint64_t) > Zeroed<std::uint64_t>::kCallocBytes);
  const std::uint64_t* first = nullptr;
  {
    Zeroed<std::uint64_t> a;
    a.reset(n, ZeroedSource::Mapped);
    ASSERT_EQ(a.size(), n);
    ASSERT_TRUE(all_zero(a));
    for (std::size_t i = 0; i < n; i += 300) a[i] = i + 1;
    first = a.data();
  }
#if defined(__linux__)
  std::vector<Zeroed<std::uint64_t>> next;
  bool reused = false;
  for (int k = 0; k < 8 && !reused; ++k) {
    next.emplace_back();
    next.back().reset(n, ZeroedSource::Mapped);
    EXPECT_TRUE(all_zero(next.back())) << k;
    reused = next.back().data() == first;
  }
  EXPECT_TRUE(reused);
#else
  (void)first;
#endif
}

}  // namespace
}  // namespace smemsim::util

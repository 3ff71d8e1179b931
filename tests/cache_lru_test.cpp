// The sectored cache's replacement (src/timing/cache.hpp) against a least-recently-used cache
// written here from its definition, on seeded random streams: the scanned sets (16 ways, the
// L2's) and the indexed ones (more than 32 ways, the modern L1s: src/timing/line_index.hpp) must
// both be exactly LRU, and report the line and the dirty sectors each allocation evicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <random>
#include <vector>

#include "timing/cache.hpp"

namespace smemsim::timing {
namespace {

// The reference: per set, a list of lines, most recent first, at most `ways` long; each line its
// valid sectors. A miss with allocation on a full set evicts the list's last line.
struct Reference {
  struct Entry {
    std::uint64_t line;
    unsigned valid, dirty;
  };
  std::uint32_t sets, ways;
  std::uint64_t div;
  std::vector<std::list<Entry>> lru;
  Reference(std::uint32_t s, std::uint32_t w, std::uint64_t d) : sets(s), ways(w), div(d), lru(s) {}

  // Returns hit; `placed`: a new line was placed, `evicted` the line it pushed out (~0: none)
  // and `dirty_out` that line's dirty sectors.
  bool access(std::uint64_t sector, bool allocate, bool dirty, bool& placed, std::uint64_t& evicted,
              unsigned& dirty_out) {
    placed = false;
    evicted = ~std::uint64_t{0};
    dirty_out = 0;
    const std::uint64_t line = sector / 4;
    const unsigned bit = 1u << (sector % 4);
    auto& set = lru[line / div % sets];
    for (auto it = set.begin(); it != set.end(); ++it) {
      if (it->line != line) continue;
      const bool hit = it->valid & bit;
      if (!hit && !allocate) return false;
      it->valid |= bit;
      if (dirty) it->dirty |= bit;
      set.splice(set.begin(), set, it);
      return hit;
    }
    if (!allocate) return false;
    placed = true;
    if (set.size() == ways) {
      evicted = set.back().line;
      dirty_out = unsigned(__builtin_popcount(set.back().dirty));
      set.pop_back();
    }
    set.push_front({line, bit, dirty ? bit : 0u});
    return false;
  }
  void invalidate(std::uint64_t sector) {
    for (auto& e : lru[sector / 4 / div % sets])
      if (e.line == sector / 4) {
        e.valid &= ~(1u << (sector % 4));
        e.dirty &= e.valid;
      }
  }
};

// `n` accesses to sectors of `lines` distinct lines (a working set a few times the cache, so
// that sets fill, hit and evict), some without allocation and some invalidating.
void same_as_reference(std::uint32_t sets, std::uint32_t ways, std::uint64_t div,
                       std::uint64_t lines, std::uint32_t seed) {
  SectorCache c;
  c.configure_ways(std::uint64_t(sets) * ways * SectorCache::kLineBytes, ways, div);
  ASSERT_TRUE(c.on());
  Reference ref(sets, ways, div);
  std::mt19937_64 rng(seed);
  std::uint64_t hits = 0, evictions = 0, dirty_evictions = 0;
  for (int i = 0; i < 200000; ++i) {
    // Skewed toward low lines so that some stay hot while others stream past.
    const std::uint64_t r = rng() % lines;
    const std::uint64_t line = (rng() & 1) ? r : r % (lines / 8 + 1);
    const std::uint64_t sector = line * 4 + rng() % 4;
    const unsigned what = unsigned(rng() % 16);
    if (what == 0) {
      c.invalidate(sector);
      ref.invalidate(sector);
      continue;
    }
    const bool allocate = what != 1, dirty = what % 3 == 0;  // a write-back write
    bool placed = false;
    std::uint64_t evicted = 0;
    unsigned dirty_out = 0;
    const bool want = ref.access(sector, allocate, dirty, placed, evicted, dirty_out);
    ASSERT_EQ(c.access(sector, allocate, dirty), want) << "access " << i << " sector " << sector;
    if (want) {
      ++hits;
      continue;
    }
    if (placed) {  // a new line: what it pushed out (nothing where the set had an empty way)
      ASSERT_EQ(c.evicted_line(), evicted) << "access " << i;
      ASSERT_EQ(c.evicted_dirty(), dirty_out) << "access " << i;
      evictions += evicted != ~std::uint64_t{0};
      dirty_evictions += dirty_out != 0;
    }
  }
  // The stream exercised both paths.
  EXPECT_GT(hits, 10000u);
  EXPECT_GT(evictions, 10000u);
  EXPECT_GT(dirty_evictions, 1000u);
}

TEST(CacheLru, ScannedSetsAreLeastRecentlyUsed) {
  same_as_reference(64, 16, 1, 64 * 16 * 3, 1);
  same_as_reference(37, 24, 5, 37 * 24 * 2, 2);  // an L2 slice: one line in 5, 24 ways
}

TEST(CacheLru, IndexedSetsAreLeastRecentlyUsed) {
  same_as_reference(4, 192, 1, 4 * 192 * 3, 3);  // volta-v100's L1 with 32 KB of shared memory
  same_as_reference(4, 512, 1, 4 * 512 * 2, 4);  // hopper-h100's whole 256 KB
  same_as_reference(1, 40, 1, 200, 5);           // one set, just past the scan's limit
}

// Sequential lines with nothing evicted: every access misses once, then all hit, on both paths.
TEST(CacheLru, AWorkingSetThatFitsStays) {
  for (const std::uint32_t ways : {16u, 192u}) {
    SectorCache c;
    c.configure(std::uint64_t(4) * ways * SectorCache::kLineBytes, 4);
    const std::uint64_t lines = 4ull * ways;
    for (std::uint64_t l = 0; l < lines; ++l) EXPECT_FALSE(c.access(l * 4, true));
    for (std::uint64_t l = 0; l < lines; ++l) EXPECT_TRUE(c.access(l * 4, true)) << ways;
    // One more line in set 0 evicts that set's least recent, line 0 (the first used).
    EXPECT_FALSE(c.access(lines * 4, true));
    EXPECT_EQ(c.evicted_line(), 0u);
  }
}

}  // namespace
}  // namespace smemsim::timing

// A sectored, set-associative cache of global and local memory (issue 44, docs/timing.md
// "Caches"): 128-byte lines of four 32-byte sectors, a line allocated on a miss and only the
// sectors fetched made valid (sectored allocation), least recently used replacement. It holds
// tags, not data: the executor keeps the values; this decides hits.
#pragma once

#include <cstdint>
#include <vector>

namespace smemsim::timing {

class SectorCache {
 public:
  static constexpr std::uint32_t kLineBytes = 128, kSectors = 4;

  // `bytes` of lines in `sets` sets (its ways: what fits); off when not one line a set fits.
  void configure(std::uint64_t bytes, std::uint32_t sets) {
    sets_ = sets ? sets : 1;
    ways_ = static_cast<std::uint32_t>(bytes / (std::uint64_t(kLineBytes) * sets_));
    lines_.assign(std::size_t(sets_) * ways_, Line{});
  }
  // `bytes` of lines of `ways` ways (its sets: what fits, at least one).
  void configure_ways(std::uint64_t bytes, std::uint32_t ways) {
    const std::uint64_t sets = ways ? bytes / (std::uint64_t(kLineBytes) * ways) : 0;
    if (!sets) return configure(0, 1);
    sets_ = static_cast<std::uint32_t>(sets);
    ways_ = ways;
    lines_.assign(std::size_t(sets_) * ways_, Line{});
  }
  bool on() const { return ways_ != 0; }
  std::uint64_t bytes() const { return std::uint64_t(sets_) * ways_ * kLineBytes; }

  // Sector `sector` (byte address / 32): whether it is valid here. On a miss with `allocate`, its
  // line is allocated (the least recently used of its set evicted) and the sector made valid.
  bool access(std::uint64_t sector, bool allocate) {
    Line* l = find(sector);
    const std::uint8_t bit = std::uint8_t(1u << (sector % kSectors));
    if (l && (l->valid & bit)) {
      l->used = ++clock_;
      return true;
    }
    if (!allocate || !ways_) return false;  // no lines (a share smaller than one set): a miss
    if (!l) l = victim(sector);
    l->valid |= bit;
    l->used = ++clock_;
    return false;
  }
  // A write that goes through (Volta-Hopper's L1): the sector stays valid where its line is, and
  // nothing is allocated.
  void touch(std::uint64_t sector) {
    if (Line* l = find(sector); l && (l->valid & (1u << (sector % kSectors)))) l->used = ++clock_;
  }
  void invalidate(std::uint64_t sector) {
    if (Line* l = find(sector)) l->valid &= std::uint8_t(~(1u << (sector % kSectors)));
  }

 private:
  struct Line {
    std::uint64_t tag = ~std::uint64_t{0};
    std::uint64_t used = 0;  // the LRU clock's value at its last use
    std::uint8_t valid = 0;  // one bit per sector
  };
  Line* set_of(std::uint64_t line) { return &lines_[std::size_t(line % sets_) * ways_]; }
  Line* find(std::uint64_t sector) {
    if (!ways_) return nullptr;
    const std::uint64_t line = sector / kSectors;
    Line* set = set_of(line);
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (set[w].tag == line) return &set[w];
    return nullptr;
  }
  Line* victim(std::uint64_t sector) {
    const std::uint64_t line = sector / kSectors;
    Line* set = set_of(line);
    Line* v = set;
    for (std::uint32_t w = 1; w < ways_; ++w)
      if (set[w].used < v->used) v = &set[w];
    *v = Line{line, 0, 0};
    return v;
  }

  std::uint32_t sets_ = 1, ways_ = 0;
  std::uint64_t clock_ = 0;
  std::vector<Line> lines_;
};

}  // namespace smemsim::timing

// A sectored, set-associative cache of global and local memory (issue 44, docs/timing.md
// "Caches"): 128-byte lines of four 32-byte sectors, a line allocated on a miss and only the
// sectors fetched made valid (sectored allocation), least recently used replacement. It holds
// tags, not data: the executor keeps the values; this decides hits. A write may mark its sector
// dirty (the shared L2 writes back): the dirty sectors of a line its allocation evicts are
// reported (evicted()), for the DRAM to take.
//
// Layout (issue 49): each set's tags side by side (a lookup reads 8 bytes a way: a 16-way set is
// two host cache lines, where whole records were fourteen), and the rest of each line's record
// way by way (way w of every set together), so that the records of a stream that fills way 0 of
// many sets lie together.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "timing/line_index.hpp"
#include "util/zeroed.hpp"

namespace smemsim::timing {

class SectorCache {
 public:
  static constexpr std::uint32_t kLineBytes = 128, kSectors = 4;
  struct Line {              // all zero: empty (its tag is kept apart, in the set's tags)
    std::uint64_t used = 0;  // the LRU clock's value at its last use
    std::uint8_t valid = 0;  // one bit per sector
    std::uint8_t dirty = 0;  // written and not yet in memory (a subset of valid)
    std::array<std::uint64_t, kSectors> fill{};  // when each sector's data arrives
  };
  // Where a cache's lines are kept when its owner keeps them (the L2's slices share one block):
  // lines_for(bytes, ways) tags and as many records, all zero.
  struct Block {
    std::uint64_t* tags;  // a line's byte address / 128, + 1; 0: none
    Line* lines;
  };

  // `bytes` of lines in `sets` sets (its ways: what fits); off when not one line a set fits.
  // `div`: the set of line L is (L / div) % sets (an L2 slice's lines, one in `div` of them).
  void configure(std::uint64_t bytes, std::uint32_t sets, std::uint64_t div = 1) {
    div_ = div ? div : 1;
    last_ = kNone;
    sets_ = sets ? sets : 1;
    ways_ = static_cast<std::uint32_t>(bytes / (std::uint64_t(kLineBytes) * sets_));
    own(std::size_t(sets_) * ways_);
  }
  // `bytes` of lines of `ways` ways (its sets: what fits, at least one). `block`: where its
  // lines are, kept by the caller; none: its own.
  void configure_ways(std::uint64_t bytes, std::uint32_t ways, std::uint64_t div = 1,
                      Block block = {nullptr, nullptr}) {
    div_ = div ? div : 1;
    last_ = kNone;
    const std::uint64_t sets = ways ? bytes / (std::uint64_t(kLineBytes) * ways) : 0;
    if (!sets) return configure(0, 1, div);
    sets_ = static_cast<std::uint32_t>(sets);
    ways_ = ways;
    if (!block.tags) return own(std::size_t(sets_) * ways_);
    tags_ = block.tags;
    lines_ = block.lines;
    index(ways_ > kScanWays);
  }
  static std::size_t lines_for(std::uint64_t bytes, std::uint32_t ways) {
    return ways ? std::size_t(bytes / (std::uint64_t(kLineBytes) * ways)) * ways : 0;
  }
  bool on() const { return ways_ != 0; }
  std::uint64_t bytes() const { return std::uint64_t(sets_) * ways_ * kLineBytes; }

  // Sector `sector` (byte address / 32): whether it is valid here. On a miss with `allocate`, its
  // line is allocated (the least recently used of its set evicted) and the sector made valid.
  // `dirty`: a write-back write (the sector becomes dirty, allocated or not). evicted() then
  // says what the allocation pushed out.
  bool access(std::uint64_t sector, bool allocate, bool dirty = false) {
    evicted_dirty_ = 0;
    std::uint32_t t = find(sector);
    last_ = t;
    last_sector_ = std::uint32_t(sector % kSectors);
    const std::uint8_t bit = std::uint8_t(1u << (sector % kSectors));
    if (t != kNone) {
      Line& l = line(t);
      if (l.valid & bit) {
        use(t);
        if (dirty) l.dirty |= bit;
        return true;
      }
    }
    if (!allocate || !ways_) return false;  // no lines (a share smaller than one set): a miss
    if (t == kNone) t = victim(sector);
    last_ = t;
    Line& l = line(t);
    l.valid |= bit;
    if (dirty) l.dirty |= bit;
    use(t);
    return false;
  }
  // When the sector the last access found or allocated has its data (a shared L2's fill from
  // DRAM, in the L2's ticks; 0: it has), and setting it. Per sector: a line's sectors are
  // fetched on their own misses, so one arriving late does not delay a hit on another.
  std::uint64_t last_fill() const { return last_ != kNone ? line(last_).fill[last_sector_] : 0; }
  void set_last_fill(std::uint64_t t) {
    if (last_ != kNone) line(last_).fill[last_sector_] = t;
  }
  // The dirty sectors the last access's allocation evicted, and their line (byte address / 128).
  std::uint32_t evicted_dirty() const { return evicted_dirty_; }
  std::uint64_t evicted_line() const { return evicted_line_; }
  // A write that goes through (Volta-Hopper's L1): the sector stays valid where its line is, and
  // nothing is allocated.
  void touch(std::uint64_t sector) {
    if (const std::uint32_t t = find(sector);
        t != kNone && (line(t).valid & (1u << (sector % kSectors))))
      use(t);
  }
  void invalidate(std::uint64_t sector) {
    if (const std::uint32_t t = find(sector); t != kNone) {
      Line& l = line(t);
      l.valid &= std::uint8_t(~(1u << (sector % kSectors)));
      l.dirty &= l.valid;
    }
  }

 private:
  static constexpr std::uint32_t kNone = LineIndex::kNone;
  // Sets of more ways than this are indexed (timing/line_index.hpp); fewer are scanned.
  static constexpr std::uint32_t kScanWays = 32;

  // A line is named by its place among the tags, set * ways + way; its record is at
  // way * sets + set.
  Line& line(std::uint32_t t) const { return lines_[std::size_t(t % ways_) * sets_ + t / ways_]; }
  void own(std::size_t n) {
    own_tags_.reset(n);
    own_lines_.reset(n);
    tags_ = own_tags_.data();
    lines_ = own_lines_.data();
    index(ways_ > kScanWays);
  }
  void index(bool on) {
    indexed_ = on;
    if (on) index_.configure(sets_, ways_);
  }
  std::uint32_t set_index(std::uint64_t line) const { return std::uint32_t(line / div_ % sets_); }
  void use(std::uint32_t t) {
    line(t).used = ++clock_;
    if (indexed_) index_.use(t, t / ways_);
  }
  std::uint32_t find(std::uint64_t sector) const {
    if (!ways_) return kNone;
    const std::uint64_t line = sector / kSectors;
    if (indexed_) return index_.find(line + 1, tags_);
    const std::uint32_t first = set_index(line) * ways_;
    const std::uint64_t* set = &tags_[first];
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (set[w] == line + 1) return first + w;
    return kNone;
  }
  // The least recently used line of the set: an empty one where there is one (its clock value
  // is 0, every used line's at least 1), the first of them.
  std::uint32_t victim(std::uint64_t sector) {
    const std::uint64_t line_no = sector / kSectors;
    const std::uint32_t set = set_index(line_no);
    std::uint32_t t = kNone;
    if (indexed_) {
      t = index_.oldest(set);
    } else {
      const std::uint32_t first = set * ways_;
      for (std::uint32_t w = 0; w < ways_ && t == kNone; ++w)
        if (tags_[first + w] == 0) t = first + w;
      if (t == kNone) {
        t = first;
        for (std::uint32_t w = 1; w < ways_; ++w)
          if (line(first + w).used < line(t).used) t = first + w;
      }
    }
    Line& v = line(t);
    evicted_dirty_ = std::uint32_t(std::popcount(unsigned(v.dirty)));
    evicted_line_ = tags_[t] - 1;
    if (indexed_) {
      if (tags_[t]) index_.erase(tags_[t], t, tags_);
      index_.insert(line_no + 1, t);
    }
    tags_[t] = line_no + 1;
    v = Line{};
    return t;
  }

  std::uint32_t sets_ = 1, ways_ = 0;
  std::uint64_t clock_ = 0, div_ = 1;
  std::uint32_t evicted_dirty_ = 0;
  std::uint32_t last_ = kNone;
  std::uint32_t last_sector_ = 0;
  std::uint64_t evicted_line_ = 0;
  // The lines start empty (all zero) without being written (util/zeroed.hpp: the tags of lines
  // a launch never reaches cost it no page fault).
  std::uint64_t* tags_ = nullptr;
  Line* lines_ = nullptr;
  util::Zeroed<std::uint64_t> own_tags_;
  util::Zeroed<Line> own_lines_;
  bool indexed_ = false;
  LineIndex index_;
};

}  // namespace smemsim::timing

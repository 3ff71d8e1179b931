// A sectored, set-associative cache of global and local memory (issue 44, docs/timing.md
// "Caches"): 128-byte lines of four 32-byte sectors, a line allocated on a miss and only the
// sectors fetched made valid (sectored allocation), least recently used replacement. It holds
// tags, not data: the executor keeps the values; this decides hits. A write may mark its sector
// dirty (the shared L2 writes back): the dirty sectors of a line its allocation evicts are
// reported (evicted()), for the DRAM to take.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "util/zeroed.hpp"

namespace smemsim::timing {

class SectorCache {
 public:
  static constexpr std::uint32_t kLineBytes = 128, kSectors = 4;
  struct Line {              // all zero: empty
    std::uint64_t tag = 0;   // its line (byte address / 128) + 1; 0: none
    std::uint64_t used = 0;  // the LRU clock's value at its last use
    std::uint8_t valid = 0;  // one bit per sector
    std::uint8_t dirty = 0;  // written and not yet in memory (a subset of valid)
    std::array<std::uint64_t, kSectors> fill{};  // when each sector's data arrives
  };

  // `bytes` of lines in `sets` sets (its ways: what fits); off when not one line a set fits.
  // `div`: the set of line L is (L / div) % sets (an L2 slice's lines, one in `div` of them).
  void configure(std::uint64_t bytes, std::uint32_t sets, std::uint64_t div = 1) {
    div_ = div ? div : 1;
    sets_ = sets ? sets : 1;
    ways_ = static_cast<std::uint32_t>(bytes / (std::uint64_t(kLineBytes) * sets_));
    own_.reset(std::size_t(sets_) * ways_);
    lines_ = own_.data();
  }
  // `bytes` of lines of `ways` ways (its sets: what fits, at least one). `block`: where its
  // lines_for(bytes, ways) lines are, all zero, kept by the caller (the L2's slices share one
  // block); nullptr: its own.
  void configure_ways(std::uint64_t bytes, std::uint32_t ways, std::uint64_t div = 1,
                      Line* block = nullptr) {
    div_ = div ? div : 1;
    const std::uint64_t sets = ways ? bytes / (std::uint64_t(kLineBytes) * ways) : 0;
    if (!sets) return configure(0, 1, div);
    sets_ = static_cast<std::uint32_t>(sets);
    ways_ = ways;
    if (!block) own_.reset(std::size_t(sets_) * ways_);
    lines_ = block ? block : own_.data();
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
    Line* l = find(sector);
    last_ = l;
    last_sector_ = std::uint32_t(sector % kSectors);
    const std::uint8_t bit = std::uint8_t(1u << (sector % kSectors));
    if (l && (l->valid & bit)) {
      l->used = ++clock_;
      if (dirty) l->dirty |= bit;
      return true;
    }
    if (!allocate || !ways_) return false;  // no lines (a share smaller than one set): a miss
    if (!l) l = victim(sector);
    last_ = l;
    l->valid |= bit;
    if (dirty) l->dirty |= bit;
    l->used = ++clock_;
    return false;
  }
  // When the sector the last access found or allocated has its data (a shared L2's fill from
  // DRAM, in the L2's ticks; 0: it has), and setting it. Per sector: a line's sectors are
  // fetched on their own misses, so one arriving late does not delay a hit on another.
  std::uint64_t last_fill() const { return last_ ? last_->fill[last_sector_] : 0; }
  void set_last_fill(std::uint64_t t) {
    if (last_) last_->fill[last_sector_] = t;
  }
  // The dirty sectors the last access's allocation evicted, and their line (byte address / 128).
  std::uint32_t evicted_dirty() const { return evicted_dirty_; }
  std::uint64_t evicted_line() const { return evicted_line_; }
  // A write that goes through (Volta-Hopper's L1): the sector stays valid where its line is, and
  // nothing is allocated.
  void touch(std::uint64_t sector) {
    if (Line* l = find(sector); l && (l->valid & (1u << (sector % kSectors)))) l->used = ++clock_;
  }
  void invalidate(std::uint64_t sector) {
    if (Line* l = find(sector)) {
      l->valid &= std::uint8_t(~(1u << (sector % kSectors)));
      l->dirty &= l->valid;
    }
  }

 private:
  Line* set_of(std::uint64_t line) { return &lines_[std::size_t(line / div_ % sets_) * ways_]; }
  Line* find(std::uint64_t sector) {
    if (!ways_) return nullptr;
    const std::uint64_t line = sector / kSectors;
    Line* set = set_of(line);
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (set[w].tag == line + 1) return &set[w];
    return nullptr;
  }
  Line* victim(std::uint64_t sector) {
    const std::uint64_t line = sector / kSectors;
    Line* set = set_of(line);
    Line* v = set;
    for (std::uint32_t w = 1; w < ways_; ++w)
      if (set[w].used < v->used) v = &set[w];
    evicted_dirty_ = std::uint32_t(std::popcount(unsigned(v->dirty)));
    evicted_line_ = v->tag - 1;
    *v = Line{line + 1, 0, 0, 0, {}};
    return v;
  }

  std::uint32_t sets_ = 1, ways_ = 0;
  std::uint64_t clock_ = 0, div_ = 1;
  std::uint32_t evicted_dirty_ = 0;
  Line* last_ = nullptr;
  std::uint32_t last_sector_ = 0;
  std::uint64_t evicted_line_ = 0;
  // The lines start empty (all zero) without being written (util/zeroed.hpp: the tags of lines
  // a launch never reaches cost it no page fault).
  Line* lines_ = nullptr;
  util::Zeroed<Line> own_;
};

}  // namespace smemsim::timing

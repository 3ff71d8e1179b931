// The lines of a cache of many ways found by their tag in constant time, and each set's lines in
// least-recently-used order (issue 49). The modern presets' L1s are 4 sets of 64-512 ways
// (sm.l1_sets; docs/timing.md "Caches"): scanning a set's tags at each access, and its ages at
// each miss, put 16 % of timing_bench's transpose loop on volta-v100 (192 ways) in the function
// that held the scan, 60 % of that on one compare.
//
// The order is the one SectorCache's scan gives: the victim is the line of least age, and ages
// are the cache's use clock, distinct for every line used; lines never used are all age 0 and the
// first of them in way order goes first. So each set's list starts in way order and a line moves
// to its most recent end at each use.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "util/zeroed.hpp"

namespace smemsim::timing {

class LineIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // `sets` sets of `ways` lines; line i of set s is s * ways + i. Nothing is in the table.
  void configure(std::uint32_t sets, std::uint32_t ways) {
    const std::uint64_t lines = std::uint64_t(sets) * ways;
    std::uint64_t cap = 16;
    while (cap < 2 * lines) cap *= 2;  // at most half full: short probes
    slots_.reset(cap);
    mask_ = cap - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(cap));
    lines_ = static_cast<std::uint32_t>(lines);
    next_.resize(lines + sets);
    prev_.resize(lines + sets);
    for (std::uint32_t s = 0; s < sets; ++s) {
      const std::uint32_t head = lines_ + s;  // the set's sentinel: next is its oldest line
      std::uint32_t last = head;
      for (std::uint32_t w = 0; w < ways; ++w) {
        const std::uint32_t i = s * ways + w;
        next_[last] = i;
        prev_[i] = last;
        last = i;
      }
      next_[last] = head;
      prev_[head] = last;
    }
  }

  // The line holding `tag` (never 0), or kNone; `tags`: each line's tag (the cache's).
  std::uint32_t find(std::uint64_t tag, const std::uint64_t* tags) const {
    for (std::uint64_t h = home(tag);; h = (h + 1) & mask_) {
      const std::uint32_t s = slots_[h];
      if (s == 0) return kNone;
      if (tags[s - 1] == tag) return s - 1;
    }
  }
  // Line `line` now holds `tag` (not held by any line).
  void insert(std::uint64_t tag, std::uint32_t line) {
    std::uint64_t h = home(tag);
    while (slots_[h] != 0) h = (h + 1) & mask_;
    slots_[h] = line + 1;
  }
  // Line `line` no longer holds `tag` (it did; `tags` still says so).
  void erase(std::uint64_t tag, std::uint32_t line, const std::uint64_t* tags) {
    std::uint64_t i = home(tag);
    while (slots_[i] != line + 1) i = (i + 1) & mask_;
    // Linear probing's deletion: move back each later entry of the run that may sit at i.
    for (std::uint64_t j = (i + 1) & mask_; slots_[j] != 0; j = (j + 1) & mask_) {
      const std::uint64_t k = home(tags[slots_[j] - 1]);
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = 0;
  }

  // Line `line` (of set `set`) was used: it becomes its set's most recent.
  void use(std::uint32_t line, std::uint32_t set) {
    const std::uint32_t head = lines_ + set;
    if (prev_[head] == line) return;
    next_[prev_[line]] = next_[line];
    prev_[next_[line]] = prev_[line];
    const std::uint32_t last = prev_[head];
    next_[last] = line;
    prev_[line] = last;
    next_[line] = head;
    prev_[head] = line;
  }
  // The least recently used line of set `set`.
  std::uint32_t oldest(std::uint32_t set) const { return next_[lines_ + set]; }

 private:
  std::uint64_t home(std::uint64_t tag) const {
    return (tag * 0x9E3779B97F4A7C15ull) >> shift_;  // Fibonacci hashing: the top bits
  }

  util::Zeroed<std::uint32_t> slots_;  // a line + 1; 0: empty (4 bytes: few pages to touch)
  std::uint64_t mask_ = 0;
  unsigned shift_ = 64;
  std::uint32_t lines_ = 0;
  std::vector<std::uint32_t> next_, prev_;  // per line, then one sentinel per set
};

}  // namespace smemsim::timing

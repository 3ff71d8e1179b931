// Bank-conflict-aware warp scheduling (seed 004 §4): the bank conflict history cache (§4.2) and
// the warp ready signal generation of Fig. 7, which masks memory warps out of the baseline
// scheduler's ready pool while the safe memory warp schedule distance (Eq. 5) of the last shared
// memory warp is not met.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::timing {

// Set-associative, indexed by the instruction's PC (set = pc mod sets, tag = pc / sets),
// least-recently-used replacement; holds warp_bkconf_degree minus the subwarp count (footnote 9).
class ConflictHistoryCache {
 public:
  ConflictHistoryCache(std::uint32_t sets, std::uint32_t ways);
  void clear();  // at kernel launch (§4.2)
  // The stored value (a hit refreshes the entry's recency), or nothing on a miss.
  std::optional<std::uint32_t> lookup(std::uint32_t pc);
  // Writes `value` for `pc`: over its entry on a hit, else into the set's LRU way (an invalid way
  // first).
  void update(std::uint32_t pc, std::uint32_t value);
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    bool valid = false;
    std::uint32_t tag = 0, value = 0;
    std::uint64_t used = 0;  // recency stamp
  };
  Entry* find(std::uint32_t pc);
  std::uint32_t sets_, ways_;
  std::vector<Entry> e_;
  std::uint64_t stamp_ = 0, hits_ = 0, misses_ = 0, evictions_ = 0;
};

// The ready-signal logic of Fig. 7 for one SM.
class BankAwareReady {
 public:
  BankAwareReady(const Arch& arch, bool fill);
  // Memory warps may be scheduled in cycle `now` (the last_warp_bkconf_degree counter has run
  // out).
  bool memory_allowed(std::uint64_t now) const { return now >= until_; }
  // Footnote 10: a memory warp may break the distance when no non-memory warp is ready.
  bool fill() const { return fill_; }
  // A shared memory warp instruction with history key `pc` is scheduled in cycle `now`: the
  // prediction (passes beyond one per subwarp; 0 on a miss) loads the counter, which keeps memory
  // warps out for that many cycles after the instruction's subwarps have issued.
  std::uint32_t scheduled(std::uint32_t pc, std::uint64_t now);
  // Its MEM0 passes over all subwarps are known (the warp_bkconf_degree accumulator, Eq. 4):
  // store them less the subwarp count (footnote 9) and score the prediction.
  void resolved(std::uint32_t pc, std::uint32_t passes, std::uint32_t predicted);
  void count(UnitCounts& u) const;

 private:
  ConflictHistoryCache cache_;
  std::uint32_t nsub_;
  bool fill_;
  std::uint64_t until_ = 0;
  std::uint64_t correct_ = 0, low_ = 0, high_ = 0;
};

}  // namespace smemsim::timing

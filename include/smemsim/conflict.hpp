// Conflict analysis of one shared-memory transaction (seed 001 §3, seed 000 §II):
//   bank degree     max over banks of the DISTINCT bank-unit addresses in it (same word: broadcast)
//   position degree max lanes on one word address
//   lock degree     max lanes whose word addresses share a lock (the same address counts)
// A warp access is split into transactions of Arch::transaction_lanes lanes; each is analyzed alone.
// Allocation-free after construction: per-lane fixed arrays, lane bitmasks and popcount.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/index_function.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim {

inline constexpr std::uint32_t kMaxBanks = 64;

struct Degrees {
  int bank = 0;
  int position = 0;
  int lock = 0;
};

class ConflictAnalyzer {
 public:
  // The index functions are built from the arch's specs unless given.
  explicit ConflictAnalyzer(const Arch& arch);
  ConflictAnalyzer(const Arch& arch, std::shared_ptr<const IndexFunction> bank_fn,
                   std::shared_ptr<const IndexFunction> lock_fn);

  // Loads lanes [first, first + count) of `wa` as one transaction (lanes renumbered from 0).
  // Addresses must be < arch.memory_words() (checked by the producers, not here).
  void load(const WarpAccess& wa, int first, int count);

  LaneMask active() const { return active_; }
  int lanes() const { return lanes_; }
  int bank_degree() const { return bank_degree(active_); }
  int bank_degree(LaneMask subset) const;  // degree of the lanes in `subset` alone (0 if empty)
  int position_degree() const;
  int lock_degree() const;
  Degrees degrees() const { return {bank_degree(), position_degree(), lock_degree()}; }
  // One winner per lock among `pending`: the lowest-numbered lane (documented choice, docs/models.md).
  LaneMask lock_winners(LaneMask pending) const;

  // Per-lane facts for explanations.
  std::uint32_t bank_of(int lane) const { return bank_[lane]; }
  std::uint32_t lock_of(int lane) const { return lock_[lane]; }
  WordAddr addr_of(int lane) const { return addr_[lane]; }
  // Lanes in one bank / sharing one lock, for the human report.
  LaneMask bank_lanes(std::uint32_t bank) const { return bank_lanes_[bank]; }
  std::span<const LaneMask> lock_groups() const { return {lock_groups_.data(), n_groups_}; }

  const Arch& arch() const { return arch_; }
  const IndexFunction& bank_function() const { return *bank_fn_; }
  const IndexFunction& lock_function() const { return *lock_fn_; }

 private:
  void group_locks();

  Arch arch_;
  std::shared_ptr<const IndexFunction> bank_fn_;
  std::shared_ptr<const IndexFunction> lock_fn_;

  int lanes_ = 0;
  LaneMask active_ = 0;
  std::array<WordAddr, kMaxLanes> addr_{};
  std::array<std::uint32_t, kMaxLanes> unit_{};
  std::array<std::uint32_t, kMaxLanes> bank_{};
  std::array<std::uint32_t, kMaxLanes> lock_{};
  std::array<std::uint8_t, kMaxLanes> rep_{};  // lowest lane with the same bank-unit address
  LaneMask unique_ = 0;                          // active lanes that are their own rep
  std::array<LaneMask, kMaxBanks> bank_lanes_{};
  std::uint64_t banks_touched_ = 0;

  // Lock grouping with a generation-stamped table over the lock (or word) index space.
  std::vector<std::uint32_t> stamp_;
  std::vector<std::uint8_t> slot_;
  std::uint32_t generation_ = 0;
  std::array<LaneMask, kMaxLanes> lock_groups_{};
  std::size_t n_groups_ = 0;
};

}  // namespace smemsim

// Conflict analysis of one shared-memory transaction (seed 001 §3, seed 000 §II):
//   bank degree     max over banks of the DISTINCT bank-unit addresses in it (same word: broadcast)
//   position degree max lanes on one word address
//   lock degree     max lanes whose word addresses share a lock (the same address counts)
// A warp access is split into transactions of Arch::transaction_lanes lanes; each is analyzed
// alone. Allocation-free after construction: per-lane fixed arrays, lane bitmasks and popcount.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/index_function.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim {
namespace detail {
struct LaneSortKernel;
}

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

  // Implementations of the degrees (docs/models.md): the vector kernels sort 32 16-bit keys with
  // AVX-512 or AVX2 (src/analysis/lane_sort.hpp) and serve the fixed index functions (mod, xor,
  // add); the portable code serves everything. All give the same results (tested). The default is
  // the fastest this CPU has. use_kernel returns false, changing nothing, for a kernel this CPU
  // lacks.
  enum class Kernel : std::uint8_t { Portable, Avx2, Avx512 };
  bool use_kernel(Kernel k);
  Kernel kernel() const { return kernel_; }
  static std::string_view kernel_name(Kernel k);
  void set_vector_kernel(bool enabled);  // the fastest vector kernel, or the portable code
  // Whether a vector kernel serves this arch (its bank or its lock part).
  bool vector_kernel() const { return vector_bank_ || vector_lock_; }

  LaneMask active() const { return active_; }
  int lanes() const { return lanes_; }
  int bank_degree() const { return full_bank_degree_; }
  int bank_degree(LaneMask subset) const;  // degree of the lanes in `subset` alone (0 if empty)
  // Active lanes in `bank`.
  LaneMask bank_lanes(std::uint32_t bank) const {
    ensure_lane_banks();
    return scan_lanes(bank);
  }
  int position_degree() const;
  int lock_degree() const {
    if (!lock_degree_ready_) {
      if (lock_kernel_now_)
        find_rounds();
      else
        count_locks();
    }
    return lock_degree_;
  }
  Degrees degrees() const { return {bank_degree(), position_degree(), lock_degree()}; }
  // One winner per lock among `pending`: the lowest-numbered lane (documented choice,
  // docs/models.md).
  LaneMask lock_winners(LaneMask pending) const {
    if (lock_degree() <= 1) return pending & active_;  // every lane alone on its lock
    ensure_locks();
    LaneMask w = pending & lock_singles_;
    for (std::size_t g = 0; g < n_shared_; ++g) {
      const LaneMask m = shared_groups_[g] & pending;
      w |= m & (~m + 1);  // lowest set bit
    }
    return w;
  }

  // The lock rounds of seed 001 Algorithm 1: round r's winners are the lanes with exactly r lower
  // active lanes on their lock (each round the lowest pending lane of every lock wins). One entry
  // per round; the number of rounds is the lock degree.
  std::span<const LaneMask> round_winners() const {
    if (!rounds_ready_) find_rounds();
    return {rounds_.data(), n_rounds_};
  }

  // Per-lane facts for explanations (not on the hot path).
  std::uint32_t bank_of(int lane) const {
    ensure_lane_banks();
    return bank_[lane];
  }
  std::uint32_t lock_of(int lane) const {
    lock_indices();
    return lock_[lane];
  }
  WordAddr addr_of(int lane) const { return addr_[lane]; }
  // Groups of two or more active lanes that share a lock.
  std::span<const LaneMask> shared_lock_groups() const {
    ensure_locks();
    return {shared_groups_.data(), n_shared_};
  }

  const Arch& arch() const { return arch_; }
  const IndexFunction& bank_function() const { return *bank_fn_; }
  const IndexFunction& lock_function() const { return *lock_fn_; }

 private:
  void ensure_locks() const {
    if (!locks_ready_) group_locks();
  }
  void group_locks() const;
  void lock_indices() const;
  void count_locks() const;
  void ensure_reps() const {
    if (!reps_ready_) find_reps();
  }
  void find_reps() const;
  void find_rounds() const;
  // The vector kernel leaves the per-lane bank-unit and bank arrays to first use.
  void ensure_lane_banks() const {
    if (!lane_banks_ready_) index_lanes();
  }
  void index_lanes() const;
  LaneMask scan_lanes(std::uint32_t bank) const;

  Arch arch_;
  std::shared_ptr<const IndexFunction> bank_fn_;
  std::shared_ptr<const IndexFunction> lock_fn_;

  int lanes_ = 0;
  LaneMask active_ = 0;
  std::array<WordAddr, kMaxLanes> addr_{};
  mutable bool lane_banks_ready_ = false;
  mutable std::array<std::uint32_t, kMaxLanes> unit_{};
  mutable std::array<std::uint32_t, kMaxLanes> bank_{};
  int full_bank_degree_ = 0;
  int unit_shift_ = 0;  // log2(bank width / 4)

  // Vector kernel: the one selected, whether it applies to this arch (bank part, lock part) and to
  // this load.
  Kernel kernel_ = Kernel::Portable;
  const detail::LaneSortKernel* ops_ = nullptr;
  bool vector_bank_ = false;
  bool vector_lock_ = false;
  bool bank_kernel_now_ = false;
  bool lock_kernel_now_ = false;
  bool lock_premap_ = false;  // the lock kernel ranks lock indices (lock_fn_ applied first)
  FixedIndex bank_fixed_ = FixedIndex::None;
  FixedIndex lock_fixed_ = FixedIndex::None;
  int kernel_position_ = 0;  // position degree from the kernel (4-byte banks)
  alignas(64) std::array<std::uint16_t, 32> bank_keys_{};
  mutable LaneMask cached_subset_ = 0;  // last subset degree from the kernel (0: none)
  mutable int cached_degree_ = 0;

  mutable bool rounds_ready_ = false;
  mutable std::size_t n_rounds_ = 0;
  mutable std::array<LaneMask, kMaxLanes> rounds_{};
  // One bit per bank-unit address, set while an access is counted and cleared right after:
  // duplicate detection from a table that stays in L1 (1.5 KiB for Fermi's 48 KiB).
  std::vector<std::uint64_t> seen_bits_;

  // Representatives for subset degrees, on first use: the lowest lane with the same bank-unit
  // address, found with a generation-stamped table over the bank-unit address space.
  mutable bool reps_ready_ = false;
  mutable std::array<std::uint16_t, kMaxLanes> rep_{};
  mutable std::vector<std::uint32_t> unit_stamp_;
  mutable std::vector<std::uint16_t> unit_first_;  // (16-bit: char types alias everything)
  mutable std::uint32_t unit_gen_ = 0;

  // Lock grouping, computed on first use after load(): bank-only analyses never pay for it.
  mutable bool locks_ready_ = false;
  mutable bool lock_index_ready_ = false;
  mutable bool lock_degree_ready_ = false;
  mutable std::array<std::uint32_t, kMaxLanes> lock_{};
  // Per-lock lane counts, all zero between uses (16-bit: stores through a char type would alias
  // everything and force reloads in the loop).
  mutable std::vector<std::uint16_t> lock_count_;
  mutable std::vector<std::uint32_t> lock_stamp_;
  mutable std::vector<std::uint8_t> lock_slot_;
  mutable std::uint32_t lock_gen_ = 0;
  mutable std::array<LaneMask, kMaxLanes> groups_{};
  mutable std::array<LaneMask, kMaxLanes> shared_groups_{};
  mutable std::size_t n_shared_ = 0;
  mutable LaneMask lock_singles_ = 0;  // lanes alone on their lock
  mutable int lock_degree_ = 0;
};

}  // namespace smemsim

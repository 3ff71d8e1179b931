// The shared-memory unit of an SM: bank passes of an access and the lock bits of the lock-loop
// atomic (seed 000 §II.A, Fig. 3). It is the one port every shared read and write goes through at
// MEM0 (SharedMemoryUnit::plan), the place a transactional-memory unit (seed 003) intercepts.
//
// Passes. A request is served in phases of `lanes_per_phase` lanes: the transaction of
// warp.transaction_lanes lanes for 4-byte accesses; for 8- and 16-byte accesses as many lanes as
// fill one row of banks (transaction_lanes x bank width bytes), so on 4-byte banks a 64-bit access
// is served by half-warps and a 128-bit one by quarter-warps, as the CUDA guide describes for
// 64-bit accesses on cc 2.x and Nsight Compute counts wavefronts on later GPUs. Within a phase the
// bank degree is the most distinct bank units in one bank (the same unit is a broadcast), and the
// phase takes ceil(degree / sm.smem_ports) passes. A phase is charged to the subwarp holding its
// first lane.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/index_function.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim::timing {

// The shared-memory words of one instruction: one WarpAccess per 4-byte word of a lane's access
// (exec.hpp), copied at issue.
struct AccessRecord {
  static constexpr int kMaxWords = 8;
  int words = 0;
  LaneMask active = 0;
  // The executor served the access in phases (memory.wide_access = "phases", issue 15): each row
  // is one phase as the hardware serves it (an 8x8 matrix of ldmatrix, eight lanes of a 16-byte
  // access), its active slots the words of that phase, not word k of every lane. `extra` counts
  // rows past kMaxWords (charged one pass each).
  bool phased = false;
  LaneMask row_active[kMaxWords] = {};
  int extra = 0;
  // A wide load whose lanes pair up (lanes_pair, memory.wide_access = pairs): its phases take
  // twice the lanes (not phased records: the executor's phases already do).
  bool paired = false;
  std::array<std::array<WordAddr, kMaxLanes>, kMaxWords> addr{};
};

struct PassPlan {
  std::uint32_t passes = 0;     // bank passes
  std::uint32_t phases = 0;     // phases with an active lane (passes - phases are conflict passes)
  std::uint32_t same_word = 0;  // native atomics: sum over phases of (position degree - 1)
};

class SharedMemoryUnit {
 public:
  explicit SharedMemoryUnit(const Arch& arch);

  // Phases of `rec` starting in lanes [lo, hi), counting only lanes in `mask` (and the same-word
  // passes of native atomics when asked).
  PassPlan plan(const AccessRecord& rec, LaneMask mask, std::uint32_t lo, std::uint32_t hi,
                bool same_word = false) const;
  // A one-word access given per lane by key_of() of its word (the lock loop's Read and Write,
  // whose words do not change between iterations).
  // A phased record (AccessRecord::phased): each row one phase, charged to subwarp `sub` of `nsub`
  // in row order (row k to subwarp k * nsub / rows).
  PassPlan plan_phases(const AccessRecord& rec, std::uint32_t sub, std::uint32_t nsub) const;
  PassPlan plan(const std::array<std::uint64_t, kMaxLanes>& keys, LaneMask mask, std::uint32_t lo,
                std::uint32_t hi) const;
  // (bank << 32) | bank unit of a word: what a pass is counted on.
  std::uint64_t key_of(WordAddr w) const;

  // Lock bits: 1024 on Fermi, indexed by the arch's lock function of the word address.
  std::uint32_t lock_of(WordAddr w) const { return lock_fn_->index(w); }
  bool try_lock(std::uint32_t lock) {
    if (locked_[lock]) return false;
    locked_[lock] = 1;
    return true;
  }
  void unlock(std::uint32_t lock) { locked_[lock] = 0; }
  bool has_locks() const { return !locked_.empty(); }

 private:
  template <typename Key>
  PassPlan plan_keys(Key&& key_of_word, int words, LaneMask mask, std::uint32_t lo,
                     std::uint32_t hi, const AccessRecord* same_word, bool paired = false,
                     bool small_banks = false) const;

  std::unique_ptr<IndexFunction> bank_fn_;
  std::unique_ptr<IndexFunction> lock_fn_;
  int unit_shift_ = 0;  // word -> bank unit
  std::uint32_t ports_ = 1;
  std::uint32_t txn_lanes_ = 32;
  std::uint32_t bank_width_ = 4;
  std::uint32_t mod_mask_ = 0;  // banks - 1 where the bank function is the modulo (key_of inline)
  std::vector<std::uint8_t> locked_;
};

}  // namespace smemsim::timing

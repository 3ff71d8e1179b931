// Conflict degrees of one transaction. Seeds: 001 §3 (bank, position and lock conflicts, "a
// position conflict is a particular case of lock conflict"), 000 §II (lock bits shared by aliased
// addresses).
//
// Hot path: one pass over the lanes with a generation-stamped table over the bank-unit addresses
// (duplicate detection in O(1), no clearing) and per-bank distinct counters. Lock groups are built
// on demand; lanes alone on their lock are kept as one mask so lock rounds only walk the shared
// groups.
#include "smemsim/conflict.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "lane_sort.hpp"
#include "smemsim/error.hpp"

namespace smemsim {
namespace {

std::shared_ptr<const IndexFunction> bank_function_for(const Arch& a) {
  return make_index_function(a.bank_hash, {a.bank_bits(), a.bank_addr_bits()});
}

// atomics.lock_hash on the bits atomics.lock_hash_bits names; locks == 0: one lock per word.
std::shared_ptr<const IndexFunction> lock_function_for(const Arch& a) {
  return make_lock_function(a);
}

inline int lowest(LaneMask m) {
  return std::countr_zero(m);
}

template <class T>
void bump_generation(std::uint32_t& gen, std::vector<T>& stamps) {
  if (++gen == 0) {
    std::fill(stamps.begin(), stamps.end(), T{0});
    gen = 1;
  }
}

}  // namespace

ConflictAnalyzer::ConflictAnalyzer(const Arch& arch)
    : ConflictAnalyzer(arch, bank_function_for(arch), lock_function_for(arch)) {}

ConflictAnalyzer::ConflictAnalyzer(const Arch& arch, std::shared_ptr<const IndexFunction> bank_fn,
                                   std::shared_ptr<const IndexFunction> lock_fn)
    : arch_(arch), bank_fn_(std::move(bank_fn)), lock_fn_(std::move(lock_fn)) {
  if (bank_fn_->out_bits() != arch_.bank_bits())
    throw InputError("bank index function width does not match log2(banks)");
  seen_bits_.assign(arch_.bank_units() / 64 + 1, 0);
  unit_stamp_.assign(arch_.bank_units(), 0);
  unit_first_.assign(arch_.bank_units(), 0);
  const std::size_t lock_space = std::size_t{1} << lock_fn_->out_bits();
  lock_stamp_.assign(lock_space, 0);
  lock_slot_.assign(lock_space, 0);
  lock_count_.assign(lock_space, 0);
  unit_shift_ = arch_.bank_width_bytes == 8 ? 1 : 0;
  set_vector_kernel(true);
}

bool ConflictAnalyzer::use_kernel(Kernel k) {
  const detail::LaneSortKernel* ops = nullptr;
  if (k == Kernel::Avx512) ops = detail::lane_sort_avx512();
  if (k == Kernel::Avx2) ops = detail::lane_sort_avx2();
  if (k != Kernel::Portable && !ops) return false;
  kernel_ = k;
  ops_ = ops;
  bank_fixed_ = bank_fn_->fixed_kind();
  lock_fixed_ = lock_fn_->fixed_kind();
  vector_bank_ =
      ops && detail::fast_bank_supported({bank_fixed_, bank_fn_->out_bits()}, arch_.bank_units());
  // A lock function the kernel does not know (a configurable family, or a fixed one on the
  // lock-within-bank bits, atomics.lock_hash_bits = in-bank) is applied first; the kernel then
  // ranks the lock indices as `mod` of them.
  lock_premap_ = lock_fixed_ == FixedIndex::None;
  vector_lock_ = ops && detail::fast_lock_supported(
                            {lock_premap_ ? FixedIndex::Mod : lock_fixed_, lock_fn_->out_bits()},
                            lock_premap_ ? 1u << lock_fn_->out_bits() : arch_.memory_words());
  bank_kernel_now_ = false;
  lock_kernel_now_ = false;
  return true;
}

void ConflictAnalyzer::set_vector_kernel(bool enabled) {
  if (enabled && use_kernel(Kernel::Avx512)) return;
  if (enabled && use_kernel(Kernel::Avx2)) return;
  use_kernel(Kernel::Portable);
}

std::string_view ConflictAnalyzer::kernel_name(Kernel k) {
  switch (k) {
    case Kernel::Avx512:
      return "avx512";
    case Kernel::Avx2:
      return "avx2";
    default:
      return "portable";
  }
}

void ConflictAnalyzer::load(const WarpAccess& wa, int first, int count) {
  lanes_ = count;
  active_ = (wa.active >> first) & lanes_mask(count);
  locks_ready_ = false;
  lock_index_ready_ = false;
  lock_degree_ready_ = false;
  reps_ready_ = false;
  rounds_ready_ = false;
  bank_kernel_now_ = vector_bank_ && count <= 32;
  lock_kernel_now_ = vector_lock_ && count <= 32;
  if (bank_kernel_now_) {
    lane_banks_ready_ = false;
    cached_subset_ = 0;
    const detail::FastLoad r =
        ops_->load(wa.addr.data() + first, count, static_cast<std::uint32_t>(active_), unit_shift_,
                   {bank_fixed_, arch_.bank_bits()}, addr_.data(), bank_keys_.data());
    full_bank_degree_ = r.bank_degree;
    kernel_position_ = r.position_degree;
    return;
  }
  std::memcpy(addr_.data(), wa.addr.data() + first, sizeof(WordAddr) * std::size_t(count));
  index_lanes();

  // One pass: a lane adds one to its bank's distinct count unless its bank-unit address was already
  // seen in this access (lanes on one word are served by a broadcast). Branch-free in the loop
  // body.
  std::uint64_t* const seen = seen_bits_.data();
  alignas(64) std::uint8_t distinct[kMaxBanks] = {};  // <= 64 lanes: a byte per bank is enough
  unsigned best = 0;
  const auto count_lane = [&](int l) {
    const std::uint32_t u = unit_[l];
    const std::uint64_t bit = std::uint64_t{1} << (u & 63);
    const std::uint64_t w = seen[u >> 6];
    seen[u >> 6] = w | bit;
    const unsigned d = distinct[bank_[l]] + ((w & bit) == 0);
    distinct[bank_[l]] = static_cast<std::uint8_t>(d);
    best = d > best ? d : best;
  };
  const LaneMask active = active_;
  if (active == lanes_mask(count)) {
    for (int l = 0; l < count; ++l) count_lane(l);
    for (int l = 0; l < count; ++l) seen[unit_[l] >> 6] = 0;
  } else {
    for (LaneMask m = active; m; m &= m - 1) count_lane(lowest(m));
    for (LaneMask m = active; m; m &= m - 1) seen[unit_[lowest(m)] >> 6] = 0;
  }
  full_bank_degree_ = static_cast<int>(best);
}

void ConflictAnalyzer::index_lanes() const {
  lane_banks_ready_ = true;
  for (int l = 0; l < lanes_; ++l) unit_[l] = addr_[l] >> unit_shift_;
  bank_fn_->index_many(unit_.data(), bank_.data(), lanes_);
}

LaneMask ConflictAnalyzer::scan_lanes(std::uint32_t bank) const {
  LaneMask out = 0;
  for (LaneMask m = active_; m; m &= m - 1)
    if (bank_[lowest(m)] == bank) out |= LaneMask{1} << lowest(m);
  return out;
}

void ConflictAnalyzer::find_reps() const {
  reps_ready_ = true;
  bump_generation(unit_gen_, unit_stamp_);
  const std::uint32_t gen = unit_gen_;
  std::uint32_t* const stamp = unit_stamp_.data();
  std::uint16_t* const first_lane = unit_first_.data();
  for (LaneMask m = active_; m; m &= m - 1) {
    const int l = lowest(m);
    const std::uint32_t u = unit_[l];
    if (stamp[u] != gen) {
      stamp[u] = gen;
      first_lane[u] = static_cast<std::uint16_t>(l);
    }
    rep_[l] = first_lane[u];
  }
}

int ConflictAnalyzer::bank_degree(LaneMask subset) const {
  subset &= active_;
  if (subset == active_) return full_bank_degree_;
  if (bank_kernel_now_) {
    const LaneMask rest = subset & (subset - 1);
    if (rest == 0) return subset ? 1 : 0;
    if ((rest & (rest - 1)) == 0) {  // two lanes: 2 when distinct units share a bank
      const unsigned k1 = bank_keys_[std::size_t(lowest(subset))];
      const unsigned k2 = bank_keys_[std::size_t(lowest(rest))];
      const int up = 16 - arch_.bank_bits();
      return k1 != k2 && (k1 >> up) == (k2 >> up) ? 2 : 1;
    }
    // Algorithm 1's last round asks for the same lanes as read and as write.
    if (subset != cached_subset_) {
      cached_subset_ = subset;
      cached_degree_ = ops_->bank_degree(bank_keys_.data(), static_cast<std::uint32_t>(subset),
                                         arch_.bank_bits());
    }
    return cached_degree_;
  }
  ensure_reps();
  std::array<std::uint16_t, kMaxBanks> distinct{};
  LaneMask seen = 0;  // representatives already counted
  int best = 0;
  for (LaneMask m = subset; m; m &= m - 1) {
    const int l = lowest(m);
    const LaneMask r = LaneMask{1} << rep_[l];
    if (seen & r) continue;
    seen |= r;
    best = std::max(best, int(++distinct[bank_[l]]));
  }
  return best;
}

void ConflictAnalyzer::lock_indices() const {
  if (lock_index_ready_) return;
  lock_index_ready_ = true;
  lock_fn_->index_many(addr_.data(), lock_.data(), lanes_);
}

// The lock degree alone, with a counter per lock (set, then cleared): cheaper than grouping, and
// grouping is only needed when some lock is shared.
void ConflictAnalyzer::count_locks() const {
  lock_indices();
  std::uint16_t* const cnt = lock_count_.data();
  const std::uint32_t* const lock = lock_.data();
  unsigned best = 0;
  if (active_ == lanes_mask(lanes_)) {
    for (int l = 0; l < lanes_; ++l) {
      const unsigned c = ++cnt[lock[l]];
      best = c > best ? c : best;
    }
    for (int l = 0; l < lanes_; ++l) cnt[lock[l]] = 0;
  } else {
    for (LaneMask m = active_; m; m &= m - 1) {
      const unsigned c = ++cnt[lock[lowest(m)]];
      best = c > best ? c : best;
    }
    for (LaneMask m = active_; m; m &= m - 1) cnt[lock[lowest(m)]] = 0;
  }
  lock_degree_ = static_cast<int>(best);
  lock_degree_ready_ = true;
}

void ConflictAnalyzer::group_locks() const {
  locks_ready_ = true;
  lock_indices();
  bump_generation(lock_gen_, lock_stamp_);
  std::size_t n = 0;
  for (LaneMask m = active_; m; m &= m - 1) {
    const int l = lowest(m);
    const std::uint32_t k = lock_[l];
    if (lock_stamp_[k] != lock_gen_) {
      lock_stamp_[k] = lock_gen_;
      lock_slot_[k] = static_cast<std::uint8_t>(n);
      groups_[n++] = 0;
    }
    groups_[lock_slot_[k]] |= LaneMask{1} << l;
  }
  n_shared_ = 0;
  lock_singles_ = 0;
  lock_degree_ready_ = true;
  lock_degree_ = active_ ? 1 : 0;
  for (std::size_t g = 0; g < n; ++g) {
    const LaneMask m = groups_[g];
    if (m & (m - 1)) {
      shared_groups_[n_shared_++] = m;
      lock_degree_ = std::max(lock_degree_, std::popcount(m));
    } else {
      lock_singles_ |= m;
    }
  }
}

void ConflictAnalyzer::find_rounds() const {
  rounds_ready_ = true;
  if (lock_kernel_now_) {
    std::uint32_t ranks[32];
    if (lock_premap_) lock_indices();
    const int d = ops_->lock_ranks(
        lock_premap_ ? lock_.data() : addr_.data(), static_cast<std::uint32_t>(active_),
        {lock_premap_ ? FixedIndex::Mod : lock_fixed_, lock_fn_->out_bits()}, ranks);
    lock_degree_ = d;
    lock_degree_ready_ = true;
    n_rounds_ = static_cast<std::size_t>(d);
    for (int r = 0; r < d; ++r) rounds_[static_cast<std::size_t>(r)] = ranks[r];
    return;
  }
  n_rounds_ = 0;
  for (LaneMask pending = active_; pending;) {
    const LaneMask w = lock_winners(pending);
    rounds_[n_rounds_++] = w;
    pending &= ~w;
  }
}

int ConflictAnalyzer::position_degree() const {
  if (bank_kernel_now_ && unit_shift_ == 0) return kernel_position_;
  // The same word always shares a lock, so equal addresses are found within shared lock groups.
  if (lock_degree() <= 1) return active_ ? 1 : 0;
  ensure_locks();
  int best = active_ ? 1 : 0;
  for (std::size_t g = 0; g < n_shared_; ++g) {
    LaneMask left = shared_groups_[g];
    if (std::popcount(left) <= best) continue;
    while (left) {
      const WordAddr a = addr_[lowest(left)];
      LaneMask same = 0;
      for (LaneMask e = left; e; e &= e - 1)
        if (addr_[lowest(e)] == a) same |= LaneMask{1} << lowest(e);
      best = std::max(best, std::popcount(same));
      left &= ~same;
    }
  }
  return best;
}

}  // namespace smemsim

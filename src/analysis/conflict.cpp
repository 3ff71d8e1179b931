// Conflict degrees of one transaction. Seeds: 001 §3 (bank, position and lock conflicts, "a position
// conflict is a particular case of lock conflict"), 000 §II (lock bits shared by aliased addresses).
#include "smemsim/conflict.hpp"

#include <algorithm>
#include <bit>

#include "smemsim/error.hpp"

namespace smemsim {
namespace {

std::shared_ptr<const IndexFunction> bank_function_for(const Arch& a) {
  return make_index_function(a.bank_hash, {a.bank_bits(), a.bank_addr_bits()});
}

// locks == 0: one lock per word, i.e. the identity on valid word addresses.
std::shared_ptr<const IndexFunction> lock_function_for(const Arch& a) {
  if (a.locks == 0) return make_index_function("mod", {a.word_addr_bits(), a.word_addr_bits()});
  return make_index_function(a.lock_hash, {a.lock_bits(), a.word_addr_bits()});
}

inline int lowest(LaneMask m) { return std::countr_zero(m); }

}  // namespace

ConflictAnalyzer::ConflictAnalyzer(const Arch& arch)
    : ConflictAnalyzer(arch, bank_function_for(arch), lock_function_for(arch)) {}

ConflictAnalyzer::ConflictAnalyzer(const Arch& arch, std::shared_ptr<const IndexFunction> bank_fn,
                                   std::shared_ptr<const IndexFunction> lock_fn)
    : arch_(arch), bank_fn_(std::move(bank_fn)), lock_fn_(std::move(lock_fn)) {
  if (bank_fn_->out_bits() != arch_.bank_bits())
    throw InputError("bank index function width does not match log2(banks)");
  const std::size_t lock_space = std::size_t{1} << lock_fn_->out_bits();
  stamp_.assign(lock_space, 0);
  slot_.assign(lock_space, 0);
}

void ConflictAnalyzer::load(const WarpAccess& wa, int first, int count) {
  lanes_ = count;
  active_ = (wa.active >> first) & lanes_mask(count);
  const unsigned shift = arch_.bank_width_bytes == 8 ? 1 : 0;
  for (int l = 0; l < count; ++l) {
    addr_[l] = wa.addr[static_cast<std::size_t>(first + l)];
    unit_[l] = addr_[l] >> shift;
  }
  bank_fn_->index_many(unit_.data(), bank_.data(), count);
  lock_fn_->index_many(addr_.data(), lock_.data(), count);

  for (std::uint64_t t = banks_touched_; t; t &= t - 1) bank_lanes_[std::countr_zero(t)] = 0;
  banks_touched_ = 0;
  for (LaneMask m = active_; m; m &= m - 1) {
    const int l = lowest(m);
    bank_lanes_[bank_[l]] |= LaneMask{1} << l;
    banks_touched_ |= std::uint64_t{1} << bank_[l];
  }
  // Representatives: equal bank-unit addresses are in the same bank, so compare within banks only.
  unique_ = 0;
  for (std::uint64_t t = banks_touched_; t; t &= t - 1) {
    const LaneMask group = bank_lanes_[std::countr_zero(t)];
    for (LaneMask m = group; m; m &= m - 1) {
      const int l = lowest(m);
      int rep = l;
      for (LaneMask e = group & lanes_mask(l); e; e &= e - 1) {
        const int j = lowest(e);
        if (unit_[j] == unit_[l]) {
          rep = rep_[j];
          break;
        }
      }
      rep_[l] = static_cast<std::uint8_t>(rep);
      if (rep == l) unique_ |= LaneMask{1} << l;
    }
  }
  group_locks();
}

void ConflictAnalyzer::group_locks() {
  if (++generation_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
  n_groups_ = 0;
  for (LaneMask m = active_; m; m &= m - 1) {
    const int l = lowest(m);
    const std::uint32_t k = lock_[l];
    if (stamp_[k] != generation_) {
      stamp_[k] = generation_;
      slot_[k] = static_cast<std::uint8_t>(n_groups_);
      lock_groups_[n_groups_++] = 0;
    }
    lock_groups_[slot_[k]] |= LaneMask{1} << l;
  }
}

int ConflictAnalyzer::bank_degree(LaneMask subset) const {
  subset &= active_;
  int best = 0;
  if (subset == active_) {
    for (std::uint64_t t = banks_touched_; t; t &= t - 1)
      best = std::max(best, std::popcount(bank_lanes_[std::countr_zero(t)] & unique_));
    return best;
  }
  for (std::uint64_t t = banks_touched_; t; t &= t - 1) {
    const LaneMask m = bank_lanes_[std::countr_zero(t)] & subset;
    if (!m) continue;
    int d = 1;
    if (m & (m - 1)) {
      LaneMask reps = 0;
      for (LaneMask e = m; e; e &= e - 1) reps |= LaneMask{1} << rep_[lowest(e)];
      d = std::popcount(reps);
    }
    best = std::max(best, d);
  }
  return best;
}

int ConflictAnalyzer::lock_degree() const {
  int best = 0;
  for (std::size_t g = 0; g < n_groups_; ++g) best = std::max(best, std::popcount(lock_groups_[g]));
  return best;
}

int ConflictAnalyzer::position_degree() const {
  // The same word always shares a lock, so equal addresses are found within lock groups.
  int best = active_ ? 1 : 0;
  for (std::size_t g = 0; g < n_groups_; ++g) {
    const LaneMask group = lock_groups_[g];
    if (std::popcount(group) <= best) continue;
    LaneMask left = group;
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

LaneMask ConflictAnalyzer::lock_winners(LaneMask pending) const {
  LaneMask w = 0;
  for (std::size_t g = 0; g < n_groups_; ++g) {
    const LaneMask m = lock_groups_[g] & pending;
    w |= m & (~m + 1);  // lowest set bit
  }
  return w;
}

}  // namespace smemsim

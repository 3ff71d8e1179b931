// Bank passes per phase and the lock bits (smem_unit.hpp).
#include "timing/smem_unit.hpp"

#include <algorithm>
#include <bit>

namespace smemsim::timing {

SharedMemoryUnit::SharedMemoryUnit(const Arch& arch)
    : bank_fn_(make_index_function(arch.bank_hash, {arch.bank_bits(), arch.bank_addr_bits()})),
      unit_shift_(std::countr_zero(arch.words_per_bank_unit())),
      ports_(arch.sm.smem_ports),
      txn_lanes_(arch.transaction_lanes),
      bank_width_(arch.bank_width_bytes) {
  if (bank_fn_->fixed_kind() == FixedIndex::Mod)
    mod_mask_ = (std::uint32_t{1} << bank_fn_->out_bits()) - 1;
  if (arch.locks) {
    lock_fn_ = make_lock_function(arch);
    locked_.assign(arch.locks, 0);
  }
}

namespace {

// Sorts a few keys (at most a phase's lanes times words): insertion sort beats std::sort here.
template <typename T>
void small_sort(T* v, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    const T x = v[i];
    std::size_t j = i;
    for (; j && v[j - 1] > x; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// The bank degree of n (bank << 32 | unit) keys: the most distinct units in one bank (the same unit
// is a broadcast). Sorts the keys.
std::uint32_t sorted_bank_degree(std::uint64_t* key, std::size_t n) {
  small_sort(key, n);
  std::uint32_t degree = 0, run = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i && key[i] == key[i - 1]) continue;
    run = (i && (key[i] >> 32) == (key[i - 1] >> 32)) ? run + 1 : 1;
    degree = std::max(degree, run);
  }
  return degree;
}

// The same by chaining each bank's distinct keys (issue 49: linear where lanes scatter over the
// banks, as a table lookup's do; the sort was quadratic there). Banks past the table, and more
// keys than a byte counts, take the sort. May reorder the keys.
// `small`: the caller knows every bank is below the table's 128 (the modulo banks).
constexpr std::size_t kChainBanks = 128;
std::uint32_t bank_degree(std::uint64_t* key, std::size_t n, bool small = false) {
  constexpr std::size_t kBanks = kChainBanks;
  if (n >= 255) return sorted_bank_degree(key, n);
  if (!small)
    for (std::size_t i = 0; i < n; ++i)
      if ((key[i] >> 32) >= kBanks) return sorted_bank_degree(key, n);
  std::array<std::uint8_t, kBanks> head{}, count{};  // head: 1 + a bank's last distinct key
  std::array<std::uint8_t, 256> prev;                // 1 + the bank's distinct key before it
  std::uint32_t degree = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = key[i] >> 32;
    bool seen = false;
    for (std::uint32_t j = head[b]; j && !seen; j = prev[j - 1]) seen = key[j - 1] == key[i];
    if (seen) continue;
    prev[i] = head[b];
    head[b] = std::uint8_t(i + 1);
    degree = std::max<std::uint32_t>(degree, ++count[b]);
  }
  return degree;
}

}  // namespace

std::uint64_t SharedMemoryUnit::key_of(WordAddr w) const {
  const std::uint32_t unit = w >> unit_shift_;
  return (std::uint64_t(bank_fn_->index(unit)) << 32) | unit;
}

template <typename Key>
PassPlan SharedMemoryUnit::plan_keys(Key&& key_of_word, int words, LaneMask mask, std::uint32_t lo,
                                     std::uint32_t hi, const AccessRecord* same_word, bool paired,
                                     bool small_banks) const {
  PassPlan p;
  const std::uint32_t bytes = 4u * std::uint32_t(std::max(words, 1));
  std::uint32_t lpp = std::clamp<std::uint32_t>(
      txn_lanes_ * bank_width_ / std::max(bytes, bank_width_), 1, txn_lanes_);
  if (paired) lpp = std::min(2 * lpp, txn_lanes_);
  // Phases start at multiples of lpp; those starting in [lo, hi) are this subwarp's.
  for (std::uint32_t first = (lo + lpp - 1) / lpp * lpp; first < hi; first += lpp) {
    const LaneMask lanes = mask & (lanes_mask(int(first + lpp)) & ~lanes_mask(int(first)));
    if (!lanes) continue;
    // (bank << 32 | unit) for every word of every lane; distinct units per bank, sorted.
    std::array<std::uint64_t, kMaxLanes * AccessRecord::kMaxWords> key;
    std::size_t n = 0;
    if (words == 1) {  // most accesses (a loop over one word was most of the plan's cost)
      for (LaneMask m = lanes; m; m &= m - 1) key[n++] = key_of_word(0, std::countr_zero(m));
    } else {
      for (LaneMask m = lanes; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        for (int k = 0; k < words; ++k) key[n++] = key_of_word(k, l);
      }
    }
    const std::uint32_t degree = bank_degree(key.data(), n, small_banks);
    p.passes += (degree + ports_ - 1) / ports_;
    ++p.phases;
    if (!same_word) continue;
    // Same-word serialization (native atomics): the most lanes on one word.
    std::array<WordAddr, kMaxLanes * AccessRecord::kMaxWords> wordv;
    n = 0;
    for (LaneMask m = lanes; m; m &= m - 1)
      for (int k = 0; k < words; ++k)
        wordv[n++] = same_word->addr[std::size_t(k)][std::size_t(std::countr_zero(m))];
    small_sort(wordv.data(), n);
    std::uint32_t most = 0;
    for (std::size_t i = 0, r = 0; i < n; ++i) {
      r = (i && wordv[i] == wordv[i - 1]) ? r + 1 : 1;
      most = std::max<std::uint32_t>(most, std::uint32_t(r));
    }
    p.same_word += most - 1;
  }
  return p;
}

PassPlan SharedMemoryUnit::plan(const AccessRecord& rec, LaneMask mask, std::uint32_t lo,
                                std::uint32_t hi, bool same_word) const {
  const AccessRecord* same = same_word ? &rec : nullptr;
  if (mod_mask_) {  // the modulo banks inline (no virtual call a lane: issue 49)
    const int shift = unit_shift_;
    const std::uint32_t banks = mod_mask_;
    return plan_keys(
        [&rec, shift, banks](int k, int l) {
          const std::uint32_t unit = rec.addr[std::size_t(k)][std::size_t(l)] >> shift;
          return (std::uint64_t(unit & banks) << 32) | unit;
        },
        rec.words, mask & rec.active, lo, hi, same, rec.paired, mod_mask_ < kChainBanks);
  }
  return plan_keys([&](int k, int l) { return key_of(rec.addr[std::size_t(k)][std::size_t(l)]); },
                   rec.words, mask & rec.active, lo, hi, same, rec.paired);
}

PassPlan SharedMemoryUnit::plan_phases(const AccessRecord& rec, std::uint32_t sub,
                                       std::uint32_t nsub) const {
  PassPlan p;
  const int rows = rec.words + rec.extra;
  for (int k = 0; k < rows; ++k) {
    if (std::uint32_t(k) * nsub / std::uint32_t(rows) != sub) continue;
    ++p.phases;
    if (k >= rec.words) {  // past the record: one pass
      ++p.passes;
      continue;
    }
    std::array<std::uint64_t, kMaxLanes> key;
    std::size_t n = 0;
    for (LaneMask m = rec.row_active[k]; m; m &= m - 1)
      key[n++] = key_of(rec.addr[std::size_t(k)][std::size_t(std::countr_zero(m))]);
    const std::uint32_t degree = std::max<std::uint32_t>(1, bank_degree(key.data(), n));
    p.passes += (degree + ports_ - 1) / ports_;
  }
  return p;
}

PassPlan SharedMemoryUnit::plan(const std::array<std::uint64_t, kMaxLanes>& keys, LaneMask mask,
                                std::uint32_t lo, std::uint32_t hi) const {
  return plan_keys([&](int, int l) { return keys[std::size_t(l)]; }, 1, mask, lo, hi, nullptr);
}

}  // namespace smemsim::timing

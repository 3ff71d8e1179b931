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
  if (arch.locks) {
    lock_fn_ = make_index_function(arch.lock_hash, {arch.lock_bits(), arch.word_addr_bits()});
    locked_.assign(arch.locks, 0);
  }
}

template <typename Addr>
PassPlan SharedMemoryUnit::plan_words(Addr&& addr, int words, LaneMask mask, std::uint32_t lo,
                                      std::uint32_t hi) const {
  PassPlan p;
  const std::uint32_t bytes = 4u * std::uint32_t(std::max(words, 1));
  const std::uint32_t lpp = std::clamp<std::uint32_t>(
      txn_lanes_ * bank_width_ / std::max(bytes, bank_width_), 1, txn_lanes_);
  // Phases start at multiples of lpp; those starting in [lo, hi) are this subwarp's.
  for (std::uint32_t first = (lo + lpp - 1) / lpp * lpp; first < hi; first += lpp) {
    const LaneMask lanes = mask & (lanes_mask(int(first + lpp)) & ~lanes_mask(int(first)));
    if (!lanes) continue;
    // (bank << 32 | unit) for every word of every lane; distinct units per bank, sorted.
    std::array<std::uint64_t, kMaxLanes * AccessRecord::kMaxWords> key;
    std::array<WordAddr, kMaxLanes * AccessRecord::kMaxWords> wordv;
    std::size_t n = 0;
    for (LaneMask m = lanes; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      for (int k = 0; k < words; ++k) {
        const WordAddr w = addr(k, l);
        const std::uint32_t unit = w >> unit_shift_;
        wordv[n] = w;
        key[n++] = (std::uint64_t(bank_fn_->index(unit)) << 32) | unit;
      }
    }
    std::sort(key.begin(), key.begin() + std::ptrdiff_t(n));
    std::uint32_t degree = 0, run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i && key[i] == key[i - 1]) continue;  // the same unit: a broadcast
      run = (i && (key[i] >> 32) == (key[i - 1] >> 32)) ? run + 1 : 1;
      degree = std::max(degree, run);
    }
    p.passes += (degree + ports_ - 1) / ports_;
    ++p.phases;
    // Same-word serialization (native atomics): the most lanes on one word.
    std::sort(wordv.begin(), wordv.begin() + std::ptrdiff_t(n));
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
                                std::uint32_t hi) const {
  return plan_words([&](int k, int l) { return rec.addr[std::size_t(k)][std::size_t(l)]; },
                    rec.words, mask & rec.active, lo, hi);
}

PassPlan SharedMemoryUnit::plan(const std::array<WordAddr, kMaxLanes>& words, LaneMask mask,
                                std::uint32_t lo, std::uint32_t hi) const {
  return plan_words([&](int, int l) { return words[std::size_t(l)]; }, 1, mask, lo, hi);
}

}  // namespace smemsim::timing

// Which analyzer kernels apply, and which this CPU runs (lane_sort.hpp).
#include "lane_sort.hpp"

namespace smemsim::detail {

bool fast_bank_supported(FixedFn bank, std::uint32_t bank_units) {
  return bank.kind != FixedIndex::None && bank.m >= 1 && bank.m <= 6 && bank_units <= (1u << 16);
}

bool fast_lock_supported(FixedFn lock, std::uint32_t memory_words) {
  return lock.kind != FixedIndex::None && lock.m >= 1 && lock.m <= 11 && memory_words <= (1u << 16);
}

const LaneSortKernel* lane_sort_best() {
  static const LaneSortKernel* const best =
      lane_sort_avx512() ? lane_sort_avx512() : lane_sort_avx2();
  return best;
}

}  // namespace smemsim::detail

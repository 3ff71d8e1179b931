// Shared by the analyzer's vector kernels (lane_sort_avx512.cpp, lane_sort_avx2.cpp): the 32-key
// bitonic network as data, and the bit tricks that turn sorted keys into degrees. No intrinsics.
#pragma once

#include <bit>
#include <cstdint>

namespace smemsim::detail::lane_sort {

// Bitonic sorting network for 32 keys: for block size k = 2..32 and distance j = k/2..1, key i is
// compared with key i ^ j and keeps the minimum when it is the lower of the pair in an ascending
// block, or the higher in a descending one (block direction: bit k of i). 15 layers.
struct Layer {
  int distance;            // j
  std::uint32_t take_min;  // bit i: key i keeps the minimum
};
struct Network {
  Layer layer[15];
};

constexpr Network make_network() {
  Network n{};
  int l = 0;
  for (int k = 2; k <= 32; k *= 2) {
    for (int j = k / 2; j >= 1; j /= 2, ++l) {
      n.layer[l].distance = j;
      n.layer[l].take_min = 0;
      for (int i = 0; i < 32; ++i) {
        const bool lower = (i & j) == 0;
        const bool ascending = (i & k) == 0;
        if (lower == ascending) n.layer[l].take_min |= 1u << i;
      }
    }
  }
  return n;
}
inline constexpr Network kNetwork = make_network();

inline std::uint32_t low_mask(int n) {
  return n >= 32 ? ~0u : (1u << n) - 1;
}

// Longest run of consecutive one bits, without data-dependent branches (degrees vary warp to warp,
// and a loop over them mispredicts): binary lifting over p[k] = the starts of runs of length
// >= 2^k, extending the found length L by 2^k wherever a run of L continues for 2^k more bits.
inline int longest_run(std::uint32_t x) {
  std::uint32_t p[6];
  p[0] = x;
  for (int k = 1; k < 6; ++k) p[k] = p[k - 1] & (p[k - 1] >> (1 << (k - 1)));
  std::uint32_t starts = ~0u;  // starts of runs of length >= len
  int len = 0;
  for (int k = 5; k >= 0; --k) {
    const std::uint32_t longer = starts & (len >= 32 ? 0u : p[k] >> len);
    const bool grow = longer != 0;
    starts = grow ? longer : starts;
    len += grow ? 1 << k : 0;
  }
  return len;
}

// The bits of x at the positions in `keep`, packed to the bottom (x's bits outside `live` are 0;
// keep lies within live). Equal to BMI2 pext(x, keep) for such inputs, by deleting the positions
// live & ~keep from the top down: one step per deleted position, and they are rare (duplicates).
inline std::uint32_t compress_bits(std::uint32_t x, std::uint32_t keep, std::uint32_t live) {
  for (std::uint32_t drop = live & ~keep; drop;) {
    const int d = 31 - std::countl_zero(drop);
    const std::uint32_t below = (1u << d) - 1;
    x = (x & below) | ((x >> 1) & ~below);
    drop &= below;
  }
  return x;
}

// Degrees from the compare masks of sorted bank keys with n > 0 real keys first: new_unit (key
// differs from its predecessor) and same_bank (bank equals its predecessor's), cleaned by
// run_masks. Among the first key of each unit the longest stretch in one bank is the bank degree:
// the caller packs the same_bank bits of those keys (pext, or compress_bits without BMI2). Equal
// keys in a row give the position degree.
struct RunMasks {
  std::uint32_t live, new_unit, same_bank;
};
inline RunMasks run_masks(std::uint32_t new_unit, std::uint32_t same_bank, int n) {
  const std::uint32_t live = low_mask(n);
  return {live, (new_unit | 1u) & live, same_bank & ~1u & live};
}
struct Runs {
  int bank = 0;
  int position = 0;
};
inline Runs bank_runs(const RunMasks& m, std::uint32_t packed_same_bank) {
  return {1 + longest_run(packed_same_bank), 1 + longest_run(~m.new_unit & m.live)};
}

// Lock ranks from sorted (lock << 5 | lane) keys: `later` marks sorted positions whose lock equals
// the one before. Fills rank_lanes as lane_sort.hpp describes; returns the lock degree.
inline int lock_ranks(const std::uint16_t* sorted, std::uint32_t later, std::uint32_t active,
                      std::uint32_t* rank_lanes) {
  rank_lanes[0] = active;
  if (later == 0) return active ? 1 : 0;
  int top = 0;
  int run = 0;
  int last = -2;
  for (std::uint32_t m = later; m; m &= m - 1) {
    const int i = std::countr_zero(m);
    run = i == last + 1 ? run + 1 : 1;
    last = i;
    if (run > top) rank_lanes[top = run] = 0;
    const std::uint32_t bit = 1u << (sorted[i] & 31u);
    rank_lanes[run] |= bit;
    rank_lanes[0] &= ~bit;
  }
  return top + 1;
}

}  // namespace smemsim::detail::lane_sort

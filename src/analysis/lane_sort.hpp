// Vector kernels of the conflict analyzer: the degrees of a transaction of at most 32 lanes from
// one sorted vector of 32 16-bit keys. Two implementations, chosen at run time: AVX-512 (F, BW,
// BMI2; lane_sort_avx512.cpp) and AVX2 (lane_sort_avx2.cpp). The portable code in conflict.cpp is
// the reference and the fallback; tests hold all three equal.
//
// Bank degree (seed 001 §3: distinct bank-unit addresses per bank). Each active lane gets the key
//   (bank << (16 - m)) | (unit >> m),   m = log2(banks),
// which for the fixed index functions of seed 000 Table I (mod, xor, add: for fixed high bits,
// the bank is a bijection of the low m bits) orders keys by bank and is one-to-one on units below
// 2^16. Inactive lanes get 0xFFFF, the largest key, so the n active keys sort first (a real key
// 0xFFFF ties with them and is still among the first n). After a 32-key bitonic sort, a key unequal
// to its predecessor is a new unit; among those, the longest run of equal banks is the degree. Same
// key = same unit, so the longest run of equal keys is the position degree when a unit is one word
// (4-byte banks).
//
// Lock rounds (seed 001 §2.1.4, Algorithm 1). Key (lock << 5) | lane: sorted, each lock's lanes
// follow in lane order, so a lane's rank on its lock (how many lower active lanes share it) is its
// lock round, the lowest lane winning first (docs/models.md). The lock degree is 1 + the top rank.
#pragma once

#include <cstdint>
#include <span>

#include "smemsim/index_function.hpp"

namespace smemsim::detail {

struct FixedFn {
  FixedIndex kind = FixedIndex::None;
  int m = 0;  // output bits
};

// Whether the bank kernel applies: a fixed bank function, at most 64 banks and at most 2^16
// bank-unit addresses (and, checked per load, at most 32 lanes).
bool fast_bank_supported(FixedFn bank, std::uint32_t bank_units);
// Whether the lock kernel applies: a fixed lock function of at most 11 bits, at most 2^16 words
// (and at most 32 lanes).
bool fast_lock_supported(FixedFn lock, std::uint32_t memory_words);

struct FastLoad {
  int bank_degree = 0;
  int position_degree = 0;  // meaningful when unit_shift == 0
};

// One implementation for one instruction set. Key arrays are 32 entries, 64-byte aligned.
struct LaneSortKernel {
  const char* name;  // "avx512" or "avx2"
  // Lanes [0, count) of `addr` (count <= 32; lanes at or beyond count are read through a mask and
  // treated as inactive). Writes addr_out[0, 32) (0 beyond count) and keys: the bank key per lane,
  // 0xFFFF for inactive lanes.
  FastLoad (*load)(const std::uint32_t* addr, int count, std::uint32_t active, int unit_shift,
                   FixedFn bank, std::uint32_t* addr_out, std::uint16_t* keys);
  // Bank degree of the lanes in `subset` alone (0 if empty), from the keys `load` made.
  int (*bank_degree)(const std::uint16_t* keys, std::uint32_t subset, int m);
  // The lanes of each rank: rank_lanes[r] holds the active lanes with exactly r lower active lanes
  // on the same lock, from addr[0, 32) (0 beyond the transaction). Returns the lock degree (0 when
  // no lane is active); rank_lanes[r] for r >= the degree are left untouched.
  int (*lock_ranks)(const std::uint32_t* addr, std::uint32_t active, FixedFn lock,
                    std::uint32_t* rank_lanes);
  // Sorts keys ascending in place; returns the positions whose key differs from the one before
  // (bit 0 set). The hash search canonicalizes reference sets with it.
  std::uint32_t (*sort_keys)(std::uint16_t* keys);
};

// The kernels when this CPU runs them, else nullptr. The AVX2 kernel needs BMI2 too; on AMD Zen 1
// and 2, whose pext is microcoded, it is the build without pext.
const LaneSortKernel* lane_sort_avx512();
const LaneSortKernel* lane_sort_avx2();
const LaneSortKernel* lane_sort_avx2_without_pext();  // that build on any AVX2 CPU (for tests)
// The fastest kernel this CPU runs, or nullptr.
const LaneSortKernel* lane_sort_best();

}  // namespace smemsim::detail

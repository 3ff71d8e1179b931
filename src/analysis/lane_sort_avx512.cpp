// The analyzer's AVX-512 kernel (lane_sort.hpp has the method and its seeds): 32 16-bit keys in one
// register, sorted by the network of lane_sort_network.hpp. Per-function target attributes, so the
// file builds for any x86-64; lane_sort_avx512() returns it only on CPUs with AVX-512F/BW and BMI2.
#include <bit>

#include "lane_sort.hpp"
#include "lane_sort_network.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SMEMSIM_AVX512_KERNEL 1
#include <immintrin.h>
// GCC 12 warns inside its own AVX-512 headers (_mm512_undefined_* feeding masked operations).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace smemsim::detail {

#ifndef SMEMSIM_AVX512_KERNEL

const LaneSortKernel* lane_sort_avx512() {
  return nullptr;
}

#else

namespace {

using namespace lane_sort;

#define SMEMSIM_TARGET __attribute__((target("avx512f,avx512bw,bmi2")))

struct Tables {
  alignas(64) std::uint16_t prev[32];  // i - 1 (0 for i = 0): each key's predecessor
  alignas(64) std::uint16_t lane[32];  // i
  alignas(64) std::uint16_t even[32];  // 2i: the low 16-bit halves of 32 32-bit values
};
constexpr Tables make_tables() {
  Tables t{};
  for (int i = 0; i < 32; ++i) {
    t.prev[i] = static_cast<std::uint16_t>(i == 0 ? 0 : i - 1);
    t.lane[i] = static_cast<std::uint16_t>(i);
    t.even[i] = static_cast<std::uint16_t>(2 * i);
  }
  return t;
}
constexpr Tables kTables = make_tables();

// The layers' masks as data the compiler cannot fold: each is then one load into a mask register
// (an immediate would need a move and a kmov, and kmov from a general register shares port 5 with
// the network's shuffles).
constinit std::uint32_t g_take_min[15] = {
    kNetwork.layer[0].take_min,  kNetwork.layer[1].take_min,  kNetwork.layer[2].take_min,
    kNetwork.layer[3].take_min,  kNetwork.layer[4].take_min,  kNetwork.layer[5].take_min,
    kNetwork.layer[6].take_min,  kNetwork.layer[7].take_min,  kNetwork.layer[8].take_min,
    kNetwork.layer[9].take_min,  kNetwork.layer[10].take_min, kNetwork.layer[11].take_min,
    kNetwork.layer[12].take_min, kNetwork.layer[13].take_min, kNetwork.layer[14].take_min};

// Key i ^ j for every i: immediate shuffles, no index vector. Distances 1 and 2 are rotations
// (port 0, one cycle), 4 a dword shuffle (one cycle), 8 and 16 swap 128-bit lanes or 256-bit
// halves.
template <int J>
SMEMSIM_TARGET inline __m512i partners(__m512i x) {
  if constexpr (J == 1) return _mm512_rol_epi32(x, 16);
  if constexpr (J == 2) return _mm512_rol_epi64(x, 32);
  if constexpr (J == 4) return _mm512_shuffle_epi32(x, _MM_PERM_BADC);
  if constexpr (J == 8) return _mm512_shuffle_i32x4(x, x, 0xB1);   // lanes 1, 0, 3, 2
  if constexpr (J == 16) return _mm512_shuffle_i64x2(x, x, 0x4E);  // halves swapped
}

template <int L, int J>
SMEMSIM_TARGET inline __m512i layer(__m512i x) {
  static_assert(kNetwork.layer[L].distance == J, "layer order differs from make_network");
  const __m512i p = partners<J>(x);
  return _mm512_mask_min_epu16(_mm512_max_epu16(x, p), _load_mask32(&g_take_min[L]), x, p);
}

SMEMSIM_TARGET inline __m512i sort32(__m512i x) {
  x = layer<0, 1>(x);
  x = layer<1, 2>(x);
  x = layer<2, 1>(x);
  x = layer<3, 4>(x);
  x = layer<4, 2>(x);
  x = layer<5, 1>(x);
  x = layer<6, 8>(x);
  x = layer<7, 4>(x);
  x = layer<8, 2>(x);
  x = layer<9, 1>(x);
  x = layer<10, 16>(x);
  x = layer<11, 8>(x);
  x = layer<12, 4>(x);
  x = layer<13, 2>(x);
  x = layer<14, 1>(x);
  return x;
}

SMEMSIM_TARGET inline __m512i predecessors(__m512i sorted) {
  return _mm512_permutexvar_epi16(_mm512_load_si512(kTables.prev), sorted);
}

// The fixed index functions (seed 000 Table I) on 32 lanes of 16-bit addresses, with the address
// bits above the index (a >> m) given. Exact: only the low m bits of the sum or XOR are kept.
SMEMSIM_TARGET inline __m512i fixed_index16(__m512i a, __m512i high, FixedFn f) {
  const __m512i mask = _mm512_set1_epi16(static_cast<short>((1u << f.m) - 1));
  switch (f.kind) {
    case FixedIndex::Xor:
      return _mm512_and_si512(_mm512_xor_si512(a, high), mask);
    case FixedIndex::Add:
      return _mm512_and_si512(_mm512_add_epi16(a, high), mask);
    default:
      return _mm512_and_si512(a, mask);
  }
}

// The low halves of 32 32-bit values (two vectors) as one vector of 16-bit values.
SMEMSIM_TARGET inline __m512i pack16(__m512i lo, __m512i hi) {
  return _mm512_permutex2var_epi16(lo, _mm512_load_si512(kTables.even), hi);
}

SMEMSIM_TARGET inline Runs sorted_bank_runs(__m512i s, int n, int m) {
  const __m512i prev = predecessors(s);
  const __m128i shift = _mm_cvtsi32_si128(16 - m);
  const std::uint32_t new_unit = _cvtmask32_u32(_mm512_cmpneq_epu16_mask(s, prev));
  const std::uint32_t same_bank = _cvtmask32_u32(
      _mm512_cmpeq_epu16_mask(_mm512_srl_epi16(s, shift), _mm512_srl_epi16(prev, shift)));
  if (n == 0) return {};
  const RunMasks rm = run_masks(new_unit, same_bank, n);
  return bank_runs(rm, _pext_u32(rm.same_bank, rm.new_unit));
}

SMEMSIM_TARGET FastLoad load(const std::uint32_t* addr, int count, std::uint32_t active,
                             int unit_shift, FixedFn bank, std::uint32_t* addr_out,
                             std::uint16_t* keys) {
  const std::uint32_t in = low_mask(count);
  const __m512i a0 = _mm512_maskz_loadu_epi32(static_cast<__mmask16>(in), addr);
  const __m512i a1 = _mm512_maskz_loadu_epi32(static_cast<__mmask16>(in >> 16), addr + 16);
  _mm512_storeu_si512(addr_out, a0);
  _mm512_storeu_si512(addr_out + 16, a1);
  // Bank-unit addresses fit 16 bits (fast_bank_supported).
  const __m128i us = _mm_cvtsi32_si128(unit_shift);
  const __m512i u = pack16(_mm512_srl_epi32(a0, us), _mm512_srl_epi32(a1, us));
  const __m512i tag = _mm512_srl_epi16(u, _mm_cvtsi32_si128(bank.m));
  const __m512i b = fixed_index16(u, tag, bank);
  const __m512i key = _mm512_or_si512(_mm512_sll_epi16(b, _mm_cvtsi32_si128(16 - bank.m)), tag);
  const std::uint32_t live = active & in;
  const __m512i k = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), live, key);
  _mm512_store_si512(keys, k);
  const Runs r = sorted_bank_runs(sort32(k), std::popcount(live), bank.m);
  return {r.bank, r.position};
}

SMEMSIM_TARGET int bank_degree(const std::uint16_t* keys, std::uint32_t subset, int m) {
  const __m512i k = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), subset, _mm512_load_si512(keys));
  return sorted_bank_runs(sort32(k), std::popcount(subset), m).bank;
}

SMEMSIM_TARGET int lock_ranks_avx512(const std::uint32_t* addr, std::uint32_t active, FixedFn lock,
                                     std::uint32_t* rank_lanes) {
  // Word addresses fit 16 bits (fast_lock_supported).
  const __m512i a = pack16(_mm512_loadu_si512(addr), _mm512_loadu_si512(addr + 16));
  const __m512i l = fixed_index16(a, _mm512_srl_epi16(a, _mm_cvtsi32_si128(lock.m)), lock);
  const int n = std::popcount(active);
  if (n == 0) return 0;
  const __m512i key = _mm512_or_si512(_mm512_slli_epi16(l, 5), _mm512_load_si512(kTables.lane));
  const __m512i s = sort32(_mm512_mask_mov_epi16(_mm512_set1_epi16(-1), active, key));
  const __m512i prev = predecessors(s);
  // Sorted positions whose lock is the one before them: every lane but the first of its lock.
  const std::uint32_t later =
      _cvtmask32_u32(_mm512_cmpeq_epu16_mask(_mm512_srli_epi16(s, 5), _mm512_srli_epi16(prev, 5))) &
      ~1u & low_mask(n);
  alignas(64) std::uint16_t sorted[32];
  _mm512_store_si512(sorted, s);
  return lock_ranks(sorted, later, active, rank_lanes);
}

SMEMSIM_TARGET std::uint32_t sort_keys(std::uint16_t* keys) {
  const __m512i s = sort32(_mm512_load_si512(keys));
  _mm512_store_si512(keys, s);
  return _cvtmask32_u32(_mm512_cmpneq_epu16_mask(s, predecessors(s))) | 1u;
}

constexpr LaneSortKernel kKernel{"avx512", load, bank_degree, lock_ranks_avx512, sort_keys};

}  // namespace

const LaneSortKernel* lane_sort_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("bmi2");
  return ok ? &kKernel : nullptr;
}

#endif

}  // namespace smemsim::detail

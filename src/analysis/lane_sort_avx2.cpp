// The analyzer's AVX2 kernel, for x86-64 CPUs without AVX-512 (most desktop CPUs): the method of
// lane_sort.hpp with the 32 16-bit keys in two 256-bit registers (keys 0-15 and 16-31). Same
// network in its all-ascending form, with immediate blends; compare masks packed with movemask.
// Built twice: with BMI2 pext, and with compress_bits for the CPUs whose pext is microcoded (AMD
// Zen 1 and 2). lane_sort_avx2() returns one only on CPUs with AVX2 and BMI2.
#include <bit>

#include "lane_sort.hpp"
#include "lane_sort_network.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SMEMSIM_AVX2_KERNEL 1
#include <immintrin.h>
#endif

namespace smemsim::detail {

#ifndef SMEMSIM_AVX2_KERNEL

const LaneSortKernel* lane_sort_avx2() {
  return nullptr;
}
const LaneSortKernel* lane_sort_avx2_without_pext() {
  return nullptr;
}

#else

namespace {

using namespace lane_sort;

#define SMEMSIM_TARGET __attribute__((target("avx2,bmi2")))

struct Keys {
  __m256i lo;  // keys 0-15
  __m256i hi;  // keys 16-31
};

// Constants: vpshufb controls (within each 128-bit lane) and lane tables.
struct Tables {
  alignas(32) std::uint8_t swap2[32];     // key i ^ 1
  alignas(32) std::uint8_t mirror4[32];   // key i ^ 3
  alignas(32) std::uint8_t mirror8[32];   // key i ^ 7
  alignas(32) std::uint16_t bit[16];      // 1 << i: key i's bit of a 16-bit lane mask
  alignas(32) std::uint16_t lane_lo[16];  // i
  alignas(32) std::uint16_t lane_hi[16];  // 16 + i
};
constexpr Tables make_tables() {
  Tables t{};
  for (int i = 0; i < 32; ++i) {
    const int key = (i % 16) / 2;  // key within the 128-bit lane
    const int byte = i % 2;
    t.swap2[i] = static_cast<std::uint8_t>(2 * (key ^ 1) + byte);
    t.mirror4[i] = static_cast<std::uint8_t>(2 * (key ^ 3) + byte);
    t.mirror8[i] = static_cast<std::uint8_t>(2 * (key ^ 7) + byte);
  }
  for (int i = 0; i < 16; ++i) {
    t.bit[i] = static_cast<std::uint16_t>(1u << i);
    t.lane_lo[i] = static_cast<std::uint16_t>(i);
    t.lane_hi[i] = static_cast<std::uint16_t>(16 + i);
  }
  return t;
}
constexpr Tables kTables = make_tables();

SMEMSIM_TARGET inline __m256i load256(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}

// Partners within one register of 16 keys.
enum class Partner { Xor1, Xor2, Xor4, Xor8, Mirror4, Mirror8, Mirror16 };
template <Partner P>
SMEMSIM_TARGET inline __m256i partners(__m256i x) {
  if constexpr (P == Partner::Xor1) return _mm256_shuffle_epi8(x, load256(kTables.swap2));
  if constexpr (P == Partner::Xor2) return _mm256_shuffle_epi32(x, 0xB1);
  if constexpr (P == Partner::Xor4) return _mm256_shuffle_epi32(x, 0x4E);
  if constexpr (P == Partner::Xor8) return _mm256_permute4x64_epi64(x, 0x4E);
  if constexpr (P == Partner::Mirror4) return _mm256_shuffle_epi8(x, load256(kTables.mirror4));
  if constexpr (P == Partner::Mirror8) return _mm256_shuffle_epi8(x, load256(kTables.mirror8));
  if constexpr (P == Partner::Mirror16)
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(x, load256(kTables.mirror8)), 0x4E);
}

// Where key i is the lower of its pair ((i & D) == 0) it keeps the minimum. Immediate blends: the
// pattern repeats in every 128-bit lane for D <= 4, and is the low lane for D = 8.
template <int D>
SMEMSIM_TARGET inline __m256i lower_takes_min(__m256i mn, __m256i mx) {
  if constexpr (D == 1) return _mm256_blend_epi16(mx, mn, 0x55);
  if constexpr (D == 2) return _mm256_blend_epi32(mx, mn, 0x55);
  if constexpr (D == 4) return _mm256_blend_epi32(mx, mn, 0x33);
  if constexpr (D == 8) return _mm256_blend_epi32(mx, mn, 0x0F);
}

template <Partner P, int D>
SMEMSIM_TARGET inline void step(Keys& k) {
  const __m256i plo = partners<P>(k.lo);
  const __m256i phi = partners<P>(k.hi);
  k.lo = lower_takes_min<D>(_mm256_min_epu16(k.lo, plo), _mm256_max_epu16(k.lo, plo));
  k.hi = lower_takes_min<D>(_mm256_min_epu16(k.hi, phi), _mm256_max_epu16(k.hi, phi));
}

// The all-ascending form of the bitonic network (same 15 layers as lane_sort_network.hpp): each
// merge of two sorted blocks of k/2 keys starts by comparing key i with its mirror i ^ (k - 1), and
// every comparison leaves the minimum at the lower index. Blocks of 32 span both registers.
SMEMSIM_TARGET inline void sort32(Keys& k) {
  step<Partner::Xor1, 1>(k);     // blocks of 2
  step<Partner::Mirror4, 2>(k);  // 4
  step<Partner::Xor1, 1>(k);
  step<Partner::Mirror8, 4>(k);  // 8
  step<Partner::Xor2, 2>(k);
  step<Partner::Xor1, 1>(k);
  step<Partner::Mirror16, 8>(k);  // 16
  step<Partner::Xor4, 4>(k);
  step<Partner::Xor2, 2>(k);
  step<Partner::Xor1, 1>(k);
  const __m256i mirrored = partners<Partner::Mirror16>(k.hi);  // 32: key i against 31 - i
  const __m256i mn = _mm256_min_epu16(k.lo, mirrored);
  k.hi = partners<Partner::Mirror16>(_mm256_max_epu16(k.lo, mirrored));
  k.lo = mn;
  step<Partner::Xor8, 8>(k);
  step<Partner::Xor4, 4>(k);
  step<Partner::Xor2, 2>(k);
  step<Partner::Xor1, 1>(k);
}

// Each key's predecessor (0 before key 0): shift the 32 keys up by one across both registers.
SMEMSIM_TARGET inline Keys predecessors(const Keys& k) {
  const __m256i below_lo = _mm256_permute2x128_si256(k.lo, k.lo, 0x08);  // [0, lo.0]
  const __m256i below_hi = _mm256_permute2x128_si256(k.hi, k.lo, 0x03);  // [lo.1, hi.0]
  return {_mm256_alignr_epi8(k.lo, below_lo, 14), _mm256_alignr_epi8(k.hi, below_hi, 14)};
}

// One bit per key from two registers of 16-bit compare results.
SMEMSIM_TARGET inline std::uint32_t movemask32(__m256i lo, __m256i hi) {
  const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(lo, hi), 0xD8);
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(bytes));
}

SMEMSIM_TARGET inline std::uint32_t equal_mask(const Keys& a, const Keys& b) {
  return movemask32(_mm256_cmpeq_epi16(a.lo, b.lo), _mm256_cmpeq_epi16(a.hi, b.hi));
}

// 0xFFFF in the keys whose bit of `live` is clear.
SMEMSIM_TARGET inline Keys with_sentinels(Keys k, std::uint32_t live) {
  const __m256i bit = load256(kTables.bit);
  const __m256i lo = _mm256_and_si256(_mm256_set1_epi16(static_cast<short>(live)), bit);
  const __m256i hi = _mm256_and_si256(_mm256_set1_epi16(static_cast<short>(live >> 16)), bit);
  // A key stays where its bit is set; elsewhere the compare gives 0 and the OR all ones.
  const __m256i ones = _mm256_set1_epi16(-1);
  k.lo = _mm256_or_si256(k.lo, _mm256_xor_si256(_mm256_cmpeq_epi16(lo, bit), ones));
  k.hi = _mm256_or_si256(k.hi, _mm256_xor_si256(_mm256_cmpeq_epi16(hi, bit), ones));
  return k;
}

// Eight 32-bit values below 2^16 per register, 16 per result, in order.
SMEMSIM_TARGET inline __m256i pack16(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
}

SMEMSIM_TARGET inline Keys load_words16(const std::uint32_t* addr, int count, int shift,
                                        std::uint32_t* addr_out) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m128i sh = _mm_cvtsi32_si128(shift);
  __m256i v[4];
  for (int q = 0; q < 4; ++q) {
    const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(count - 8 * q), iota);
    const __m256i a = _mm256_maskload_epi32(reinterpret_cast<const int*>(addr + 8 * q), in);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(addr_out + 8 * q), a);
    v[q] = _mm256_srl_epi32(a, sh);
  }
  return {pack16(v[0], v[1]), pack16(v[2], v[3])};
}

// The fixed index functions (seed 000 Table I) on 16-bit addresses, given a >> m.
SMEMSIM_TARGET inline __m256i fixed_index16(__m256i a, __m256i high, FixedFn f) {
  const __m256i mask = _mm256_set1_epi16(static_cast<short>((1u << f.m) - 1));
  switch (f.kind) {
    case FixedIndex::Xor:
      return _mm256_and_si256(_mm256_xor_si256(a, high), mask);
    case FixedIndex::Add:
      return _mm256_and_si256(_mm256_add_epi16(a, high), mask);
    default:
      return _mm256_and_si256(a, mask);
  }
}

SMEMSIM_TARGET inline __m256i bank_key(__m256i u, FixedFn bank) {
  const __m256i tag = _mm256_srl_epi16(u, _mm_cvtsi32_si128(bank.m));
  const __m256i b = fixed_index16(u, tag, bank);
  return _mm256_or_si256(_mm256_sll_epi16(b, _mm_cvtsi32_si128(16 - bank.m)), tag);
}

template <bool kPext>
SMEMSIM_TARGET inline Runs sorted_bank_runs(const Keys& s, int n, int m) {
  if (n == 0) return {};
  const Keys prev = predecessors(s);
  const __m128i shift = _mm_cvtsi32_si128(16 - m);
  const std::uint32_t new_unit = ~equal_mask(s, prev);
  const std::uint32_t same_bank =
      equal_mask({_mm256_srl_epi16(s.lo, shift), _mm256_srl_epi16(s.hi, shift)},
                 {_mm256_srl_epi16(prev.lo, shift), _mm256_srl_epi16(prev.hi, shift)});
  const RunMasks rm = run_masks(new_unit, same_bank, n);
  if constexpr (kPext) return bank_runs(rm, _pext_u32(rm.same_bank, rm.new_unit));
  return bank_runs(rm, compress_bits(rm.same_bank, rm.new_unit, rm.live));
}

SMEMSIM_TARGET inline void store_keys(std::uint16_t* keys, const Keys& k) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(keys), k.lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(keys + 16), k.hi);
}

template <bool kPext>
SMEMSIM_TARGET FastLoad load(const std::uint32_t* addr, int count, std::uint32_t active,
                             int unit_shift, FixedFn bank, std::uint32_t* addr_out,
                             std::uint16_t* keys) {
  // Bank-unit addresses fit 16 bits (fast_bank_supported).
  const Keys u = load_words16(addr, count, unit_shift, addr_out);
  const std::uint32_t live = active & low_mask(count);
  Keys k = with_sentinels({bank_key(u.lo, bank), bank_key(u.hi, bank)}, live);
  store_keys(keys, k);
  sort32(k);
  const Runs r = sorted_bank_runs<kPext>(k, std::popcount(live), bank.m);
  return {r.bank, r.position};
}

template <bool kPext>
SMEMSIM_TARGET int bank_degree(const std::uint16_t* keys, std::uint32_t subset, int m) {
  Keys k = with_sentinels({load256(keys), load256(keys + 16)}, subset);
  sort32(k);
  return sorted_bank_runs<kPext>(k, std::popcount(subset), m).bank;
}

SMEMSIM_TARGET int lock_ranks_avx2(const std::uint32_t* addr, std::uint32_t active, FixedFn lock,
                                   std::uint32_t* rank_lanes) {
  const int n = std::popcount(active);
  if (n == 0) return 0;
  // Word addresses fit 16 bits (fast_lock_supported).
  const __m256i a_lo = pack16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr)),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8)));
  const __m256i a_hi = pack16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 16)),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 24)));
  const __m128i m = _mm_cvtsi32_si128(lock.m);
  const __m256i l_lo = fixed_index16(a_lo, _mm256_srl_epi16(a_lo, m), lock);
  const __m256i l_hi = fixed_index16(a_hi, _mm256_srl_epi16(a_hi, m), lock);
  Keys k = with_sentinels({_mm256_or_si256(_mm256_slli_epi16(l_lo, 5), load256(kTables.lane_lo)),
                           _mm256_or_si256(_mm256_slli_epi16(l_hi, 5), load256(kTables.lane_hi))},
                          active);
  sort32(k);
  const Keys prev = predecessors(k);
  // Sorted positions whose lock is the one before them: every lane but the first of its lock.
  const std::uint32_t later =
      equal_mask({_mm256_srli_epi16(k.lo, 5), _mm256_srli_epi16(k.hi, 5)},
                 {_mm256_srli_epi16(prev.lo, 5), _mm256_srli_epi16(prev.hi, 5)}) &
      ~1u & low_mask(n);
  alignas(32) std::uint16_t sorted[32];
  store_keys(sorted, k);
  return lock_ranks(sorted, later, active, rank_lanes);
}

SMEMSIM_TARGET std::uint32_t sort_keys(std::uint16_t* keys) {
  Keys k{load256(keys), load256(keys + 16)};
  sort32(k);
  store_keys(keys, k);
  return ~equal_mask(k, predecessors(k)) | 1u;
}

constexpr LaneSortKernel kPextKernel{"avx2", load<true>, bank_degree<true>, lock_ranks_avx2,
                                     sort_keys};
constexpr LaneSortKernel kLoopKernel{"avx2", load<false>, bank_degree<false>, lock_ranks_avx2,
                                     sort_keys};

}  // namespace

const LaneSortKernel* lane_sort_avx2() {
  static const LaneSortKernel* const k =
      !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) ? nullptr
      : __builtin_cpu_is("znver1") || __builtin_cpu_is("znver2")          ? &kLoopKernel
                                                                          : &kPextKernel;
  return k;
}

// For the tests: the compress_bits build, on any CPU with AVX2 and BMI2.
const LaneSortKernel* lane_sort_avx2_without_pext() {
  return lane_sort_avx2() ? &kLoopKernel : nullptr;
}

#endif

}  // namespace smemsim::detail

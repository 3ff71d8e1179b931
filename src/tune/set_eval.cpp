// Conflicts of the reference sets under XOR functions: bit-sliced, with an AVX-512 kernel over 16
// sets at a time where the CPU has VPOPCNTDQ, an AVX2 kernel over 8 where it has AVX2, and the
// scalar branch-and-bound kernel otherwise.
#include <tbb/enumerable_thread_specific.h>

#include "tune_internal.hpp"

#if defined(__x86_64__)
// GCC 12 warns inside its own AVX-512 headers (-Wmaybe-uninitialized on an intrinsic temporary),
// where the intrinsics are used in this file: ignored for the whole file, which is therefore never
// merged into a unity source (src/CMakeLists.txt). Clang has no such group.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#endif

namespace smemsim {
namespace tune {

std::size_t chunk_count(const ReferenceSets& s) {
  return (s.blocks() + kChunkBlocks - 1) / kChunkBlocks +
         (s.wide().size() + kChunkWide - 1) / kChunkWide;
}

namespace {

constexpr int kSimdMaxBits = 8;  // the full-tree SIMD kernel holds 2^m leaves

std::int64_t block_scalar(const ReferenceSets& s, std::size_t b, const XorMatrix& x) {
  const std::uint32_t* blk = s.block(b);
  const std::uint64_t* w = s.block_weights(b);
  const int n = s.geometry().addr_bits;
  std::int64_t total = 0;
  std::array<std::uint64_t, kMaxAddrBits> slice{};
  std::array<std::uint64_t, kMaxIndexBits> bs{};
  for (std::size_t l = 0; l < ReferenceSets::kBlock; ++l) {
    if (!w[l]) continue;
    for (int i = 0; i < n; ++i)
      slice[std::size_t(i)] = blk[std::size_t(i) * ReferenceSets::kBlock + l];
    index_slices(x, slice.data(), bs.data());
    const int d = max_bin(bs.data(), x.m, blk[std::size_t(n) * ReferenceSets::kBlock + l]);
    total += std::int64_t(w[l]) * (d - 1);
  }
  return total;
}

#if defined(__x86_64__)
// Blocks [b0, b1) under one candidate, m = M known at compile time so that the tree of node masks
// (2^(M-1) vectors before the last level) is unrolled into registers. Returns sum of w * degree.
// The vector kernels are not instrumented by UBSan: its checks on the unrolled tree's indices made
// this file take 158 s to compile in the fuzz build (clang, 13 s without); their indices are
// compile-time constants, and HashSpill compares their totals with the portable kernel's.
template <int M>
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"), no_sanitize("undefined"))) std::int64_t
chunk_avx512(const ReferenceSets& s, std::size_t b0, std::size_t b1, const XorMatrix& x) {
  constexpr std::size_t L = ReferenceSets::kBlock;
  const std::size_t n = std::size_t(s.geometry().addr_bits);
  std::array<std::array<std::uint8_t, kMaxAddrBits>, M> bit{};
  std::array<int, M> nbits{};
  for (int j = 0; j < M; ++j)
    for (std::uint32_t r = x.rows[std::size_t(j)]; r; r &= r - 1)
      bit[std::size_t(j)][std::size_t(nbits[std::size_t(j)]++)] = std::uint8_t(std::countr_zero(r));
  __m512i acc = _mm512_setzero_si512();
  for (std::size_t b = b0; b < b1; ++b) {
    const std::uint32_t* blk = s.block(b);
    __m512i bj[M];
    for (int j = 0; j < M; ++j) {
      __m512i v = _mm512_setzero_si512();
      for (int t = 0; t < nbits[std::size_t(j)]; ++t)
        v = _mm512_xor_si512(
            v, _mm512_loadu_si512(blk + std::size_t(bit[std::size_t(j)][std::size_t(t)]) * L));
      bj[j] = v;
    }
    __m512i nodes[1 << (M - 1)];
    nodes[0] = _mm512_loadu_si512(blk + n * L);
#pragma GCC unroll 16
    for (int j = 0; j < M - 1; ++j) {
#pragma GCC unroll 64
      for (int k = (1 << j) - 1; k >= 0; --k) {
        const __m512i nd = nodes[k];
        nodes[2 * k + 1] = _mm512_and_si512(nd, bj[j]);
        nodes[2 * k] = _mm512_andnot_si512(bj[j], nd);
      }
    }
    __m512i best = _mm512_setzero_si512();
#pragma GCC unroll 128
    for (int k = 0; k < (1 << (M - 1)); ++k) {
      // Last level: count the one-child, derive the zero-child from the parent's count.
      const __m512i all = _mm512_popcnt_epi32(nodes[k]);
      const __m512i one = _mm512_popcnt_epi32(_mm512_and_si512(nodes[k], bj[M - 1]));
      best = _mm512_max_epu32(best, _mm512_max_epu32(one, _mm512_sub_epi32(all, one)));
    }
    const std::uint64_t* w = s.block_weights(b);
    const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(best));
    const __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(best, 1));
    acc = _mm512_add_epi64(acc, _mm512_mullo_epi64(lo, _mm512_loadu_si512(w)));
    acc = _mm512_add_epi64(acc, _mm512_mullo_epi64(hi, _mm512_loadu_si512(w + 8)));
  }
  return std::int64_t(_mm512_reduce_add_epi64(acc));
}

using ChunkKernel = std::int64_t (*)(const ReferenceSets&, std::size_t, std::size_t,
                                     const XorMatrix&);
constexpr ChunkKernel kChunkKernels[kSimdMaxBits + 1] = {
    nullptr,         chunk_avx512<1>, chunk_avx512<2>, chunk_avx512<3>, chunk_avx512<4>,
    chunk_avx512<5>, chunk_avx512<6>, chunk_avx512<7>, chunk_avx512<8>};

// AVX2 has no vector popcount: the bits of each byte are counted by a 16-entry table (VPSHUFB on
// the low and high nibbles), and the four bytes of each 32-bit lane summed by two multiply-adds.
__attribute__((target("avx2"))) inline __m256i popcount32_avx2(__m256i v) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(v, nibble));
  const __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
  const __m256i bytes = _mm256_add_epi8(lo, hi);  // 0..8 per byte
  return _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
}

// The AVX-512 kernel's tree on eight sets at a time (each block's 16 sets in two halves), for
// CPUs without AVX-512: the same sum of w * degree, so the same integer totals.
template <int M>
__attribute__((target("avx2"), no_sanitize("undefined"))) std::int64_t chunk_avx2(
    const ReferenceSets& s, std::size_t b0, std::size_t b1, const XorMatrix& x) {
  constexpr std::size_t L = ReferenceSets::kBlock;
  constexpr std::size_t H = L / 8;  // 256-bit halves of a block
  const std::size_t n = std::size_t(s.geometry().addr_bits);
  std::array<std::array<std::uint8_t, kMaxAddrBits>, M> bit{};
  std::array<int, M> nbits{};
  for (int j = 0; j < M; ++j)
    for (std::uint32_t r = x.rows[std::size_t(j)]; r; r &= r - 1)
      bit[std::size_t(j)][std::size_t(nbits[std::size_t(j)]++)] = std::uint8_t(std::countr_zero(r));
  std::int64_t total = 0;
  alignas(32) std::uint32_t degree[8];
  for (std::size_t b = b0; b < b1; ++b) {
    const std::uint32_t* blk = s.block(b);
    const std::uint64_t* w = s.block_weights(b);
    for (std::size_t h = 0; h < H; ++h) {
      const std::uint32_t* half = blk + 8 * h;
      __m256i bj[M];
      for (int j = 0; j < M; ++j) {
        __m256i v = _mm256_setzero_si256();
        for (int t = 0; t < nbits[std::size_t(j)]; ++t)
          v = _mm256_xor_si256(v,
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                   half + std::size_t(bit[std::size_t(j)][std::size_t(t)]) * L)));
        bj[j] = v;
      }
      __m256i nodes[1 << (M - 1)];
      nodes[0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(half + n * L));
#pragma GCC unroll 16
      for (int j = 0; j < M - 1; ++j) {
#pragma GCC unroll 64
        for (int k = (1 << j) - 1; k >= 0; --k) {
          const __m256i nd = nodes[k];
          nodes[2 * k + 1] = _mm256_and_si256(nd, bj[j]);
          nodes[2 * k] = _mm256_andnot_si256(bj[j], nd);
        }
      }
      __m256i best = _mm256_setzero_si256();
#pragma GCC unroll 128
      for (int k = 0; k < (1 << (M - 1)); ++k) {
        const __m256i all = popcount32_avx2(nodes[k]);
        const __m256i one = popcount32_avx2(_mm256_and_si256(nodes[k], bj[M - 1]));
        best = _mm256_max_epu32(best, _mm256_max_epu32(one, _mm256_sub_epi32(all, one)));
      }
      _mm256_store_si256(reinterpret_cast<__m256i*>(degree), best);
      for (std::size_t l = 0; l < 8; ++l) total += std::int64_t(w[8 * h + l]) * degree[l];
    }
  }
  return total;
}

constexpr ChunkKernel kChunkKernelsAvx2[kSimdMaxBits + 1] = {
    nullptr,       chunk_avx2<1>, chunk_avx2<2>, chunk_avx2<3>, chunk_avx2<4>,
    chunk_avx2<5>, chunk_avx2<6>, chunk_avx2<7>, chunk_avx2<8>};

// The vector kernels this CPU runs (nullptr: the portable one): AVX-512 where it has VPOPCNTDQ,
// else AVX2.
const ChunkKernel* simd_kernels() {
  static const ChunkKernel* k = __builtin_cpu_supports("avx512f") &&
                                        __builtin_cpu_supports("avx512dq") &&
                                        __builtin_cpu_supports("avx512vpopcntdq")
                                    ? kChunkKernels
                                : __builtin_cpu_supports("avx2") ? kChunkKernelsAvx2
                                                                 : nullptr;
  return k;
}
#endif

std::int64_t wide_conflicts(const ReferenceSets::WideSet& w, const XorMatrix& x) {
  std::array<std::uint64_t, kMaxIndexBits> bs{};
  index_slices(x, w.slice.data(), bs.data());
  return std::int64_t(w.weight) * (max_bin(bs.data(), x.m, w.all) - 1);
}

}  // namespace
}  // namespace tune

std::vector<std::int64_t> total_conflicts(const ReferenceSets& sets,
                                          std::span<const XorMatrix> cands, bool allow_simd) {
  using namespace tune;
  tbb::enumerable_thread_specific<std::vector<std::int64_t>> acc(
      [&] { return std::vector<std::int64_t>(cands.size(), 0); });
#if defined(__x86_64__)
  const ChunkKernel* simd = allow_simd ? simd_kernels() : nullptr;
#else
  (void)allow_simd;
#endif
  for_each_segment(sets, [&] {
    const std::size_t narrow_chunks = (sets.blocks() + kChunkBlocks - 1) / kChunkBlocks;
    // Sum of the weights per chunk: the SIMD kernel sums w * degree; conflicts = that - sum of w.
    std::vector<std::int64_t> chunk_weight(narrow_chunks, 0);
    for (std::size_t c = 0; c < narrow_chunks; ++c)
      for (std::size_t b = c * kChunkBlocks; b < std::min(sets.blocks(), (c + 1) * kChunkBlocks);
           ++b)
        for (std::size_t l = 0; l < ReferenceSets::kBlock; ++l)
          chunk_weight[c] += std::int64_t(sets.block_weights(b)[l]);
    parallel_chunks(sets, [&](std::size_t c) {
      std::vector<std::int64_t>& a = acc.local();
      if (c < narrow_chunks) {
        const std::size_t b0 = c * kChunkBlocks, b1 = std::min(sets.blocks(), b0 + kChunkBlocks);
        for (std::size_t k = 0; k < cands.size(); ++k) {
          const XorMatrix& x = cands[k];
          std::int64_t t = 0;
#if defined(__x86_64__)
          if (simd && x.m <= kSimdMaxBits) {
            a[k] += simd[x.m](sets, b0, b1, x) - chunk_weight[c];
            continue;
          }
#endif
          for (std::size_t b = b0; b < b1; ++b) t += block_scalar(sets, b, x);
          a[k] += t;
        }
        return;
      }
      const auto wide = sets.wide();
      const std::size_t i0 = (c - narrow_chunks) * kChunkWide,
                        i1 = std::min(wide.size(), i0 + kChunkWide);
      for (std::size_t k = 0; k < cands.size(); ++k)
        for (std::size_t i = i0; i < i1; ++i) a[k] += wide_conflicts(wide[i], cands[k]);
    });
  });
  std::vector<std::int64_t> total(cands.size(), 0);
  for (const auto& a : acc)  // integer sums: the order does not matter
    for (std::size_t k = 0; k < total.size(); ++k) total[k] += a[k];
  return total;
}

std::int64_t total_conflicts(const ReferenceSets& sets, const XorMatrix& x) {
  return total_conflicts(sets, std::span<const XorMatrix>(&x, 1))[0];
}

}  // namespace smemsim

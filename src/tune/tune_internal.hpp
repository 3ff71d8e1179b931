// Internals shared by the searches: per-set iteration, the tie rule, result filling.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "smemsim/hash_search.hpp"

namespace smemsim::tune {

// A view of one set, widened to 64-bit slices.
struct SetView {
  std::array<std::uint64_t, kMaxAddrBits> slice{};
  std::uint64_t all = 0;
  std::uint64_t weight = 0;
  int count() const { return std::popcount(all); }
};

// Chunks of sets with fixed boundaries (independent of the thread count): chunk c holds blocks
// [c * kChunkBlocks, ...) of the narrow sets; the wide sets form the last chunks.
inline constexpr std::size_t kChunkBlocks = 64;
inline constexpr std::size_t kChunkWide = 1024;
std::size_t chunk_count(const ReferenceSets& s);
// Calls f(const SetView&) for every set of chunk c, in a fixed order.
template <class F>
void for_each_in_chunk(const ReferenceSets& s, std::size_t c, F&& f) {
  const std::size_t narrow_chunks = (s.blocks() + kChunkBlocks - 1) / kChunkBlocks;
  const int n = s.geometry().addr_bits;
  SetView v;
  if (c < narrow_chunks) {
    const std::size_t b_end = std::min(s.blocks(), (c + 1) * kChunkBlocks);
    for (std::size_t b = c * kChunkBlocks; b < b_end; ++b) {
      const std::uint32_t* blk = s.block(b);
      const std::uint64_t* w = s.block_weights(b);
      for (std::size_t l = 0; l < ReferenceSets::kBlock; ++l) {
        if (!w[l]) continue;
        for (int i = 0; i < n; ++i)
          v.slice[std::size_t(i)] = blk[std::size_t(i) * ReferenceSets::kBlock + l];
        v.all = blk[std::size_t(n) * ReferenceSets::kBlock + l];
        v.weight = w[l];
        f(v);
      }
    }
    return;
  }
  const auto wide = s.wide();
  const std::size_t first = (c - narrow_chunks) * kChunkWide;
  for (std::size_t i = first; i < std::min(wide.size(), first + kChunkWide); ++i) {
    v.slice = wide[i].slice;
    v.all = wide[i].all;
    v.weight = wide[i].weight;
    f(v);
  }
}

// Runs f() once per segment of the sets (ReferenceSets::select_segment), in segment order, and
// leaves the in-memory segment selected. Evaluators sum their per-segment results in this order.
template <class F>
void for_each_segment(const ReferenceSets& s, F&& f) {
  struct Restore {
    const ReferenceSets& s;
    ~Restore() { s.select_segment(s.segments() - 1); }
  } restore{s};
  for (std::size_t i = 0; i < s.segments(); ++i) {
    s.select_segment(i);
    f();
  }
}

// Runs body(c) for every chunk of the selected segment in parallel (oneTBB). The loop has its own
// (isolated) context: run inside a study's point, a cancellation of the study's loop (another
// point threw) would otherwise end it early without an exception, with chunks not run.
template <class F>
void parallel_chunks(const ReferenceSets& s, F&& body) {
  tbb::task_group_context own(tbb::task_group_context::isolated);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, chunk_count(s), 1),
      [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t c = r.begin(); c != r.end(); ++c) body(c);
      },
      own);
}

// The largest number of elements of `all` sharing one index value, given the index bit-slices.
// Depth-first over index bits, larger child first, pruning subtrees that cannot beat the best.
inline int max_bin(const std::uint64_t* b, int m, std::uint64_t all) {
  struct Node {
    std::uint64_t mask;
    int level;
  };
  Node stack[2 * kMaxIndexBits + 2];
  int sp = 0, best = 0;
  stack[sp++] = {all, 0};
  while (sp) {
    const Node nd = stack[--sp];
    const int pc = std::popcount(nd.mask);
    if (pc <= best) continue;
    if (nd.level == m || pc == 1) {
      best = pc;
      continue;
    }
    const std::uint64_t one = nd.mask & b[nd.level], zero = nd.mask & ~b[nd.level];
    if (std::popcount(one) >= std::popcount(zero)) {
      stack[sp++] = {zero, nd.level + 1};
      stack[sp++] = {one, nd.level + 1};
    } else {
      stack[sp++] = {one, nd.level + 1};
      stack[sp++] = {zero, nd.level + 1};
    }
  }
  return best;
}

// Index slices of a set under x: b[j] = XOR of the address slices in row j.
inline void index_slices(const XorMatrix& x, const std::uint64_t* slice, std::uint64_t* b) {
  for (int j = 0; j < x.m; ++j) {
    std::uint64_t v = 0;
    for (std::uint32_t r = x.rows[std::size_t(j)]; r; r &= r - 1) v ^= slice[std::countr_zero(r)];
    b[j] = v;
  }
}

// The tie rule (docs/hashing.md): fewer conflicts, then fewer XOR gates, then the earlier
// candidate.
inline bool better(std::int64_t c1, int g1, std::int64_t c2, int g2) {
  return c1 != c2 ? c1 < c2 : g1 < g2;
}

// Near-equality of heuristic scores (sums of floating-point ratios computed in one fixed order):
// two scores within this relative distance are a tie, resolved by the candidate order.
inline bool score_less(double a, double b) {
  return a < b - 1e-9 * std::max(1.0, std::fabs(b));
}

void finish(const ReferenceSets& sets, SearchResult& r);  // baseline, reduction, bijective

// The candidates of the bv (with_xor false) or bvxor exhaustive search, as search_bitvector
// evaluates them, with their specs; `pruned`: seed 002 §5.1's reduced set was used.
std::vector<XorMatrix> bitvector_candidates(const ReferenceSets& sets, bool with_xor,
                                            bool bijective_only, std::vector<std::string>& specs,
                                            bool& pruned);

}  // namespace smemsim::tune

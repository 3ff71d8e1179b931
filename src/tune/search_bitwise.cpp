// The bitwise heuristics of seed 002 §5.2: the Givargis heuristic extended to several reference
// sets (§5.2.1: qualities summed over the sets, each set updated with its own correlations) and the
// Minimum Imbalance Heuristic (§5.2.2, Eq. 13-15). For bitwise XOR the candidate columns are every
// address bit and every pair of bits (Table 3): n (n + 1) / 2 of them, single bits first.
#include <array>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "tune_internal.hpp"

namespace smemsim {
namespace tune {
namespace {

struct Columns {
  std::vector<std::uint32_t> mask;  // address bits XORed into the column: one bit or two
  std::vector<std::pair<int, int>> term;
};

// Candidate order: single bits 0..n-1 (no XOR gate), then pairs (i, j), i < j, lexicographic.
Columns make_columns(int n, bool with_xor) {
  Columns c;
  for (int i = 0; i < n; ++i) {
    c.mask.push_back(1u << i);
    c.term.emplace_back(i, -1);
  }
  if (with_xor)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        c.mask.push_back((1u << i) | (1u << j));
        c.term.emplace_back(i, j);
      }
  return c;
}

// GF(2) span test against the selected columns: a column in their span would leave banks unused
// (with single bits only this is just "already selected").
bool in_span(const std::vector<std::uint32_t>& basis, std::uint32_t v) {
  for (std::uint32_t b : basis)
    if ((v ^ b) < v) v ^= b;  // basis kept with distinct leading bits, descending
  return v == 0;
}
void add_to_basis(std::vector<std::uint32_t>& basis, std::uint32_t v) {
  for (std::uint32_t b : basis)
    if ((v ^ b) < v) v ^= b;
  if (!v) return;
  basis.push_back(v);
  std::sort(basis.begin(), basis.end(), std::greater<>());
}

// MIH's per-set work for every candidate column i (see search_mih): the Eq. 14 numerator
//   base + sum over multi-element nodes k of |bins a - c| + |bins (pop_k - a) - c|,
//   a = |node_k & column_i|,
// scaled and added into acc[i] (Eq. 15). Columns are the inner loop so that it vectorizes: the
// body is compiled twice, for AVX-512 with VPOPCNTDQ (eight columns per instruction, chosen at run
// time) and for the baseline; integer numerators make both give the same scores.
inline constexpr std::size_t kMaxColumns = std::size_t(kMaxAddrBits) * (kMaxAddrBits + 1) / 2;

struct MihSet {
  const std::uint64_t* multi;  // nodes of two or more elements
  const std::int64_t* pop;     // their sizes
  std::size_t nm;
  std::int64_t bins, c, base;
  double scale;
};

[[gnu::always_inline]] inline void mih_body(const MihSet& m, const std::uint64_t* cs, std::size_t P,
                                            double* acc) {
  alignas(64) std::int64_t num[kMaxColumns];
  for (std::size_t i = 0; i < P; ++i) num[i] = m.base;
  for (std::size_t k = 0; k < m.nm; ++k) {
    const std::uint64_t node = m.multi[k];
    const std::int64_t p = m.pop[k];
    for (std::size_t i = 0; i < P; ++i) {
      const std::int64_t a = std::popcount(node & cs[i]);
      const std::int64_t in = m.bins * a - m.c;
      const std::int64_t out = m.bins * (p - a) - m.c;
      num[i] += (in < 0 ? -in : in) + (out < 0 ? -out : out);
    }
  }
  for (std::size_t i = 0; i < P; ++i) acc[i] += double(num[i]) * m.scale;
}

void mih_portable(const MihSet& m, const std::uint64_t* cs, std::size_t P, double* acc) {
  mih_body(m, cs, P, acc);
}
using MihKernel = void (*)(const MihSet&, const std::uint64_t*, std::size_t, double*);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f,avx512vpopcntdq"))) void mih_avx512(const MihSet& m,
                                                                   const std::uint64_t* cs,
                                                                   std::size_t P, double* acc) {
  mih_body(m, cs, P, acc);
}
MihKernel mih_kernel() {
  static const MihKernel k =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") ? mih_avx512
                                                                                     : mih_portable;
  return k;
}
#else
MihKernel mih_kernel() {
  return mih_portable;
}
#endif

void col_slices(const SetView& v, const Columns& cols, std::uint64_t* out) {
  for (std::size_t k = 0; k < cols.mask.size(); ++k) {
    std::uint64_t s = 0;
    for (std::uint32_t r = cols.mask[k]; r; r &= r - 1)
      s ^= v.slice[std::size_t(std::countr_zero(r))];
    out[k] = s;
  }
}

// Sums per-chunk score vectors in chunk order (deterministic for any thread count).
template <class PerSet>
std::vector<double> summed_scores(const ReferenceSets& sets, std::size_t ncols, PerSet&& per_set) {
  std::vector<double> total(ncols, 0.0);
  for_each_segment(sets, [&] {
    const std::size_t chunks = chunk_count(sets);
    std::vector<std::vector<double>> part(chunks);
    parallel_chunks(sets, [&](std::size_t c) {
      std::vector<double> acc(ncols, 0.0);
      std::vector<std::uint64_t> cs(ncols);
      for_each_in_chunk(sets, c, [&](const SetView& v) {
        col_slices(v, per_set.cols, cs.data());
        per_set(v, cs.data(), acc);
      });
      part[c] = std::move(acc);
    });
    for (const auto& p : part)
      for (std::size_t k = 0; k < ncols; ++k) total[k] += p[k];
  });
  return total;
}

// Appends the best column that is not a combination of those already chosen (a dependent column
// would leave banks unused): the highest or the lowest score; ties keep the earlier column.
void pick_column(const Columns& cols, const std::vector<double>& score,
                 std::vector<std::uint32_t>& basis, std::vector<int>& order,
                 std::uint64_t& evaluated, bool highest) {
  int best = -1;
  for (std::size_t i = 0; i < cols.mask.size(); ++i) {
    if (in_span(basis, cols.mask[i])) continue;
    ++evaluated;
    const double b = best < 0 ? 0.0 : score[std::size_t(best)];
    if (best < 0 || (highest ? score_less(b, score[i]) : score_less(score[i], b))) best = int(i);
  }
  order.push_back(best);
  add_to_basis(basis, cols.mask[std::size_t(best)]);
}

SearchResult from_order(const ReferenceSets& sets, const Columns& cols,
                        const std::vector<int>& order, bool with_xor, const char* heuristic,
                        std::uint64_t evaluated) {
  const IndexGeometry g = sets.geometry();
  SearchResult r;
  r.family = with_xor ? "bitsxor" : "bits";
  r.heuristic = heuristic;
  r.matrix.m = g.out_bits;
  r.matrix.n = g.addr_bits;
  std::vector<int> bits;
  std::vector<std::pair<int, int>> terms;
  for (std::size_t j = 0; j < order.size(); ++j) {
    r.matrix.rows[j] = cols.mask[std::size_t(order[j])];
    bits.push_back(cols.term[std::size_t(order[j])].first);
    terms.push_back(cols.term[std::size_t(order[j])]);
  }
  r.spec = with_xor ? bitsxor_spec(terms) : bits_spec(bits);
  r.order = order;
  r.candidates_evaluated = evaluated;
  r.conflicts = total_conflicts(sets, r.matrix);
  finish(sets, r);
  return r;
}

// min(x, c - x) / max(x, c - x): Eq. 11 (x = ones) and Eq. 12 (x = differing bits).
struct RatioTable {
  std::array<std::array<double, 65>, 65> v{};
  RatioTable() {
    for (int c = 1; c <= 64; ++c)
      for (int x = 0; x <= c; ++x)
        v[std::size_t(c)][std::size_t(x)] = double(std::min(x, c - x)) / double(std::max(x, c - x));
  }
};
const RatioTable& ratios() {
  static const RatioTable table;
  return table;
}

// 002 §5.2's greedy frame, shared by both heuristics: out_bits times, score every candidate column
// over the reference sets (per_set(cols, order, t) scores one set) and keep the best column
// independent of those kept, the highest score or the lowest.
template <class MakePerSet>
SearchResult greedy_columns(const ReferenceSets& sets, bool with_xor, const char* heuristic,
                            bool highest, MakePerSet make_per_set) {
  const IndexGeometry g = sets.geometry();
  const Columns cols = make_columns(g.addr_bits, with_xor);
  std::vector<int> order;
  std::vector<std::uint32_t> basis;
  std::uint64_t evaluated = 0;
  for (int t = 0; t < g.out_bits; ++t) {
    const std::vector<double> score =
        summed_scores(sets, cols.mask.size(), make_per_set(cols, order, t));
    pick_column(cols, score, basis, order, evaluated, highest);
  }
  return from_order(sets, cols, order, with_xor, heuristic, evaluated);
}

// Givargis (002 §5.2.1): a column's quality in one set.
struct GivargisScore {
  const Columns& cols;
  const std::vector<int>& order;
  std::size_t P;
  void operator()(const SetView& v, const std::uint64_t* cs, std::vector<double>& acc) const {
    const int c = v.count();
    const auto& rt = ratios().v[std::size_t(c)];
    const double w = double(v.weight);
    for (std::size_t i = 0; i < P; ++i) {
      // Q_i (Eq. 11) times C_bi (Eq. 12) of every bit selected so far, in this set.
      double q = rt[std::size_t(std::popcount(cs[i]))];
      for (int b : order) q *= rt[std::size_t(std::popcount(cs[i] ^ cs[std::size_t(b)]))];
      acc[i] += w * q;
    }
  }
};

// MIH (002 §5.2.2): a column's imbalance in one set at step t.
struct MihScore {
  const Columns& cols;
  const std::vector<int>& order;
  std::size_t P;
  int t;
  MihKernel kernel;
  void operator()(const SetView& v, const std::uint64_t* cs, std::vector<double>& acc) const {
    // The non-empty bins of the histogram over the bits selected so far (an empty bin splits
    // into two empty bins of the next step).
    std::array<std::uint64_t, 64> nodes;
    std::size_t nn = 1;
    nodes[0] = v.all;
    for (int b : order) {
      const std::uint64_t col = cs[std::size_t(b)];
      std::size_t k2 = 0;
      std::array<std::uint64_t, 64> next;
      for (std::size_t k = 0; k < nn; ++k) {
        if (const std::uint64_t x = nodes[k] & col) next[k2++] = x;
        if (const std::uint64_t x = nodes[k] & ~col) next[k2++] = x;
      }
      nodes = next;
      nn = k2;
    }
    const std::int64_t c = v.count();
    const std::int64_t bins = std::int64_t{1} << (t + 1);  // 2^(t+1) bins with the candidate
    // Eq. 14 scaled by 2^(t+1) * |R|: sum over bins of |2^(t+1) h_j - |R||; an empty bin adds
    // |R|.
    const std::int64_t empty_pairs = (bins / 2) - std::int64_t(nn);
    const double scale = double(v.weight) / (double(bins) * double(c));
    // A node of one element adds |bins - c| + c whichever way the candidate splits it: a
    // constant. Only nodes of two or more elements depend on the column.
    std::int64_t base = empty_pairs * 2 * c;
    std::array<std::uint64_t, 64> multi;
    std::array<std::int64_t, 64> pop;
    std::size_t nm = 0;
    for (std::size_t k = 0; k < nn; ++k) {
      const int p = std::popcount(nodes[k]);
      if (p == 1) {
        base += std::llabs(bins - c) + c;
      } else {
        multi[nm] = nodes[k];
        pop[nm++] = p;
      }
    }
    kernel({multi.data(), pop.data(), nm, bins, c, base, scale}, cs, P, acc.data());
  }
};

}  // namespace
}  // namespace tune

SearchResult search_givargis(const ReferenceSets& sets, bool with_xor) {
  using namespace tune;
  // Givargis keeps the column of highest quality.
  return greedy_columns(sets, with_xor, "givargis", /*highest=*/true,
                        [](const Columns& cols, const std::vector<int>& order, int) {
                          return GivargisScore{cols, order, cols.mask.size()};
                        });
}

SearchResult search_mih(const ReferenceSets& sets, bool with_xor, bool allow_simd) {
  using namespace tune;
  const MihKernel kernel = allow_simd ? mih_kernel() : mih_portable;
  // MIH keeps the column of minimum imbalance (Eq. 13).
  return greedy_columns(sets, with_xor, "mih", /*highest=*/false,
                        [&](const Columns& cols, const std::vector<int>& order, int t) {
                          return MihScore{cols, order, cols.mask.size(), t, kernel};
                        });
}

}  // namespace smemsim

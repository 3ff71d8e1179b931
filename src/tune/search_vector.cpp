// Exhaustive searches: the bit-vector families of seed 002 §5.1 (with its candidate pruning) and
// all C(n, m) bitwise permutations.
#include <algorithm>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "tune_internal.hpp"

namespace smemsim {
namespace tune {

void finish(const ReferenceSets& sets, SearchResult& r) {
  // The baseline is mod: the low m bits (bv:k=0).
  r.baseline_conflicts = total_conflicts(sets, bvxor_matrix(0, 0, 0, sets.geometry()));
  r.reduction = r.baseline_conflicts > 0
                    ? double(r.baseline_conflicts - r.conflicts) / double(r.baseline_conflicts)
                    : 0.0;
  r.bijective = r.matrix.software_bijective();
}

namespace {

// Picks the best candidate by the tie rule; returns its index.
std::size_t pick(std::span<const XorMatrix> cands, const std::vector<std::int64_t>& conf) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < cands.size(); ++k)
    if (better(conf[k], cands[k].xor_gates(), conf[best], cands[best].xor_gates())) best = k;
  return best;
}

// Drops the candidates that are not bijective as software hashes (keeps the order).
void keep_bijective(std::vector<XorMatrix>& cands, std::vector<std::string>* specs) {
  std::size_t o = 0;
  for (std::size_t k = 0; k < cands.size(); ++k)
    if (cands[k].software_bijective()) {
      cands[o] = cands[k];
      if (specs) (*specs)[o] = (*specs)[k];
      ++o;
    }
  cands.resize(o);
  if (specs) specs->resize(o);
  if (cands.empty())
    throw InputError(
        "no candidate of this family is a bijection as a software hash (needed for "
        "--emit / --bijective); try bvxor or xormask");
}

constexpr std::uint64_t kMaxCandidates = 20'000'000;

}  // namespace
}  // namespace tune

std::vector<XorMatrix> bvxor_candidates(const ReferenceSets& sets, bool& pruned,
                                        std::vector<std::string>* specs, bool allow_pruning) {
  const IndexGeometry g = sets.geometry();
  const int n = g.addr_bits, m = g.out_bits;
  std::vector<XorMatrix> out;
  const auto push = [&](int k1, int k2, std::uint32_t mask) {
    out.push_back(bvxor_matrix(k1, k2, mask, g));
    if (specs) specs->push_back(bvxor_spec(k1, k2, mask));
  };
  pruned = allow_pruning && sets.all_strided();
  if (pruned) {
    // 002 §5.1: k1 over the k of the strides (S = S0 * 2^k); k2 from the minimum k to the maximum
    // MSB = floor(log2((t - 1) * S)), k2 != k1; masks only over address bits <= MSB.
    const std::uint32_t ks = sets.stride_ks();
    const int kmin = std::countr_zero(ks);
    const int msb = std::min(sets.max_msb(), n - 1);
    for (int k1 = 0; k1 <= n - m; ++k1) {
      if (!((ks >> k1) & 1u)) continue;
      for (int k2 = kmin; k2 <= msb; ++k2) {
        if (k2 == k1) continue;
        const int width = std::min(m, msb - k2 + 1);
        for (std::uint32_t mask = 0; mask < (1u << width); ++mask) push(k1, k2, mask);
      }
    }
    if (!out.empty()) return out;
    pruned = false;  // every stride's k is above n - m: fall back to the full space
  }
  const std::uint64_t total = std::uint64_t(n - m + 1) * std::uint64_t(n) << m;
  if (total > tune::kMaxCandidates)
    throw InputError(
        fmt::format("the bit-vector XOR space has {} candidates for n={}, m={}: too many "
                    "for an exhaustive search (limit {})",
                    total, n, m, tune::kMaxCandidates));
  // All (n - m + 1) * n * 2^m candidates (002 §4.2, Table 1), in (k1, k2, mask) order.
  for (int k1 = 0; k1 <= n - m; ++k1)
    for (int k2 = 0; k2 < n; ++k2)
      for (std::uint32_t mask = 0; mask < (1u << m); ++mask) push(k1, k2, mask);
  return out;
}

namespace tune {

std::vector<XorMatrix> bitvector_candidates(const ReferenceSets& sets, bool with_xor,
                                            bool bijective_only, std::vector<std::string>& specs,
                                            bool& pruned) {
  const IndexGeometry g = sets.geometry();
  std::vector<XorMatrix> cands;
  specs.clear();
  pruned = false;
  if (with_xor) {
    // §5.1's pruning keeps only k1 among the strides' k, which can leave no software bijection
    // (every stride even: k1 = 0 is pruned away); --emit / --bijective search the whole space.
    cands = bvxor_candidates(sets, pruned, &specs, /*allow_pruning=*/!bijective_only);
  } else {
    for (int k = 0; k <= g.addr_bits - g.out_bits; ++k) {  // 002 §4.1: n - m + 1 candidates
      cands.push_back(bvxor_matrix(k, 0, 0, g));
      specs.push_back(bv_spec(k));
    }
  }
  if (bijective_only) keep_bijective(cands, &specs);
  return cands;
}

}  // namespace tune

SearchResult search_bitvector(const ReferenceSets& sets, bool with_xor, bool bijective_only) {
  using namespace tune;
  SearchResult r;
  r.family = with_xor ? "bvxor" : "bv";
  r.heuristic = "exhaustive";
  std::vector<std::string> specs;
  const std::vector<XorMatrix> cands =
      bitvector_candidates(sets, with_xor, bijective_only, specs, r.pruned);
  const auto conf = total_conflicts(sets, cands);
  const std::size_t best = pick(cands, conf);
  r.spec = specs[best];
  r.matrix = cands[best];
  r.conflicts = conf[best];
  r.candidates_evaluated = cands.size();
  finish(sets, r);
  return r;
}

SearchResult search_bits_exhaustive(const ReferenceSets& sets, bool bijective_only) {
  using namespace tune;
  const IndexGeometry g = sets.geometry();
  const int n = g.addr_bits, m = g.out_bits;
  // The order of the bits does not change the conflicts (002 §4.3): C(n, m) subsets, ascending.
  double count = 1;
  for (int i = 1; i <= m; ++i) count = count * (n - m + i) / i;
  if (count > double(kMaxCandidates))
    throw InputError(
        fmt::format("C({}, {}) = {:.3g} bitwise permutations: too many for an "
                    "exhaustive search (use --heuristic mih or givargis)",
                    n, m, count));
  std::vector<XorMatrix> cands;
  std::vector<int> idx(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) idx[std::size_t(i)] = i;
  while (true) {
    XorMatrix x;
    x.m = m;
    x.n = n;
    for (int j = 0; j < m; ++j) x.rows[std::size_t(j)] = 1u << idx[std::size_t(j)];
    cands.push_back(x);
    int i = m - 1;
    while (i >= 0 && idx[std::size_t(i)] == n - m + i) --i;
    if (i < 0) break;
    ++idx[std::size_t(i)];
    for (int j = i + 1; j < m; ++j) idx[std::size_t(j)] = idx[std::size_t(j - 1)] + 1;
  }
  if (bijective_only) keep_bijective(cands, nullptr);
  const auto conf = total_conflicts(sets, cands);
  const std::size_t best = pick(cands, conf);
  SearchResult r;
  r.family = "bits";
  r.heuristic = "exhaustive";
  r.matrix = cands[best];
  std::vector<int> bits;
  for (int j = 0; j < m; ++j) bits.push_back(std::countr_zero(r.matrix.rows[std::size_t(j)]));
  r.spec = bits_spec(bits);
  r.conflicts = conf[best];
  r.candidates_evaluated = cands.size();
  finish(sets, r);
  return r;
}

}  // namespace smemsim

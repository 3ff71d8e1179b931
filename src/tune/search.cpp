// search_hash: family/heuristic dispatch, and the general XOR-matrix search (beyond seed 002).
#include <algorithm>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "tune_internal.hpp"

namespace smemsim {

SearchResult search_xormask(const ReferenceSets& sets, bool bijective_only) {
  using namespace tune;
  const IndexGeometry g = sets.geometry();
  // Start from the best of the paper's families (so the result is never worse than any of them on
  // the same input), then descend: flip one address bit in one row (m * n neighbours), take the
  // best neighbour by the tie rule while it improves (fewer conflicts, or as many with fewer XOR
  // gates).
  std::vector<SearchResult> starts;
  if (!bijective_only)
    starts.push_back(search_bitvector(sets, false));  // bv: bijective only at k=0
  starts.push_back(search_bitvector(sets, true, bijective_only));
  for (bool x : {false, true}) {
    starts.push_back(search_givargis(sets, x));
    starts.push_back(search_mih(sets, x));
  }
  if (bijective_only) {
    std::erase_if(starts, [](const SearchResult& r) { return !r.bijective; });
    // bvxor, unpruned when bijective_only, has k1 = 0, mask = 0 (mod): a bijective start.
  }
  std::uint64_t evaluated = 0;
  std::size_t best_start = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    evaluated += starts[i].candidates_evaluated;
    if (better(starts[i].conflicts, starts[i].matrix.xor_gates(), starts[best_start].conflicts,
               starts[best_start].matrix.xor_gates()))
      best_start = i;
  }
  XorMatrix cur = starts[best_start].matrix;
  std::int64_t cur_conf = starts[best_start].conflicts;
  constexpr int kMaxSteps = 64;
  for (int step = 0; step < kMaxSteps && cur_conf > 0; ++step) {
    std::vector<XorMatrix> nb;
    for (int j = 0; j < g.out_bits; ++j)
      for (int i = 0; i < g.addr_bits; ++i) {
        XorMatrix y = cur;
        y.rows[std::size_t(j)] ^= 1u << i;
        if (!y.rows[std::size_t(j)] || y.rank() != g.out_bits) continue;
        if (bijective_only && !y.software_bijective()) continue;
        nb.push_back(y);
      }
    if (nb.empty()) break;
    const auto conf = total_conflicts(sets, nb);
    evaluated += nb.size();
    std::size_t b = 0;
    for (std::size_t k = 1; k < nb.size(); ++k)
      if (better(conf[k], nb[k].xor_gates(), conf[b], nb[b].xor_gates())) b = k;
    if (!better(conf[b], nb[b].xor_gates(), cur_conf, cur.xor_gates())) break;
    cur = nb[b];
    cur_conf = conf[b];
  }
  SearchResult r;
  r.family = "xormask";
  r.heuristic =
      fmt::format("local (from {} {})", starts[best_start].family, starts[best_start].heuristic);
  r.matrix = cur;
  r.spec = xormask_spec(cur);
  r.conflicts = cur_conf;
  r.candidates_evaluated = evaluated;
  finish(sets, r);
  return r;
}

SearchResult search_hash(const ReferenceSets& sets, const SearchOptions& o) {
  if (sets.transactions() == 0)
    throw InputError(
        "hash search: no shared-memory accesses to search on (empty input, or every "
        "access filtered out by --op or inactive)");
  const std::string& f = o.family;
  const std::string h = o.heuristic;
  const auto refuse = [&](const char* allowed) {
    throw InputError(fmt::format("hash search: family '{}' does not take heuristic '{}' (use {})",
                                 f, h, allowed));
  };
  if (f == "bv" || f == "bvxor") {
    if (!h.empty() && h != "exhaustive") refuse("exhaustive: 002 §5.1");
    return search_bitvector(sets, f == "bvxor", o.bijective_only);
  }
  if (f == "bits" || f == "bitsxor") {
    const bool x = f == "bitsxor";
    if (h.empty() || h == "mih") return search_mih(sets, x);
    if (h == "givargis") return search_givargis(sets, x);
    if (h == "exhaustive" && !x) return search_bits_exhaustive(sets, o.bijective_only);
    refuse(x ? "mih or givargis" : "mih, givargis or exhaustive");
  }
  if (f == "xormask") {
    if (!h.empty() && h != "local") refuse("local");
    return search_xormask(sets, o.bijective_only);
  }
  if (f == "mod" || f == "xor" || f == "add")
    throw InputError(
        fmt::format("hash search: family '{}' is fixed (nothing to configure); "
                    "searchable: bv, bvxor, bits, bitsxor, xormask",
                    f));
  throw InputError(
      fmt::format("hash search: unknown family '{}' (searchable: bv, bvxor, bits, "
                  "bitsxor, xormask)",
                  f));
}

}  // namespace smemsim

// The line guard of hash search (issue 26): no line made worse for a better total.
#include <fmt/format.h>

#include "smemsim/hash_search.hpp"
#include "tune_internal.hpp"

namespace smemsim {

std::vector<LineConflicts> LineCheck::worse() const {
  std::vector<LineConflicts> out;
  for (const LineConflicts& l : lines)
    if (l.after > l.before) out.push_back(l);
  return out;
}

LineCheck guard_lines(const ReferenceSets& all,
                      const std::vector<std::pair<std::uint32_t, const ReferenceSets*>>& lines,
                      SearchResult& r, const SearchOptions& o, bool allow_worse) {
  using namespace tune;
  LineCheck c;
  const XorMatrix mod = bvxor_matrix(0, 0, 0, all.geometry());
  const auto measure = [&](const XorMatrix& x) {
    std::vector<LineConflicts> out;
    for (const auto& [pc, sets] : lines)
      out.push_back({pc, total_conflicts(*sets, mod), total_conflicts(*sets, x)});
    return out;
  };
  c.lines = measure(r.matrix);
  if (allow_worse || c.worse().empty()) return c;

  c.refused_spec = r.spec;
  c.refused_conflicts = r.conflicts;
  c.refused_worse = c.worse();
  // The candidates to choose among again: the exhaustive search's own, else mod alone.
  std::vector<XorMatrix> cands;
  std::vector<std::string> specs;
  if (r.family == "bv" || r.family == "bvxor") {
    bool pruned = false;
    cands = bitvector_candidates(all, r.family == "bvxor", o.bijective_only, specs, pruned);
  }
  cands.push_back(mod);  // always allowed: it changes no line
  specs.push_back("mod");
  const std::vector<std::int64_t> total = total_conflicts(all, cands);
  std::vector<bool> ok(cands.size(), true);
  for (const auto& [pc, sets] : lines) {
    const std::int64_t before = total_conflicts(*sets, mod);
    const std::vector<std::int64_t> conf = total_conflicts(*sets, cands);
    for (std::size_t k = 0; k < cands.size(); ++k) ok[k] = ok[k] && conf[k] <= before;
  }
  std::size_t best = cands.size();  // the last, mod, is always allowed
  for (std::size_t k = 0; k < cands.size(); ++k)
    if (ok[k] && (best == cands.size() ||
                  better(total[k], cands[k].xor_gates(), total[best], cands[best].xor_gates())))
      best = k;
  r.spec = specs[best];
  r.matrix = cands[best];
  r.conflicts = total[best];
  r.candidates_evaluated += cands.size();
  finish(all, r);
  c.lines = measure(r.matrix);
  return c;
}

}  // namespace smemsim

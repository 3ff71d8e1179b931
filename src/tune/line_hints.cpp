// Per-line reference sets and the swizzle hint of `smemsim profile`
// (include/smemsim/line_hints.hpp).
#include "smemsim/line_hints.hpp"

namespace smemsim {

LineSets::LineSets(const Arch& arch, std::uint64_t line_budget)
    : arch_(arch), budget_(line_budget) {}

void LineSets::add(const WarpAccess& wa) {
  auto& sets = lines_[wa.pc];
  if (!sets) {
    sets = std::make_unique<ReferenceSets>(arch_, HashTarget::Bank,
                                           target_geometry(arch_, HashTarget::Bank));
    sets->set_memory_budget(budget_);
  }
  sets->add(wa);
}

const ReferenceSets* LineSets::find(std::uint32_t pc) const {
  const auto it = lines_.find(pc);
  return it == lines_.end() ? nullptr : it->second.get();
}

std::optional<SwizzleHint> swizzle_hint(const LineSets& lines, std::uint32_t pc) {
  const ReferenceSets* line = lines.find(pc);
  if (!line || line->accesses() == 0) return std::nullopt;
  // What `hash search --pc LINE --family bvxor --emit cuda` runs: the exhaustive bit-vector XOR
  // search over software-bijective candidates.
  const SearchResult r = search_hash(*line, {"bvxor", "", true});
  if (r.baseline_conflicts == 0 || r.conflicts >= r.baseline_conflicts) return std::nullopt;
  SwizzleHint h{r.spec, r.family, r.matrix, r.baseline_conflicts, r.conflicts, 0, 0};
  const XorMatrix mod = bvxor_matrix(0, 0, 0, line->geometry());
  for (const auto& [other, sets] : lines.lines()) {
    h.kernel_before += total_conflicts(*sets, mod);
    h.kernel_after += total_conflicts(*sets, r.matrix);
  }
  return h;
}

void total_over(SwizzleHint& h, const LineSets& lines, const std::vector<std::uint32_t>& pcs) {
  h.conflicts_before = h.conflicts_after = 0;
  for (const std::uint32_t pc : pcs) {
    const ReferenceSets* sets = lines.find(pc);
    if (!sets) continue;
    h.conflicts_before += total_conflicts(*sets, bvxor_matrix(0, 0, 0, sets->geometry()));
    h.conflicts_after += total_conflicts(*sets, h.matrix);
  }
}

}  // namespace smemsim

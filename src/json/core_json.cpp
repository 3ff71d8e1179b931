// The JSON forms of the core results: arch, access costs and totals, classes, hash counts and
// searches, transactional counts, registry entries (docs/json.md).
#include <algorithm>
#include <bit>
#include <string>

#include "smemsim/json.hpp"

namespace smemsim::json {

Json to_json(const Arch& a) {
  Json out = Json::object();
  visit_arch(a, [&](std::string_view key, const ArchValue& v) {
    Json* node = &out;
    std::string_view rest = key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      node = &(*node)[std::string(rest.substr(0, dot))];
      rest.remove_prefix(dot + 1);
    }
    std::visit([&](const auto& x) { (*node)[std::string(rest)] = x; }, v);
  });
  out["label"] = arch_label(a);
  return out;
}

Json to_json(const GpgpuSimImport& r) {
  const auto entries = [&](const std::vector<GpgpuSimImport::Entry>& es, bool mapping, bool why) {
    Json a = Json::array();
    for (const GpgpuSimImport::Entry& e : es) {
      Json j = {{"location", location(r.origin, std::uint64_t(e.line))},
                {"option", e.option},
                {"value", e.value}};
      if (mapping) j["key"] = e.key, j["setting"] = e.setting;
      if (why) j["reason"] = e.why.empty() ? Json(nullptr) : Json(e.why);
      a.push_back(std::move(j));
    }
    return a;
  };
  return {{"arch", to_json(r.arch)},
          {"mapped", entries(r.mapped, true, false)},
          {"ignored", entries(r.ignored, false, true)},
          {"notes", entries(r.notes, true, true)}};
}

Json to_json(const AccessResult& r) {
  return {{"bank_degree", r.degrees.bank}, {"position_degree", r.degrees.position},
          {"lock_degree", r.degrees.lock}, {"bank_conflicts", r.bank_conflicts},
          {"latency_cycles", r.latency},   {"transactions", r.transactions}};
}

Json to_json(const Totals& t) {
  return {{"accesses", t.accesses},
          {"transactions", t.transactions},
          {"bank_conflicts", t.bank_conflicts},
          {"bank_degree_mean", t.mean(t.sum_bank_degree)},
          {"bank_degree_max", t.max_bank_degree},
          {"position_degree_mean", t.mean(t.sum_position_degree)},
          {"position_degree_max", t.max_position_degree},
          {"lock_degree_mean", t.mean(t.sum_lock_degree)},
          {"lock_degree_max", t.max_lock_degree},
          {"latency_cycles_mean", t.mean(t.total_latency)},
          {"latency_cycles_total", t.total_latency}};
}

const std::vector<std::string>& totals_fields() {
  static const std::vector<std::string> k = {
      "accesses",        "transactions",         "bank_conflicts",      "bank_degree_mean",
      "bank_degree_max", "position_degree_mean", "position_degree_max", "lock_degree_mean",
      "lock_degree_max", "latency_cycles_mean",  "latency_cycles_total"};
  return k;
}

Json lock_rounds_json(const ConflictAnalyzer& a) {
  Json out = Json::array();
  for (const LockRound& r : lock_rounds(a))
    out.push_back({{"pending_lanes", std::popcount(r.pending)},
                   {"read_bank_degree", r.read_degree},
                   {"winning_lanes", std::popcount(r.winners)},
                   {"write_bank_degree", r.write_degree}});
  return out;
}

Json transactions_json(const WarpAccess& wa, AccessEvaluator& ev) {
  Json tx = Json::array();
  const int tl = static_cast<int>(ev.arch().transaction_lanes);
  for (int first = 0; first < wa.lanes; first += tl) {
    const int count = std::min(tl, wa.lanes - first);
    if (!((wa.active >> first) & lanes_mask(count))) continue;
    ev.analyzer().load(wa, first, count);
    const Degrees d = ev.analyzer().degrees();
    tx.push_back({{"first_lane", first},
                  {"lanes", count},
                  {"bank_degree", d.bank},
                  {"position_degree", d.position},
                  {"lock_degree", d.lock},
                  {"lock_rounds", lock_rounds_json(ev.analyzer())}});
  }
  return tx;
}

Json to_json(const StreamStats& s) {
  Json per_pc = Json::array();
  for (const auto& [pc, t] : s.per_pc) {
    Json j = to_json(t);
    j["pc"] = pc;
    per_pc.push_back(std::move(j));
  }
  return {{"totals", to_json(s.all)},
          {"accesses_by_op",
           {{"ld", s.per_op[std::size_t(Op::Load)]},
            {"st", s.per_op[std::size_t(Op::Store)]},
            {"atom", s.per_op[std::size_t(Op::Atomic)]}}},
          {"per_pc", per_pc}};
}

Json per_pc_json(const StreamStats& hashed, const StreamStats& baseline) {
  Json a = Json::array();
  for (const auto& [pc, t] : hashed.per_pc) {
    const auto b = baseline.per_pc.find(pc);
    a.push_back({{"pc", pc},
                 {"hashed", to_json(t)},
                 {"baseline", to_json(b == baseline.per_pc.end() ? Totals{} : b->second)}});
  }
  return a;
}

Json to_json(const ClassCounts& c) {
  Json strides = Json::array(), blocks = Json::array();
  for (const auto& [s, n] : c.strides) strides.push_back({{"stride", s}, {"accesses", n}});
  for (const auto& [k, n] : c.blocks)
    blocks.push_back({{"stride_x", std::get<0>(k)},
                      {"stride_y", std::get<1>(k)},
                      {"block_x", std::get<2>(k)},
                      {"accesses", n}});
  return {{"accesses", c.total()}, {"linear", c.linear}, {"stride", c.stride}, {"block", c.block},
          {"random", c.random},    {"strides", strides}, {"blocks", blocks}};
}

Json hash_count_json(const HashCount& h, int addr_bits, int bank_bits) {
  // Exact integers below 2^53; larger counts only as doubles.
  const auto num = [](double v) -> Json {
    if (v < 9007199254740992.0) return std::uint64_t(v);
    return v;
  };
  return {{"addr_bits", addr_bits},
          {"bank_bits", bank_bits},
          {"all_functions_log10", h.all_functions_log10},
          {"xor_based", num(h.xor_based)},
          {"unique_xor", num(h.unique_xor)},
          {"bitvector_permutation", num(h.bitvector_permutation)},
          {"bitvector_xor", num(h.bitvector_xor)},
          {"bitwise_permutation", num(h.bitwise_permutation)},
          {"bitwise_xor", num(h.bitwise_xor)}};
}

Json to_json(const SearchResult& r, const ReferenceSets& sets) {
  return {{"family", r.family},
          {"heuristic", r.heuristic},
          {"spec", r.spec},
          {"target", sets.target() == HashTarget::Lock ? "lock" : "bank"},
          {"index_bits", sets.geometry().out_bits},
          {"addr_bits", sets.geometry().addr_bits},
          {"candidates_evaluated", r.candidates_evaluated},
          {"pruned", r.pruned},
          {"baseline_conflicts", r.baseline_conflicts},
          {"conflicts", r.conflicts},
          {"reduction", r.reduction},
          {"bijective", r.bijective},
          {"xor_gates", r.matrix.xor_gates()},
          {"accesses", sets.accesses()},
          {"transactions", sets.transactions()},
          {"unique_sets", sets.unique_sets()},
          {"memory",
           {{"budget_bytes", sets.memory_budget()},
            {"peak_bytes", sets.peak_bytes()},
            {"spilled_segments", sets.spilled_segments()},
            {"spilled_bytes", sets.spilled_bytes()}}}};
}

Json emission_json(const std::string& language, const Emission& em, const std::string& path) {
  return {{"language", language},
          {"code", em.ok ? Json(em.code) : Json(nullptr)},
          {"error", em.ok ? Json(nullptr) : Json(em.reason)},
          {"path", path.empty() ? Json(nullptr) : Json(path)}};
}

Json to_json(const SwizzleHint& h) {
  return {{"spec", h.spec},
          {"family", h.family},
          {"conflicts_before", h.conflicts_before},
          {"conflicts_after", h.conflicts_after},
          {"kernel_conflicts_before", h.kernel_before},
          {"kernel_conflicts_after", h.kernel_after}};
}

Json to_json(const tm::TmStats& t) {
  return {
      {"transactions", t.transactions},
      {"attempts", t.attempts},
      {"wf_serial_attempts", t.wf_serial_attempts},
      {"wg_serial_attempts", t.wg_serial_attempts},
      {"lane_attempts", t.lane_attempts},
      {"lane_commits", t.lane_commits},
      {"lane_aborts", t.lane_aborts},
      {"commit_ratio", t.commit_ratio()},
      {"retries_per_transaction",
       t.transactions ? double(t.attempts - t.transactions) / double(t.transactions) : 0.0},
      {"lane_accesses", t.accesses},
      {"new_accesses", t.new_accesses},
      {"repeat_accesses", t.repeat_accesses},
      {"conflicts_true", t.conflicts_true},
      {"conflicts_false", t.conflicts_false},
      {"restored_words", t.restored_words},
  };
}

Json to_json(const IndexFamily& f) {
  return {
      {"name", f.name}, {"syntax", f.syntax}, {"description", f.description}, {"source", f.source}};
}

Json to_json(const LatencyModelInfo& m) {
  return {
      {"name", m.name}, {"description", m.description}, {"atomic", m.atomic}, {"source", m.source}};
}

}  // namespace smemsim::json

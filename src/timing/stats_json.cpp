// The one JSON form of the timing statistics (docs/timing.md, "JSON").
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "smemsim/exec.hpp"
#include "smemsim/exec_json.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::timing {

std::string_view stall_name(Stall s) {
  static constexpr std::string_view kNames[kStallKinds] = {"selected",       "idle",
                                                           "wait",           "long_scoreboard",
                                                           "barrier",        "branch_resolving",
                                                           "atomic",         "lock_retry",
                                                           "barrel",         "safe_distance",
                                                           "not_selected",   "bank_conflict",
                                                           "writeback",      "front_end",
                                                           "tx_wait",        "tm_overhead",
                                                           "mio_throttle",   "math_pipe_throttle",
                                                           "dispatch_stall", "short_scoreboard",
                                                           "lg_throttle",    "no_instruction",
                                                           "imc_miss",       "drain"};
  return kNames[static_cast<std::size_t>(s)];
}

bool is_stall_alias(std::string_view name) {
  return std::any_of(kStallAliases.begin(), kStallAliases.end(),
                     [&](const StallAlias& a) { return a.name == name; });
}

void InstrStats::add(const InstrStats& o) {
  issued += o.issued;
  thread_instructions += o.thread_instructions;
  latency += o.latency;
  bank_conflict_passes += o.bank_conflict_passes;
  lock_iterations += o.lock_iterations;
  global_sectors += o.global_sectors;
  l1_hit_sectors += o.l1_hit_sectors;
  l2_hit_sectors += o.l2_hit_sectors;
  global_requests += o.global_requests;
  dsm_segments += o.dsm_segments;
  warp_states.add(o.warp_states);
}

std::vector<GlobalLine> global_lines(const TimingStats& s, const ptx::Module& module,
                                     const ptx::Kernel& kernel) {
  std::vector<GlobalLine> out;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < s.instructions.size() && i < kernel.code.size(); ++i) {
    const InstrStats& r = s.instructions[i];
    if (!r.global_sectors) continue;
    const ptx::Instruction& ins = kernel.code[i];
    const std::string cu = exec::cuda_location(module, ins);
    const std::string key = cu.empty() ? "ptx " + std::to_string(ins.ptx_line) : cu;
    auto [it, fresh] = at.emplace(key, out.size());
    if (fresh) out.push_back({cu, std::uint32_t(i), {}, {}});
    GlobalLine& g = out[it->second];
    g.ptx_lines.push_back(ins.ptx_line);
    g.stats.add(r);
  }
  return out;
}

void UnitCounts::add(const UnitCounts& o) {
  smem_accesses += o.smem_accesses;
  smem_passes += o.smem_passes;
  bank_conflict_passes += o.bank_conflict_passes;
  lock_iterations += o.lock_iterations;
  lock_failures += o.lock_failures;
  writeback_conflicts += o.writeback_conflicts;
  global_requests += o.global_requests;
  global_sectors += o.global_sectors;
  l1_hit_sectors += o.l1_hit_sectors;
  l2_hit_sectors += o.l2_hit_sectors;
  dsm_requests += o.dsm_requests;
  dsm_segments += o.dsm_segments;
  predictions_correct += o.predictions_correct;
  predictions_low += o.predictions_low;
  predictions_high += o.predictions_high;
  history_hits += o.history_hits;
  history_misses += o.history_misses;
}

StallGroups group_stalls(const StallCounts& c) {
  StallGroups g;
  for (std::size_t k = 0; k < kStallKinds; ++k) {
    switch (static_cast<Stall>(k)) {
      case Stall::Issued:
      case Stall::Idle:
      case Stall::NotSelected:
        break;
      case Stall::BankConflict:
        g.bank_conflict += c.cycles[k];
        break;
      case Stall::Writeback:
      case Stall::FrontEnd:
      case Stall::LgThrottle:
      case Stall::TmOverhead:
      case Stall::MioThrottle:
      case Stall::MathPipeThrottle:
      case Stall::Dispatch:
        g.other += c.cycles[k];
        break;
      default:  // no warp could be scheduled
        g.scheduling += c.cycles[k];
    }
  }
  return g;
}

namespace {

nlohmann::json stalls_json(const StallCounts& c, bool with_warp_only) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t k = 0; k < kStallKinds; ++k) {
    const Stall s = static_cast<Stall>(k);
    if (s == Stall::NotSelected && !with_warp_only) continue;
    j[std::string(stall_name(s))] = c.cycles[k];
  }
  // The old names (issue 47), for one schema version: they repeat the reasons above, so a sum over
  // the object counts them twice (docs/json.md).
  for (const StallAlias& a : kStallAliases) {
    std::uint64_t v = 0;
    for (std::uint8_t i = 0; i < a.n; ++i) v += c[a.of[i]];
    j[std::string(a.name)] = v;
  }
  return j;
}

nlohmann::json groups_json(const StallGroups& g) {
  return {{"scheduling", g.scheduling},
          {"bank_conflict", g.bank_conflict},
          {"other", g.other},
          {"total", g.total()}};
}

nlohmann::json units_json(const UnitCounts& u) {
  nlohmann::json j = {{"smem_accesses", u.smem_accesses},
                      {"smem_passes", u.smem_passes},
                      {"bank_conflict_passes", u.bank_conflict_passes},
                      {"lock_iterations", u.lock_iterations},
                      {"lock_failures", u.lock_failures},
                      {"writeback_conflicts", u.writeback_conflicts},
                      {"global_requests", u.global_requests},
                      {"global_sectors", u.global_sectors},
                      {"l1_hit_sectors", u.l1_hit_sectors},
                      {"l2_hit_sectors", u.l2_hit_sectors},
                      {"predictions_correct", u.predictions_correct},
                      {"predictions_low", u.predictions_low},
                      {"predictions_high", u.predictions_high},
                      {"history_hits", u.history_hits},
                      {"history_misses", u.history_misses}};
  if (u.dsm_requests) {  // a kernel with distributed shared memory only (issue 46)
    j["dsm_requests"] = u.dsm_requests;
    j["dsm_segments"] = u.dsm_segments;
  }
  return j;
}

}  // namespace

nlohmann::json tm_json(const tm::TmStats& t, const TmCycles& c) {
  nlohmann::json j = json::to_json(t);
  j["breakdown_warp_cycles"] = {{"non_tx_code", c.non_tx},
                                {"tx_code", c.tx_code()},
                                {"mem_overhead", c.mem_overhead},
                                {"begin_commit_overhead", c.begin_commit_overhead}};
  return j;
}

std::string tm_summary(const tm::TmStats& t) {
  return fmt::format(
      "transactions: {} ({} attempts, {} in wavefront and {} in work-group serialization); lanes: "
      "{} committed, {} aborted (commit ratio {:.1f}%); conflicts: {} true, {} false",
      t.transactions, t.attempts, t.wf_serial_attempts, t.wg_serial_attempts, t.lane_commits,
      t.lane_aborts, 100.0 * t.commit_ratio(), t.conflicts_true, t.conflicts_false);
}

nlohmann::json to_json(const TimingStats& s, const ptx::Module& module, const ptx::Kernel& kernel) {
  nlohmann::json j = {
      {"cycles", s.cycles},
      {"warp_instructions", s.warp_instructions},
      {"thread_instructions", s.thread_instructions},
      {"lowered",
       {{"rules", s.lower},
        {"absorbed", s.absorbed},
        {"expanded", s.expanded},
        {"warp_instructions",
         s.warp_instructions - std::min(s.absorbed, s.warp_instructions) + s.expanded}}},
      {"warm_l2", s.warm_l2},
      {"ipc", s.ipc()},
      {"ctas", s.ctas},
      {"issue_stalls", stalls_json(s.issue, false)},
      {"pipeline_stalls", groups_json(group_stalls(s.issue))},
      {"units", units_json(s.units)},
      {"seconds", s.seconds},
  };
  nlohmann::json sms = nlohmann::json::array();
  for (std::size_t i = 0; i < s.sms.size(); ++i) {
    const SmStats& m = s.sms[i];
    sms.push_back({{"sm", i},
                   {"ctas", m.ctas},
                   {"warp_instructions", m.warp_instructions},
                   {"thread_instructions", m.thread_instructions},
                   {"busy_cycles", m.busy_cycles},
                   {"ipc", s.cycles ? double(m.warp_instructions) / double(s.cycles) : 0.0},
                   {"issue_stalls", stalls_json(m.issue, false)},
                   {"units", units_json(m.units)}});
  }
  j["sms"] = sms;
  if (s.sampling.on) {
    const SamplingStats& p = s.sampling;
    j["sampling"] = {{"ctas_timed", p.ctas_timed},
                     {"ctas_total", p.ctas_total},
                     {"cycles_timed", p.cycles_timed},
                     {"cycles_estimate", p.cycles_estimate},
                     {"cycles_low", p.cycles_low},
                     {"cycles_high", p.cycles_high},
                     {"slots", p.slots},
                     {"untimed_matched", p.matched},
                     {"untimed_scaled", p.scaled},
                     {"steady_ctas", p.steady_ctas},
                     {"steady_cycles",
                      {{"mean", p.steady_cycles}, {"p10", p.steady_p10}, {"p90", p.steady_p90}}},
                     {"equivalents", p.equivalents},
                     {"cta_cycles",
                      {{"mean", p.cta_cycles_mean},
                       {"min", p.cta_cycles_min},
                       {"max", p.cta_cycles_max},
                       {"stddev", p.cta_cycles_stddev}}}};
    nlohmann::json ctas =
        nlohmann::json::array();  // [cta, dispatch cycle, end cycle, instructions]
    for (const CtaRecord& r : p.timed) ctas.push_back({r.cta, r.start, r.end, r.warp_instructions});
    j["sampling"]["timed"] = std::move(ctas);
  }
  if (s.uses_tm) j["tm"] = tm_json(s.tm_counts, s.tm);
  if (!s.instructions.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < s.instructions.size() && i < kernel.code.size(); ++i) {
      const InstrStats& r = s.instructions[i];
      if (!r.issued) continue;
      const ptx::Instruction& ins = kernel.code[i];
      nlohmann::json row = {
          {"ptx", json::ptx_location(module, ins)},
          {"cuda", json::cuda_location(module, ins)},
          {"instruction", ptx::to_string(kernel, ins)},
          {"issued", r.issued},
          {"thread_instructions", r.thread_instructions},
          {"latency_cycles_mean", double(r.latency) / double(r.issued)},
          {"bank_conflict_passes", r.bank_conflict_passes},
          {"lock_iterations", r.lock_iterations},
          {"global_sectors", r.global_sectors},
          {"l1_hit_sectors", r.l1_hit_sectors},
          {"l2_hit_sectors", r.l2_hit_sectors},
          {"global_requests", r.global_requests},
          {"dram_bytes", 32 * r.dram_sectors()},
          {"warp_states", stalls_json(r.warp_states, true)},
      };
      if (r.dsm_segments) row["dsm_segments"] = r.dsm_segments;
      rows.push_back(std::move(row));
    }
    j["instructions"] = rows;
    // Nsight Compute's memory table per CUDA line (issue 44).
    nlohmann::json lines = nlohmann::json::array();
    for (const GlobalLine& g : global_lines(s, module, kernel)) {
      const InstrStats& r = g.stats;
      lines.push_back(
          {{"cuda", json::cuda_location(module, kernel.code[g.first])},
           {"ptx_lines", g.ptx_lines},
           {"requests", r.global_requests},
           {"sectors", r.global_sectors},
           {"sectors_per_request",
            r.global_requests ? double(r.global_sectors) / double(r.global_requests) : 0.0},
           {"l1_hit_sectors", r.l1_hit_sectors},
           {"l2_hit_sectors", r.l2_hit_sectors},
           {"dram_bytes", 32 * r.dram_sectors()}});
    }
    j["global_lines"] = std::move(lines);
  }
  return j;
}

}  // namespace smemsim::timing

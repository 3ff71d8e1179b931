// smemsim analyze (--pattern LIST | --trace FILE): conflict degrees and modeled latency.
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "smemsim/error.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/pattern_list.hpp"
#include "smemsim/trace.hpp"

namespace smemsim::cli {
namespace {

struct AnalyzeOptions {
  ArchOptions arch;
  std::string pattern;
  std::string trace;
  std::string csv;  // --trace: per-instruction rows as CSV
  std::string op;   // empty: atom for --pattern, the line's own op for --trace
  bool json = false;
  bool stats = false;
};

std::string lane_list(LaneMask m, int first) {
  std::string s;
  for (; m; m &= m - 1) s += fmt::format("{}{}", s.empty() ? "" : ",", std::countr_zero(m) + first);
  return s;
}

// The human explanation of one transaction: which banks and locks conflict, and the lock rounds.
void explain(const ConflictAnalyzer& a, int first) {
  bool any = false;
  for (std::uint32_t b = 0; b < a.arch().banks; ++b) {
    const LaneMask m = a.bank_lanes(b) & a.active();
    if (!(m & (m - 1))) continue;
    std::string addrs;
    for (LaneMask e = m; e; e &= e - 1)
      addrs += fmt::format("{}{}", addrs.empty() ? "" : ",", a.addr_of(std::countr_zero(e)));
    const int distinct = a.bank_degree(m);
    if (!any) fmt::print("  banks shared by several lanes:\n");
    any = true;
    fmt::print("    bank {:>2}: lanes {} -> words {} ({} distinct{})\n", b, lane_list(m, first),
               addrs, distinct, distinct == 1 ? ": broadcast, no conflict" : "");
  }
  if (!any) fmt::print("  every active lane uses its own bank (or a broadcast word)\n");
  bool locks = false;
  for (LaneMask g : a.shared_lock_groups()) {
    if (!locks) fmt::print("  locks shared by several lanes (these lanes serialize):\n");
    locks = true;
    std::string addrs;
    for (LaneMask e = g; e; e &= e - 1)
      addrs += fmt::format("{}{}", addrs.empty() ? "" : ",", a.addr_of(std::countr_zero(e)));
    fmt::print("    lock {:>4}: lanes {} -> words {}\n", a.lock_of(std::countr_zero(g)),
               lane_list(g, first), addrs);
  }
}

void explain_rounds(const ConflictAnalyzer& a, int first) {
  const auto rounds = lock_rounds(a);
  fmt::print("  lock rounds (one winner per lock: the lowest lane):\n");
  int i = 0;
  for (const LockRound& r : rounds)
    fmt::print(
        "    round {}: {:>2} lanes read (bank degree {}), {:>2} win and write (bank degree {}){}\n",
        ++i, std::popcount(r.pending), r.read_degree, std::popcount(r.winners), r.write_degree,
        std::popcount(r.winners) < 8 ? fmt::format(": lanes {}", lane_list(r.winners, first))
                                     : std::string());
}

void analyze_pattern(const AnalyzeOptions& o, const Arch& arch) {
  const std::string op_text = o.op.empty() ? "atom" : o.op;
  const auto op = parse_op(op_text);
  if (!op) throw InputError(fmt::format("--op: '{}' is not ld, st or atom", op_text));
  const WarpAccess wa = parse_pattern_list(o.pattern, *op, arch.warp_size, arch.memory_words());
  AccessEvaluator ev(arch);
  const AccessResult r = ev.evaluate(wa);
  const int tl = static_cast<int>(arch.transaction_lanes);
  if (o.json) {
    nlohmann::json out = json::document("analyze-pattern");
    out.update(json::to_json(r));
    out["op"] = op_name(*op);
    out["active_lanes"] = wa.active_count();
    out["model"] = *op == Op::Atomic ? arch.atomic_model : "loadstore";
    out["per_transaction"] = json::transactions_json(wa, ev);
    out["arch"] = json::to_json(arch);
    print_json(out);
    return;
  }
  fmt::print("{}\n", arch_summary(arch));
  fmt::print("pattern: {} active lanes, op {}, model {}\n", wa.active_count(), op_name(*op),
             *op == Op::Atomic ? arch.atomic_model : "loadstore");
  for (int first = 0; first < wa.lanes; first += tl) {
    const int count = std::min(tl, wa.lanes - first);
    if (!((wa.active >> first) & lanes_mask(count))) continue;
    ev.analyzer().load(wa, first, count);
    const Degrees d = ev.analyzer().degrees();
    if (wa.lanes > tl) fmt::print("transaction lanes {}..{}:\n", first, first + count - 1);
    fmt::print("  bank degree {}, position degree {}, lock degree {}\n", d.bank, d.position,
               d.lock);
    explain(ev.analyzer(), first);
    if (*op == Op::Atomic && arch.atomic_model != "native") explain_rounds(ev.analyzer(), first);
  }
  fmt::print("bank conflicts {} (sum of degree-1), latency {} cycles\n", r.bank_conflicts,
             r.latency);
}

void analyze_trace(const AnalyzeOptions& o, const Arch& arch) {
  std::optional<Op> force;
  if (!o.op.empty()) {
    force = parse_op(o.op);
    if (!force) throw InputError(fmt::format("--op: '{}' is not ld, st or atom", o.op));
  }
  const auto t0 = std::chrono::steady_clock::now();
  TraceReader reader(o.trace, {arch.memory_words(), arch.warp_size});
  AccessEvaluator ev(arch);
  StreamStats stats;
  WarpAccess wa;
  while (reader.next(wa)) {
    if (force) wa.op = *force;
    stats.add(wa, ev.evaluate(wa));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.stats)
    fmt::print(stderr, "smemsim: {} accesses in {:.3f} s ({:.2f} M accesses/s, analyzer: {})\n",
               stats.all.accesses, secs, double(stats.all.accesses) / secs / 1e6,
               ev.analyzer().vector_kernel() ? ConflictAnalyzer::kernel_name(ev.analyzer().kernel())
                                             : std::string_view("portable"));
  const nlohmann::json result = json::to_json(stats);
  if (!o.csv.empty()) {  // per instruction, the names of --json's per_pc
    std::vector<std::string> keys = {"pc"};
    keys.insert(keys.end(), json::totals_fields().begin(), json::totals_fields().end());
    write_csv(o.csv, keys, result["per_pc"].get<std::vector<nlohmann::json>>(), "--csv");
  }
  if (o.json) {
    nlohmann::json out = json::document("analyze-trace");
    out.update(result);
    out["trace"] = reader.path();
    out["arch"] = json::to_json(arch);
    print_json(out);
    return;
  }
  const Totals& t = stats.all;
  fmt::print("{}\n", arch_summary(arch));
  fmt::print("trace {}: {} accesses ({} ld, {} st, {} atom), {} transactions\n", reader.path(),
             t.accesses, stats.per_op[std::size_t(Op::Load)], stats.per_op[std::size_t(Op::Store)],
             stats.per_op[std::size_t(Op::Atomic)], t.transactions);
  fmt::print("  bank conflicts   {:>14}   (sum of degree-1)\n", t.bank_conflicts);
  fmt::print("  bank degree      {:>14.3f}   mean (max {})\n", t.mean(t.sum_bank_degree),
             t.max_bank_degree);
  fmt::print("  lock degree      {:>14.3f}   mean (max {})\n", t.mean(t.sum_lock_degree),
             t.max_lock_degree);
  fmt::print("  latency          {:>14.1f}   mean cycles per access\n", t.mean(t.total_latency));
  fmt::print("  total latency    {:>14}   cycles\n", t.total_latency);
  if (!stats.per_pc.empty()) {
    fmt::print("per instruction:\n  {:>8} {:>10} {:>14} {:>10} {:>10} {:>12}\n", "pc", "accesses",
               "bank_conflicts", "mean_bank", "mean_lock", "mean_cycles");
    for (const auto& [pc, p] : stats.per_pc)
      fmt::print("  {:>8} {:>10} {:>14} {:>10.2f} {:>10.2f} {:>12.1f}\n", pc, p.accesses,
                 p.bank_conflicts, p.mean(p.sum_bank_degree), p.mean(p.sum_lock_degree),
                 p.mean(p.total_latency));
  }
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto* cmd =
      app.add_subcommand("analyze", "conflict degrees and modeled latency of warp accesses");
  auto* pat = cmd->add_option("--pattern", o->pattern,
                              "one warp access: comma-separated word addresses, ranges a..b, '-' "
                              "for an inactive lane");
  auto* tr = cmd->add_option("--trace", o->trace, "smemsim-trace v1 file ('-' = standard input)");
  pat->excludes(tr);
  cmd->add_option("--op", o->op,
                  "ld, st or atom (default: atom for --pattern; each line's own "
                  "op for --trace)");
  add_arch_options(cmd, o->arch);
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  cmd->add_option("--csv", o->csv,
                  "with --trace: write the per-instruction rows as CSV to FILE (the names of "
                  "--json's per_pc)")
      ->check(non_empty_path());
  cmd->add_flag("--stats", o->stats, "print the processing rate on stderr");
  cmd->footer(
      "Examples (Fermi GTX 580, seed 001 §2.1):\n"
      "  smemsim analyze --pattern 0,1024,2..31             # long bank conflict: 260 cycles\n"
      "  smemsim analyze --pattern 0,32,2..31               # short bank conflict: 172 cycles\n"
      "  smemsim analyze --pattern 0,256,2..31 --bank-hash xor --json\n"
      "  smemsim analyze --pattern 0..31 --model fsm        # 118 cycles (seed 000 §III)\n"
      "  smemsim analyze --trace r.trace --arch kepler-k20 --op ld");
  cmd->callback([o] {
    if (o->pattern.empty() == o->trace.empty())
      throw InputError("analyze: give exactly one of --pattern LIST or --trace FILE");
    if (!o->csv.empty() && o->trace.empty())
      throw InputError("--csv: per-instruction rows come from a --trace");
    if (o->trace != "-")
      if (const std::string over = output_over_input({{"--csv", o->csv}}, {{"trace", o->trace}});
          !over.empty())
        throw InputError(over);  // issue 48
    const Arch arch = resolve_arch(o->arch);
    if (!o->pattern.empty())
      analyze_pattern(*o, arch);
    else
      analyze_trace(*o, arch);
  });
}

}  // namespace smemsim::cli

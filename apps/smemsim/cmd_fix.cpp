// smemsim fix: for each shared array with conflicts, candidate fixes verified by running the kernel
// again on the cycle-level model (issue 26 item 1, docs/fix.md, include/smemsim/fix.hpp).
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <memory>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "sim_options.hpp"
#include "smemsim/error.hpp"
#include "smemsim/fix.hpp"
#include "smemsim/json.hpp"
#include "text_table.hpp"

namespace smemsim::cli {
namespace {

struct FixCliOptions {
  LaunchOptions launch;
  ArchOptions arch;
  SimOptions sim;
  std::uint32_t swizzles = 2;
  std::string emit;  // "", cuda, cute
};

// Every line of `text` indented by `by` spaces.
std::string indented(const std::string& text, std::size_t by = 2) {
  std::string out;
  for (std::size_t p = 0, q; p < text.size(); p = q + 1) {
    q = text.find('\n', p);
    if (q == std::string::npos) q = text.size();
    out += std::string(by, ' ') + text.substr(p, q - p) + "\n";
  }
  return out;
}

// The array's CUDA name; the whole qualified one when two arrays share it.
std::string array_name(const fix::FixReport& rep, const exec::SharedLayout::Array& a) {
  return fix::unique_name(rep.all_arrays, a);
}

std::string speedup(std::uint64_t before, std::uint64_t after) {
  return after ? fmt::format("{:.2f}x", double(before) / double(after)) : "-";
}

// "; 8192 -> 12288 bytes from DRAM, 512 -> 768 sectors past the L1s" where a fix changes the
// global traffic (issue 44), "" where it does not.
std::string traffic_change(const fix::Traffic& before, const fix::Traffic& after) {
  if (before == after) return "";
  std::string s = "; ";
  if (before.dram_bytes != after.dram_bytes)
    s += fmt::format("{} -> {} bytes from DRAM", before.dram_bytes, after.dram_bytes);
  if (before.l2_sectors != after.l2_sectors)
    s += fmt::format("{}{} -> {} sectors past the L1s", s.size() > 2 ? ", " : "", before.l2_sectors,
                     after.l2_sectors);
  return s;
}

void print_layouts(const fix::FixReport& rep, const fix::ArrayFix& a) {
  TextTable t({{"#"},
               {"fix", true, true},
               {"conflicts"},
               {"cycles"},
               {"speedup"},
               {"shared B"},
               {"DRAM B"},
               {"output", true}});
  t.add({"-", "as written", std::to_string(a.conflicts), std::to_string(rep.cycles), "1.00x",
         std::to_string(rep.shared_bytes), std::to_string(rep.traffic.dram_bytes), "-"});
  int k = 0;
  bool estimates = false;
  for (const fix::Candidate& c : a.candidates) {
    if (!c.refused.empty()) continue;
    estimates |= !c.applied;
    t.add({std::to_string(++k), c.description, std::to_string(c.conflicts()),
           std::to_string(c.cycles) + (c.applied ? "" : "*"), speedup(rep.cycles, c.cycles),
           std::to_string(c.shared_bytes), std::to_string(c.traffic.dram_bytes), "identical"});
  }
  fmt::print("{}", indented(t.render(0)));
  // What each layout does to the global traffic (issue 44): its shared bytes change the L1's
  // share of the SRAM and the CTAs an SM holds; its code, the kernel's own loads.
  std::vector<std::string> moved;
  k = 0;
  for (const fix::Candidate& c : a.candidates) {
    if (!c.refused.empty()) continue;
    ++k;
    if (!(c.traffic == rep.traffic))
      moved.push_back(fmt::format("#{}{}", k, traffic_change(rep.traffic, c.traffic)));
  }
  if (k > 0 && moved.empty())
    fmt::print(
        "  global traffic: every layout moves what the kernel as written does ({} bytes from "
        "DRAM, {} sectors past the L1s)\n",
        rep.traffic.dram_bytes, rep.traffic.l2_sectors);
  for (const std::string& m : moved) fmt::print("  global traffic: {}\n", m);
  fmt::print(
      "  cycles: each layout written into the kernel's code as the CUDA below writes it, "
      "and run{}\n",
      estimates ? "; *: an estimate (the addresses relaid out under the kernel as written, "
                  "its own index arithmetic left out)"
                : "");
  k = 0;
  for (const fix::Candidate& c : a.candidates) {
    if (!c.refused.empty()) continue;
    ++k;
    if (c.applied)
      fmt::print("  #{} as code: {} (estimate {} cycles)\n", k, c.applied_form, c.estimate_cycles);
    else
      fmt::print("  #{} estimate only: not written as code: {}\n", k, c.not_applied);
  }
  for (const fix::Candidate& c : a.candidates)
    if (!c.refused.empty()) fmt::print("  refused: {}: {}\n", c.description, c.refused);
  if (k == 0) return;
  // One row per CUDA line, as profile's: a line's unrolled copies summed (--json: per instruction).
  struct Row {
    const fix::LineResult* first = nullptr;
    std::size_t count = 0;
    std::string ops;
    std::int64_t before = 0;
    std::vector<std::int64_t> after;
  };
  std::vector<Row> rows;
  std::map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < a.lines.size(); ++i) {
    const fix::LineResult& l = a.lines[i];
    const std::string key = l.cuda.empty() ? "ptx:" + std::to_string(l.ptx_line) : l.cuda;
    auto [it, fresh] = row_of.try_emplace(key, rows.size());
    if (fresh) rows.push_back({&l, 0, std::string(op_name(l.op)), 0, {}});
    Row& r = rows[it->second];
    ++r.count;
    if (r.ops.find(op_name(l.op)) == std::string::npos) r.ops += "/" + std::string(op_name(l.op));
    r.before += l.conflicts;
    std::size_t k = 0;
    for (const fix::Candidate& c : a.candidates) {
      if (!c.refused.empty()) continue;
      if (r.after.size() <= k) r.after.push_back(0);
      r.after[k++] += c.lines[i].conflicts;
    }
  }
  fmt::print("  conflicts per CUDA line (as written -> each fix above):\n");
  for (const Row& r : rows) {
    std::string after;
    for (const std::int64_t v : r.after) after += (after.empty() ? "" : ", ") + std::to_string(v);
    const std::string name = fmt::format("PTX {}{}{}", r.first->ptx_line,
                                         r.count > 1 ? fmt::format("+{}", r.count - 1) : "",
                                         r.first->cuda.empty() ? "" : " " + r.first->cuda);
    fmt::print("    {:<34} {:<7} {:>8} -> {}\n", name, r.ops, r.before, after);
  }
}

// "1234 cycles (1.52x)" against the kernel as written, or "-".
std::string applied_text(const std::optional<std::uint64_t>& cycles, std::uint64_t baseline) {
  return cycles ? fmt::format("{} ({})", *cycles, speedup(baseline, *cycles)) : "-";
}

void print_atomics(const fix::ArrayFix& a) {
  fmt::print(
      "  atomics: up to {} lanes of a warp on one word (position), {} on one lock; model {}\n",
      a.max_position, a.max_lock, a.model);
  const bool simulated =
      std::any_of(a.replication.begin(), a.replication.end(),
                  [](const fix::Replication& r) { return r.copies > 1 && r.simulated_cycles; });
  std::vector<TextTable::Column> cols{
      {"copies"},    {"shared B"}, {"atomic cycles"}, {"merge cycles"},
      {"predicted"}, {"pos max"},  {"lock max"},      {"as code, cycles", true}};
  if (simulated) cols.push_back({"builtin --replication", true});
  TextTable t(cols);
  const std::int64_t base = a.replication.empty() ? 0 : a.replication[0].atomic_cycles;
  std::vector<std::string> why;
  for (const fix::Replication& r : a.replication) {
    const std::int64_t total = r.atomic_cycles + r.merge_cycles;
    std::vector<std::string> row{
        std::to_string(r.copies),
        std::to_string(r.shared_bytes),
        std::to_string(r.atomic_cycles),
        std::to_string(r.merge_cycles),
        fmt::format(
            "{} ({})", total,
            total ? fmt::format("{:.2f}x", double(base) / double(total)) : std::string("-")),
        std::to_string(r.max_position),
        std::to_string(r.max_lock),
        applied_text(r.applied_cycles, a.baseline_cycles)};
    if (simulated) row.push_back(r.simulated_cycles ? fmt::format("{}", *r.simulated_cycles) : "-");
    t.add(row);
    if (!r.not_applied.empty() && std::find(why.begin(), why.end(), r.not_applied) == why.end())
      why.push_back(r.not_applied);
  }
  if (!a.replication.empty()) {
    fmt::print(
        "  replication (seed 001 §2.2: R copies interleaved by lane, lane l updates copy l % R). "
        "predicted: the model's access latencies of the atomics and the merge, summed; as code: "
        "the copies, the lane's copy and the merge written into the kernel, whole kernel{}:\n",
        simulated ? "; builtin: the builtin's own --replication R" : "");
    fmt::print("{}", indented(t.render(0)));
    for (const std::string& w : why) fmt::print("    not applied as code: {}\n", w);
  }
  fmt::print(
      "  warp aggregation (lanes on one word combined before the atomic): predicted atomic "
      "cycles {} ({}), lock max {}; as code ({}): {}\n",
      a.aggregated_cycles,
      a.aggregated_cycles ? fmt::format("{:.2f}x", double(base) / double(a.aggregated_cycles))
                          : std::string("-"),
      a.aggregated_max_lock,
      a.aggregation_form.empty() ? "match.any, the lowest peer adds" : a.aggregation_form,
      a.aggregation_applied_cycles
          ? applied_text(a.aggregation_applied_cycles, a.baseline_cycles) + " cycles"
          : "not applied: " + a.aggregation_not_applied);
}

// What to paste for the array's recommended fixes.
std::string array_code(const fix::ArrayFix& a, const Arch& arch, bool cute) {
  // Each fix's code under the cycles it measured, written into the kernel.
  const auto timed = [&](std::uint64_t cycles, const std::string& code) {
    return fmt::format("// measured as code: {} -> {} cycles ({})\n{}", a.baseline_cycles, cycles,
                       speedup(a.baseline_cycles, cycles), code);
  };
  std::string s;
  if (const fix::Candidate* c = a.best())
    s += timed(c->cycles, fix::candidate_code(a, *c, arch, cute));
  // The atomic fixes recommended, the faster as code first.
  const fix::Replication* r = a.best_replication();
  const std::string rep = r ? timed(*r->applied_cycles, fix::replication_code(a, *r)) : "";
  const std::string agg = a.aggregation_recommended()
                              ? timed(*a.aggregation_applied_cycles, fix::aggregation_code(a))
                              : "";
  if (r && !agg.empty() && *a.aggregation_applied_cycles < *r->applied_cycles)
    s += agg + rep;
  else
    s += rep + agg;
  return s;
}

// The code of every other fix of the array that ran as code (issue 43), each under its measured
// cycles, its names suffixed _alt1, _alt2, ... so that it can be pasted beside the recommended.
std::string alternatives_code(const fix::ArrayFix& a, const Arch& arch, bool cute) {
  std::string s;
  int n = 0;
  const auto add = [&](std::uint64_t cycles, const std::string& what, const auto& code) {
    const std::string suffix = fmt::format("_alt{}", ++n);
    const bool faster = cycles * 100 <= a.baseline_cycles * 99;
    s += fmt::format("// also measured as code: {}: {} -> {} cycles ({}{})\n{}", what,
                     a.baseline_cycles, cycles, speedup(a.baseline_cycles, cycles),
                     faster ? "" : "; not 1 % faster: not recommended", code(suffix));
  };
  for (const fix::Candidate& c : a.candidates)
    if (&c != a.best() && c.applied && c.refused.empty())
      add(c.cycles, c.description,
          [&](const std::string& x) { return fix::candidate_code(a, c, arch, cute, x); });
  const fix::Replication* best = a.best_replication();
  for (const fix::Replication& r : a.replication)
    if (&r != best && r.copies > 1 && r.applied_cycles)
      add(*r.applied_cycles, fmt::format("replicate x{}", r.copies),
          [&](const std::string& x) { return fix::replication_code(a, r, x); });
  if (a.aggregation_applied_cycles && !a.aggregation_recommended())
    add(*a.aggregation_applied_cycles, "aggregate per warp",
        [&](const std::string& x) { return fix::aggregation_code(a, x); });
  return s;
}

void print_recommended_atomics(const fix::ArrayFix& a) {
  std::vector<std::string> fixes;
  const fix::Replication* r = a.best_replication();
  if (r)
    fixes.push_back(fmt::format(
        "replicate x{} ({} bytes; {} -> {} cycles as code, {}{})", r->copies, r->shared_bytes,
        a.baseline_cycles, *r->applied_cycles, speedup(a.baseline_cycles, *r->applied_cycles),
        r->applied_traffic && !a.replication.empty() && a.replication[0].applied_traffic
            ? traffic_change(*a.replication[0].applied_traffic, *r->applied_traffic)
            : ""));
  if (a.aggregation_recommended())
    fixes.push_back(fmt::format(
        "aggregate per warp ({} -> {} cycles as code, {}{})", a.baseline_cycles,
        *a.aggregation_applied_cycles, speedup(a.baseline_cycles, *a.aggregation_applied_cycles),
        a.aggregation_applied_traffic && !a.replication.empty() && a.replication[0].applied_traffic
            ? traffic_change(*a.replication[0].applied_traffic, *a.aggregation_applied_traffic)
            : ""));
  if (fixes.size() == 2 && *a.aggregation_applied_cycles < *r->applied_cycles)
    std::swap(fixes[0], fixes[1]);
  if (!fixes.empty()) {
    fmt::print("  recommended for the atomics: {}\n", fmt::join(fixes, "; or "));
    return;
  }
  const bool applied =
      a.aggregation_applied_cycles ||
      std::any_of(a.replication.begin(), a.replication.end(),
                  [](const fix::Replication& x) { return x.copies > 1 && x.applied_cycles; });
  if (applied)
    fmt::print(
        "  no atomic fix helps: neither replication nor aggregation, written into the kernel, "
        "is 1 % faster than the kernel as written ({} cycles){}\n",
        a.baseline_cycles, a.atomic_cause().empty() ? "" : ": " + a.atomic_cause());
  else
    fmt::print(
        "  no atomic fix recommended: neither could be written into the kernel and checked (the "
        "predictions above are not timed as code)\n");
}

void print_report(const fix::FixReport& rep, const Arch& arch) {
  fmt::print("{}\n", arch_summary(arch));
  fmt::print("{}: {}\n", rep.workload, rep.description);
  fmt::print(
      "as written: {} cycles on the cycle-level model, {} bank conflicts, {} bytes of shared "
      "memory per block; {} run{} of the kernel made\n",
      rep.cycles, rep.conflicts, rep.shared_bytes, rep.runs, rep.runs == 1 ? "" : "s");
  if (rep.arrays.empty()) {
    fmt::print("no shared array has bank, position or lock conflicts: nothing to fix\n");
    return;
  }
  for (const fix::ArrayFix& a : rep.arrays) {
    fmt::print("\narray {} (offset {}, {} bytes; {} instruction{}): {} bank conflicts\n",
               array_name(rep, a.array), a.array.offset, a.array.bytes, a.lines.size(),
               a.lines.size() == 1 ? "" : "s", a.conflicts);
    if (!a.note.empty()) fmt::print("  {}\n", a.note);
    if (!a.cause.empty() && a.best()) fmt::print("  the cause: {}\n", a.cause);
    if (!a.candidates.empty()) print_layouts(rep, a);
    if (const fix::Candidate* c = a.best())
      fmt::print("  recommended layout: {} ({} -> {} cycles, {}{})\n", c->description, rep.cycles,
                 c->cycles, speedup(rep.cycles, c->cycles),
                 traffic_change(rep.traffic, c->traffic));
    else if (!a.why_none().empty())
      fmt::print("  {}\n", a.why_none());
    if (!a.replication.empty()) print_atomics(a);
    if (!a.replication.empty()) print_recommended_atomics(a);
    const std::string code = array_code(a, arch, false);
    if (!code.empty()) fmt::print("  CUDA for the recommended fixes:\n{}", indented(code, 4));
  }
}

nlohmann::json line_json(const fix::LineResult& l) {
  return {{"ptx_line", l.ptx_line},         {"cuda", l.cuda},
          {"instruction", l.text},          {"op", op_name(l.op)},
          {"accesses", l.accesses},         {"conflicts", l.conflicts},
          {"max_position", l.max_position}, {"max_lock", l.max_lock}};
}

nlohmann::json report_json(const fix::FixReport& rep, const Arch& arch, bool cute) {
  nlohmann::json j = json::document("fix");
  j["arch"] = json::to_json(arch);
  j["workload"] = rep.workload;
  j["description"] = rep.description;
  j["kernel"] = rep.kernel;
  j["cycles"] = rep.cycles;
  j["l2_sectors"] = rep.traffic.l2_sectors;
  j["dram_bytes"] = rep.traffic.dram_bytes;
  j["conflicts"] = rep.conflicts;
  j["shared_bytes"] = rep.shared_bytes;
  j["runs"] = rep.runs;
  j["arrays"] = nlohmann::json::array();
  for (const fix::ArrayFix& a : rep.arrays) {
    nlohmann::json ja = {{"name", a.array.name},
                         {"cuda_name", ptx::demangle(a.array.name)},
                         {"offset", a.array.offset},
                         {"bytes", a.array.bytes},
                         {"grain", a.grain},
                         {"conflicts", a.conflicts},
                         {"max_position", a.max_position},
                         {"max_lock", a.max_lock},
                         {"note", a.note},
                         {"cause", a.cause},
                         {"why_none", a.why_none()},
                         {"atomic_cause", a.atomic_cause()},
                         {"lines", nlohmann::json::array()},
                         {"candidates", nlohmann::json::array()},
                         {"replication", nlohmann::json::array()},
                         {"code", array_code(a, arch, cute)}};
    for (const fix::LineResult& l : a.lines) ja["lines"].push_back(line_json(l));
    for (const fix::Candidate& c : a.candidates) {
      nlohmann::json jc = {{"kind", c.kind},
                           {"description", c.description},
                           {"offered", c.refused.empty()},
                           {"refused", c.refused},
                           {"identical", c.identical},
                           {"cycles", c.cycles},
                           {"applied", c.applied},
                           {"applied_form", c.applied_form},
                           {"not_applied", c.not_applied},
                           {"estimate_cycles", c.estimate_cycles},
                           {"recommended", &c == a.best()},
                           {"conflicts", c.conflicts()},
                           {"shared_bytes", c.shared_bytes},
                           {"l2_sectors", c.traffic.l2_sectors},
                           {"dram_bytes", c.traffic.dram_bytes},
                           {"lines", nlohmann::json::array()},
                           {"code", fix::candidate_code(a, c, arch, cute)}};
      if (c.predicted >= 0) jc["predicted_conflicts"] = c.predicted;
      for (const fix::LineResult& l : c.lines) jc["lines"].push_back(line_json(l));
      ja["candidates"].push_back(std::move(jc));
    }
    for (const fix::Replication& r : a.replication) {
      nlohmann::json jr = {{"copies", r.copies},
                           {"shared_bytes", r.shared_bytes},
                           {"atomic_cycles", r.atomic_cycles},
                           {"merge_cycles", r.merge_cycles},
                           {"max_position", r.max_position},
                           {"max_lock", r.max_lock}};
      if (r.simulated_cycles) jr["simulated_cycles"] = *r.simulated_cycles;
      if (r.applied_cycles) jr["applied_cycles"] = *r.applied_cycles;
      if (r.applied_traffic) {
        jr["applied_l2_sectors"] = r.applied_traffic->l2_sectors;
        jr["applied_dram_bytes"] = r.applied_traffic->dram_bytes;
      }
      jr["applied_form"] = r.applied_form;
      jr["not_applied"] = r.not_applied;
      jr["recommended"] = &r == a.best_replication();
      ja["replication"].push_back(std::move(jr));
    }
    if (!a.replication.empty()) {
      ja["model"] = a.model;
      ja["aggregated_cycles"] = a.aggregated_cycles;
      ja["aggregated_max_lock"] = a.aggregated_max_lock;
      if (a.aggregation_applied_cycles)
        ja["aggregation_applied_cycles"] = *a.aggregation_applied_cycles;
      if (a.aggregation_applied_traffic) {
        ja["aggregation_applied_l2_sectors"] = a.aggregation_applied_traffic->l2_sectors;
        ja["aggregation_applied_dram_bytes"] = a.aggregation_applied_traffic->dram_bytes;
      }
      ja["aggregation_form"] = a.aggregation_form;
      ja["aggregation_not_applied"] = a.aggregation_not_applied;
      ja["aggregation_recommended"] = a.aggregation_recommended();
    }
    j["arrays"].push_back(std::move(ja));
  }
  return j;
}

}  // namespace

void add_fix_command(CLI::App& app) {
  auto o = std::make_shared<FixCliOptions>();
  auto* cmd = app.add_subcommand(
      "fix",
      "for each conflicting shared array: padding, swizzle, replication or warp aggregation, each "
      "layout verified by running the kernel again (same outputs, cycles on the cycle model, the "
      "global traffic each run moves)");
  add_launch_options(cmd, o->launch);
  add_arch_options(cmd, o->arch);
  add_sim_options(cmd, o->sim);
  cmd->add_option("--swizzles", o->swizzles,
                  "XOR swizzle candidates verified per array, best predicted first (0: padding "
                  "only)")
      ->check(CLI::Range(0u, 16u));
  cmd->add_option("--emit", o->emit,
                  "print only code on stdout (notes on stderr): each array's recommended fixes, "
                  "then every other fix that ran as code, named _alt1, _alt2, ..., each under its "
                  "measured cycles: cuda, or cute (CuTe's Swizzle<B,M,S> for a swizzle)")
      ->check(CLI::IsMember({"cuda", "cute"}));
  cmd->footer(
      "Each candidate layout runs the whole kernel again with that array relaid out (padding or "
      "a bijective XOR swizzle of its index): it is offered only when every output buffer is the "
      "same, byte for byte, and it gives every line's conflicts and an estimate of the cycles. "
      "Then the layout is written into the kernel's code as the printed CUDA compiles (a padded "
      "row stride, or the index function once per address) and run: those are the cycles shown "
      "(* marks an estimate where it could not be), and a layout is recommended only when it is "
      "at least 1 % faster so. Atomic contention gets replication and warp aggregation, "
      "predicted with the arch's atomic model, then written into the kernel (the copies and "
      "their merge; the match and the leader's add) and timed whole, recommended on the same "
      "terms. Where no layout helps and a warp reads rows of a tile side by side, the row width "
      "or block shape that would is named (docs/fix.md).\n"
      "Examples:\n"
      "  smemsim fix builtin:transpose --variant naive32   # swizzle or pad the tile: 32-way -> 0\n"
      "  smemsim fix builtin:histogram --bins 8            # replicate the bins or aggregate\n"
      "  smemsim fix builtin:gemm --arch ampere-a100 --emit cute\n"
      "  smemsim fix builtin:transpose --variant naive32 --emit cuda > fix.cuh\n"
      "  smemsim fix k.ptx --kernel k --grid 64 --block 256 --launch k.toml --json");
  cmd->callback([o] {
    exec::Workload w = prepare_workload(o->launch);
    ArchOptions ao = o->arch;
    arch_from_target(ao, o->launch, w);
    const Arch arch = resolve_sim_arch(ao, o->sim);
    const TargetWarning warn_target(o->launch, w, arch);
    fix::Target target;
    const LaunchOptions lo = o->launch;
    target.make = [lo] { return prepare_workload(lo); };
    // The builtins with a --replication option are run with R copies too, when the kernel as
    // written has one copy (histogram's default; kmeans and hough default to 4 and 8, which the
    // prediction's R copies would multiply).
    const std::string& t = lo.target;
    const std::uint32_t as_written = lo.builtin.replication;
    if ((t == "builtin:histogram" && as_written <= 1) ||
        ((t == "builtin:kmeans" || t == "builtin:hough") && as_written == 1))
      target.replicated = [lo](std::uint32_t r) -> std::optional<exec::Workload> {
        LaunchOptions l = lo;
        l.builtin.replication = r;
        return prepare_workload(l);
      };
    fix::FixOptions fo;
    fo.swizzles = o->swizzles;
    fo.max_cycles = o->sim.max_cycles;
    fo.regs = o->sim.regs;
    const auto start = std::chrono::steady_clock::now();
    const fix::FixReport rep = fix::find_fixes(std::move(w), target, arch, fo);
    if (o->launch.stats) {
      const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
      fmt::print(stderr, "fix: {} runs of the kernel on the cycle model in {:.3f} s\n", rep.runs,
                 t.count());
    }
    if (o->launch.json) return print_json(report_json(rep, arch, o->emit == "cute"));
    if (!o->emit.empty()) {
      // Code alone on stdout (a header one can include); what is not code goes to stderr.
      if (!o->launch.arch_note.empty()) fmt::print(stderr, "{}\n", o->launch.arch_note);
      for (const fix::ArrayFix& a : rep.arrays) {
        fmt::print("{}", array_code(a, arch, o->emit == "cute"));
        fmt::print("{}", alternatives_code(a, arch, o->emit == "cute"));
        if (!a.why_none().empty())
          fmt::print(stderr, "{}: {}\n", array_name(rep, a.array), a.why_none());
      }
      return;
    }
    print_arch_choice(o->launch);
    print_report(rep, arch);
  });
}

}  // namespace smemsim::cli

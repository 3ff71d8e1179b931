// smemsim profile: runs a kernel and prints one row per shared-memory instruction with its PTX and
// CUDA line: executions, bank conflicts, bank/position/lock degrees and modeled latency under the
// chosen arch, hashes and model (issue 5, docs/exec.md "Profile").
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "sim_options.hpp"
#include "smemsim/error.hpp"
#include "smemsim/profile.hpp"

namespace smemsim::cli {
namespace {

// A row's JSON form with the hints computed for it (null where none lowers its conflict).
nlohmann::json row_json(const exec::ProfileRow& r, const ptx::Module& m, const ptx::Kernel& k,
                        const Arch& arch) {
  nlohmann::json j = json::to_json(r, m, k);
  std::optional<exec::PaddingHint> pad;
  if (r.totals.bank_conflicts > 0) pad = exec::padding_hint(r.worst, arch);
  j["hints"] = {{"padding", pad ? json::to_json(*pad) : nlohmann::json(nullptr)}};
  return j;
}

void print_tx_sites(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k) {
  if (s.tm_sites.empty()) return;
  fmt::print("\ntransactions (GPU-LocalTM, seed 003), per TX.Begin:\n");
  fmt::print("{:>6} {:<20} {:>8} {:>8} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9}\n", "PTX", "CUDA",
             "txs", "attempts", "serialized", "commits", "aborts", "ratio", "conflicts", "false");
  for (const auto& [pc, t] : s.tm_sites) {
    const std::string cu = exec::cuda_location(m, k.code[pc]);
    fmt::print("{:>6} {:<20} {:>8} {:>8} {:>10} {:>10} {:>10} {:>6.1f}% {:>9} {:>9}\n",
               k.code[pc].ptx_line, cu.empty() ? "-" : cu, t.transactions, t.attempts,
               t.wf_serial_attempts + t.wg_serial_attempts, t.lane_commits, t.lane_aborts,
               100.0 * t.commit_ratio(), t.conflicts_true + t.conflicts_false, t.conflicts_false);
  }
  fmt::print(
      "(txs: warp transactions; attempts: TX.Begin executions, retries included; serialized:\n"
      " attempts in wavefront or work-group serialization; commits, aborts: lanes; ratio: lane\n"
      " commits per lane attempt; false: conflicts from Bloom-signature aliasing)\n");
}

// One CSV line per row: the fields of --json's rows, locations as ptx.file, ptx.line, cuda.file,
// cuda.line (one form for both outputs).
void write_rows_csv(const std::string& path, const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> keys = {"ptx.file",  "ptx.line", "cuda.file",
                                   "cuda.line", "op",       "instruction"};
  keys.insert(keys.end(), json::totals_fields().begin(), json::totals_fields().end());
  keys.push_back("active_lanes_total");
  write_csv(path, keys, rows, "--csv");
}

// Under a conflicting row: its CUDA source line, and a padding that lowers the conflict, computed
// on the row's worst execution (exec::padding_hint).
void print_hint(const exec::ProfileRow& r, const ptx::Module& module, const ptx::Kernel& kernel,
                const Arch& arch) {
  if (r.totals.bank_conflicts == 0) return;
  if (r.index < kernel.code.size()) {
    const std::string src = exec::cuda_source_text(module, kernel.code[r.index]);
    if (!src.empty())
      fmt::print("{:>6} > {}\n", "", src.size() > 90 ? src.substr(0, 87) + "..." : src);
  }
  if (const auto h = exec::padding_hint(r.worst, arch))
    fmt::print(
        "{:>6} hint: read as rows of {} words, padding each row to {} makes its worst execution "
        "{}-way instead of {}-way\n",
        "", h->row_words, h->row_words + h->pad, h->after, h->before);
}

void print_table(const std::vector<exec::ProfileRow>& rows, const Totals& all,
                 const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch) {
  // The position and lock columns only when the kernel has shared atomics (issue 10 item 6).
  bool atomics = false;
  for (const exec::ProfileRow& r : rows) atomics |= r.op == Op::Atomic;
  fmt::print("{:>6} {:<20} {:<4} {:>9} {:>10} {:>6} {:>4}", "PTX", "CUDA", "op", "execs",
             "conflicts", "bank", "max");
  if (atomics) fmt::print(" {:>6} {:>4} {:>6} {:>4}", "pos", "max", "lock", "max");
  fmt::print(" {:>8}  {}\n", "cycles", "instruction");
  for (const exec::ProfileRow& r : rows) {
    const Totals& t = r.totals;
    const bool atom = r.op == Op::Atomic;
    auto mean = [&](std::int64_t s) { return t.accesses ? fmt::format("{:.2f}", t.mean(s)) : "-"; };
    fmt::print("{:>6} {:<20} {:<4} {:>9} {:>10} {:>6} {:>4}", r.ptx_line,
               r.cuda.empty() ? "-" : r.cuda, op_name(r.op), t.accesses, t.bank_conflicts,
               mean(t.sum_bank_degree), t.max_bank_degree);
    if (atomics)
      fmt::print(" {:>6} {:>4} {:>6} {:>4}", atom ? mean(t.sum_position_degree) : "-",
                 atom ? fmt::format("{}", r.max_position_degree) : "-",
                 atom ? mean(t.sum_lock_degree) : "-",
                 atom ? fmt::format("{}", t.max_lock_degree) : "-");
    fmt::print(" {:>8}  {}\n", t.accesses ? fmt::format("{:.1f}", t.mean(t.total_latency)) : "-",
               r.text);
    print_hint(r, module, kernel, arch);
  }
  fmt::print(
      "total: {} shared-memory warp accesses, {} bank conflicts, mean bank degree {:.3f}, "
      "{} modeled cycles\n",
      all.accesses, all.bank_conflicts, all.mean(all.sum_bank_degree), all.total_latency);
  fmt::print("(bank{}: mean degree per execution; cycles: mean modeled latency per execution{})\n",
             atomics ? "/pos/lock" : "", atomics ? "; pos and lock for atomics only" : "");
}

// Nsight Compute's source view, from the cycle model: per instruction its issues, mean latency and
// the warp states of the warp-cycles spent with it as the warp's next instruction.
void print_timing(const timing::TimingStats& s, const Arch& arch, const exec::Workload& w,
                  const ptx::Kernel& kernel) {
  fmt::print(
      "\ntiming (cycle model): {} cycles, IPC {:.3f}; {} pipeline, {} scheduler. Warp states per "
      "instruction: the warp-cycles each warp spent with it as its next instruction\n",
      s.cycles, s.ipc(), arch.sm.pipeline, arch.sm.scheduler);
  fmt::print("{:>6} {:<20} {:>9} {:>8} {:>12}  {:<52} {}\n", "PTX", "CUDA", "issued", "latency",
             "warp-cycles", "top warp states", "instruction");
  for (std::size_t i = 0; i < s.instructions.size() && i < kernel.code.size(); ++i) {
    const timing::InstrStats& r = s.instructions[i];
    if (!r.issued) continue;
    std::uint64_t total = 0;
    std::vector<std::pair<std::uint64_t, timing::Stall>> states;
    for (std::size_t k = 0; k < timing::kStallKinds; ++k) {
      total += r.warp_states.cycles[k];
      if (r.warp_states.cycles[k])
        states.push_back({r.warp_states.cycles[k], static_cast<timing::Stall>(k)});
    }
    std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::string top;
    for (std::size_t k = 0; k < states.size() && k < 3; ++k)
      top += fmt::format("{}{} {:.0f}%", k ? ", " : "", timing::stall_name(states[k].second),
                         100.0 * double(states[k].first) / double(total));
    const ptx::Instruction& ins = kernel.code[i];
    const std::string cu = exec::cuda_location(w.module, ins);
    fmt::print("{:>6} {:<20} {:>9} {:>8.1f} {:>12}  {:<52} {}\n", ins.ptx_line,
               cu.empty() ? "-" : cu, r.issued, double(r.latency) / double(r.issued), total, top,
               ptx::to_string(kernel, ins));
  }
}

// A [[launch]] pipeline (issue 15): one profiler per launch, a table per launch and the total.
void profile_pipeline(exec::Workload& w, const Arch& arch, const LaunchOptions& lo,
                      const std::string& trace, const std::string& csv) {
  std::vector<std::unique_ptr<exec::Profiler>> profilers;
  std::vector<std::unique_ptr<exec::TeeConsumer>> tees;
  std::ofstream trace_file;
  std::unique_ptr<exec::TraceConsumer> tracer;
  if (!trace.empty()) {
    trace_file.open(trace);
    if (!trace_file) throw InputError(fmt::format("cannot write trace '{}'", trace));
    trace_file << "# smemsim profile " << w.name << " pipeline of " << w.pipeline.size()
               << " launches\n";
    tracer = std::make_unique<exec::TraceConsumer>(trace_file, arch.warp_size);
  }
  for (const exec::Workload::Step& st : w.pipeline) {
    profilers.push_back(
        std::make_unique<exec::Profiler>(w.module, exec::find_kernel(w.module, st.kernel), arch));
    tees.push_back(std::make_unique<exec::TeeConsumer>());
    tees.back()->add(profilers.back().get());
    if (tracer) tees.back()->add(tracer.get());
  }
  const RunSummary s = run_workload(
      w, arch, [&](std::size_t i) -> exec::AccessConsumer* { return tees[i].get(); }, lo.max_steps);
  if (tracer) {
    trace_file.flush();
    if (!trace_file) throw InputError(fmt::format("cannot write trace '{}'", trace));
  }
  Totals all;
  std::vector<nlohmann::json> launch_rows(profilers.size()), every_row;
  for (std::size_t i = 0; i < profilers.size(); ++i) {
    all.merge(profilers[i]->totals());
    const ptx::Kernel& k = exec::find_kernel(w.module, w.pipeline[i].kernel);
    launch_rows[i] = nlohmann::json::array();
    for (const exec::ProfileRow& r : profilers[i]->rows()) {
      every_row.push_back(row_json(r, w.module, k, arch));
      launch_rows[i].push_back(every_row.back());
    }
  }
  if (!csv.empty()) write_rows_csv(csv, every_row);
  if (lo.json) {
    nlohmann::json j = json::document("profile");
    j.update(json::run_json(w, s));
    j["arch"] = json::to_json(arch);
    j["rows"] = every_row;
    for (std::size_t i = 0; i < profilers.size(); ++i) {
      j["launches"][i]["rows"] = launch_rows[i];
      j["launches"][i]["totals"] = json::to_json(profilers[i]->totals());
    }
    j["totals"] = json::to_json(all);
    if (tracer) j["trace"] = {{"path", trace}, {"accesses", tracer->written()}};
    print_json(j);
  } else {
    fmt::print("{}\n", arch_summary(arch));
    print_run_header(w, s);
    print_verdict(w, s);
    for (std::size_t i = 0; i < profilers.size(); ++i) {
      const ptx::Kernel& k = exec::find_kernel(w.module, w.pipeline[i].kernel);
      fmt::print("\nlaunch {} of {}: {}\n", i + 1, profilers.size(), ptx::demangle(k.name));
      print_table(profilers[i]->rows(), profilers[i]->totals(), w.module, k, arch);
    }
    fmt::print("\npipeline: {} shared-memory warp accesses, {} bank conflicts, {} modeled cycles\n",
               all.accesses, all.bank_conflicts, all.total_latency);
    if (tracer) fmt::print("wrote {} accesses to {}\n", tracer->written(), trace);
  }
  if (lo.stats) print_speed(s);
  fail_on_mismatch(s);
}

}  // namespace

void add_profile_command(CLI::App& app) {
  struct Options {
    LaunchOptions launch;
    ArchOptions arch;
    std::string trace;
    std::string csv;
    bool timing = false;
    SimOptions sim;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "profile", "run a kernel and profile every shared-memory instruction (PTX and CUDA line)");
  add_launch_options(cmd, o->launch);
  add_step_limit(cmd, o->launch);
  add_arch_options(cmd, o->arch);
  cmd->add_option("--csv", o->csv,
                  "also write the rows as CSV to FILE (the columns and names of --json's rows)")
      ->check(non_empty_path());
  cmd->add_option("--emit-trace", o->trace,
                  "also write the shared-memory accesses as a smemsim-trace v1 (pc = PTX line)");
  cmd->add_flag("--timing", o->timing,
                "run on the cycle-level model and attribute warp stall reasons to every PTX "
                "and CUDA line (as Nsight Compute's source view)");
  add_sim_options(cmd, o->sim);
  cmd->footer(
      "Examples:\n"
      "  smemsim profile builtin:transpose                   # store phase: 8-way (seed 002 "
      "§3.2.2)\n"
      "  smemsim profile builtin:transpose --variant padded  # conflict-free\n"
      "  smemsim profile builtin:histogram --replication 8 --bank-hash xor --json\n"
      "  smemsim profile builtin:atomic_bench --conflicts 16 --stride 256 --emit-trace a.trace\n"
      "  smemsim profile builtin:histogram --replication 32 --timing   # stall reasons per line\n"
      "  smemsim profile k.ptx --kernel k --grid 4 --block 128 --launch k.toml");
  cmd->callback([o] {
    const Arch arch = o->timing ? resolve_sim_arch(o->arch, o->sim) : resolve_arch(o->arch);
    exec::Workload w = prepare_workload(o->launch);
    if (!w.pipeline.empty()) {
      if (o->timing)
        throw InputError(
            fmt::format("profile --timing times one launch; {} has {} [[launch]] "
                        "tables (profile without --timing reports each)",
                        o->launch.launch, w.pipeline.size()));
      profile_pipeline(w, arch, o->launch, o->trace, o->csv);
      return;
    }
    const ptx::Kernel& kernel = exec::find_kernel(w.module, w.kernel);
    exec::Profiler profiler(w.module, kernel, arch);
    exec::TeeConsumer tee;
    tee.add(&profiler);
    std::ofstream trace_file;
    std::unique_ptr<exec::TraceConsumer> tracer;
    if (!o->trace.empty()) {
      trace_file.open(o->trace);
      if (!trace_file) throw InputError(fmt::format("cannot write trace '{}'", o->trace));
      trace_file << "# smemsim profile " << w.name << " kernel " << w.kernel << "\n";
      tracer = std::make_unique<exec::TraceConsumer>(trace_file, arch.warp_size);
      tee.add(tracer.get());
    }
    SimRun sim;
    if (o->timing)
      sim = simulate(w, kernel, arch, o->sim, &tee, true);
    else
      sim.summary = run_workload(w, arch, &tee, o->launch.max_steps);
    const RunSummary& s = sim.summary;
    if (tracer) {
      trace_file.flush();
      if (!trace_file) throw InputError(fmt::format("cannot write trace '{}'", o->trace));
    }
    const std::vector<exec::ProfileRow> rows = profiler.rows();
    std::vector<nlohmann::json> jrows;
    for (const auto& r : rows) jrows.push_back(row_json(r, w.module, kernel, arch));
    if (!o->csv.empty()) write_rows_csv(o->csv, jrows);
    if (o->launch.json) {
      nlohmann::json j = json::document("profile");
      j.update(json::run_json(w, s));
      j["arch"] = json::to_json(arch);
      j["rows"] = jrows;
      j["totals"] = json::to_json(profiler.totals());
      if (!s.stats.tm_sites.empty())
        j["transactions"] = json::tm_sites_json(s.stats, w.module, kernel);
      if (tracer) j["trace"] = {{"path", o->trace}, {"accesses", tracer->written()}};
      if (o->timing) j["timing"] = timing::to_json(sim.stats, w.module, kernel);
      print_json(j);
    } else {
      fmt::print("{}\n", arch_summary(arch));
      print_run_header(w, s);
      print_verdict(w, s);
      print_table(rows, profiler.totals(), w.module, kernel, arch);
      print_tx_sites(s.stats, w.module, kernel);
      if (o->timing) print_timing(sim.stats, arch, w, kernel);
      if (tracer) fmt::print("wrote {} accesses to {}\n", tracer->written(), o->trace);
      if (w.module.files.empty() && !o->launch.target.starts_with("builtin:"))
        fmt::print(
            "note: {} has no line information: compile it with nvcc -lineinfo to see the "
            "CUDA line of each instruction\n",
            w.name);
    }
    if (o->launch.stats) print_speed(s);
    fail_on_mismatch(s);
  });
}

}  // namespace smemsim::cli

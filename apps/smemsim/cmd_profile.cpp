// smemsim profile: runs a kernel and prints one row per shared-memory instruction with its PTX and
// CUDA line: accesses, bank conflicts, bank/position/lock degrees and modeled latency under the
// chosen arch, hashes and model, and under each conflicting line its CUDA source and a hint (issue
// 5, issue 10 item 6; docs/exec.md "Profile").
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "profile_html.hpp"
#include "profile_print.hpp"
#include "sim_options.hpp"
#include "smemsim/error.hpp"
#include "smemsim/profile.hpp"
#include "text_table.hpp"

namespace smemsim::cli {
namespace {

constexpr std::size_t kWidth = 100;  // columns of the default output (--wide: no limit)

struct ProfileOptions {
  LaunchOptions launch;
  ArchOptions arch;
  std::string trace;
  std::string csv;
  std::string html;
  bool timing = false;
  bool wide = false;
  std::string by = "line";  // line: a row per CUDA line; instruction: per PTX instruction
  SimOptions sim;
  std::size_t width() const { return wide ? 0 : kWidth; }
};

// --emit-trace: every shared access as a smemsim-trace v1 (pc = PTX line).
class TraceOutput {
 public:
  TraceOutput(const std::string& path, const std::string& header, std::uint32_t warp_size)
      : path_(path) {
    if (path.empty()) return;
    file_ = std::make_unique<OutputFile>(path, "--emit-trace");
    file_->stream() << "# smemsim profile " << header << "\n";
    tracer_ = std::make_unique<exec::TraceConsumer>(file_->stream(), warp_size);
  }
  exec::AccessConsumer* consumer() { return tracer_.get(); }
  void finish() {
    if (!tracer_) return;
    file_->commit();
  }
  // {"path", "accesses"}, or null without --emit-trace.
  nlohmann::json json() const {
    if (!tracer_) return nullptr;
    return {{"path", path_}, {"accesses", tracer_->written()}};
  }
  void print_note() const {
    if (tracer_) fmt::print("wrote {} accesses to {}\n", tracer_->written(), path_);
  }

 private:
  std::string path_;
  std::unique_ptr<OutputFile> file_;  // renamed into place by finish(), after a run that ends well
  std::unique_ptr<exec::TraceConsumer> tracer_;
};

// One launch's consumers: the profiler, the per-line reference sets of the hints, the trace.
struct LaunchProfile {
  LaunchProfile(const ptx::Module& m, const ptx::Kernel& k, const Arch& arch,
                exec::AccessConsumer* trace)
      : kernel(k), profiler(m, k, arch), sets(arch) {
    tee.add(&profiler);
    tee.add(&sets);
    tee.add(trace);
  }
  const ptx::Kernel& kernel;
  exec::Profiler profiler;
  LineSetsConsumer sets;
  exec::TeeConsumer tee;
};

// The rows the table and --csv show: per CUDA line (the default) or per instruction.
std::vector<ProfileLine> shown(const std::vector<ProfileLine>& lines, const ProfileOptions& o,
                               const ptx::Module& m, const ptx::Kernel& k, const LineSets& sets) {
  return o.by == "line" ? by_cuda_line(lines, m, k, &sets) : lines;
}

nlohmann::json rows_json(const std::vector<ProfileLine>& lines, const ptx::Module& m,
                         const ptx::Kernel& k) {
  nlohmann::json a = nlohmann::json::array();
  for (const ProfileLine& l : lines) a.push_back(line_json(l, m, k));
  return a;
}

// The profile document: the run, the arch, the rows and totals, the trace written.
nlohmann::json profile_json(const exec::Workload& w, const RunSummary& s, const Arch& arch,
                            nlohmann::json rows, const Totals& totals, const TraceOutput& trace) {
  nlohmann::json j = json::document("profile");
  j.update(json::run_json(w, s));
  j["arch"] = json::to_json(arch);
  j["rows"] = std::move(rows);
  j["totals"] = json::to_json(totals);
  if (nlohmann::json t = trace.json(); !t.is_null()) j["trace"] = std::move(t);
  return j;
}

void write_rows_csv(const std::string& path, const nlohmann::json& rows) {
  if (path.empty()) return;
  write_csv(path, csv_columns(), std::vector<nlohmann::json>(rows.begin(), rows.end()), "--csv");
}

// --html: the source view of the document (profile_html.hpp), with the hint of each of its
// cuda_lines (`by_line`, by_cuda_line's rows).
void write_html(const std::string& path, const nlohmann::json& doc,
                const std::vector<ProfileLine>& by_line, const ptx::Module& m,
                const ptx::Kernel& k) {
  std::vector<std::string> hints;
  for (const ProfileLine& l : by_line)  // every hint of the text output (the atomic one too)
    hints.push_back(fmt::format("{}", fmt::join(line_hints(l), "; ")));
  write_output_file(path, "--html", profile_html(doc, hints, m, k));
}

// A [[launch]] pipeline (issue 15): one profile per launch, a table per launch and the total.
void profile_pipeline(exec::Workload& w, const Arch& arch, const ProfileOptions& o) {
  TraceOutput trace(o.trace, fmt::format("{} pipeline of {} launches", w.name, w.pipeline.size()),
                    arch.warp_size);
  std::vector<std::unique_ptr<LaunchProfile>> launches;
  for (const exec::Workload::Step& st : w.pipeline)
    launches.push_back(std::make_unique<LaunchProfile>(
        w.module, exec::find_kernel(w.module, st.kernel), arch, trace.consumer()));
  const RunSummary s = run_workload(
      w, arch, [&](std::size_t i) -> exec::AccessConsumer* { return &launches[i]->tee; },
      o.launch.max_steps);
  trace.finish();
  Totals all;
  std::vector<std::vector<ProfileLine>> lines;
  nlohmann::json every_row = nlohmann::json::array();
  nlohmann::json every_line = nlohmann::json::array(), every_shown = nlohmann::json::array();
  for (const auto& l : launches) {
    all.merge(l->profiler.totals());
    lines.push_back(profile_lines(l->profiler, l->sets.sets(), arch));
    for (const auto& r : rows_json(lines.back(), w.module, l->kernel)) every_row.push_back(r);
    for (const auto& r : rows_json(by_cuda_line(lines.back(), w.module, l->kernel, &l->sets.sets()),
                                   w.module, l->kernel))
      every_line.push_back(r);
  }
  write_rows_csv(o.csv, o.by == "line" ? every_line : every_row);
  print_arch_choice(o.launch);
  if (o.launch.json) {
    nlohmann::json j = profile_json(w, s, arch, every_row, all, trace);
    j["cuda_lines"] = every_line;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      j["launches"][i]["rows"] = rows_json(lines[i], w.module, launches[i]->kernel);
      j["launches"][i]["totals"] = json::to_json(launches[i]->profiler.totals());
    }
    print_json(j);
  } else {
    fmt::print("{}", wrap(arch_summary(arch), o.width()));
    print_run_header(w, s, o.width());
    print_verdict(w, s);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      fmt::print("\n{}", wrap(fmt::format("launch {} of {}: {}", i + 1, launches.size(),
                                          ptx::demangle(launches[i]->kernel.name)),
                              o.width()));
      print_profile_table(
          shown(lines[i], o, w.module, launches[i]->kernel, launches[i]->sets.sets()),
          launches[i]->profiler.totals(), w.module, launches[i]->kernel, o.width());
    }
    fmt::print(
        "\npipeline: {} shared-memory warp accesses, {} bank conflicts, access latencies "
        "summed {} cycles\n",
        all.accesses, all.bank_conflicts, all.total_latency);
    trace.print_note();
  }
  if (o.launch.stats) print_speed(s);
  fail_on_mismatch(s);
}

void profile_one(exec::Workload& w, const Arch& arch, const ProfileOptions& o) {
  const ptx::Kernel& kernel = exec::find_kernel(w.module, w.kernel);
  TraceOutput trace(o.trace, fmt::format("{} kernel {}", w.name, ptx::demangle(w.kernel)),
                    arch.warp_size);
  LaunchProfile lp(w.module, kernel, arch, trace.consumer());
  SimRun sim;
  if (o.timing)
    sim = simulate(w, kernel, arch, o.sim, &lp.tee, true);
  else
    sim.summary = run_workload(w, arch, &lp.tee, o.launch.max_steps);
  const RunSummary& s = sim.summary;
  trace.finish();
  const std::vector<ProfileLine> lines = profile_lines(lp.profiler, lp.sets.sets(), arch);
  const nlohmann::json rows = rows_json(lines, w.module, kernel);
  const std::vector<ProfileLine> by_line = by_cuda_line(lines, w.module, kernel, &lp.sets.sets());
  const nlohmann::json cuda_lines = rows_json(by_line, w.module, kernel);
  write_rows_csv(o.csv, o.by == "line" ? cuda_lines : rows);
  // The document --json prints and --html draws.
  nlohmann::json j;
  if (o.launch.json || !o.html.empty()) {
    j = profile_json(w, s, arch, rows, lp.profiler.totals(), trace);
    j["cuda_lines"] = cuda_lines;
    if (!s.stats.tm_sites.empty())
      j["transactions"] = json::tm_sites_json(s.stats, w.module, kernel);
    if (!s.stats.tma_reads.empty()) j["tma_reads"] = tma_reads_json(s.stats, w.module, kernel);
    if (o.timing) j["timing"] = timing::to_json(sim.stats, w.module, kernel);
  }
  if (!o.html.empty()) write_html(o.html, j, by_line, w.module, kernel);
  print_arch_choice(o.launch);
  if (o.launch.json) {
    print_json(j);
  } else {
    fmt::print("{}", wrap(arch_summary(arch), o.width()));
    print_run_header(w, s, o.width());
    print_verdict(w, s);
    print_profile_table(o.by == "line" ? by_line : lines, lp.profiler.totals(), w.module, kernel,
                        o.width());
    print_hint_commands(o.by == "line" ? by_line : lines, o.trace, arch.name);
    print_tx_sites(s.stats, w.module, kernel, o.width());
    print_tma_reads(s.stats, w.module, kernel, o.width());
    if (o.timing) print_timing(sim.stats, arch, w.module, kernel, o.width());
    trace.print_note();
    if (!o.html.empty()) fmt::print("wrote the source view to {}\n", o.html);
    if (w.module.files.empty() && !o.launch.target.starts_with("builtin:"))
      fmt::print("{}", wrap(fmt::format("note: {} has no line information: compile it with nvcc "
                                        "-lineinfo to see the CUDA line of each instruction",
                                        w.name),
                            o.width()));
  }
  if (o.launch.stats) print_speed(s);
  fail_on_mismatch(s);
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto o = std::make_shared<ProfileOptions>();
  auto* cmd = app.add_subcommand(
      "profile", "run a kernel and profile every shared-memory instruction (PTX and CUDA line)");
  add_launch_options(cmd, o->launch);
  add_step_limit(cmd, o->launch);
  add_arch_options(cmd, o->arch);
  cmd->add_option("--csv", o->csv,
                  "also write the rows as CSV to FILE (the fields of --json's rows; locations as "
                  "ptx.file, ptx.line, cuda.file, cuda.line)")
      ->check(non_empty_path());
  cmd->add_option("--emit-trace", o->trace,
                  "also write the shared-memory accesses as a smemsim-trace v1 (pc = PTX line)")
      ->check(non_empty_path());
  cmd->add_option("--html", o->html,
                  "also write the source view to FILE: one self-contained HTML page with the CUDA "
                  "source coloured by each line's conflicts (and stalls, with --timing), degrees, "
                  "hints, the PTX and the kernel's summary")
      ->check(non_empty_path());
  cmd->add_flag("--timing", o->timing,
                "run on the cycle-level model and attribute warp stall reasons to every PTX "
                "and CUDA line (as Nsight Compute's source view), and give each CUDA line's "
                "global memory: requests, sectors, L1/L2 hit rates, DRAM bytes (its memory "
                "table)");
  cmd->add_option("--by", o->by,
                  "rows of the table and --csv: line (one per CUDA line: its unrolled copies and "
                  "inlined calls summed, one hint) or instruction (one per PTX instruction)")
      ->check(CLI::IsMember({"line", "instruction"}))
      ->capture_default_str();
  cmd->add_flag("--wide", o->wide,
                "print every column and whole lines (default: fit 100 columns, cutting the "
                "instruction and source text with ...)");
  add_sim_options(cmd, o->sim);
  cmd->footer(
      "Under each conflicting line: its CUDA source and a hint, computed on the line's own\n"
      "accesses: a row padding, and the XOR swizzle `hash search --pc LINE` finds. A kernel\n"
      "that reads tiles a TMA tensor copy wrote also gets each such load's bank passes under\n"
      "every swizzle mode (none, 32B, 64B, 128B; docs/exec.md \"TMA\").\n"
      "Examples:\n"
      "  smemsim profile builtin:transpose                   # store phase: 8-way (seed 002 "
      "§3.2.2)\n"
      "  smemsim profile builtin:transpose --variant padded  # conflict-free\n"
      "  smemsim profile builtin:transpose --variant naive32 --wide --by instruction\n"
      "  smemsim profile builtin:histogram --replication 8 --bank-hash xor --json\n"
      "  smemsim profile builtin:atomic_bench --conflicts 16 --stride 256 --emit-trace a.trace\n"
      "  smemsim profile builtin:histogram --replication 32 --timing   # stall reasons per line\n"
      "  smemsim profile builtin:transpose --timing --html transpose.html   # a source view\n"
      "  smemsim profile builtin:matmul --variant naive --arch ampere-a100 --timing   # DRAM "
      "bytes\n"
      "  smemsim profile builtin:gemm --arch ampere-a100 --emit-trace g.trace   # 8-way ldmatrix\n"
      "  smemsim profile k.ptx --kernel k --grid 4 --block 128 --launch k.toml");
  cmd->callback([o, cmd] {
    // The cycle model's options do nothing without it (issue 28: they were accepted silently).
    if (!o->timing)
      for (const char* opt : {"--pipeline", "--scheduler", "--barrel", "--max-cycles", "--regs",
                              "--threads", "--warm-l2"})
        if (cmd->count(opt))
          throw InputError(
              fmt::format("{} applies to the cycle-level model: give --timing (or use sim)", opt));
    const std::vector<std::pair<std::string, std::string>> outs = {
        {"--csv", o->csv}, {"--emit-trace", o->trace}, {"--html", o->html}};
    check_outputs(outs);
    exec::Workload w = prepare_workload(o->launch);
    check_outputs(outs, &w, &o->launch);
    ArchOptions ao = o->arch;
    arch_from_target(ao, o->launch, w);
    const Arch arch = o->timing ? resolve_sim_arch(ao, o->sim) : resolve_arch(ao);
    const TargetWarning warn_target(o->launch, w, arch);
    if (w.pipeline.empty()) return profile_one(w, arch, *o);
    // A builtin's pipeline has no launch file: name the kernel given.
    const std::string& what = o->launch.launch.empty() ? o->launch.target : o->launch.launch;
    if (!o->html.empty())
      throw InputError(fmt::format(
          "--html shows one launch; {} has {} launches (profile without --html reports each)", what,
          w.pipeline.size()));
    if (o->timing)
      throw InputError(fmt::format(
          "profile --timing times one launch; {} has {} launches (profile without --timing "
          "reports each)",
          what, w.pipeline.size()));
    profile_pipeline(w, arch, *o);
  });
}

}  // namespace smemsim::cli

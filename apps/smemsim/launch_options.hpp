// Launch options shared by `run` and `profile`: a PTX file with --kernel/--grid/--block/--launch,
// or builtin:NAME with the built-in driver options (docs/exec.md).
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/exec_json.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::cli {

struct LaunchOptions {
  std::string target;  // FILE.ptx or builtin:NAME
  std::string kernel;
  std::string grid, block;
  std::string launch;  // launch spec TOML
  std::string ptx_dir;
  exec::BuiltinOptions builtin;
  std::string software_hash;  // builtins: --swhash K2,MASK (seed 002 §7.2)
  bool json = false;
  bool stats = false;
  bool racecheck = false;                                      // run --racecheck
  std::uint64_t max_steps = exec::Executor::kDefaultMaxSteps;  // run, profile
  std::string max_memory = "4G";                               // the launch spec's buffers
  std::string arch_note;  // set by arch_from_target: the preset chosen from the PTX's .target
  // The builtin driver options and --grid/--block as parsed: which were given, checked against the
  // builtin's own (exec::builtin_options) or refused for a PTX file.
  std::vector<const CLI::Option*> driver_options;
  const CLI::Option *grid_option = nullptr, *block_option = nullptr;
};

void add_launch_options(CLI::App* cmd, LaunchOptions& o);
// --max-steps, for the commands that run the functional executor (run, profile).
void add_step_limit(CLI::App* cmd, LaunchOptions& o);
// Parses a PTX file; a .cu given instead is an InputError that says how to compile it.
ptx::Module read_ptx(const std::string& path);
// Builds the workload (PTX parsed, memory initialized, launch complete). Throws InputError.
// The command's output options (name, path) and the workload's buffer writes must name different
// files (issue 28): InputError naming the two otherwise. Call before any work.
// With `o`, no output may be one of the command's inputs (the PTX file, the launch spec; issue 48).
void check_outputs(std::vector<std::pair<std::string, std::string>> outs,
                   const exec::Workload* w = nullptr, const LaunchOptions* o = nullptr);
exec::Workload prepare_workload(const LaunchOptions& o);
// After a run: the workload's buffer writes (exec::write_outputs), then an embedding's
// `finished` (embed.hpp).
void finish_workload(const exec::Workload& w);
// With neither --arch nor --arch-file, a PTX file (not a builtin: those keep their seed's preset)
// runs on the preset of its .target (sm_75 -> turing-t4; issue 24): sets `a.name` and
// `o.arch_note`, the line that says so ("" when nothing was chosen). A target with no preset of
// its own takes the nearest older one, or the default, and the line says which.
void arch_from_target(ArchOptions& a, LaunchOptions& o, const exec::Workload& w);
// Prints o.arch_note when the run has succeeded, before the results: the first line of the text
// output (under --json the document's "arch" names it); an error stays the only line.
void print_arch_choice(const LaunchOptions& o);
// A one-line warning on stderr when a PTX file targets a newer GPU than the arch (issue 16),
// printed when the command ends without an error (an error stays the only line) and not under
// --json.
class TargetWarning {
 public:
  TargetWarning(const LaunchOptions& o, const exec::Workload& w, const Arch& arch);
  ~TargetWarning();
  TargetWarning(const TargetWarning&) = delete;
  TargetWarning& operator=(const TargetWarning&) = delete;

 private:
  std::string text_;
};

// What a run gives: the executor's statistics, the wall time, the reference check (the library's
// form, so that json::run_json writes it).
using RunSummary = exec::RunSummary;
// A launch's progress on stderr, only when it is a terminal and the launch has run for a second:
// "block 1234 of 65536 (1.9%)", redrawn at most ten times a second, cleared at the end (issue 11).
class LaunchProgress {
 public:
  LaunchProgress();
  ~LaunchProgress();
  void operator()(std::uint64_t done, std::uint64_t total);
  // The callback for Executor::set_progress / TimingOptions::progress (nullptr off a terminal).
  std::function<void(std::uint64_t, std::uint64_t)> callback();

 private:
  bool terminal_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// `racecheck`: check shared memory for races between warps (issue 45; RunSummary::hazards).
RunSummary run_workload(exec::Workload& w, const Arch& arch, exec::AccessConsumer* consumer,
                        std::uint64_t max_steps = exec::Executor::kDefaultMaxSteps,
                        bool racecheck = false);
// The same with a consumer per launch (launch i of a pipeline; 0 for a single launch).
RunSummary run_workload(exec::Workload& w, const Arch& arch,
                        const std::function<exec::AccessConsumer*(std::size_t)>& consumer_for,
                        std::uint64_t max_steps, bool racecheck = false);
// The kernels' printf output so far (issue 45), taken from the workload's memory into `s` and
// written as the program's own output: on stdout, or on stderr under --json (stdout is the
// document); a note on stderr when the buffer lost calls. Commands that run kernels call it
// after each launch, and before an error ends them (the output of a failing launch is shown).
void emit_printf(exec::Workload& w, RunSummary* s);
// Where emit_printf writes (prepare_workload sets it from --json).
void set_printf_stream(std::FILE* f);
// The hazards of `s` for people: none found, or one paragraph per hazard (docs/exec.md).
void print_hazards(const exec::Workload& w, const RunSummary& s);

// "kernel K: grid G x block B, shared ..." and the reference verdict, for the human output.
// Lines past `width` columns are wrapped at ", " (0: no limit; profile fits 100 columns).
void print_run_header(const exec::Workload& w, const RunSummary& s, std::size_t width = 0);
void print_verdict(const exec::Workload& w, const RunSummary& s);
void print_speed(const RunSummary& s);  // on stderr
// After printing: a mismatch is a runtime failure (exit 1).
void fail_on_mismatch(const RunSummary& s);

}  // namespace smemsim::cli

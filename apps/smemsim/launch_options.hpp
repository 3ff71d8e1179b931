// Launch options shared by `run` and `profile`: a PTX file with --kernel/--grid/--block/--launch,
// or builtin:NAME with the built-in driver options (docs/exec.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::cli {

struct LaunchOptions {
  std::string target;  // FILE.ptx or builtin:NAME
  std::string kernel;
  std::string grid, block;
  std::string launch;  // launch spec TOML
  std::string ptx_dir;
  exec::BuiltinOptions builtin;
  bool json = false;
  bool stats = false;
  std::uint64_t max_steps = exec::Executor::kDefaultMaxSteps;  // run, profile
};

void add_launch_options(CLI::App* cmd, LaunchOptions& o);
// --max-steps, for the commands that run the functional executor (run, profile).
void add_step_limit(CLI::App* cmd, LaunchOptions& o);
// Builds the workload (PTX parsed, memory initialized, launch complete). Throws InputError.
exec::Workload prepare_workload(const LaunchOptions& o);

// Runs the workload with `consumer`; returns the executor's statistics and the wall time.
struct RunSummary {
  exec::ExecStats stats;
  exec::SharedLayout shared;
  double seconds = 0;
  std::string mismatch;  // "" when the result matches (or there is no reference)
  bool checked = false;
};
RunSummary run_workload(exec::Workload& w, const Arch& arch, exec::AccessConsumer* consumer,
                        std::uint64_t max_steps = exec::Executor::kDefaultMaxSteps);

nlohmann::json run_json(const exec::Workload& w, const RunSummary& s);
// "kernel K: grid G x block B, shared ..." and the reference verdict, for the human output.
void print_run_header(const exec::Workload& w, const RunSummary& s);
void print_verdict(const exec::Workload& w, const RunSummary& s);
void print_speed(const RunSummary& s);  // on stderr
// After printing: a mismatch is a runtime failure (exit 1).
void fail_on_mismatch(const RunSummary& s);

}  // namespace smemsim::cli

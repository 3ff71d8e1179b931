// smemsim run: executes a PTX kernel (or a built-in suite driver) on the CPU and checks builtins
// against their CPU reference (issue 5, docs/exec.md).
#include <fmt/format.h>

#include <memory>

#include "cli_common.hpp"
#include "gpu_export.hpp"
#include "launch_options.hpp"

namespace smemsim::cli {
namespace {

struct RunOptions {
  LaunchOptions launch;
  ArchOptions arch;
  std::string export_gpu;  // --export-gpu DIR
};

std::shared_ptr<RunOptions> add_run_options(CLI::App* cmd) {
  auto o = std::make_shared<RunOptions>();
  add_launch_options(cmd, o->launch);
  add_step_limit(cmd, o->launch);
  add_arch_options(cmd, o->arch, false);
  return o;
}

// `run` and `racecheck` (which is `run --racecheck` with the hazards first and its own kind).
void run_and_report(const RunOptions& o, bool racecheck_command) {
  exec::Workload w = prepare_workload(o.launch);
  ArchOptions ao = o.arch;
  LaunchOptions lo = o.launch;
  arch_from_target(ao, lo, w);
  const Arch arch = resolve_arch(ao);
  const TargetWarning warn_target(lo, w, arch);
  std::unique_ptr<GpuExport> exported;
  if (!o.export_gpu.empty()) exported = std::make_unique<GpuExport>(o.export_gpu, w);
  const RunSummary s =
      run_workload(w, arch, nullptr, lo.max_steps, lo.racecheck || racecheck_command);
  if (exported) exported->finish(w);
  print_arch_choice(lo);
  if (lo.json) {
    nlohmann::json j = json::document(racecheck_command ? "racecheck" : "run");
    j.update(json::run_json(w, s));
    j["arch"] = json::to_json(arch);
    print_json(j);
  } else if (racecheck_command) {
    print_hazards(w, s);
    print_verdict(w, s);
  } else {
    print_run_header(w, s);
    print_verdict(w, s);
    print_hazards(w, s);
  }
  if (lo.stats) print_speed(s);
  fail_on_mismatch(s);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "execute a CUDA kernel's PTX on the CPU (SIMT executor)");
  auto o = add_run_options(cmd);
  cmd->add_option("--export-gpu", o->export_gpu,
                  "also write DIR: the PTX, each buffer before and after the run and the packed "
                  "parameters, for scripts/gpu-replay to run the same launch on a real GPU and "
                  "compare (docs/exec.md)")
      ->check(CLI::Validator(  // a folder: non_empty_path() would refuse one
          [](std::string& s) { return s.empty() ? std::string("empty path") : std::string(); },
          "DIR"));
  cmd->add_flag("--racecheck", o->launch.racecheck,
                "check shared memory for races between warps (as compute-sanitizer's racecheck; "
                "exit 1 when one is found)");
  cmd->footer(
      "Examples:\n"
      "  smemsim run builtin:histogram --bins 256 --replication 32 --mapping cyclic --padding 1\n"
      "  smemsim run builtin:transpose --variant padded --width 256 --height 128\n"
      "  smemsim run builtin:atomic_bench --conflicts 8 --stride 256\n"
      "  smemsim run k.ptx --kernel k --grid 8 --block 256 --launch k.toml\n"
      "  smemsim run k.ptx --kernel k --grid 4 --block 128 --launch k.toml --racecheck\n"
      "  smemsim run builtin:conv --export-gpu pk   # then on a GPU: scripts/gpu-replay.cu pk\n"
      "Builtins generate a seeded input, run and compare with a CPU reference: exit 1 on a "
      "mismatch. A kernel's printf output is written on stdout (stderr under --json) after its "
      "launch; a failing assert stops the run with the GPU's message, exit 2.");
  cmd->callback([o] { run_and_report(*o, false); });
}

void add_racecheck_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "racecheck",
      "find shared-memory races between the warps of a block (as compute-sanitizer racecheck)");
  auto o = add_run_options(cmd);
  cmd->footer(
      "Runs the kernel as `run` does and reports every pair of instructions of different warps of "
      "a block that access the same shared bytes with no barrier between them, at least one a "
      "write: read after write, write after read, write after write (two atomics are not a "
      "hazard). Each pair once, with its CUDA lines, the array, and how often. Exit 1 when a "
      "hazard is found, 0 when none (docs/exec.md \"racecheck\").\n"
      "Examples:\n"
      "  smemsim racecheck builtin:reduction\n"
      "  smemsim racecheck k.ptx --kernel k --grid 4 --block 128 --launch k.toml\n"
      "  smemsim racecheck k.ptx --kernel k --grid 4 --block 128 --launch k.toml --json");
  cmd->callback([o] { run_and_report(*o, true); });
}

}  // namespace smemsim::cli

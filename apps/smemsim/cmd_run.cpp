// smemsim run: executes a PTX kernel (or a built-in suite driver) on the CPU and checks builtins
// against their CPU reference (issue 5, docs/exec.md).
#include <fmt/format.h>

#include <memory>

#include "cli_common.hpp"
#include "launch_options.hpp"

namespace smemsim::cli {

void add_run_command(CLI::App& app) {
  struct Options {
    LaunchOptions launch;
    ArchOptions arch;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("run", "execute a CUDA kernel's PTX on the CPU (SIMT executor)");
  add_launch_options(cmd, o->launch);
  add_step_limit(cmd, o->launch);
  add_arch_options(cmd, o->arch, false);
  cmd->footer(
      "Examples:\n"
      "  smemsim run builtin:histogram --bins 256 --replication 32 --mapping cyclic --padding 1\n"
      "  smemsim run builtin:transpose --variant padded --width 256 --height 128\n"
      "  smemsim run builtin:atomic_bench --conflicts 8 --stride 256\n"
      "  smemsim run k.ptx --kernel k --grid 8 --block 256 --launch k.toml\n"
      "Builtins generate a seeded input, run and compare with a CPU reference: exit 1 on a "
      "mismatch.");
  cmd->callback([o] {
    exec::Workload w = prepare_workload(o->launch);
    ArchOptions ao = o->arch;
    arch_from_target(ao, o->launch, w);
    const Arch arch = resolve_arch(ao);
    const TargetWarning warn_target(o->launch, w, arch);
    const RunSummary s = run_workload(w, arch, nullptr, o->launch.max_steps);
    print_arch_choice(o->launch);
    if (o->launch.json) {
      nlohmann::json j = json::document("run");
      j.update(json::run_json(w, s));
      j["arch"] = json::to_json(arch);
      print_json(j);
    } else {
      print_run_header(w, s);
      print_verdict(w, s);
    }
    if (o->launch.stats) print_speed(s);
    fail_on_mismatch(s);
  });
}

}  // namespace smemsim::cli

// smemsim arch list | arch show [NAME];  smemsim model list
#include <iostream>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "smemsim/latency_model.hpp"

namespace smemsim::cli {

void add_arch_command(CLI::App& app) {
  auto* arch = app.add_subcommand("arch", "list and show architecture presets");
  arch->require_subcommand(1);
  arch->footer(
      "Examples:\n  smemsim arch list\n  smemsim arch show kepler-k20\n"
      "  smemsim arch show --set memory.banks=16 > my.toml   # then --arch-file my.toml");

  auto json = std::make_shared<bool>(false);
  auto* list = arch->add_subcommand("list", "list the presets");
  list->add_flag("--json", *json, "machine-readable output");
  list->callback([json] {
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const Arch& a : arch_presets()) {
        auto j = arch_json(a);
        out.push_back(j);
      }
      std::cout << out.dump(2) << "\n";
      return;
    }
    fmt::print("{:<17} {:>7} {:>6} {:>5} {:>5} {:>4} {:>6} {:>7} {}\n", "name", "memory", "banks",
               "width", "warp", "txn", "locks", "atomic", "notes");
    for (const Arch& a : arch_presets()) {
      fmt::print("{:<17} {:>4}KiB {:>6} {:>4}B {:>5} {:>4} {:>6} {:>7} {}\n", a.name,
                 a.memory_bytes / 1024, a.banks, a.bank_width_bytes, a.warp_size,
                 a.transaction_lanes, a.locks == 0 ? std::string("word") : std::to_string(a.locks),
                 a.atomic_model, a.calibrated ? "calibrated" : "uncalibrated");
    }
    fmt::print("\n(default: {}; `smemsim arch show NAME` prints one as TOML)\n",
               default_arch().name);
  });

  auto opts = std::make_shared<ArchOptions>();
  auto name = std::make_shared<std::string>();
  auto* show = arch->add_subcommand("show", "print a preset (with any overrides) as TOML");
  show->add_option("name", *name, "preset name (default: --arch, i.e. fermi-gtx580)");
  add_arch_options(show, *opts, false);
  show->callback([opts, name] {
    ArchOptions o = *opts;
    if (!name->empty()) o.name = *name;
    const Arch a = resolve_arch(o);
    std::cout << "# " << arch_summary(a) << "\n# source: " << a.source << "\n" << to_toml(a, true);
  });
}

void add_model_command(CLI::App& app) {
  auto* model = app.add_subcommand("model", "list the latency models");
  model->require_subcommand(1);
  model->footer(
      "Example:\n  smemsim model list\n  smemsim analyze --pattern 0,1024,2..31 --model fsm   # "
      "pick one");
  auto* list = model->add_subcommand("list", "list the latency models");
  list->callback([] {
    for (const auto& m : latency_models())
      fmt::print("{:<10} {}{}\n{:<10} source: {}\n", m.name, m.description,
                 m.atomic ? "" : " (used for ld/st)", "", m.source);
  });
}

}  // namespace smemsim::cli

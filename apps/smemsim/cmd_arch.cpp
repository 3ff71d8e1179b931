// smemsim arch list | arch show [NAME];  smemsim model list
#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "smemsim/error.hpp"
#include "smemsim/latency_model.hpp"
#include "util/file.hpp"

namespace smemsim::cli {

namespace {

void add_arch_list(CLI::App* arch) {
  auto json = std::make_shared<bool>(false);
  auto* list = arch->add_subcommand(
      "list", "list the presets, their sub-cores and how many timing keys have a source");
  list->add_flag("--json", *json, "machine-readable output");
  list->callback([json] {
    if (*json) {
      nlohmann::json out = json::document("arch-list");
      out["archs"] = nlohmann::json::array();
      for (const Arch& a : arch_presets()) out["archs"].push_back(json::to_json(a));
      out["default"] = default_arch().name;
      print_json(out);
      return;
    }
    fmt::print("{:<17} {:>7} {:>6} {:>5} {:>5} {:>4} {:>6} {:>7} {:>8} {}\n", "name", "memory",
               "banks", "width", "warp", "txn", "locks", "atomic", "subcores", "timing keys");
    for (const Arch& a : arch_presets()) {
      fmt::print("{:<17} {:>4}KiB {:>6} {:>4}B {:>5} {:>4} {:>6} {:>7} {:>8} {}\n", a.name,
                 a.memory_bytes / 1024, a.banks, a.bank_width_bytes, a.warp_size,
                 a.transaction_lanes, a.locks == 0 ? std::string("word") : std::to_string(a.locks),
                 a.atomic_model, a.sm.subcores, sources_summary(a));
    }
    fmt::print(
        "\n(default: {}; `smemsim arch show NAME` prints one as TOML with each timing key's "
        "source; docs/sources.md)\n",
        default_arch().name);
  });
}

void add_show(CLI::App* arch) {
  auto opts = std::make_shared<ArchOptions>();
  auto name = std::make_shared<std::string>();
  auto show_json = std::make_shared<bool>(false);
  auto* show = arch->add_subcommand(
      "show", "print a preset (with any overrides) as TOML, then each timing key's source");
  show->add_option("name", *name, "preset name (default: --arch, i.e. fermi-gtx580)");
  add_arch_options(show, *opts, false);
  show->add_flag("--json", *show_json, "the arch as JSON (the form every result carries)");
  show->footer(
      "Examples:\n  smemsim arch show kepler-k20 > k20.toml   # edit, then --arch-file k20.toml\n"
      "  smemsim arch show --set memory.banks=16 --json");
  show->callback([opts, name, show_json] {
    ArchOptions o = *opts;
    if (!name->empty()) o.name = *name;
    const Arch a = resolve_arch(o);
    const std::vector<TimingKeySource> sources = timing_sources(a);
    if (*show_json) {
      nlohmann::json out = json::document("arch-show");
      out["arch"] = json::to_json(a);
      out["toml"] = to_toml(a);
      out["timing_sources"] = nlohmann::json::array();
      for (const TimingKeySource& k : sources)
        out["timing_sources"].push_back({{"key", k.key},
                                         {"value", k.value},
                                         {"kind", source_kind_name(k.kind)},
                                         {"source", k.text}});
      print_json(out);
      return;
    }
    std::cout << "# " << arch_summary(a) << "\n# source: " << a.source << "\n" << to_toml(a, true);
    std::cout << fmt::format("\n# Timing keys and their sources ({}; docs/sources.md):\n",
                             sources_summary(a));
    for (const TimingKeySource& k : sources)
      std::cout << fmt::format("#   {} = {}: {}, {}\n", k.key, k.value, source_kind_name(k.kind),
                               k.text);
  });
}

// "16x8x16" -> {16, 8, 16}; "" -> {0, 0, 0} (not given).
std::array<std::uint32_t, 3> parse_tensor_shape(const std::string& text) {
  std::array<std::uint32_t, 3> shape{};
  if (text.empty()) return shape;
  std::size_t at = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const std::size_t end = d < 2 ? text.find('x', at) : text.size();
    const std::string part = text.substr(at, end == std::string::npos ? end : end - at);
    const bool digits = !part.empty() && part.size() <= 4 &&
                        part.find_first_not_of("0123456789") == std::string::npos;
    if (end == std::string::npos || !digits || std::stoul(part) == 0)
      throw InputError(fmt::format(
          "--tensor-shape: '{}' is not MxNxK with each of M, N, K from 1 to 9999 (e.g. 16x8x16)",
          text));
    shape[d] = static_cast<std::uint32_t>(std::stoul(part));
    at = end + 1;
  }
  return shape;
}

// The preset a GPGPU-Sim configuration's GPU is, from its -gpgpu_ptx_force_max_capability NN (the
// preset of sm_NN, as a PTX file's .target chooses one; issue 47): name, capability and line; an
// empty name when the file does not give it. Options are read as the importer reads them: `#`
// starts a comment, the last value given counts only if given once (a second one is the
// importer's error).
struct ImportBase {
  std::string preset, note;
  unsigned capability = 0;
  int line = 0;
};
ImportBase base_of_config(std::string_view text) {
  ImportBase b;
  int line = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view l = text.substr(at, end - at);
    at = end + 1;
    ++line;
    l = l.substr(0, l.find('#'));
    std::istringstream in{std::string(l)};
    std::string option, value;
    if (!(in >> option >> value) || option != "-gpgpu_ptx_force_max_capability") continue;
    unsigned cc = 0;
    const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), cc);
    if (ec != std::errc() || p != value.data() + value.size() || cc < 10 || cc > 999) continue;
    const TargetPreset t = preset_for_target("sm_" + value);
    b = {t.name, t.note, cc, line};
  }
  return b;
}

void add_import(CLI::App* arch) {
  auto import_file = std::make_shared<std::string>();
  auto import_base = std::make_shared<std::string>("fermi-gtx580");
  auto import_out = std::make_shared<std::string>();
  auto import_json = std::make_shared<bool>(false);
  auto import_shape = std::make_shared<std::string>();
  auto* imp = arch->add_subcommand(
      "import", "map a GPGPU-Sim configuration (gpgpusim.config) onto an arch TOML file");
  imp->add_option("config", *import_file, "the gpgpusim.config file")->required();
  imp->add_option("--arch", *import_base,
                  "the preset the unmapped keys come from (default: the preset of the file's "
                  "-gpgpu_ptx_force_max_capability, else fermi-gtx580)");
  imp->add_option("-o,--output", *import_out, "write the TOML to FILE (default: stdout)")
      ->check(non_empty_path());
  imp->add_option("--tensor-shape", *import_shape,
                  "MxNxK: the mma shape the file's tensor-core latency and interval describe "
                  "(16x16x16: GPGPU-Sim's wmma; 16x8x16: an sm_80+ HMMA.16816 trace); maps them "
                  "to sm.tensor_fmas and sm.lat_tensor");
  imp->add_flag("--json", *import_json,
                "print the arch, the TOML and what was mapped, ignored and adjusted (with file "
                "and line) as JSON");
  imp->footer(
      "Maps -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster, -gpgpu_shader_core_pipeline, "
      "-gpgpu_shader_registers,\n-gpgpu_shader_cta, -gpgpu_shmem_size, -gpgpu_shmem_num_banks, "
      "-gpgpu_shmem_warp_parts, -gpgpu_smem_latency,\n-gpgpu_scheduler (lrr, gto) and "
      "-ptx_opcode_latency_int (its first value, the ALU latency), the sub-core and unit options\n"
      "and, with --tensor-shape, the tensor core's latency and interval (docs/cli.md); lists the "
      "rest\n(on stderr) as ignored.\n"
      "Examples:\n  smemsim arch import gpgpusim.config -o gtx480.toml && smemsim sim "
      "builtin:transpose --arch-file gtx480.toml\n"
      "  smemsim arch import gpgpusim.config --json   # what was mapped and ignored, with lines\n"
      "  smemsim arch import gpgpusim.config --arch volta-v100 --tensor-shape 16x16x16   # wmma");
  imp->callback([imp, import_file, import_base, import_out, import_json, import_shape] {
    if (imp->count("--tensor-shape") && import_shape->empty())
      throw InputError("--tensor-shape: empty; give MxNxK (e.g. 16x8x16)");
    const std::array<std::uint32_t, 3> shape = parse_tensor_shape(*import_shape);
    if (const std::string over =
            output_over_input({{"-o", *import_out}}, {{"GPGPU-Sim configuration", *import_file}});
        !over.empty())
      throw InputError(over);
    const std::string text =
        read_file(*import_file, "GPGPU-Sim configuration", std::uint64_t{4} << 20);
    // The base: --arch, else the GPU the file names by its compute capability (a Volta file no
    // longer gets Fermi's lock-loop atomics), else fermi-gtx580, and a line that says which.
    const ImportBase from_file = base_of_config(text);
    std::string base = *import_base, why;
    if (imp->count("--arch")) {
      why = "--arch";
    } else if (!from_file.preset.empty()) {
      base = from_file.preset;
      why = fmt::format("the preset of the file's -gpgpu_ptx_force_max_capability {} ({}:{}){}",
                        from_file.capability, *import_file, from_file.line,
                        from_file.note.empty() ? "" : ": " + from_file.note);
    } else {
      why =
          "the default: the file gives no -gpgpu_ptx_force_max_capability; --arch NAME to "
          "choose";
    }
    const GpgpuSimImport r = import_gpgpusim(text, *import_file, find_preset(base), shape);
    const std::string toml = "# " + arch_summary(r.arch) + "\n" + to_toml(r.arch, true);
    if (*import_json) {
      nlohmann::json j = json::document("arch-import");
      j.update(json::to_json(r));
      j["toml"] = toml;
      j["output"] = import_out->empty() ? nlohmann::json(nullptr) : nlohmann::json(*import_out);
      j["base"] = {{"preset", find_preset(base).name}, {"reason", why}};
      print_json(j);
    } else if (import_out->empty()) {
      std::cout << toml;
    }
    if (!import_out->empty()) {
      write_output_file(*import_out, "-o", toml);
    }
    if (*import_json) return;
    fmt::print(stderr, "base:    {}, {}\n", find_preset(base).name, why);
    for (const auto& m : r.mapped) fmt::print(stderr, "mapped:  {}\n", r.describe(m, true));
    for (const auto& n : r.notes) fmt::print(stderr, "note:    {}\n", r.describe(n));
    for (const auto& i : r.ignored) fmt::print(stderr, "ignored: {}\n", r.describe(i));
  });
}

}  // namespace

void add_arch_command(CLI::App& app) {
  auto* arch = app.add_subcommand("arch", "list and show architecture presets");
  arch->require_subcommand(1);
  arch->footer(
      "Examples:\n  smemsim arch list\n  smemsim arch show kepler-k20\n"
      "  smemsim arch show --set memory.banks=16 > my.toml   # then --arch-file my.toml");

  add_arch_list(arch);
  add_show(arch);
  add_import(arch);
}

void add_model_command(CLI::App& app) {
  auto* model = app.add_subcommand("model", "list the latency models");
  model->require_subcommand(1);
  model->footer(
      "Example:\n  smemsim model list\n  smemsim analyze --pattern 0,1024,2..31 --model fsm   # "
      "pick one");
  auto* list = model->add_subcommand("list", "list the latency models");
  auto json = std::make_shared<bool>(false);
  list->add_flag("--json", *json, "machine-readable output");
  list->callback([json] {
    if (*json) {
      nlohmann::json out = json::document("model-list");
      out["models"] = nlohmann::json::array();
      for (const auto& m : latency_models()) out["models"].push_back(json::to_json(m));
      print_json(out);
      return;
    }
    for (const auto& m : latency_models())
      fmt::print("{:<10} {}{}\n{:<10} source: {}\n", m.name, m.description,
                 m.atomic ? "" : " (used for ld/st)", "", m.source);
  });
}

}  // namespace smemsim::cli

// smemsim calibrate MEASUREMENTS (issue 42, docs/calibration.md): runs every figure's replica
// microbenchmark in the cycle model, solves the keys the figures constrain and prints the residual
// table; -o writes the fitted keys as an arch file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "calibrate/fit.hpp"
#include "calibrate/replicas.hpp"
#include "cli_common.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::cli {
namespace {

struct CalibrateOptions {
  std::string file;
  ArchOptions arch;
  std::string out;
  bool json = false, list = false, check = false;
  std::uint32_t threads = 0;  // 0: the machine's cores
};

nlohmann::json fit_json(const calibrate::Fit& f, const calibrate::Measurements& m) {
  nlohmann::json j = json::document("calibrate");
  j["measurements"] = {{"file", m.path}, {"gpu", m.gpu}, {"chip", m.chip}, {"title", m.title}};
  nlohmann::json rows = nlohmann::json::array();
  for (const calibrate::Row& r : f.rows)
    rows.push_back({{"id", r.id},
                    {"benchmark", r.benchmark},
                    {"unit", r.unit},
                    {"key", r.key},
                    {"measured", r.measured},
                    {"before", r.before},
                    {"after", r.after},
                    {"error", r.error()},
                    {"status", r.status}});
  j["figures"] = rows;
  nlohmann::json keys = nlohmann::json::array();
  for (const calibrate::KeyFit& k : f.keys)
    keys.push_back({{"key", k.key},
                    {"before", k.before},
                    {"after", k.after},
                    {"figures", k.figures},
                    {"residual", k.residual}});
  j["keys"] = keys;
  j["arch"] = json::to_json(f.arch);
  return j;
}

// The shipped measurement files: calibration/ beside kernels/ in the source tree, or
// share/smemsim/calibration beside share/smemsim/ptx when installed.
std::filesystem::path shipped_dir() {
  namespace fs = std::filesystem;
  const fs::path ptx = exec::suite_ptx_dir();
  std::error_code ec;
  for (const fs::path& d :
       {ptx.parent_path().parent_path() / "calibration", ptx.parent_path() / "calibration"})
    if (fs::is_directory(d, ec)) return d;
  return {};
}

// A name without a folder or an extension ("titanv-accelsim") is a shipped file.
std::string resolve_measurements(const std::string& arg) {
  if (arg.find('/') != std::string::npos || arg.ends_with(".toml")) return arg;
  const std::filesystem::path d = shipped_dir();
  const std::filesystem::path p = d / (arg + ".toml");
  std::error_code ec;
  if (d.empty() || !std::filesystem::is_regular_file(p, ec))
    throw InputError(fmt::format(
        "calibrate: '{}' is no file path and no shipped measurement file (calibrate --list names "
        "them)",
        printable(arg)));
  return p.string();
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "fit a preset's timing keys to measured GPU figures by running each figure's replica "
      "microbenchmark in the cycle model (docs/calibration.md)");
  cmd->add_option(
      "measurements", o->file,
      "measurement file (TOML: [gpu], [source], [[figure]]; docs/calibration.md), or the name of a "
      "shipped one (titanv-accelsim)");
  add_arch_options(cmd, o->arch, false);
  cmd->add_option("-o,--output", o->out, "write the fitted keys as an arch file (--arch-file)")
      ->check(non_empty_path());
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  cmd->add_flag("--check", o->check,
                "run every figure's replica on the base arch and print the table; fit no key");
  cmd->add_option("--threads", o->threads,
                  "host threads: replicas run several at once, a whole-GPU replica's SMs on the "
                  "rest (the figures are the same for any count; default: the machine's cores)")
      ->check(CLI::Range(std::uint32_t{1}, timing::kMaxThreads));
  cmd->add_flag(
      "--list", o->list,
      "list the shipped measurement files and the replica microbenchmarks a figure may name");
  cmd->footer(
      "The base arch is --arch (or --arch-file), else the file's [gpu] preset.\n\n"
      "Examples:\n"
      "  smemsim calibrate titanv-accelsim\n"
      "  smemsim calibrate titanv-accelsim --arch volta-v100 -o fitted.toml\n"
      "  smemsim calibrate titanv-accelsim --check     # the preset as it is, no fit\n"
      "  smemsim sim builtin:reduction --arch volta-v100 --arch-file fitted.toml\n"
      "  smemsim calibrate t4-jia2019                  # a published table (docs/sources.md)\n"
      "  smemsim calibrate --list\n"
      "  scripts/calibrate -o mygpu.toml && smemsim calibrate mygpu.toml   # your GPU (nvcc)");
  cmd->callback([o] {
    if (o->list) {
      fmt::print("shipped measurement files (give the name, or a path to your own):\n");
      std::vector<std::filesystem::path> files;  // sorted: the listing is the same everywhere
      if (const auto d = shipped_dir(); !d.empty())
        for (const auto& e : std::filesystem::directory_iterator(d))
          if (e.path().extension() == ".toml") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        const calibrate::Measurements m = calibrate::load_measurements(f.string());
        fmt::print("  {:<22} {} ({}), {} figure{}\n", f.stem().string(), m.gpu, m.preset,
                   m.figures.size(), m.figures.size() == 1 ? "" : "s");
      }
      fmt::print(
          "replicas (a figure's benchmark; each runs its kernel of kernels/ubench_replicas.cu, "
          "the memory's of kernels/memory_ubench.cu):\n");
      for (const calibrate::Replica& r : calibrate::replicas())
        fmt::print("  {:<22} {:<11} {} ({}){}\n", r.name, r.unit, r.what, r.kernel,
                   r.key.empty()
                       ? (r.missing.empty() ? " [checks]"
                                            : " [not fitted: " + std::string(r.missing) + "]")
                       : fmt::format(" [{}]", r.key));
      return;
    }
    if (o->file.empty())
      throw InputError("calibrate: give a measurement file (or --list; see --help)");
    const std::string path = resolve_measurements(o->file);
    if (!o->out.empty() && same_output(o->out, path))
      throw InputError(fmt::format(
          "-o '{}' is the measurement file it reads: give the fitted arch file its own name",
          o->out));
    const calibrate::Measurements m = calibrate::load_measurements(path);
    ArchOptions ao = o->arch;
    if (!ao.chosen()) {
      if (m.preset.empty())
        throw InputError(fmt::format(
            "{}: [gpu] names no preset: give --arch (the preset to calibrate)", m.path));
      ao.name = m.preset;
    }
    const Arch base = resolve_arch(ao);
    calibrate::FitOptions fo;
    fo.check = o->check;
    fo.threads = o->threads ? o->threads : std::max(1u, std::thread::hardware_concurrency());
    if (o->check && !o->out.empty())
      throw InputError("calibrate: --check fits no key, so there is nothing for -o to write");
    const calibrate::Fit f = calibrate::fit(m, base, fo);
    if (!o->out.empty()) {
      const std::string toml = calibrate::fitted_toml(f, m);
      write_output_file(o->out, "-o", toml);
    }
    if (o->json) return print_json(fit_json(f, m));
    fmt::print("{} ({}) against {}: {} figure{}\n", m.gpu, m.title, arch_label(base), f.rows.size(),
               f.rows.size() == 1 ? "" : "s");
    fmt::print("{}", calibrate::residual_table(f));
    if (!o->out.empty())
      fmt::print("wrote {}: load it with --arch {} --arch-file {}\n", o->out, base.name, o->out);
  });
}

}  // namespace smemsim::cli

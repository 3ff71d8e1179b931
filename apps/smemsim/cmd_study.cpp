// `smemsim study list | run | merge` (docs/studies.md).
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "smemsim/error.hpp"
#include "smemsim/study.hpp"

namespace smemsim::cli {
namespace {

struct StudyRunArgs {
  std::string name;
  bool quick = false;
  std::string out = "study-out";
  std::vector<std::string> sets;
  std::vector<std::string> sweeps;
  int threads = 0;
  bool json = false;
  std::string shard;
  bool no_plots = false;
  std::size_t stop_after = 0;
  ArchOptions arch;
};

bool is_arch_key(const std::string& key) {
  for (const auto& k : arch_keys())
    if (k == key) return true;
  return false;
}

void print_summary(const study::RunSummary& s, bool as_json) {
  if (as_json) {
    nlohmann::json j = json::document("study-run");
    j.update(study::to_json(s));
    print_json(j);
    return;
  }
  if (!s.report_markdown.empty()) std::cout << s.report_markdown << "\n";
  for (const auto& p : s.pngs) std::cout << "figure: " << p << "\n";
  std::cout << fmt::format("results: {}/points.csv, {}/report.md\n", s.dir, s.dir);
  if (s.computed)
    std::cout << fmt::format("computed {} points ({} reused) in {:.2f} s: {:.0f} warp accesses/s\n",
                             s.computed, s.reused, s.seconds,
                             s.seconds > 0 ? double(s.accesses) / s.seconds : 0.0);
  else
    std::cout << fmt::format("all {} points were already computed\n", s.points);
}

void run(const StudyRunArgs& a) {
  const study::StudyInfo& info = study::find_study(a.name);
  ArchOptions ao = a.arch;
  if (ao.name.empty()) ao.name = info.arch;  // the study's preset (elastic: cf11)
  std::map<std::string, std::string> params;
  std::vector<std::string> fixed;
  for (const std::string& s : a.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format("--set '{}': expected key=value", s));
    const std::string key = s.substr(0, eq);
    fixed.push_back(key);
    if (is_arch_key(key))
      ao.sets.push_back(s);
    else
      params[key] = s.substr(eq + 1);
  }
  std::vector<study::SweepAxis> sweep;
  for (const std::string& s : a.sweeps) sweep.push_back(study::parse_sweep(s));
  study::check_sweep(info, sweep, fixed);
  const Arch arch = resolve_arch(ao);
  study::StudyConfig cfg = study::resolve_config(info, arch, a.quick, params);
  cfg.sweep = std::move(sweep);
  study::RunOptions o;
  o.out_root = a.out;
  o.threads = a.threads;
  o.plots = !a.no_plots;
  o.abort_after = a.stop_after;
  o.log = &std::cerr;
  if (!a.shard.empty()) study::parse_shard(a.shard, o.shard_index, o.shard_count);
  if (a.threads < 0) throw InputError("--threads must be >= 0");
  print_summary(study::run_study(info, cfg, o), a.json);
}

void add_study_list(CLI::App* cmd) {
  auto* list = cmd->add_subcommand("list", "the studies and their parameters");
  list->footer("Example: smemsim study list --json");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "machine-readable list");
  list->callback([list_json] {
    if (*list_json) {
      nlohmann::json j = json::document("study-list");
      j["studies"] = nlohmann::json::array();
      for (const auto& s : study::studies()) j["studies"].push_back(study::to_json(s));
      print_json(j);
      return;
    }
    for (const auto& s : study::studies()) {
      std::cout << fmt::format("{}  ({}; arch {})\n  {}\n", s.name, s.source, s.arch,
                               s.description);
      for (const auto& p : s.params)
        std::cout << fmt::format("    {:<10} = {:<34} quick: {:<12} {}\n", p.key, p.full, p.quick,
                                 p.help);
    }
  });
}

void add_run(CLI::App* cmd) {
  // Option storage lives as long as the callbacks that read it (no function-level statics).
  auto rap = std::make_shared<StudyRunArgs>();
  StudyRunArgs& ra = *rap;
  auto* r = cmd->add_subcommand("run", "run (or resume) a study; results in OUT/NAME/");
  r->footer(
      "Examples:\n"
      "  smemsim study run random-patterns                 # seed 001 Fig. 5: table + PNG\n"
      "  smemsim study run histogram --quick --out o       # a reduced sweep\n"
      "  smemsim study run kmeans --set k=256 --threads 2\n"
      "  smemsim study run hough --shard 0/3 --out s0      # one of three shards; see `study "
      "merge`\n"
      "  smemsim study run elastic --quick                 # seed 004 Figs. 8-11 on cf11\n"
      "  smemsim study run localtm --quick --set tm.bloom_index=word   # seed 003 Figs. 3-5\n"
      "  smemsim study run random-patterns --quick --sweep memory.banks=16,32 --out sweep\n"
      "  smemsim study run random-patterns --quick --sweep memory.banks=16,32 \\\n"
      "      --sweep memory.bank_hash=mod,xor --out sweep2   # the cross product: 4 "
      "configurations");
  r->add_option("name", ra.name, "study name (see `smemsim study list`)")->required();
  r->add_flag("--quick", ra.quick, "reduced sweep (tests, CI)");
  r->add_option("--out", ra.out, "output root; results go to OUT/NAME")->capture_default_str();
  r->add_option("--set", ra.sets,
                "study parameter or arch key, e.g. --set patterns=1000 --set memory.banks=16 "
                "(repeatable)")
      ->allow_extra_args(false)
      ->take_all();
  r->add_option("--sweep", ra.sweeps,
                "run over every value of an arch key or study parameter, e.g. --sweep "
                "memory.banks=16,32,64 (repeatable: the cross product; the values become columns "
                "of points.csv and series of the figures)")
      ->allow_extra_args(false)
      ->take_all();
  r->add_flag("--json", ra.json,
              "print the run's folder, points, files and summary.json as JSON instead of the "
              "report");
  r->add_option("--threads", ra.threads,
                "worker threads (0: all cores; more than the cores are capped to them)")
      ->check(CLI::Range(0, 4096));
  r->add_option("--shard", ra.shard, "compute only the points with index % n == i (i/n)");
  r->add_flag("--no-plots", ra.no_plots, "skip the figures (gnuplot PNG, SVG and PDF)");
  r->add_option("--stop-after", ra.stop_after,
                "stop abruptly after N points of this run, as a crash or kill would (exit 75); "
                "running again resumes (what the resume tests use)")
      ->check(positive());
  ra.arch.name.clear();
  r->add_option("--arch", ra.arch.name,
                "architecture preset (default: the study's, `study list`: fermi-gtx580; elastic: "
                "cf11; localtm: southern-islands)");
  r->add_option("--arch-file", ra.arch.file, "TOML file overriding the preset");
  r->callback([rap] { run(*rap); });
}

void add_merge(CLI::App* cmd) {
  struct MergeArgs {
    std::vector<std::string> dirs;
    std::string out = "study-out";
    bool no_plots = false;
    bool json = false;
  };
  auto ma = std::make_shared<MergeArgs>();
  auto* m = cmd->add_subcommand("merge", "combine finished shard folders (DIR/NAME) into OUT/NAME");
  m->footer(
      "Example:\n  for i in 0 1 2; do smemsim study run hough --shard $i/3 --out s$i; done\n"
      "  smemsim study merge s0/hough s1/hough s2/hough --out merged");
  m->add_option("dirs", ma->dirs, "shard folders")->required();
  m->add_option("--out", ma->out, "output root")->capture_default_str();
  m->add_flag("--no-plots", ma->no_plots, "skip the gnuplot PNGs");
  m->add_flag("--json", ma->json, "print the merged folder, files and summary.json as JSON");
  m->callback([ma] {
    study::RunOptions o;
    o.out_root = ma->out;
    o.plots = !ma->no_plots;
    o.log = &std::cerr;
    print_summary(study::merge_shards(ma->dirs, o), ma->json);
  });
}

}  // namespace

void add_study_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "study",
      "experiment sweeps: random patterns, replication/padding/mapping, histogram, k-means, "
      "Hough (docs/studies.md)\n\nExamples:\n"
      "  smemsim study list\n"
      "  smemsim study run random-patterns\n"
      "  smemsim study run histogram --quick --out s --set bins=256\n"
      "  smemsim study run kmeans --shard 0/3 --out shards/0   # then: study merge "
      "shards/*/kmeans");
  cmd->require_subcommand(1);

  add_study_list(cmd);
  add_run(cmd);
  add_merge(cmd);
}

}  // namespace smemsim::cli

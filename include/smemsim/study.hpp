// Experiment studies (docs/studies.md): a study is a named sweep over parameter points; each point
// is computed independently and deterministically from its parameters and the study seed, so the
// results are identical for any thread count, any sharding and across interrupted runs.
//
// The runner (src/study/runner.cpp) computes the points in parallel (oneTBB), appends each finished
// point as one complete line to DIR/NAME/points.partial (resume), and at the end writes points.csv
// (atomically), config.json + arch.toml (the fully resolved configuration), summary.json, one PNG
// per figure (gnuplot) and report.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "smemsim/evaluate.hpp"

namespace smemsim::study {

// ---- Latency backend (swappable: today the analytic models, later the cycle-level simulator) ----
class LatencyBackend {
 public:
  virtual ~LatencyBackend() = default;
  // Cost of one warp access; degrees and latency as AccessEvaluator reports them.
  virtual AccessResult evaluate(const WarpAccess& wa) = 0;
};
struct BackendInfo {
  std::string name;
  std::string description;
  // Per-access backends make an evaluator; a whole-kernel backend (cycle) has none: the studies
  // that support it (StudyInfo::kernel_runs) run their kernels through the cycle-level model.
  std::function<std::unique_ptr<LatencyBackend>(const Arch&)> make;
};
const std::vector<BackendInfo>& latency_backends();
// Throws InputError listing the names.
std::unique_ptr<LatencyBackend> make_backend(std::string_view name, const Arch& arch);

// ---- Values, rows and the table a report reads ----
using Value = std::variant<std::int64_t, double, std::string>;
using Row = std::vector<Value>;
std::string format_value(const Value& v);  // deterministic text (doubles with 9 significant digits)

struct PointResult {
  std::vector<Row> rows;       // usually one; a point may yield several rows (e.g. one per R)
  std::uint64_t accesses = 0;  // warp accesses evaluated (for the rate shown while running)
};

// The rows of points.csv, read back as text (the report works from this, so that a merged run
// reports exactly like an unsharded one).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  // Where each row was read, for messages: origins[row] ("shard/points.csv:12", a merge), else
  // line row + 2 of `source` (a run's table is its points.csv as written, after the header).
  std::vector<std::string> origins;
  std::string source = "points.csv";
  int col(std::string_view name) const;  // throws std::logic_error when absent
  // The field as a number; InputError "WHERE: column 'c': 'abc' is not a number" when it is not
  // (issue 48: an edited points.csv gave "stod", exit 1).
  double num(std::size_t row, std::string_view name) const;
  // A number of a field that holds several (image_cycles: "1;2;3"), checked as num() is.
  double num_text(std::size_t row, std::string_view name, const std::string& text) const;
  std::string where(std::size_t row) const;  // "FILE:LINE" of the row
  const std::string& str(std::size_t row, std::string_view name) const;
};

// ---- Reports ----
struct Series {
  Series() = default;
  Series(std::string t) : title(std::move(t)) {}  // NOLINT: implicit, for {{"a"}, {"b"}} lists
  std::string title;
  std::vector<double> x, y;  // lines: (x, y); stacked bars: y per category (x unused)
};
struct Figure {
  Figure() = default;
  Figure(std::string n, std::string t, std::string xl, std::string yl)
      : name(std::move(n)), title(std::move(t)), xlabel(std::move(xl)), ylabel(std::move(yl)) {}
  std::string name;  // file stem: NAME.png, NAME.gp, NAME.dat
  std::string title, xlabel, ylabel;
  bool logx = false;  // log2 x axis
  bool logy = false;
  bool stacked = false;                 // stacked bars over `categories`
  bool clustered = false;               // side-by-side bars over `categories`, one per series
  std::vector<std::string> categories;  // stacked: one per bar
  std::vector<std::string> bar_labels;  // stacked: optional text above each bar
  std::vector<Series> series;
  // A dashed reference line at this y (1.0 for speed-ups and ratios); the y axis then spans the
  // data and the line, not zero, so differences around it show. NaN: none.
  double ref_y = std::numeric_limits<double>::quiet_NaN();
  std::string caption;  // a line under the figure (the runner adds the study and the arch)
  // Small multiples: one panel per entry (its title, categories, bar_labels and series), drawn
  // with shared axes and one legend; empty: the figure's own fields make its single panel.
  std::vector<Figure> panels;
};
struct Report {
  std::string markdown;  // the body of report.md (figures are appended by the runner)
  nlohmann::json summary = nlohmann::json::object();
  std::vector<Figure> figures;
};
// A markdown table.
std::string md_table(const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows);

// ---- Studies ----
struct ParamSpec {
  std::string key;
  std::string full;   // default value
  std::string quick;  // default under --quick
  std::string help;
};

// One swept key and its values (`study run --sweep memory.banks=16,32`): an arch key or a study
// parameter; the study runs over the cross product of every axis (src/study/sweep.cpp).
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

struct StudyConfig {
  Arch arch;
  std::map<std::string, std::string> params;  // every key resolved (defaults + --set)
  bool quick = false;
  std::uint64_t seed = 1;
  std::string backend = "analytic";
  std::vector<SweepAxis> sweep;  // empty: one configuration
  // Parsing helpers (InputError naming the key on a bad value).
  std::int64_t integer(const std::string& key) const;
  std::vector<std::int64_t> integers(const std::string& key) const;  // comma list; a..b ranges
  std::vector<std::string> strings(const std::string& key) const;    // comma list
};

class Study {
 public:
  virtual ~Study() = default;
  // Validates the configuration (InputError) and builds the list of points.
  virtual void configure(const StudyConfig& cfg) = 0;
  virtual std::vector<std::string> columns() const = 0;
  virtual std::size_t size() const = 0;
  // Thread-safe; deterministic in (index, seed). `seed` = Rng::derive(study seed, index) unless a
  // study documents a shared stream (common random numbers across points of one pattern set).
  virtual PointResult run_point(std::size_t index) const = 0;
  virtual Report report(const Table& t) const = 0;
  // A digest of the inputs the parameters only name (image files): part of the resolved
  // configuration, so that a resume after the files changed is refused (issue 11). "" when none.
  virtual std::string input_digest() const { return ""; }
};

struct StudyInfo {
  std::string name;
  std::string description;
  std::string source;  // seed and section
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Study>()> make;
  bool kernel_runs = false;           // supports backend = cycle (whole kernels on the cycle model)
  std::string arch = "fermi-gtx580";  // the preset used when the user names none
};
// Every study, in listing order. The common keys `seed` and `backend` are in each params list.
const std::vector<StudyInfo>& studies();
const StudyInfo& find_study(std::string_view name);  // InputError listing the names

// Resolves defaults (full or quick), applies `sets` (InputError on an unknown key).
StudyConfig resolve_config(const StudyInfo& info, const Arch& arch, bool quick,
                           const std::map<std::string, std::string>& sets);

// "KEY=V1,V2,...": InputError on a missing '=', an empty or repeated value.
SweepAxis parse_sweep(std::string_view text);
// InputError when an axis names neither an arch key nor a parameter of the study, a key is swept
// twice or also fixed by --set (`fixed`), or the cross product passes 4,096 configurations.
void check_sweep(const StudyInfo& info, const std::vector<SweepAxis>& sweep,
                 const std::vector<std::string>& fixed);
// The study, configured: `info.make()`, or, with cfg.sweep, a study over every configuration of
// the sweep (its columns start with the swept keys). Throws InputError.
std::unique_ptr<Study> make_study(const StudyInfo& info, const StudyConfig& cfg);

// ---- Runner ----
struct RunOptions {
  std::string out_root = "study-out";  // results go to out_root/NAME
  int threads = 0;                     // 0: oneTBB's default
  int shard_index = 0, shard_count = 1;
  bool plots = true;
  // Stop the process abruptly (std::_Exit(75)), as a crash or a kill would, once this many points
  // were written in this invocation (0: never): `study run --stop-after N`; the next run resumes.
  std::size_t abort_after = 0;
  std::ostream* log = nullptr;  // progress and messages (stderr in the CLI)
};
struct RunSummary {
  std::string dir;
  std::size_t points = 0;    // points of this shard
  std::size_t reused = 0;    // finished in an earlier invocation
  std::size_t computed = 0;  // computed now
  std::uint64_t accesses = 0;
  double seconds = 0;
  std::vector<std::string> pngs;
  std::string report_markdown;  // the report's tables (what the CLI prints)
  // The report was written (report.md, summary.json): a whole run or a merge, not one shard.
  bool finalized = false;
  nlohmann::json summary;  // what summary.json holds (when finalized)
};
RunSummary run_study(const StudyInfo& info, const StudyConfig& cfg, const RunOptions& o);

// Combines finished shard directories (each DIR/NAME of a `--shard i/n` run) into out_root/NAME.
RunSummary merge_shards(const std::vector<std::string>& dirs, const RunOptions& o);

// Parses "i/n" (InputError when malformed or i >= n).
void parse_shard(std::string_view s, int& index, int& count);

// ---- JSON forms (docs/json.md; src/study/study_json.cpp) ----
// A study as `study list --json` lists it: name, description, source, arch, parameters.
nlohmann::json to_json(const StudyInfo& info);
// What `study run --json` and `study merge --json` print: the folder, the points, the files.
nlohmann::json to_json(const RunSummary& s);

}  // namespace smemsim::study

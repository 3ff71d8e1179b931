// Measurement files (measurements.hpp): TOML, read with toml++, every fault one located line.
#include "calibrate/measurements.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <functional>
#include <set>

#include "calibrate/replicas.hpp"
#include "smemsim/error.hpp"
#include "util/file.hpp"

namespace smemsim::calibrate {
namespace {

struct Reader {
  const std::string& path;
  std::string context;  // "figure 'x': " or ""

  [[noreturn]] void fail(const toml::node& n, std::string_view field,
                         const std::string& why) const {
    throw InputError(
        located(path, n.source().begin.line, fmt::format("{}field '{}': {}", context, field, why)));
  }
  [[noreturn]] void fail_at(std::uint64_t line, const std::string& why) const {
    throw InputError(located(path, line, context + why));
  }
  // Every key of `t` must be one of `known`.
  void only(const toml::table& t, std::initializer_list<std::string_view> known,
            std::string_view table) const {
    for (const auto& [k, node] : t) {
      bool ok = false;
      for (std::string_view n : known) ok |= k.str() == n;
      if (!ok) {
        std::string list;
        for (std::string_view n : known) list += (list.empty() ? "" : ", ") + std::string(n);
        fail(node, k.str(), fmt::format("unknown field in {} (known: {})", table, list));
      }
    }
  }
  std::string str(const toml::table& t, std::string_view key, bool required,
                  std::uint64_t line) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail_at(line, fmt::format("field '{}' is missing", key));
      return "";
    }
    const auto v = n->value<std::string>();
    if (!v) fail(*n, key, "must be a string");
    if (required && v->empty()) fail(*n, key, "is empty");
    return *v;
  }
  double number(const toml::table& t, std::string_view key, bool required, std::uint64_t line,
                double lo, double hi) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail_at(line, fmt::format("field '{}' is missing", key));
      return 0;
    }
    const auto v = n->value<double>();  // an integer converts
    if (!v) fail(*n, key, "must be a number");
    if (!(*v >= lo && *v <= hi))
      fail(*n, key, fmt::format("{:g} is not between {:g} and {:g}", *v, lo, hi));
    return *v;
  }
  std::uint64_t integer(const toml::table& t, std::string_view key, std::uint64_t line,
                        std::uint64_t hi) const {
    const toml::node* n = t.get(key);
    if (!n) return 0;
    const auto v = n->value_exact<std::int64_t>();
    if (!v) fail(*n, key, "must be an integer");
    if (*v < 0 || std::uint64_t(*v) > hi)
      fail(*n, key, fmt::format("{} is not between 0 and {}", *v, hi));
    (void)line;
    return std::uint64_t(*v);
  }
  const toml::table& table(const toml::table& t, std::string_view key, std::uint64_t line) const {
    const toml::node* n = t.get(key);
    if (!n) fail_at(line, fmt::format("table [{}] is missing", key));
    const toml::table* tb = n->as_table();
    if (!tb) fail(*n, key, "must be a table");
    return *tb;
  }
};

}  // namespace

const std::vector<std::string_view>& units() {
  static const std::vector<std::string_view> u = {"cycles",      "B/clk/SM",   "B/clk",
                                                  "flop/clk/SM", "ops/clk/SM", "FMA/clk/SM"};
  return u;
}

Measurements parse_measurements(std::string_view text, const std::string& path) {
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(located(path, e.source().begin.line, toml_syntax_message(e.description())));
  }
  Reader r{path, ""};
  r.only(doc, {"format", "gpu", "source", "figure"}, "the file");
  Measurements m;
  m.path = path;
  const double format = r.number(doc, "format", true, 1, 1, 1e9);
  if (format != 1)
    r.fail(*doc.get("format"), "format",
           fmt::format("{} is not a format this smemsim reads (1)", format));
  const toml::table& gpu = r.table(doc, "gpu", 1);
  const std::uint64_t gline = gpu.source().begin.line;
  r.only(gpu, {"name", "chip", "compute_capability", "sm_clock_mhz", "preset", "keys"}, "[gpu]");
  m.gpu = r.str(gpu, "name", true, gline);
  m.chip = r.str(gpu, "chip", false, gline);
  m.preset = r.str(gpu, "preset", false, gline);
  m.compute_capability = std::uint32_t(r.integer(gpu, "compute_capability", gline, 200));
  m.sm_clock_mhz = r.number(gpu, "sm_clock_mhz", false, gline, 1, 100000);
  if (gpu.get("keys")) {
    // Dotted keys either way: "sm.l2_slices" = 48, or sm.l2_slices = 48 (TOML's nested tables).
    std::function<void(const toml::table&, const std::string&)> add =
        [&](const toml::table& t, const std::string& prefix) {
          for (const auto& [k, node] : t) {
            const std::string name = prefix + std::string(k.str());
            if (const toml::table* sub = node.as_table()) {
              add(*sub, name + ".");
              continue;
            }
            bool known = false;
            for (const ArchKeyInfo& info : arch_key_info()) known |= info.name == name;
            if (!known)
              r.fail(node, name,
                     "[gpu.keys] names no arch key (`smemsim arch show` prints them all)");
            GpuKey g{name, "", node.source().begin.line};
            if (const auto i = node.value_exact<std::int64_t>())
              g.value = std::to_string(*i);
            else if (const auto str = node.value_exact<std::string>())
              g.value = *str, g.text = true;
            else if (const auto b = node.value_exact<bool>())
              g.value = *b ? "true" : "false";
            else
              r.fail(node, name, "[gpu.keys] takes an integer, a string or a boolean");
            m.keys.push_back(std::move(g));
          }
        };
    add(r.table(gpu, "keys", gline), "");
  }
  const toml::table& src = r.table(doc, "source", 1);
  const std::uint64_t sline = src.source().begin.line;
  r.only(src, {"kind", "title", "repository", "path", "commit", "citation"}, "[source]");
  m.source_kind = r.str(src, "kind", true, sline);
  if (m.source_kind != "measured" && m.source_kind != "published")
    r.fail(*src.get("kind"), "kind",
           fmt::format("'{}' is not measured or published", printable(m.source_kind)));
  m.title = r.str(src, "title", true, sline);
  m.repository = r.str(src, "repository", false, sline);
  m.source_path = r.str(src, "path", false, sline);
  m.commit = r.str(src, "commit", false, sline);
  m.citation = r.str(src, "citation", false, sline);
  if (!m.commit.empty() && (m.commit.size() != 40 ||
                            m.commit.find_first_not_of("0123456789abcdef") != std::string::npos))
    r.fail(*src.get("commit"), "commit", "must be a commit's 40 lower-case hex digits");
  if (m.repository.empty() && m.citation.empty())
    r.fail_at(sline, "[source] needs a repository (with path and commit) or a citation");

  const toml::node* figs = doc.get("figure");
  if (!figs) r.fail_at(1, "no [[figure]]: a measurement file has at least one");
  const toml::array* arr = figs->as_array();
  if (!arr || !arr->is_array_of_tables())
    r.fail(*figs, "figure", "must be an array of tables ([[figure]])");
  std::set<std::string> ids;
  for (const toml::node& node : *arr) {
    const toml::table& t = *node.as_table();
    const std::uint64_t line = t.source().begin.line;
    Figure f;
    f.line = line;
    r.context = "";
    f.id = r.str(t, "id", true, line);
    r.context = fmt::format("figure '{}': ", printable(f.id));
    r.only(t, {"id", "benchmark", "value", "unit", "where", "note", "method"}, "[[figure]]");
    if (!ids.insert(f.id).second) r.fail(*t.get("id"), "id", "is already a figure's id");
    f.benchmark = r.str(t, "benchmark", true, line);
    f.value = r.number(t, "value", true, line, 1e-9, 1e12);
    f.unit = r.str(t, "unit", true, line);
    bool unit_ok = false;
    std::string list;
    for (std::string_view u : units()) {
      unit_ok |= u == f.unit;
      list += (list.empty() ? "" : ", ") + std::string(u);
    }
    if (!unit_ok)
      r.fail(*t.get("unit"), "unit",
             fmt::format("'{}' is not a unit (known: {})", printable(f.unit), list));
    f.where = r.str(t, "where", true, line);
    f.note = r.str(t, "note", false, line);
    const Replica* rep = find_replica(f.benchmark);
    if (!rep) {
      std::string names;
      for (const Replica& x : replicas())
        names += (names.empty() ? "" : ", ") + std::string(x.name);
      r.fail(*t.get("benchmark"), "benchmark",
             fmt::format("no replica is named '{}' (replicas: {})", printable(f.benchmark), names));
    }
    if (rep->unit != f.unit)
      r.fail(
          *t.get("unit"), "unit",
          fmt::format("'{}' does not match replica {}'s unit '{}'", f.unit, rep->name, rep->unit));
    const toml::table& mt = r.table(t, "method", line);
    const std::uint64_t mline = mt.source().begin.line;
    r.only(mt, {"step", "clock", "block", "grid", "iterations"}, "[figure.method]");
    f.method.step = r.str(mt, "step", true, mline);
    f.method.clock = r.str(mt, "clock", true, mline);
    f.method.block = std::uint32_t(r.integer(mt, "block", mline, 1024));
    f.method.grid = std::uint32_t(r.integer(mt, "grid", mline, 1u << 31));
    f.method.iterations = r.integer(mt, "iterations", mline, std::uint64_t{1} << 40);
    m.figures.push_back(std::move(f));
  }
  return m;
}

Arch measured_gpu(const Measurements& m, const Arch& base) {
  Arch a = base;
  const GpuKey* last = nullptr;
  try {
    for (const GpuKey& k : m.keys) {
      last = &k;
      apply_override(a, k.key + "=" + k.value);
    }
    // A contradiction validate finds names its key: the line of that one, else the first.
    last = nullptr;
    validate(a);
  } catch (const InputError& e) {
    if (m.keys.empty()) throw;
    if (!last) {
      last = &m.keys.front();
      for (const GpuKey& k : m.keys)
        if (std::string_view(e.what()).find(k.key) != std::string_view::npos) last = &k;
    }
    throw InputError(
        located(m.path, last->line, fmt::format("[gpu.keys] '{}': {}", last->key, e.what())));
  }
  return a;
}

Measurements load_measurements(const std::string& path) {
  return parse_measurements(read_file(path, "measurement file", 16u << 20), path);
}

}  // namespace smemsim::calibrate

// Values, tables, configuration parsing and the latency-backend registry of the study runner.
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/study.hpp"
#include "util/names.hpp"

namespace smemsim::study {

// ---- Latency backends ----
namespace {
class AnalyticBackend final : public LatencyBackend {
 public:
  explicit AnalyticBackend(const Arch& a) : ev_(a) {}
  AccessResult evaluate(const WarpAccess& wa) override { return ev_.evaluate(wa); }

 private:
  AccessEvaluator ev_;
};
}  // namespace

const std::vector<BackendInfo>& latency_backends() {
  static const std::vector<BackendInfo> b{
      {"analytic",
       "the arch's analytic atomic model (alg1 of seed 001 §2.1.4, fsm of seed 000 §III, native) "
       "through AccessEvaluator",
       [](const Arch& a) { return std::make_unique<AnalyticBackend>(a); }},
      {"cycle",
       "whole kernels on the cycle-level GPU model (src/timing/, docs/timing.md): the study's "
       "kernel from kernels/*.cu runs under `sim` and its cycles are the metric",
       nullptr},
  };
  return b;
}

std::unique_ptr<LatencyBackend> make_backend(std::string_view name, const Arch& arch) {
  if (const auto* b = find_named(latency_backends(), name)) {
    if (!b->make)
      throw InputError(fmt::format("latency backend '{}' times whole kernels, not accesses", name));
    return b->make(arch);
  }
  throw InputError(fmt::format("unknown latency backend '{}' (known: {})", name,
                               known_names(latency_backends())));
}

// ---- Values and tables ----
std::string format_value(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:.9g}", *d);
  return std::get<std::string>(v);
}

int Table::col(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  throw std::logic_error(fmt::format("study table has no column '{}'", name));
}
std::string Table::where(std::size_t row) const {
  return row < origins.size() && !origins[row].empty() ? origins[row]
                                                       : fmt::format("{}:{}", source, row + 2);
}

double Table::num_text(std::size_t row, std::string_view name, const std::string& f) const {
  // strtod's forms (points.csv holds format_value's text: decimals, exponents, inf, nan), the
  // whole text and nothing else.
  char* end = nullptr;
  const double v = f.empty() ? 0.0 : std::strtod(f.c_str(), &end);
  if (f.empty() || end != f.c_str() + f.size() || std::isspace(static_cast<unsigned char>(f[0])))
    throw InputError(
        fmt::format("{}: column '{}': '{}' is not a number", where(row), name, printable(f, 80)));
  return v;
}

double Table::num(std::size_t row, std::string_view name) const {
  return num_text(row, name, rows[row][static_cast<std::size_t>(col(name))]);
}
const std::string& Table::str(std::size_t row, std::string_view name) const {
  return rows[row][static_cast<std::size_t>(col(name))];
}

std::string md_table(const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows) {
  std::string s = "|";
  for (const auto& h : header) s += " " + h + " |";
  s += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) s += i == 0 ? ":---|" : "---:|";
  s += "\n";
  for (const auto& r : rows) {
    s += "|";
    for (const auto& c : r) s += " " + c + " |";
    s += "\n";
  }
  return s;
}

// ---- Configuration ----
namespace {
std::int64_t parse_int(const std::string& key, std::string_view text) {
  std::int64_t v = 0;
  const auto* b = text.data();
  const auto* e = text.data() + text.size();
  const auto r = std::from_chars(b, e, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != e)
    throw InputError(fmt::format("study parameter '{}': '{}' is not an integer", key, text));
  return v;
}
}  // namespace

std::int64_t StudyConfig::integer(const std::string& key) const {
  return parse_int(key, params.at(key));
}

std::vector<std::string> StudyConfig::strings(const std::string& key) const {
  std::vector<std::string> out;
  const std::string& s = params.at(key);
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::int64_t> StudyConfig::integers(const std::string& key) const {
  std::vector<std::int64_t> out;
  for (const std::string& item : strings(key)) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      out.push_back(parse_int(key, item));
      continue;
    }
    const std::int64_t a = parse_int(key, std::string_view(item).substr(0, dots));
    const std::int64_t b = parse_int(key, std::string_view(item).substr(dots + 2));
    if (b < a || b - a > 100000)
      throw InputError(fmt::format("study parameter '{}': bad range '{}'", key, item));
    for (std::int64_t v = a; v <= b; ++v) out.push_back(v);
  }
  if (out.empty()) throw InputError(fmt::format("study parameter '{}' is empty", key));
  return out;
}

StudyConfig resolve_config(const StudyInfo& info, const Arch& arch, bool quick,
                           const std::map<std::string, std::string>& sets) {
  StudyConfig c;
  c.arch = arch;
  c.quick = quick;
  for (const auto& p : info.params) c.params[p.key] = quick ? p.quick : p.full;
  for (const auto& [k, v] : sets) {
    if (!c.params.count(k)) {
      std::string known;
      for (const auto& p : info.params) known += (known.empty() ? "" : ", ") + p.key;
      throw InputError(
          fmt::format("study '{}' has no parameter '{}' (known: {}; arch keys such "
                      "as memory.banks are set the same way)",
                      info.name, k, known));
    }
    c.params[k] = v;
  }
  const std::int64_t seed = c.integer("seed");
  if (seed < 0) throw InputError("study parameter 'seed' must be >= 0");
  c.seed = static_cast<std::uint64_t>(seed);
  c.backend = c.params.at("backend");
  const auto* backend = find_named(latency_backends(), c.backend);
  if (!backend)
    throw InputError(
        fmt::format("study parameter 'backend': unknown latency backend '{}' (known: "
                    "{})",
                    c.backend, known_names(latency_backends())));
  if (!backend->make && !info.kernel_runs)
    throw InputError(fmt::format(
        "study '{}' has no kernel to run for backend '{}' (the histogram, hough and kmeans "
        "studies do); use backend=analytic",
        info.name, c.backend));
  return c;
}

void parse_shard(std::string_view s, int& index, int& count) {
  const auto slash = s.find('/');
  auto bad = [&] {
    return InputError(fmt::format("--shard '{}': expected i/n with 0 <= i < n", s));
  };
  if (slash == std::string_view::npos) throw bad();
  std::int64_t i = 0, n = 0;
  try {
    i = parse_int("shard", s.substr(0, slash));
    n = parse_int("shard", s.substr(slash + 1));
  } catch (const InputError&) {
    throw bad();
  }
  if (n < 1 || i < 0 || i >= n || n > 1000000) throw bad();
  index = static_cast<int>(i);
  count = static_cast<int>(n);
}

}  // namespace smemsim::study

// Sweeps (`study run NAME --sweep memory.banks=16,32 --sweep memory.bank_hash=mod,xor`, issue 10
// item 5): the study runs once per configuration of the cross product, as extra dimensions of its
// points. Point indices run over the configurations in order, so resume, shards and merge work as
// for any study; every row starts with the configuration's values (one column per swept key), and
// the report puts the configurations side by side: one table per configuration naming its
// (derived) arch, and each figure once, as small multiples (one panel per configuration).
#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

constexpr std::size_t kMaxConfigurations = 4096;

bool is_arch_key(std::string_view key) {
  const auto& keys = arch_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// An integer stays an integer in points.csv (sorted and plotted as a number); anything else is
// text.
Value axis_value(const std::string& text) {
  std::int64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size()) return v;
  return text;
}

// The preset an arch names (what a derived arch is reported against), else `fallback`.
const Arch& base_preset(const Arch& a, const Arch& fallback) {
  for (const Arch& p : arch_presets())
    if (p.name == a.name) return p;
  return fallback;
}

struct Configuration {
  std::vector<Value> values;  // one per axis
  std::string label;          // "memory.banks=16, memory.bank_hash=xor"
  std::string short_label;    // "banks=16, bank_hash=xor" (figures)
  StudyConfig cfg;
  std::unique_ptr<Study> study;
};

class SweepStudy final : public Study {
 public:
  explicit SweepStudy(const StudyInfo& info) : info_(info) {}

  void configure(const StudyConfig& cfg) override {
    axes_ = cfg.sweep;
    build_configurations(cfg);
    offsets_.assign(1, 0);
    for (Configuration& c : configs_) {
      try {
        c.study->configure(c.cfg);
      } catch (const InputError& e) {
        throw InputError(fmt::format("--sweep {}: {}", c.label, e.what()));
      }
      if (c.study->columns() != configs_.front().study->columns())
        throw InputError(
            fmt::format("--sweep {}: the study's columns change with the sweep", c.label));
      offsets_.push_back(offsets_.back() + c.study->size());
    }
  }

  std::vector<std::string> columns() const override {
    std::vector<std::string> c;
    for (const SweepAxis& a : axes_) c.push_back(a.key);
    const auto inner = configs_.front().study->columns();
    c.insert(c.end(), inner.begin(), inner.end());
    return c;
  }

  std::size_t size() const override { return offsets_.back(); }

  PointResult run_point(std::size_t index) const override {
    const std::size_t c =
        std::size_t(std::upper_bound(offsets_.begin(), offsets_.end(), index) - offsets_.begin()) -
        1;
    PointResult r = configs_[c].study->run_point(index - offsets_[c]);
    for (Row& row : r.rows)
      row.insert(row.begin(), configs_[c].values.begin(), configs_[c].values.end());
    return r;
  }

  Report report(const Table& t) const override;

  std::string input_digest() const override {
    std::string d;
    for (const Configuration& c : configs_) {
      const std::string x = c.study->input_digest();
      if (!x.empty() && d.find(x) == std::string::npos) d += (d.empty() ? "" : ",") + x;
    }
    return d;
  }

 private:
  void build_configurations(const StudyConfig& cfg);
  Table sub_table(const Table& t, std::size_t c) const;

  const StudyInfo& info_;
  std::vector<SweepAxis> axes_;
  std::vector<Configuration> configs_;
  std::vector<std::size_t> offsets_;  // first point of each configuration, then the total
};

// The cross product, the last axis varying fastest; each configuration's arch and parameters.
void SweepStudy::build_configurations(const StudyConfig& cfg) {
  std::size_t count = 1;
  for (const SweepAxis& a : axes_) count *= a.values.size();
  configs_.clear();
  for (std::size_t n = 0; n < count; ++n) {
    Configuration c;
    c.cfg = cfg;
    c.cfg.sweep.clear();
    std::size_t rest = n, stride = count;
    std::string changes;
    for (const SweepAxis& a : axes_) {
      stride /= a.values.size();
      const std::string& v = a.values[rest / stride];
      rest %= stride;
      c.values.push_back(axis_value(v));
      c.label += fmt::format("{}{}={}", c.label.empty() ? "" : ", ", a.key, v);
      c.short_label += fmt::format("{}{}={}", c.short_label.empty() ? "" : ", ",
                                   a.key.substr(a.key.rfind('.') + 1), v);
      if (is_arch_key(a.key))
        apply_override(c.cfg.arch, a.key + "=" + v);
      else
        c.cfg.params[a.key] = v;
    }
    try {
      validate(c.cfg.arch);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--sweep {}: {}", c.label, e.what()));
    }
    mark_derived(c.cfg.arch, base_preset(cfg.arch, cfg.arch));
    c.study = info_.make();
    configs_.push_back(std::move(c));
  }
}

// The rows of configuration `c`, without the swept columns (what its study's report reads).
Table SweepStudy::sub_table(const Table& t, std::size_t c) const {
  Table s;
  s.columns.push_back(t.columns.front());
  s.columns.insert(s.columns.end(), t.columns.begin() + 1 + long(axes_.size()), t.columns.end());
  for (const auto& row : t.rows) {
    bool mine = true;
    for (std::size_t a = 0; a < axes_.size() && mine; ++a)
      mine = row[1 + a] == format_value(configs_[c].values[a]);
    if (!mine) continue;
    std::vector<std::string> r{row.front()};
    r.insert(r.end(), row.begin() + 1 + long(axes_.size()), row.end());
    s.rows.push_back(std::move(r));
  }
  return s;
}

// One figure out of the configurations' versions of it: small multiples, one panel per
// configuration titled by it, the figure's other fields from the first version.
Figure merge_figure(const std::vector<const Figure*>& versions,
                    const std::vector<std::string>& labels) {
  Figure m = *versions.front();
  m.series.clear();
  m.categories.clear();
  m.bar_labels.clear();
  for (std::size_t c = 0; c < versions.size(); ++c) {
    Figure p = *versions[c];
    p.panels.clear();
    p.title = labels[c];
    m.panels.push_back(std::move(p));
  }
  return m;
}

Report SweepStudy::report(const Table& t) const {
  Report r;
  std::vector<Report> parts;
  std::vector<std::string> labels, short_labels;
  for (std::size_t c = 0; c < configs_.size(); ++c) {
    parts.push_back(configs_[c].study->report(sub_table(t, c)));
    labels.push_back(configs_[c].label);
    short_labels.push_back(configs_[c].short_label);
  }
  std::string axes;
  for (const SweepAxis& a : axes_)
    axes += fmt::format("{}`{}` = {}", axes.empty() ? "" : "; ", a.key, fmt::join(a.values, ", "));
  std::string axes_caption;  // "banks = 16, 32 x locks = 256, 1024"; "seed = 1, 2, 3 ... 100"
  for (const SweepAxis& a : axes_) {
    const std::vector<std::string>& v = a.values;
    const std::string values = v.size() <= 6 ? fmt::format("{}", fmt::join(v, ", "))
                                             : fmt::format("{}, {}, {} \u2026 {} ({} values)", v[0],
                                                           v[1], v[2], v.back(), v.size());
    axes_caption += fmt::format("{}{} = {}", axes_caption.empty() ? "" : " \u00d7 ",
                                a.key.substr(a.key.rfind('.') + 1), values);
  }
  r.markdown = fmt::format(
      "Swept: {} ({} configurations). `points.csv` has one column per swept key; each "
      "configuration's tables follow, and each figure draws one panel per configuration.\n\n",
      axes, configs_.size());
  r.summary["sweep"] = nlohmann::json::array();
  for (const SweepAxis& a : axes_) {
    nlohmann::json values = nlohmann::json::array();
    for (const std::string& v : a.values)
      std::visit([&](const auto& x) { values.push_back(x); }, axis_value(v));
    r.summary["sweep"].push_back({{"key", a.key}, {"values", values}});
  }
  r.summary["configurations"] = nlohmann::json::array();
  for (std::size_t c = 0; c < configs_.size(); ++c) {
    r.markdown += fmt::format("## Configuration {}\n\nArch: `{}` ({}).\n\n{}\n", labels[c],
                              arch_label(configs_[c].cfg.arch),
                              sources_summary(configs_[c].cfg.arch), parts[c].markdown);
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t a = 0; a < axes_.size(); ++a)
      std::visit([&](const auto& x) { values[axes_[a].key] = x; }, configs_[c].values[a]);
    r.summary["configurations"].push_back({{"values", values},
                                           {"arch", arch_label(configs_[c].cfg.arch)},
                                           {"results", parts[c].summary}});
  }
  // Each figure once, in the order of the first configuration's figures.
  for (std::size_t i = 0; i < parts.front().figures.size(); ++i) {
    std::vector<const Figure*> versions;
    for (const Report& p : parts)
      for (const Figure& f : p.figures)
        if (f.name == parts.front().figures[i].name) versions.push_back(&f);
    if (versions.size() != parts.size()) continue;
    Figure m = merge_figure(versions, short_labels);
    m.caption = fmt::format("one panel per configuration of {}", axes_caption);
    r.figures.push_back(std::move(m));
  }
  return r;
}

}  // namespace

SweepAxis parse_sweep(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(fmt::format("--sweep '{}': expected KEY=V1,V2,... (e.g. memory.banks=16,32)",
                                 printable(text)));
  SweepAxis a{std::string(text.substr(0, eq)), {}};
  std::string_view rest = text.substr(eq + 1);
  std::set<std::string> seen;
  for (;;) {
    const auto comma = rest.find(',');
    const std::string v(rest.substr(0, comma));
    if (v.empty() || v.find_first_of("|\"\n\r") != std::string::npos)
      throw InputError(fmt::format("--sweep {}: '{}' is not a value", a.key, printable(v)));
    if (!seen.insert(v).second)
      throw InputError(fmt::format("--sweep {}: {} is given twice", a.key, v));
    a.values.push_back(v);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return a;
}

void check_sweep(const StudyInfo& info, const std::vector<SweepAxis>& sweep,
                 const std::vector<std::string>& fixed) {
  std::size_t count = 1;
  std::set<std::string> keys;
  for (const SweepAxis& a : sweep) {
    const bool param = std::any_of(info.params.begin(), info.params.end(),
                                   [&](const ParamSpec& p) { return p.key == a.key; });
    if (!param && !is_arch_key(a.key))
      throw InputError(fmt::format(
          "--sweep {}: neither an arch key (smemsim arch show) nor a parameter of study '{}'",
          a.key, info.name));
    if (a.key == "name" || a.key == "derived" || a.key == "calibrated")
      throw InputError(fmt::format("--sweep {}: not a key to sweep", a.key));
    if (!keys.insert(a.key).second)
      throw InputError(fmt::format("--sweep {}: the key is swept twice", a.key));
    if (std::find(fixed.begin(), fixed.end(), a.key) != fixed.end())
      throw InputError(fmt::format("--sweep {}: the key is also set with --set", a.key));
    count *= a.values.size();
    if (count > kMaxConfigurations)
      throw InputError(fmt::format("--sweep: more than {} configurations", kMaxConfigurations));
  }
}

std::unique_ptr<Study> make_study(const StudyInfo& info, const StudyConfig& cfg) {
  std::unique_ptr<Study> s = cfg.sweep.empty() ? info.make() : std::make_unique<SweepStudy>(info);
  s->configure(cfg);
  return s;
}

}  // namespace smemsim::study

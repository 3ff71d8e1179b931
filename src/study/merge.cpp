// `study merge`: finished shard folders combined into one, as an unsharded run would have written
// it; shards whose configurations differ are refused, naming the key that differs.
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "runner_files.hpp"
#include "smemsim/error.hpp"
#include "smemsim/study.hpp"
#include "util/file.hpp"

namespace smemsim::study {
namespace fs = std::filesystem;
namespace {

// Where two shard configurations differ, by its key: "params.patterns (1000 and 2000)", an arch
// key as "arch memory.banks (16 and 32)". "" when they agree.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& path = "") {
  if (a == b) return "";
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys) {
      const std::string p = path.empty() ? k : path + "." + k;
      if (!a.contains(k) || !b.contains(k)) return fmt::format("{} (present in one only)", p);
      if (k == "arch_toml" && a[k].is_string() && b[k].is_string() && a[k] != b[k]) {
        std::map<std::string, std::string> x, y;
        const Arch xa = parse_arch_toml(a[k].get<std::string>(), "config.json", Arch{});
        const Arch ya = parse_arch_toml(b[k].get<std::string>(), "config.json", Arch{});
        visit_arch(xa, [&](std::string_view key, const ArchValue& v) {
          std::visit([&](const auto& e) { x[std::string(key)] = fmt::format("{}", e); }, v);
        });
        visit_arch(ya, [&](std::string_view key, const ArchValue& v) {
          std::visit([&](const auto& e) { y[std::string(key)] = fmt::format("{}", e); }, v);
        });
        for (const auto& [key, v] : x)
          if (key != "derived" && key != "calibrated" && y[key] != v)
            return fmt::format("arch {} ({} and {})", key, v, y[key]);
      }
      if (const std::string d = first_difference(a[k], b[k], p); !d.empty()) return d;
    }
    return path;
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {  // sweep axes: named by their key
    for (std::size_t i = 0; i < a.size(); ++i) {
      const bool keyed = a[i].is_object() && a[i].contains("key") &&
                         a[i]["key"] == b[i].value("key", nlohmann::json());
      const std::string p =
          fmt::format("{}[{}]", path, keyed ? a[i]["key"].get<std::string>() : std::to_string(i));
      if (const std::string d = first_difference(a[i], b[i], p); !d.empty()) return d;
    }
  }
  return fmt::format("{} ({} and {})", path.empty() ? "the configuration" : path, a.dump(),
                     b.dump());
}

// The shards' common configuration (config.json without "shard") and their points.
struct Shards {
  nlohmann::json base;
  int count = 0;
  std::size_t total = 0;
  std::vector<std::string> columns;
  std::map<std::size_t, std::string> points;  // index -> rows, as points.partial holds them
  std::map<std::size_t, std::vector<std::string>> origins;  // index -> "FILE:LINE" of each row
};

// Every field of config.json that a merge reads, of its type (issue 28: a field of the wrong
// type gave nlohmann's exception text); InputError naming the file and the field.
void check_config(const nlohmann::json& c, const std::string& path) {
  const auto fail = [&](const std::string& field, const char* what) {
    throw InputError(fmt::format("{}: field '{}' must be {}", path, field, what));
  };
  const auto strings = [](const nlohmann::json& v) {
    if (!v.is_array()) return false;
    for (const auto& e : v)
      if (!e.is_string()) return false;
    return true;
  };
  if (!c.is_object()) fail("(the document)", "an object");
  for (const char* k : {"study", "arch", "arch_toml", "backend"})
    if (!c.contains(k) || !c[k].is_string()) fail(k, "a string");
  for (const char* k : {"points", "seed"})
    if (!c.contains(k) || !c[k].is_number_unsigned()) fail(k, "a non-negative integer");
  if (!c.contains("quick") || !c["quick"].is_boolean()) fail("quick", "true or false");
  if (!c.contains("columns") || !strings(c["columns"]) || c["columns"].empty())
    fail("columns", "a non-empty array of strings");
  if (!c.contains("params") || !c["params"].is_object()) fail("params", "an object of strings");
  for (const auto& [k, v] : c["params"].items())
    if (!v.is_string()) fail("params." + k, "a string");
  const nlohmann::json* sh = c.contains("shard") ? &c["shard"] : nullptr;
  if (!sh || !sh->is_object() || !sh->contains("index") || !sh->contains("count") ||
      !(*sh)["index"].is_number_unsigned() || !(*sh)["count"].is_number_unsigned() ||
      (*sh)["count"].get<std::uint64_t>() == 0 ||
      (*sh)["index"].get<std::uint64_t>() >= (*sh)["count"].get<std::uint64_t>() ||
      (*sh)["count"].get<std::uint64_t>() > 1'000'000)
    fail("shard", "{\"index\": I, \"count\": N} with 0 <= I < N");
  if (c.contains("sweep")) {
    if (!c["sweep"].is_array()) fail("sweep", "an array");
    for (const auto& a : c["sweep"])
      if (!a.is_object() || !a.contains("key") || !a["key"].is_string() || !a.contains("values") ||
          !strings(a["values"]))
        fail("sweep", "an array of {\"key\": string, \"values\": [strings]}");
  }
}

nlohmann::json read_config(const std::string& dir) {
  if (dir.empty()) throw InputError("study merge: a shard folder is an empty path (give DIR/NAME)");
  const std::string conf_path = dir + "/config.json";
  if (!fs::exists(conf_path) || !fs::exists(dir + "/points.csv"))
    throw InputError(
        fmt::format("{}: not a finished study shard (config.json and points.csv "
                    "expected; pass DIR/NAME folders)",
                    dir));
  nlohmann::json c;
  try {
    c = nlohmann::json::parse(read_file(conf_path, "study configuration", 16u << 20));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: not a JSON document (byte {})", conf_path, e.byte));
  }
  check_config(c, conf_path);
  return c;
}

// One points.csv line, "POINT,field,...": its point, checked against the header's column count,
// the total and the shard (issue 28: a file with ';' separators crashed the merge).
std::size_t point_of(const std::string& line, const std::string& where, std::size_t columns,
                     std::size_t total, std::uint64_t index, std::uint64_t count) {
  const std::vector<std::string> f = split(line, ',');
  if (f.size() != columns + 1)
    throw InputError(fmt::format("{}: {} fields, the header has {}", where, f.size(), columns + 1));
  const std::string& p = f[0];
  if (p.empty() || p.size() > 18 || p.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(fmt::format("{}: '{}' is not a point number", where, printable(p)));
  const std::size_t idx = std::stoull(p);
  if (idx >= total)
    throw InputError(
        fmt::format("{}: point {} is beyond the study's {} points", where, idx, total));
  if (idx % count != index)
    throw InputError(fmt::format("{}: point {} belongs to shard {} of {}, not to this shard {}",
                                 where, idx, idx % count, count, index));
  return idx;
}

// Every shard's configuration checked against the first's (naming the key that differs), every
// shard present once, every point present.
Shards read_shards(const std::vector<std::string>& dirs) {
  if (dirs.empty()) throw InputError("study merge: no shard folders given");
  Shards sh;
  std::set<int> seen;
  for (const std::string& d : dirs) {
    const nlohmann::json c = read_config(d);
    const int idx = c.at("shard").at("index").get<int>();
    const int n = c.at("shard").at("count").get<int>();
    const int idx_shard = idx;
    nlohmann::json key = c;
    key.erase("shard");
    if (sh.base.is_null()) {
      sh.base = key;
      sh.count = n;
      sh.total = c.at("points").get<std::size_t>();
      sh.columns = c.at("columns").get<std::vector<std::string>>();
    } else if (key != sh.base) {
      throw InputError(fmt::format("{}: its configuration differs from {}'s in {}", d, dirs.front(),
                                   first_difference(key, sh.base)));
    } else if (n != sh.count) {
      throw InputError(
          fmt::format("{}: a shard of {}, {} is a shard of {}", d, n, dirs.front(), sh.count));
    }
    if (!seen.insert(idx).second) throw InputError(fmt::format("{}: shard {} given twice", d, idx));
    const std::string csv_path = d + "/points.csv";
    const std::vector<std::string> lines = split(read_file(csv_path, "study points"), '\n');
    const std::string header = "point," + fmt::format("{}", fmt::join(sh.columns, ","));
    if (lines.empty() || lines[0] != header)
      throw InputError(
          fmt::format("{}:1: the header is not '{}' (config.json's columns)", csv_path, header));
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].empty()) continue;
      const std::size_t idx =
          point_of(lines[i], fmt::format("{}:{}", csv_path, i + 1), sh.columns.size(), sh.total,
                   std::uint64_t(idx_shard), std::uint64_t(n));
      const auto comma = lines[i].find(',');
      auto& slot = sh.points[idx];
      if (!slot.empty()) slot += '|';
      slot.append(lines[i], comma + 1);
      sh.origins[idx].push_back(fmt::format("{}:{}", csv_path, i + 1));
    }
  }
  if (static_cast<int>(seen.size()) != sh.count)
    throw InputError(fmt::format("study merge: {} of {} shards given", seen.size(), sh.count));
  if (sh.points.size() != sh.total)
    throw InputError(
        fmt::format("study merge: {} of {} points present", sh.points.size(), sh.total));
  return sh;
}

// The configuration config.json records, checked as `study run` checks its options (issue 48: an
// unknown backend or sweep key merged, exit 0, and the report named the bogus key): every
// parameter one of the study's, the backend one it can run, the seed and backend the parameters'
// own, every sweep axis a key of the arch or the study. InputError naming `path`.
StudyConfig config_of(const nlohmann::json& base, const StudyInfo& info, const std::string& path) {
  try {
    Arch arch = parse_arch_toml(base.at("arch_toml").get<std::string>(), "arch_toml", Arch{});
    arch.name = base.at("arch").get<std::string>();
    const auto params = base.at("params").get<std::map<std::string, std::string>>();
    StudyConfig cfg = resolve_config(info, arch, base.at("quick").get<bool>(), params);
    if (cfg.params != params)
      for (const ParamSpec& p : info.params)
        if (!params.count(p.key))
          throw InputError(fmt::format("params: the study's parameter '{}' is missing", p.key));
    if (base.at("seed").get<std::uint64_t>() != cfg.seed)
      throw InputError(fmt::format("seed {} is not params.seed {}", base.at("seed").dump(),
                                   cfg.params.at("seed")));
    if (base.at("backend").get<std::string>() != cfg.backend)
      throw InputError(fmt::format("backend '{}' is not params.backend '{}'",
                                   printable(base.at("backend").get<std::string>(), 80),
                                   printable(cfg.backend, 80)));
    for (const nlohmann::json& a : base.value("sweep", nlohmann::json::array()))
      cfg.sweep.push_back(
          {a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
    for (const SweepAxis& a : cfg.sweep)
      if (a.values.empty())
        throw InputError(fmt::format("--sweep {}: the axis has no values", a.key));
    check_sweep(info, cfg.sweep, {});
    return cfg;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace

RunSummary merge_shards(const std::vector<std::string>& dirs, const RunOptions& o) {
  // Everything is read and checked, down to the report of the merged points, before the merged
  // folder is made: bad shards leave nothing behind (issue 48: a value 'abc' failed in the
  // report, exit 1, after the folder was written).
  const Shards sh = read_shards(dirs);
  const std::string name = sh.base.at("study").get<std::string>();
  const std::string conf_path = dirs.front() + "/config.json";
  const StudyInfo& info = [&]() -> const StudyInfo& {
    try {
      return find_study(name);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", conf_path, e.what()));
    }
  }();
  const StudyConfig cfg = config_of(sh.base, info, conf_path);
  std::unique_ptr<Study> study = make_study(info, cfg);
  if (sh.columns != study->columns())
    throw InputError(
        fmt::format("{}: columns [{}] are not study '{}''s [{}] with this configuration", conf_path,
                    fmt::join(sh.columns, ", "), name, fmt::join(study->columns(), ", ")));
  Output out = build_csv(sh.columns, sh.points);
  for (const auto& [idx, where] : sh.origins)
    out.table.origins.insert(out.table.origins.end(), where.begin(), where.end());
  Report rep = study->report(out.table);

  RunSummary s;
  // The merged folder must not be one of the shards: writing it would overwrite that shard.
  const fs::path target = fs::weakly_canonical(fs::path(o.out_root) / name);
  for (const std::string& d : dirs)
    if (fs::weakly_canonical(d) == target)
      throw InputError(fmt::format(
          "study merge: --out {} would write into the shard folder {}; choose another --out",
          o.out_root, d));
  s.dir = output_dir(o.out_root, name);
  FolderLock lock(s.dir);
  s.points = sh.total;
  s.reused = sh.total;
  nlohmann::json conf = sh.base;
  conf["shard"] = {{"index", 0}, {"count", 1}};
  // Same key order as an unsharded run's config.json (nlohmann sorts object keys).
  write_atomic(s.dir + "/config.json", conf.dump(2) + "\n");
  write_atomic(s.dir + "/arch.toml", to_toml(cfg.arch));
  write_atomic(s.dir + "/points.csv", out.csv);
  out.table.origins.clear();
  finalize(info, std::move(rep), cfg.arch, out.table, s.dir, o, s);
  return s;
}

}  // namespace smemsim::study

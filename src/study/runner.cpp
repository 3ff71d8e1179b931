// The study runner: parallel points (oneTBB), durable resume, shards and merge, result files.
//
// Durability: every finished point is appended to DIR/points.partial as ONE line
// "INDEX|row|row...\n" with a single write(2) (fields comma-separated), so a killed process leaves
// only complete lines plus at most one torn last line, which the next run cuts off. A kill never
// loses a written line (it is in the page cache); fdatasync runs at most every 0.5 s and at the
// end, so a power loss costs at most the last half second. points.csv is written to a temporary
// file, synced and renamed over the old one (atomic on POSIX).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "plot.hpp"
#include "progress.hpp"
#include "smemsim/error.hpp"
#include "smemsim/study.hpp"
#include "util/file.hpp"

namespace smemsim::study {
namespace fs = std::filesystem;
namespace {

std::string clean_field(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '|' || c == '\n' || c == '\r' || c == '"') c = '_';
  return s;
}

std::string row_text(const Row& r) {
  std::string s;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i) s += ',';
    s += clean_field(format_value(r[i]));
  }
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? p : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

void write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}", tmp));
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error(fmt::format("write failed: {}", tmp));
    }
    off += static_cast<std::size_t>(n);
  }
  ::fdatasync(fd);
  ::close(fd);
  fs::rename(tmp, path);
}

nlohmann::json config_json(const StudyInfo& info, const StudyConfig& cfg, std::size_t points,
                           const std::vector<std::string>& columns, int shard, int shards) {
  nlohmann::json j;
  j["study"] = info.name;
  j["source"] = info.source;
  j["quick"] = cfg.quick;
  j["seed"] = cfg.seed;
  j["backend"] = cfg.backend;
  j["params"] = cfg.params;
  j["points"] = points;
  j["columns"] = columns;
  j["arch"] = cfg.arch.name;
  j["arch_toml"] = to_toml(cfg.arch);
  j["shard"] = {{"index", shard}, {"count", shards}};
  return j;
}

// Complete lines of points.partial; a torn last line is cut off the file.
std::map<std::size_t, std::string> load_partial(const std::string& path, std::size_t total,
                                                std::size_t ncols) {
  std::map<std::size_t, std::string> done;
  if (!fs::exists(path)) return done;
  const std::string text = read_file(path, "study state");
  std::size_t good = 0, pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // torn line
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const auto bar = line.find('|');
    bool ok = bar != std::string::npos && bar > 0;
    std::size_t idx = 0;
    if (ok) {
      try {
        idx = std::stoull(line.substr(0, bar));
      } catch (...) {
        ok = false;
      }
    }
    if (ok && idx < total) {
      for (const std::string& r : split(line.substr(bar + 1), '|'))
        if (split(r, ',').size() != ncols) ok = false;
      if (ok) done.emplace(idx, line.substr(bar + 1));
    }
    good = pos;
  }
  if (good < text.size()) fs::resize_file(path, good);
  return done;
}

struct Output {
  std::string csv;
  Table table;
};

Output build_csv(const std::vector<std::string>& columns,
                 const std::map<std::size_t, std::string>& points) {
  Output o;
  o.table.columns.push_back("point");
  for (const auto& c : columns) o.table.columns.push_back(c);
  o.csv = fmt::format("{}\n", fmt::join(o.table.columns, ","));
  for (const auto& [idx, payload] : points)
    for (const std::string& r : split(payload, '|')) {
      const std::string line = fmt::format("{},{}", idx, r);
      o.csv += line + "\n";
      o.table.rows.push_back(split(line, ','));
    }
  return o;
}

void finalize(const StudyInfo& info, const Study& study, const Arch& study_arch, const Table& table,
              const std::string& dir, const RunOptions& o, RunSummary& s) {
  Report rep = study.report(table);
  std::string md = fmt::format(
      "# Study `{}`\n\n{}\n\nSource: {}. Arch: `{}`. Configuration: `config.json`, "
      "`arch.toml`; every point: `points.csv`.\n\n",
      info.name, info.description, info.source, arch_label(study_arch));
  md += rep.markdown;
  if (!rep.figures.empty()) md += "\n## Figures\n\n";
  for (const Figure& f : rep.figures) {
    const std::string png = o.plots ? render_figure(f, dir, o.log) : std::string();
    if (!png.empty()) s.pngs.push_back(png);
    md += fmt::format("### {}\n\n![{}]({}.png)\n\n(gnuplot script `{}.gp`, data `{}.dat`)\n\n",
                      f.title, f.title, f.name, f.name, f.name);
  }
  write_atomic(dir + "/report.md", md);
  nlohmann::json summary = rep.summary;
  summary["study"] = info.name;
  summary["rows"] = table.rows.size();
  write_atomic(dir + "/summary.json", summary.dump(2) + "\n");
  s.report_markdown = rep.markdown;
}

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

// OUT/NAME, created: an empty OUT or a filesystem root is refused (issue 11: `--out ""` wrote to
// /NAME), and a folder that cannot be made is an InputError, not a filesystem exception.
std::string output_dir(const std::string& root, const std::string& name) {
  if (root.empty()) throw InputError("--out: empty path (give a folder, e.g. --out study-out)");
  const fs::path p(root);
  if (p.has_root_path() && p.relative_path().empty())
    throw InputError(fmt::format("--out: '{}' is a filesystem root; give a folder under it", root));
  const std::string dir = root + "/" + name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(fmt::format("--out: cannot create the folder '{}': {}", dir,
                                 ec ? ec.message() : "a file of that name exists"));
  return dir;
}

// An advisory lock on DIR/.lock for the whole run: a second run on the same folder is refused
// (the kernel drops the lock when a process dies, so a killed run can be resumed).
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) {
    const std::string path = dir + "/.lock";
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InputError(fmt::format("cannot create the lock file '{}'", path));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw InputError(fmt::format(
          "{} is in use by another smemsim study run (lock file {}); wait for it to finish or "
          "choose another --out",
          dir, path));
    }
  }
  ~FolderLock() { ::close(fd_); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

RunSummary run_study(const StudyInfo& info, const StudyConfig& cfg, const RunOptions& o) {
  std::unique_ptr<Study> study = info.make();
  study->configure(cfg);
  const std::vector<std::string> columns = study->columns();
  const std::size_t total = study->size();
  RunSummary s;
  s.dir = output_dir(o.out_root, info.name);
  const FolderLock lock(s.dir);

  nlohmann::json conf = config_json(info, cfg, total, columns, o.shard_index, o.shard_count);
  if (const std::string d = study->input_digest(); !d.empty()) conf["input_digest"] = d;
  const std::string conf_text = conf.dump(2) + "\n";
  const std::string conf_path = s.dir + "/config.json";
  const std::string partial = s.dir + "/points.partial";
  if (fs::exists(conf_path) && read_file(conf_path, "study configuration") != conf_text &&
      fs::exists(partial))
    throw InputError(fmt::format(
        "{} holds points of a different configuration (study parameters, input images, arch or "
        "shard); "
        "choose another --out or remove that folder",
        s.dir));
  write_atomic(conf_path, conf_text);
  write_atomic(s.dir + "/arch.toml", to_toml(cfg.arch));

  std::map<std::size_t, std::string> done = load_partial(partial, total, columns.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = static_cast<std::size_t>(o.shard_index); i < total;
       i += static_cast<std::size_t>(o.shard_count)) {
    ++s.points;
    if (done.count(i))
      ++s.reused;
    else
      todo.push_back(i);
  }
  for (auto it = done.begin(); it != done.end();)  // points of other shards: not ours
    it = (it->first % static_cast<std::size_t>(o.shard_count) ==
          static_cast<std::size_t>(o.shard_index))
             ? std::next(it)
             : done.erase(it);

  const std::size_t abort_after = o.abort_after;

  const std::string label =
      o.shard_count > 1 ? fmt::format("{} [shard {}/{}]", info.name, o.shard_index, o.shard_count)
                        : info.name;
  if (o.log)
    *o.log << fmt::format(
        "{}: {} points ({} already done), {} threads -> {}\n", label, s.points, s.reused,
        o.threads > 0 ? o.threads : tbb::this_task_arena::max_concurrency(), s.dir);
  Progress progress(o.log, label, todo.size(), stderr_is_terminal());
  if (!todo.empty()) {
    const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}", partial));
    std::mutex mu;
    std::size_t written = 0;
    auto last_sync = std::chrono::steady_clock::now();
    tbb::task_arena arena(o.threads > 0 ? o.threads : tbb::task_arena::automatic);
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(0, todo.size(), 1),
          [&](const tbb::blocked_range<std::size_t>& range) {
            for (std::size_t k = range.begin(); k != range.end(); ++k) {
              const std::size_t idx = todo[k];
              PointResult r = study->run_point(idx);
              std::string payload;
              for (std::size_t j = 0; j < r.rows.size(); ++j) {
                if (r.rows[j].size() != columns.size())
                  throw std::logic_error(
                      fmt::format("study {}: point {} row has {} values for {} "
                                  "columns",
                                  info.name, idx, r.rows[j].size(), columns.size()));
                payload += (j ? "|" : "") + row_text(r.rows[j]);
              }
              const std::string line = fmt::format("{}|{}\n", idx, payload);
              std::lock_guard lock(mu);
              if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
                throw std::runtime_error(fmt::format("write failed: {}", partial));
              const auto now = std::chrono::steady_clock::now();
              if (now - last_sync > std::chrono::milliseconds(500)) {
                ::fdatasync(fd);
                last_sync = now;
              }
              done.emplace(idx, payload);
              ++written;
              progress.tick(r.accesses);
              if (abort_after && written >= abort_after) {
                ::fdatasync(fd);
                std::_Exit(75);  // test hook: an abrupt stop, as a kill would be
              }
            }
          });
    });
    ::fdatasync(fd);
    ::close(fd);
    progress.finish();
  }
  s.computed = todo.size();
  s.accesses = progress.accesses();
  s.seconds = progress.elapsed();

  const Output out = build_csv(columns, done);
  write_atomic(s.dir + "/points.csv", out.csv);
  nlohmann::json run;
  run["points_computed"] = s.computed;
  run["points_reused"] = s.reused;
  run["accesses"] = s.accesses;
  run["seconds"] = s.seconds;
  run["accesses_per_second"] = s.seconds > 0 ? double(s.accesses) / s.seconds : 0.0;
  run["threads"] = o.threads;
  write_atomic(s.dir + "/run.json", run.dump(2) + "\n");
  if (o.shard_count == 1) {
    finalize(info, *study, cfg.arch, out.table, s.dir, o, s);
  } else if (o.log) {
    *o.log << fmt::format(
        "{}: shard done; combine the shard folders with `smemsim study merge DIR...`\n", label);
  }
  return s;
}

RunSummary merge_shards(const std::vector<std::string>& dirs, const RunOptions& o) {
  if (dirs.empty()) throw InputError("study merge: no shard folders given");
  nlohmann::json base;
  std::set<int> seen;
  int count = 0;
  std::map<std::size_t, std::string> points;
  std::size_t total = 0;
  std::vector<std::string> columns;
  for (const std::string& d : dirs) {
    const std::string conf_path = d + "/config.json";
    const std::string csv_path = d + "/points.csv";
    if (!fs::exists(conf_path) || !fs::exists(csv_path))
      throw InputError(
          fmt::format("{}: not a finished study shard (config.json and points.csv "
                      "expected; pass DIR/NAME folders)",
                      d));
    nlohmann::json c;
    try {
      c = nlohmann::json::parse(read_file(conf_path, "study configuration"));
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: {}", conf_path, e.what()));
    }
    const int idx = c.at("shard").at("index").get<int>();
    const int n = c.at("shard").at("count").get<int>();
    nlohmann::json key = c;
    key.erase("shard");
    if (base.is_null()) {
      base = key;
      count = n;
      total = c.at("points").get<std::size_t>();
      columns = c.at("columns").get<std::vector<std::string>>();
    } else if (key != base || n != count) {
      throw InputError(fmt::format("{}: its configuration differs from {}'s", d, dirs.front()));
    }
    if (!seen.insert(idx).second) throw InputError(fmt::format("{}: shard {} given twice", d, idx));
    const std::vector<std::string> lines = split(read_file(csv_path, "study points"), '\n');
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].empty()) continue;
      const auto comma = lines[i].find(',');
      const std::size_t p = std::stoull(lines[i].substr(0, comma));
      auto& slot = points[p];
      slot += (slot.empty() ? "" : "|") + lines[i].substr(comma + 1);
    }
  }
  if (static_cast<int>(seen.size()) != count)
    throw InputError(fmt::format("study merge: {} of {} shards given", seen.size(), count));
  if (points.size() != total)
    throw InputError(fmt::format("study merge: {} of {} points present", points.size(), total));

  const std::string name = base.at("study").get<std::string>();
  const StudyInfo& info = find_study(name);
  StudyConfig cfg;
  cfg.arch = parse_arch_toml(base.at("arch_toml").get<std::string>(), "config.json", Arch{});
  cfg.arch.name = base.at("arch").get<std::string>();
  cfg.quick = base.at("quick").get<bool>();
  cfg.seed = base.at("seed").get<std::uint64_t>();
  cfg.backend = base.at("backend").get<std::string>();
  cfg.params = base.at("params").get<std::map<std::string, std::string>>();
  std::unique_ptr<Study> study = info.make();
  study->configure(cfg);

  RunSummary s;
  // The merged folder must not be one of the shards: writing it would overwrite that shard.
  const fs::path target = fs::weakly_canonical(fs::path(o.out_root) / name);
  for (const std::string& d : dirs)
    if (fs::weakly_canonical(d) == target)
      throw InputError(fmt::format(
          "study merge: --out {} would write into the shard folder {}; choose another --out",
          o.out_root, d));
  s.dir = output_dir(o.out_root, name);
  const FolderLock lock(s.dir);
  s.points = total;
  s.reused = total;
  nlohmann::json conf = base;
  conf["shard"] = {{"index", 0}, {"count", 1}};
  // Same key order as an unsharded run's config.json (nlohmann sorts object keys).
  write_atomic(s.dir + "/config.json", conf.dump(2) + "\n");
  write_atomic(s.dir + "/arch.toml", to_toml(cfg.arch));
  const Output out = build_csv(columns, points);
  write_atomic(s.dir + "/points.csv", out.csv);
  finalize(info, *study, cfg.arch, out.table, s.dir, o, s);
  return s;
}

}  // namespace smemsim::study

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
#include <cerrno>
#include <cstring>
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

#include "progress.hpp"
#include "runner_files.hpp"
#include "smemsim/error.hpp"
#include "smemsim/json.hpp"
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

nlohmann::json config_json(const StudyInfo& info, const StudyConfig& cfg, std::size_t points,
                           const std::vector<std::string>& columns, int shard, int shards) {
  nlohmann::json j = json::document("study-config");
  j["study"] = info.name;
  j["source"] = info.source;
  j["quick"] = cfg.quick;
  j["seed"] = cfg.seed;
  j["backend"] = cfg.backend;
  j["params"] = cfg.params;
  j["points"] = points;
  j["columns"] = columns;
  j["arch"] = cfg.arch.name;
  j["arch_label"] = arch_label(cfg.arch);
  j["arch_toml"] = to_toml(cfg.arch);
  j["sweep"] = nlohmann::json::array();
  for (const SweepAxis& a : cfg.sweep) j["sweep"].push_back({{"key", a.key}, {"values", a.values}});
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

// A finished folder keeps points.csv, not points.partial (issue 24): its points, in
// load_partial's form, so that running the same study again reuses them. A row that does not parse
// or has the wrong number of fields drops its point (computed again).
std::map<std::size_t, std::string> load_finished(const std::string& path, std::size_t total,
                                                 std::size_t ncols) {
  std::map<std::size_t, std::string> done;
  std::set<std::size_t> bad;
  if (!fs::is_regular_file(path)) return done;
  const std::vector<std::string> lines = split(read_file(path, "study points"), '\n');
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const auto comma = line.find(',');
    if (comma == 0 || comma == std::string::npos || line.find_first_not_of("0123456789") != comma ||
        comma > 18)
      continue;
    const std::size_t idx = std::stoull(line.substr(0, comma));
    const std::string row = line.substr(comma + 1);
    if (idx >= total) continue;
    if (split(row, ',').size() != ncols) bad.insert(idx);
    std::string& slot = done[idx];
    if (!slot.empty()) slot += '|';
    slot += row;
  }
  for (const std::size_t idx : bad) done.erase(idx);
  return done;
}

}  // namespace

namespace {

// config.json (refusing a folder that holds points of another configuration) and arch.toml.
void write_configuration(const StudyInfo& info, const StudyConfig& cfg, const Study& study,
                         const RunOptions& o, const std::string& dir) {
  nlohmann::json conf =
      config_json(info, cfg, study.size(), study.columns(), o.shard_index, o.shard_count);
  if (const std::string d = study.input_digest(); !d.empty()) conf["input_digest"] = d;
  const std::string conf_text = conf.dump(2) + "\n";
  const std::string conf_path = dir + "/config.json";
  if (fs::exists(conf_path) && read_file(conf_path, "study configuration") != conf_text &&
      (fs::exists(dir + "/points.partial") || fs::exists(dir + "/points.csv")))
    throw InputError(fmt::format(
        "{} holds points of a different configuration (study parameters, sweep, input images, "
        "arch or shard); choose another --out or remove that folder",
        dir));
  write_atomic(conf_path, conf_text);
  write_atomic(dir + "/arch.toml", to_toml(cfg.arch));
}

// The points of this shard not yet in `done` (counted into s); drops other shards' points.
std::vector<std::size_t> points_to_compute(std::map<std::size_t, std::string>& done,
                                           std::size_t total, const RunOptions& o, RunSummary& s) {
  const auto shard = static_cast<std::size_t>(o.shard_index);
  const auto shards = static_cast<std::size_t>(o.shard_count);
  std::vector<std::size_t> todo;
  for (std::size_t i = shard; i < total; i += shards) {
    ++s.points;
    if (done.count(i))
      ++s.reused;
    else
      todo.push_back(i);
  }
  for (auto it = done.begin(); it != done.end();)  // points of other shards: not ours
    it = it->first % shards == shard ? std::next(it) : done.erase(it);
  return todo;
}

// One point's rows as the payload of its points.partial line.
std::string point_payload(const StudyInfo& info, const PointResult& r, std::size_t idx,
                          std::size_t columns) {
  std::string payload;
  for (std::size_t j = 0; j < r.rows.size(); ++j) {
    if (r.rows[j].size() != columns)
      throw std::logic_error(fmt::format("study {}: point {} row has {} values for {} columns",
                                         info.name, idx, r.rows[j].size(), columns));
    if (j) payload += '|';
    payload += row_text(r.rows[j]);
  }
  return payload;
}

// Computes `todo` in parallel, appending each finished point to points.partial as one line (see
// the top of this file) and to `done`.
// The arena's threads: --threads, at most the cores this process may use (oneTBB refuses more,
// with a warning of its own); 0: all of them. Results do not depend on it.
int worker_threads(const RunOptions& o) {
  const int cores = tbb::this_task_arena::max_concurrency();
  return o.threads > 0 ? std::min(o.threads, cores) : cores;
}

void compute_points(const StudyInfo& info, const Study& study, const std::vector<std::size_t>& todo,
                    const std::string& partial, const RunOptions& o, Progress& progress,
                    std::map<std::size_t, std::string>& done) {
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0)
    throw InputError(fmt::format("cannot write '{}': {}", partial, std::strerror(errno)));
  const std::size_t columns = study.columns().size();
  std::mutex mu;
  std::size_t written = 0;
  auto last_sync = std::chrono::steady_clock::now();
  tbb::task_arena arena(worker_threads(o));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, todo.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          for (std::size_t k = range.begin(); k != range.end(); ++k) {
            const std::size_t idx = todo[k];
            const PointResult r = study.run_point(idx);
            const std::string payload = point_payload(info, r, idx, columns);
            const std::string line = fmt::format("{}|{}\n", idx, payload);
            std::lock_guard lock(mu);
            if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
              throw InputError(fmt::format(
                  "cannot write '{}': {} (the points written so far are kept; run again to resume)",
                  partial, std::strerror(errno)));
            const auto now = std::chrono::steady_clock::now();
            if (now - last_sync > std::chrono::milliseconds(500)) {
              ::fdatasync(fd);
              last_sync = now;
            }
            done.emplace(idx, payload);
            ++written;
            progress.tick(r.accesses);
            if (o.abort_after && written >= o.abort_after) {
              ::fdatasync(fd);
              std::_Exit(75);  // --stop-after: an abrupt stop, as a kill would be
            }
          }
        });
  });
  ::fdatasync(fd);
  ::close(fd);
}

void write_run_info(const RunSummary& s, const RunOptions& o) {
  nlohmann::json run = json::document("study-run-info");
  run["points_computed"] = s.computed;
  run["points_reused"] = s.reused;
  run["accesses"] = s.accesses;
  run["seconds"] = s.seconds;
  run["accesses_per_second"] = s.seconds > 0 ? double(s.accesses) / s.seconds : 0.0;
  run["threads"] = o.threads;
  write_atomic(s.dir + "/run.json", run.dump(2) + "\n");
}

}  // namespace

RunSummary run_study(const StudyInfo& info, const StudyConfig& cfg, const RunOptions& o) {
  const std::unique_ptr<Study> study = make_study(info, cfg);
  RunSummary s;
  s.dir = output_dir(o.out_root, info.name);
  FolderLock lock(s.dir);
  write_configuration(info, cfg, *study, o, s.dir);
  const std::string partial = s.dir + "/points.partial";
  std::map<std::size_t, std::string> done =
      fs::exists(partial)
          ? load_partial(partial, study->size(), study->columns().size())
          : load_finished(s.dir + "/points.csv", study->size(), study->columns().size());
  const std::vector<std::size_t> todo = points_to_compute(done, study->size(), o, s);

  const std::string label =
      o.shard_count > 1 ? fmt::format("{} [shard {}/{}]", info.name, o.shard_index, o.shard_count)
                        : info.name;
  if (o.log)
    *o.log << fmt::format(
        "{}: {} points ({} already done), {} threads{} -> {}\n", label, s.points, s.reused,
        worker_threads(o),
        o.threads > worker_threads(o)
            ? fmt::format(" ({} asked; this machine has {} cores)", o.threads, worker_threads(o))
            : "",
        s.dir);
  Progress progress(o.log, label, todo.size(), stderr_is_terminal());
  if (!todo.empty()) {
    compute_points(info, *study, todo, partial, o, progress, done);
    progress.finish();
  }
  s.computed = todo.size();
  s.accesses = progress.accesses();
  s.seconds = progress.elapsed();

  Output out = build_csv(study->columns(), done);
  out.table.source = s.dir + "/points.csv";
  write_atomic(s.dir + "/points.csv", out.csv);
  write_run_info(s, o);
  if (o.shard_count == 1) {
    finalize(info, study->report(out.table), cfg.arch, out.table, s.dir, o, s);
  } else if (o.log) {
    *o.log << fmt::format(
        "{}: shard done; combine the shard folders with `smemsim study merge DIR...`\n", label);
  }
  // Finished: the folder holds only its results (points.csv has every point; a killed run keeps
  // points.partial and resumes from it).
  std::error_code ec;
  fs::remove(partial, ec);
  return s;
}

}  // namespace smemsim::study

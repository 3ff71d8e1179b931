// The fit by simulation (fit.hpp).
#include "calibrate/fit.hpp"

#include <fmt/format.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate/replicas.hpp"
#include "smemsim/error.hpp"

namespace smemsim::calibrate {
namespace {

std::int64_t key_value(const Arch& a, const std::string& key) {
  std::int64_t out = -1;
  visit_arch(a, [&](std::string_view k, const ArchValue& v) {
    if (k == key)
      if (const auto* i = std::get_if<std::int64_t>(&v)) out = *i;
  });
  if (out < 0) throw InputError(fmt::format("calibrate: arch key '{}' is not an integer key", key));
  return out;
}

// A latency key is at least the pipeline's shortest latency (validate refuses less).
std::pair<std::int64_t, std::int64_t> key_range(const std::string& key, const Arch& a) {
  std::int64_t lo = 1, hi = 100000;
  for (const ArchKeyInfo& k : arch_key_info())
    if (k.name == key && (k.min || k.max)) lo = std::max<std::int64_t>(k.min, 1), hi = k.max;
  if (key.starts_with("sm.lat_")) lo = std::max<std::int64_t>(lo, a.sm.min_latency());
  return {lo, hi};
}

Arch with_key(const Arch& a, const std::string& key, std::int64_t v) {
  Arch b = a;
  apply_override(b, fmt::format("{}={}", key, v));
  return b;
}

// One replica run: a figure's replica on an arch.
struct Job {
  const Replica* replica;
  const Arch* arch;
};

// Runs the jobs on up to `threads` host threads, each job a whole simulation of its own (a replica
// on one SM gets one thread; a whole-GPU replica's SMs share the rest). Each result depends on its
// job alone, so the figures are the same for any thread count.
std::vector<double> run_jobs(const std::vector<Job>& jobs, const Code& code,
                             std::uint32_t threads) {
  std::vector<double> out(jobs.size());
  const std::uint32_t outer =
      std::clamp<std::uint32_t>(threads, 1, std::max<std::size_t>(jobs.size(), 1));
  const std::uint32_t inner = std::max(threads / outer, 1u);
  auto one = [&](std::size_t i) {
    out[i] = run_replica(*jobs[i].replica, *jobs[i].arch, code, inner);
  };
  if (outer == 1) {
    for (std::size_t i = 0; i < jobs.size(); ++i) one(i);
    return out;
  }
  tbb::task_arena arena(static_cast<int>(outer));
  arena.execute([&] { tbb::parallel_for(std::size_t(0), jobs.size(), std::size_t(1), one); });
  return out;
}

}  // namespace

Fit fit(const Measurements& m, const Arch& base, const FitOptions& opt) {
  Fit f;
  // The measured GPU: the base with the file's [gpu.keys].
  const Arch gpu = measured_gpu(m, base);
  f.arch = gpu;
  // Figures per key, in the replicas' order (the order their keys depend on each other).
  std::map<std::string, std::vector<const Figure*>> by_key;
  std::vector<std::string> order;
  for (const Replica& r : replicas()) {
    if (opt.check || !r.missing.empty() || r.key.empty()) continue;
    const std::string key(r.key);
    for (const Figure& fig : m.figures)
      if (fig.benchmark == r.name) {
        if (!by_key.count(key)) order.push_back(key);
        by_key[key].push_back(&fig);
      }
  }
  for (const Figure& fig : m.figures) check_runnable(*find_replica(fig.benchmark), gpu);
  const Code code = load_replicas(opt.ptx_dir);
  std::vector<double> before;
  {
    std::vector<Job> jobs;
    for (const Figure& fig : m.figures) jobs.push_back({find_replica(fig.benchmark), &gpu});
    before = run_jobs(jobs, code, opt.threads);
  }
  for (const std::string& key : order) {
    const std::vector<const Figure*>& figs = by_key[key];
    std::map<std::int64_t, double> cost;  // value -> sum of squared relative errors
    std::map<std::int64_t, std::vector<double>> model;
    // The values not yet run, every figure of each, in one parallel batch (the values a step
    // needs are known before it runs: v and its neighbour; the landing point's neighbours).
    auto run_values = [&](std::vector<std::int64_t> vs) {
      std::erase_if(vs, [&](std::int64_t v) { return cost.count(v) > 0; });
      std::sort(vs.begin(), vs.end());
      vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
      std::vector<Arch> archs;
      archs.reserve(vs.size());
      for (const std::int64_t v : vs) archs.push_back(with_key(f.arch, key, v));
      std::vector<Job> jobs;
      for (const Arch& a : archs)
        for (const Figure* fig : figs) jobs.push_back({find_replica(fig->benchmark), &a});
      const std::vector<double> x = run_jobs(jobs, code, opt.threads);
      for (std::size_t i = 0; i < vs.size(); ++i) {
        double c = 0;
        for (std::size_t j = 0; j < figs.size(); ++j) {
          const double y = x[i * figs.size() + j];
          model[vs[i]].push_back(y);
          c += std::pow((y - figs[j]->value) / figs[j]->value, 2);
        }
        cost[vs[i]] = c;
      }
    };
    auto eval = [&](std::int64_t v) {
      run_values({v});
      return cost.at(v);
    };
    const auto [lo, hi] = key_range(key, f.arch);
    // An optional latency at 0 (another pipe's) starts from the shortest the pipeline allows; the
    // DRAM's rate at 0 (sm.global_bytes_per_cycle x sm.count) from that.
    std::int64_t v = std::max(key_value(f.arch, key), lo);
    if (key == "sm.dram_bytes_per_cycle" && !f.arch.sm.dram_bytes_per_cycle)
      v = std::clamp<std::int64_t>(
          std::int64_t(f.arch.sm.global_bytes_per_cycle) * std::max(f.arch.sm.count, 1u), lo, hi);
    // Newton steps on the figures' mean (each figure moves about one cycle per cycle of its
    // key), then the integers around the landing point.
    for (int step = 0; step < 4; ++step) {
      const std::int64_t w = v + 1 <= hi ? v + 1 : v - 1;
      run_values({v, w});
      double got = 0, got_w = 0, want = 0;
      for (std::size_t i = 0; i < figs.size(); ++i) {
        got += model[v][i];
        got_w += model[w][i];
        want += figs[i]->value;
      }
      const double slope = (got_w - got) / double(w - v);
      if (std::abs(slope) < 1e-9) {
        // Flat here: another limit sets the figures (a unit's interval above a short latency,
        // T4's DFMA on one FP64 lane). Probe where the key would be the figure itself, and the
        // step of one cycle per cycle; keep whichever lowers the error.
        const double n = double(figs.size());
        std::int64_t next = v;
        const double probes[] = {want / n, double(v) + (want - got) / n};
        std::vector<std::int64_t> cs;
        for (const double u : probes)
          cs.push_back(std::clamp<std::int64_t>(std::llround(u), lo, hi));
        run_values(cs);
        for (const std::int64_t c : cs)
          if (eval(c) < eval(next)) next = c;
        if (next == v) break;
        v = next;
        continue;
      }
      const std::int64_t next =
          std::clamp<std::int64_t>(std::llround(double(v) + (want - got) / slope), lo, hi);
      if (next == v) break;
      v = next;
    }
    std::int64_t best = v;
    std::vector<std::int64_t> around;
    for (std::int64_t d = -2; d <= 2; ++d)
      if (v + d >= lo && v + d <= hi) around.push_back(v + d);
    run_values(around);
    for (std::int64_t d = -2; d <= 2; ++d)
      if (v + d >= lo && v + d <= hi && eval(v + d) < eval(best)) best = v + d;
    KeyFit k;
    k.key = key;
    k.before = key_value(f.arch, key);
    k.after = best;
    for (const Figure* fig : figs) k.figures.push_back(fig->id);
    f.arch = with_key(f.arch, key, best);
    f.keys.push_back(k);
  }
  // With no key moved, the model's figure is the one before.
  std::vector<double> after = before;
  if (!f.keys.empty()) {
    std::vector<Job> jobs;
    for (const Figure& fig : m.figures) jobs.push_back({find_replica(fig.benchmark), &f.arch});
    after = run_jobs(jobs, code, opt.threads);
  }
  for (std::size_t i = 0; i < m.figures.size(); ++i) {
    const Figure& fig = m.figures[i];
    const Replica& r = *find_replica(fig.benchmark);
    Row row;
    row.id = fig.id;
    row.benchmark = fig.benchmark;
    row.unit = fig.unit;
    row.measured = fig.value;
    row.before = before[i];
    row.after = after[i];
    if (!r.missing.empty()) {
      row.status = fmt::format("not fitted: {}", r.missing);
    } else if (!r.key.empty() && !opt.check) {
      row.key = std::string(r.key);
      row.status = "fitted";
    } else {
      row.status = "checked";
    }
    for (KeyFit& k : f.keys)
      if (k.key == row.key) k.residual = std::max(k.residual, std::abs(row.error()));
    f.rows.push_back(row);
  }
  return f;
}

std::string residual_table(const Fit& f) {
  std::string s = fmt::format("{:<24} {:<8} {:>10} {:>10} {:>10} {:>8}  {}\n", "figure", "unit",
                              "measured", "before", "after", "error", "status");
  for (const Row& r : f.rows)
    s += fmt::format("{:<24} {:<8} {:>10.2f} {:>10.2f} {:>10.2f} {:>+7.1f}%  {}{}\n", r.id, r.unit,
                     r.measured, r.before, r.after, 100 * r.error(), r.status,
                     r.key.empty() ? "" : " (" + r.key + ")");
  for (const KeyFit& k : f.keys)
    s += fmt::format("{} = {} (was {}): from {}, residual {:.1f} %\n", k.key, k.after, k.before,
                     fmt::join(k.figures, ", "), 100 * k.residual);
  return s;
}

std::string fitted_toml(const Fit& f, const Measurements& m) {
  const std::string source =
      m.repository.empty() ? m.citation
                           : fmt::format("{} {}{}", m.repository, m.source_path,
                                         m.commit.empty() ? "" : " at " + m.commit.substr(0, 12));
  std::string s = fmt::format(
      "# smemsim calibrate: {} ({}) fitted to {}\n# measurement file: {}\n# load over the preset: "
      "smemsim sim ... --arch {} --arch-file THIS\n",
      m.gpu, m.chip.empty() ? "?" : m.chip, source, m.path, f.arch.name);
  // Per table: the measured GPU's own keys ([gpu.keys]) that no figure solved, then the fitted.
  std::map<std::string, std::string> tables;
  auto table_of = [](const std::string& key) { return key.substr(0, key.find('.')); };
  auto name_of = [](const std::string& key) { return key.substr(key.find('.') + 1); };
  for (const GpuKey& g : m.keys) {
    bool fitted = false;
    for (const KeyFit& k : f.keys) fitted |= k.key == g.key;
    if (fitted) continue;
    tables[table_of(g.key)] +=
        fmt::format("# the measured GPU's ([gpu.keys] of {}, line {})\n{} = {}\n", m.path, g.line,
                    name_of(g.key), g.text ? fmt::format("\"{}\"", g.value) : g.value);
  }
  for (const KeyFit& k : f.keys)
    tables[table_of(k.key)] += fmt::format(
        "# calibrated to {} ({}), residual {:.1f} %; it was {}\n{} = {}\n", source,
        fmt::join(k.figures, ", "), 100 * k.residual, k.before, name_of(k.key), k.after);
  for (const auto& [table, body] : tables) s += fmt::format("\n[{}]\n{}", table, body);
  return s;
}

}  // namespace smemsim::calibrate

// GPU-LocalTM study: seed 003 §5 (Figs. 3-5 and the commit ratios of §5.2).
//
// The three benchmarks of 003 §5.1 (kernels/tm_hashtable.cu, tm_kmeans.cu, tm_genetic.cu, run
// through their built-in drivers: seeded inputs, CPU checks) on the cycle-level model of the
// study's arch (default: the `southern-islands` preset, 003 Table 2), over their sizes (buckets,
// centers, solutions: 2..256) and three systems: GPU-LocalTM (the transactional kernel with
// 003 §4.2's costs), perfect GPU-LocalTM (the same without them, 003 §5.1.4) and TX. Serialization
// (the serialized kernel). A point is one (benchmark, size, system) run.
#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

struct TmBench {
  const char* name;     // study name (003's abbreviation)
  const char* builtin;  // builtin driver
  const char* size;     // what the size is
};
constexpr TmBench kTmBenches[] = {
    {"HT", "tm_hashtable", "buckets"},
    {"KM", "tm_kmeans", "centers"},
    {"GA", "tm_genetic", "solutions"},
};
constexpr const char* kSystems[] = {"localtm", "perfect", "serial"};

class LocalTm : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    if (cfg.backend != "cycle")
      throw InputError(
          "study 'localtm' runs whole kernels on the cycle-level model: backend must be cycle");
    std::vector<std::int64_t> sizes = cfg.integers("sizes");
    for (std::int64_t s : sizes)
      if (s < 2 || s > 256)
        throw InputError(fmt::format("study parameter 'sizes': {} is not in 2..256", s));
    std::vector<const char*> systems;
    for (const std::string& s : cfg.strings("systems")) {
      const char* found = nullptr;
      for (const char* k : kSystems)
        if (s == k) found = k;
      if (!found)
        throw InputError(fmt::format(
            "study parameter 'systems': unknown '{}' (known: localtm, perfect, serial)", s));
      systems.push_back(found);
    }
    points_.clear();
    for (const std::string& name : cfg.strings("benchmarks")) {
      const TmBench* b = nullptr;
      for (const TmBench& k : kTmBenches)
        if (name == k.name) b = &k;
      if (!b)
        throw InputError(
            fmt::format("study parameter 'benchmarks': unknown '{}' (known: HT, KM, GA)", name));
      for (std::int64_t s : sizes)
        for (const char* sys : systems) points_.push_back({b, std::uint32_t(s), sys});
    }
    ptx_dir_ = suite_ptx_dir();
  }

  std::vector<std::string> columns() const override {
    return {"benchmark",      "size",
            "system",         "cycles",
            "transactions",   "attempts",
            "wf_serial",      "wg_serial",
            "lane_attempts",  "lane_commits",
            "lane_aborts",    "accesses",
            "conflicts_true", "conflicts_false",
            "non_tx_cycles",  "tx_code_cycles",
            "mem_overhead",   "begin_commit_overhead"};
  }
  std::size_t size() const override { return points_.size(); }

  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    exec::BuiltinOptions o;
    o.seed = cfg_.seed;
    o.variant = std::string_view(p.system) == "serial" ? "serial" : "tx";
    if (std::string_view(p.b->builtin) == "tm_hashtable") o.buckets = p.size;
    if (std::string_view(p.b->builtin) == "tm_kmeans") o.k = p.size;
    if (std::string_view(p.b->builtin) == "tm_genetic") o.size = p.size;
    exec::Workload w = exec::make_builtin(p.b->builtin, o, ptx_dir_);
    Arch arch = cfg_.arch;
    if (std::string_view(p.system) == "perfect") arch.tm.timing = "perfect";
    validate(arch);
    const ptx::Kernel& k = exec::find_kernel(w.module, w.kernel);
    timing::GpuSim sim(w.module, k, arch, w.launch, w.memory, {});
    const timing::TimingStats s = sim.run();
    if (w.check) {
      const std::string bad = w.check(w.memory);
      if (!bad.empty())
        throw std::runtime_error(fmt::format("{}{} ({}) differs from its CPU reference: {}",
                                             p.b->name, p.size, p.system, bad));
    }
    const tm::TmStats& t = s.tm_counts;
    auto i64 = [](std::uint64_t v) { return Value(static_cast<std::int64_t>(v)); };
    Row row{Value(std::string(p.b->name)),
            Value(std::int64_t(p.size)),
            Value(std::string(p.system)),
            i64(s.cycles),
            i64(t.transactions),
            i64(t.attempts),
            i64(t.wf_serial_attempts),
            i64(t.wg_serial_attempts),
            i64(t.lane_attempts),
            i64(t.lane_commits),
            i64(t.lane_aborts),
            i64(t.accesses),
            i64(t.conflicts_true),
            i64(t.conflicts_false),
            i64(s.tm.non_tx),
            i64(s.tm.tx_code()),
            i64(s.tm.mem_overhead),
            i64(s.tm.begin_commit_overhead)};
    return {{row}, s.units.smem_accesses};
  }

  Report report(const Table& t) const override;

 private:
  struct Point {
    const TmBench* b;
    std::uint32_t size;
    const char* system;
  };
  StudyConfig cfg_;
  std::vector<Point> points_;
  std::string ptx_dir_;
};

}  // namespace

Report localtm_report(const Table& t);  // localtm_report.cpp

Report LocalTm::report(const Table& t) const {
  return localtm_report(t);
}

StudyInfo localtm_info() {
  return {"localtm",
          "seed 003's GPU-LocalTM benchmarks (Hash Table, K-Means, Genetic Algorithm) over 2..256 "
          "buckets / centers / solutions on GPU-LocalTM, perfect GPU-LocalTM and TX. "
          "Serialization: speed-up, execution breakdown, serialized transactions, commit ratio "
          "and false conflicts (Figs. 3-5)",
          "seed 003 §5, Figs. 3-5",
          {{"benchmarks", "HT,KM,GA", "HT,KM,GA", "benchmarks (003 §5.1)"},
           {"sizes", "2,4,8,16,32,64,128,256", "2,16,256",
            "buckets (HT), centers (KM), solutions (GA) (003: 2..256, doubling)"},
           {"systems", "localtm,perfect,serial", "localtm,perfect,serial",
            "localtm (003 §4.2's costs), perfect (none, 003 §5.1.4), serial (TX. Serialization)"},
           {"seed", "1", "1", "input seed"},
           {"backend", "cycle", "cycle", "cycle (this study runs whole kernels only)"}},
          [] { return std::make_unique<LocalTm>(); },
          true,
          "southern-islands"};
}

}  // namespace smemsim::study

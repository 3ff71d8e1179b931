// Elastic pipeline study: seed 004 §5 (Table 4, Figs. 8-11).
//
// Eight shared-memory benchmarks of the kernel suite (kernels/aes.cu, reduction.cu, transpose.cu,
// dct8x8.cu) run through their built-in drivers (seeded inputs, CPU reference checked) on the
// cycle-level model of the study's arch (default: the `cf11` preset, 004 Table 3). Each runs in
// its conflicting layout ("unoptimized": 004 §5 undid the CUDA SDK's padding; reduction's
// interleaved addressing; AES's data-dependent T-box gathers, which no layout removes) under four
// SM configurations — baseline (unified pipeline, round robin), elastic (pure: round robin),
// bank-aware (elastic + bank-conflict-aware scheduling, 004 §4) and bank-aware-fill (footnote 10)
// — and, where the SDK ships one, in its optimized layout on baseline and bank-aware (Figs. 10 and
// 11). A point is one (benchmark, layout, configuration) run.
#include <algorithm>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

// 004 Table 4's row for a benchmark, and how our suite runs it.
struct ElasticBench {
  const char* name;
  const char* builtin;
  const char* unopt;                    // --variant of the conflicting layout
  const char* opt;                      // ... of the optimized one ("" when none exists)
  const char* size;                     // study parameter giving its size
  double intensity, degree, theoretic;  // 004 Table 4
};

constexpr ElasticBench kElasticBenches[] = {
    {"aes_encrypt", "aes", "encrypt", "", "aes_blocks", 0.361, 1.54, 1.19},
    {"aes_decrypt", "aes", "decrypt", "", "aes_blocks", 0.359, 1.53, 1.19},
    {"reduction", "reduction", "interleaved", "sequential", "reduction_size", 0.040, 3.07, 1.09},
    {"transpose", "transpose", "naive", "padded", "transpose_size", 0.037, 4.50, 1.13},
    {"dct", "dct8x8", "dct_nopad", "dct", "dct_size", 0.216, 3.33, 1.50},
    {"idct", "dct8x8", "idct_nopad", "idct", "dct_size", 0.212, 3.33, 1.50},
    {"dct_short", "dct8x8", "dct_short_nopad", "dct_short", "dct_size", 0.103, 2.75, 1.18},
    {"idct_short", "dct8x8", "idct_short_nopad", "idct_short", "dct_size", 0.103, 2.75, 1.18},
};

// 004 Table 3's two GPUs and the two variants of §5.2.
struct ElasticConfig {
  const char* name;
  const char* pipeline;
  const char* scheduler;
};
constexpr ElasticConfig kConfigs[] = {
    {"baseline", "unified", "lrr"},
    {"elastic", "elastic", "lrr"},
    {"bank-aware", "elastic", "bank-aware"},
    {"bank-aware-fill", "elastic", "bank-aware-fill"},
};

const ElasticBench& bench(std::string_view name) {
  for (const ElasticBench& b : kElasticBenches)
    if (name == b.name) return b;
  std::string known;
  for (const ElasticBench& b : kElasticBenches)
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  throw InputError(
      fmt::format("study parameter 'benchmarks': unknown '{}' (known: {})", name, known));
}

// Counts the shared-memory thread-instructions (active lanes of each WarpAccess).
class SharedCounter final : public exec::AccessConsumer {
 public:
  void on_access(const WarpAccess& wa) override {
    lanes += std::uint64_t(std::popcount(wa.active));
  }
  std::uint64_t lanes = 0;
};

class Elastic : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    if (cfg.backend != "cycle")
      throw InputError(
          "study 'elastic' runs whole kernels on the cycle-level model: backend must be cycle");
    for (const char* key : {"aes_blocks", "reduction_size", "transpose_size", "dct_size"}) {
      const std::int64_t v = cfg.integer(key);
      if (v < 1 || v > (1 << 24))
        throw InputError(fmt::format("study parameter '{}': {} is not in 1..16777216", key, v));
      size_[key] = static_cast<std::uint32_t>(v);
    }
    std::vector<const ElasticConfig*> configs;
    for (const std::string& c : cfg.strings("configs")) {
      const ElasticConfig* found = nullptr;
      for (const ElasticConfig& k : kConfigs)
        if (c == k.name) found = &k;
      if (!found)
        throw InputError(fmt::format(
            "study parameter 'configs': unknown '{}' (known: baseline, elastic, bank-aware, "
            "bank-aware-fill)",
            c));
      configs.push_back(found);
    }
    points_.clear();
    benches_.clear();
    for (const std::string& name : cfg.strings("benchmarks")) {
      const ElasticBench& b = bench(name);
      benches_.push_back(&b);
      for (const ElasticConfig* c : configs) points_.push_back({&b, false, c});
      if (*b.opt)
        for (const ElasticConfig* c : configs)
          if (std::string_view(c->name) == "baseline" || std::string_view(c->name) == "bank-aware")
            points_.push_back({&b, true, c});
    }
    ptx_dir_ = suite_ptx_dir();
  }

  std::vector<std::string> columns() const override {
    return {"benchmark",    "layout",        "config",        "cycles",       "warp_instr",
            "thread_instr", "shared_thread", "smem_accesses", "smem_passes",  "stall_schedule",
            "stall_bank",   "stall_other",   "safe_distance", "pred_correct", "pred_low",
            "pred_high",    "ctas_per_sm",   "grid",          "block"};
  }
  std::size_t size() const override { return points_.size(); }

  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    exec::BuiltinOptions o;
    o.variant = p.opt ? p.b->opt : p.b->unopt;
    o.seed = cfg_.seed;
    const std::uint32_t n = size_.at(p.b->size);
    if (std::string_view(p.b->builtin) == "aes" || std::string_view(p.b->builtin) == "reduction")
      o.size = n;
    else
      o.width = o.height = n;
    exec::Workload w = exec::make_builtin(p.b->builtin, o, ptx_dir_);
    Arch arch = cfg_.arch;
    arch.sm.pipeline = p.c->pipeline;
    arch.sm.scheduler = p.c->scheduler;
    validate(arch);
    SharedCounter shared;
    timing::TimingOptions to;
    to.consumer = &shared;
    const ptx::Kernel& k = exec::find_kernel(w.module, w.kernel);
    timing::GpuSim sim(w.module, k, arch, w.launch, w.memory, to);
    const timing::TimingStats s = sim.run();
    if (w.check) {
      const std::string bad = w.check(w.memory);
      if (!bad.empty())
        throw std::runtime_error(fmt::format("{} ({}, {}) differs from its CPU reference: {}",
                                             p.b->name, o.variant, p.c->name, bad));
    }
    const timing::StallGroups g = timing::group_stalls(s.issue);
    const exec::Dim3 gr = w.launch.grid, bl = w.launch.block;
    const std::uint64_t threads = bl.count();
    const std::uint64_t warps = (threads + arch.warp_size - 1) / arch.warp_size;
    std::uint64_t ctas = std::min<std::uint64_t>(arch.sm.max_ctas, arch.sm.max_threads / threads);
    ctas = std::min<std::uint64_t>(ctas, arch.sm.max_warps / warps);
    if (const std::uint32_t sh = sim.shared_layout().total_bytes)
      ctas = std::min<std::uint64_t>(ctas, arch.memory_bytes / sh);
    auto i64 = [](std::uint64_t v) { return Value(static_cast<std::int64_t>(v)); };
    Row row{Value(std::string(p.b->name)),
            Value(std::string(p.opt ? "optimized" : "conflicting")),
            Value(std::string(p.c->name)),
            i64(s.cycles),
            i64(s.warp_instructions),
            i64(s.thread_instructions),
            i64(shared.lanes),
            i64(s.units.smem_accesses),
            i64(s.units.smem_passes),
            i64(g.scheduling),
            i64(g.bank_conflict),
            i64(g.other),
            i64(s.issue[timing::Stall::SafeDistance]),
            i64(s.units.predictions_correct),
            i64(s.units.predictions_low),
            i64(s.units.predictions_high),
            i64(ctas),
            Value(fmt::format("{}x{}x{}", gr.x, gr.y, gr.z)),
            Value(fmt::format("{}x{}x{}", bl.x, bl.y, bl.z))};
    return {{row}, s.units.smem_accesses};
  }

  Report report(const Table& t) const override;

 private:
  struct Point {
    const ElasticBench* b;
    bool opt;
    const ElasticConfig* c;
  };
  StudyConfig cfg_;
  std::map<std::string, std::uint32_t> size_;
  std::vector<Point> points_;
  std::vector<const ElasticBench*> benches_;
  std::string ptx_dir_;
};

}  // namespace

// report() is in elastic_report.cpp.
std::unique_ptr<Study> make_elastic_study();
Report elastic_report(const Table& t, const std::vector<std::string>& benches);

Report Elastic::report(const Table& t) const {
  std::vector<std::string> names;
  for (const ElasticBench* b : benches_) names.emplace_back(b->name);
  return elastic_report(t, names);
}

std::unique_ptr<Study> make_elastic_study() {
  return std::make_unique<Elastic>();
}

// Table 4's published columns for the report.
bool elastic_paper_row(const std::string& name, double& intensity, double& degree,
                       double& theoretic) {
  for (const ElasticBench& b : kElasticBenches)
    if (name == b.name) {
      intensity = b.intensity;
      degree = b.degree;
      theoretic = b.theoretic;
      return true;
    }
  return false;
}

StudyInfo elastic_info() {
  return {
      "elastic",
      "seed 004's benchmarks (AES encrypt/decrypt, reduction, transpose, DCT/IDCT, "
      "DCT/IDCT_short) in conflicting and optimized layouts on the baseline pipeline, the elastic "
      "pipeline, and the elastic pipeline with bank-conflict-aware scheduling (and footnote 10's "
      "variant): Table 4's characteristics, Fig. 8's stall breakdown, Figs. 9-11's performance",
      "seed 004 §5, Table 4, Figs. 8-11",
      {{"benchmarks", "aes_encrypt,aes_decrypt,reduction,transpose,dct,idct,dct_short,idct_short",
        "aes_encrypt,reduction,transpose,dct_short", "benchmarks (004 Table 4's rows)"},
       {"configs", "baseline,elastic,bank-aware,bank-aware-fill",
        "baseline,elastic,bank-aware,bank-aware-fill",
        "SM configurations: baseline (unified, lrr), elastic (elastic, lrr), bank-aware, "
        "bank-aware-fill"},
       {"aes_blocks", "16448", "1024", "AES: 16-byte blocks (64 per CTA; 004 Table 4: 257 CTAs)"},
       {"reduction_size", "4194304", "65536",
        "reduction: ints (256 per CTA; 004 Table 4: 16,384 CTAs = 4,194,304)"},
       {"transpose_size", "256", "128", "transpose: matrix side (004 Table 4: 256)"},
       {"dct_size", "512", "128", "DCT kernels: image side (004 Table 4: 512)"},
       {"seed", "1", "1", "input seed"},
       {"backend", "cycle", "cycle", "cycle (this study runs whole kernels only)"}},
      &make_elastic_study,
      true,
      "cf11"};
}

}  // namespace smemsim::study

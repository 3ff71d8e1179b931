// k-means centroid-update study: seed 001 §4.1 (Fig. 8).
//
// Data: `objects` (212,340 as in 001 §4.1.1) seeded points of d = 2, 4, 5 components drawn around
// `blobs` cluster centres (uniform in [0,1)^d, offsets 0.08 * (u1 + u2 + u3 - 1.5)), in random
// order (001 §4.1.1: "input data show a low spatial correlation"). k initial centroids are k
// distinct objects chosen by the seeded RNG; the nearest-centroid assignment (squared Euclidean
// distance, ties to the lowest index) is computed for real, once per (d, k). Voting: thread ThId =
// object % N (N = 1024, "16 blocks of 1,024 threads") adds 1 to the cluster counter and each
// component to its centroid component: d + 1 warp atomic accesses per warp of 32 consecutive
// objects. Layout (001 §4.1.1): all R copies of the counter vote space (k words each), then all R
// copies of component 0, ...; copy by cyclic (001 Eq. 1) or block (Eq. 2) mapping. The footprint (d
// + 1) * R * k words must fit the shared memory (128 clusters, d = 2: R <= 32). With backend =
// cycle the `cycles` column is the whole-kernel cycles of kernels/kmeans.cu's kmeans_update (the
// same objects, assignment, layout and mapping; `blocks` blocks of threads_per_block threads) on
// the cycle-level GPU model.
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "random_text.hpp"
#include "smemsim/error.hpp"
#include "studies.hpp"
#include "util/rng.hpp"

namespace smemsim::study {
namespace {

struct Assignment {
  std::once_flag once;
  std::vector<std::uint16_t> cluster;
  std::vector<float> objects;  // n x d, for the kernel runs
};

class KMeans : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    objects_ = cfg.integer("objects");
    blobs_ = cfg.integer("blobs");
    tpb_ = static_cast<std::uint32_t>(cfg.integer("threads_per_block"));
    if (objects_ < 1 || objects_ > 100'000'000)
      throw InputError("study parameter 'objects' must be in 1..100000000");
    if (blobs_ < 1 || blobs_ > 100000)
      throw InputError("study parameter 'blobs' must be in 1..100000");
    if (tpb_ < cfg.arch.warp_size || tpb_ % cfg.arch.warp_size)
      throw InputError("study parameter 'threads_per_block' must be a multiple of the warp size");
    dims_ = cfg.integers("dims");
    ks_ = cfg.integers("k");
    for (auto d : dims_)
      if (d < 1 || d > 16)
        throw InputError(fmt::format("study parameter 'dims': {} not in 1..16", d));
    for (auto k : ks_)
      if (k < 1 || k > 65535 || k > objects_)
        throw InputError(fmt::format("study parameter 'k': {} not in 1..min(65535, objects)", k));
    std::vector<Mapping> maps;
    for (const auto& m : cfg.strings("mappings")) {
      if (m == "cyclic")
        maps.push_back(Mapping::Cyclic);
      else if (m == "block")
        maps.push_back(Mapping::Block);
      else
        throw InputError(
            fmt::format("study parameter 'mappings': unknown '{}' (cyclic, block)", m));
    }
    kernel_ = cfg.backend == "cycle";
    if (kernel_) {
      module_ = load_suite_module("kmeans");
      blocks_ = blocks_param(cfg);
    }
    points_.clear();
    cache_.clear();
    for (auto d : dims_)
      for (auto k : ks_) {
        cache_[{d, k}] = std::make_shared<Assignment>();
        const auto rs =
            replication_list(cfg, static_cast<std::uint64_t>((d + 1) * k), 0, Layout::Replication,
                             32, fmt::format("{} clusters x {} vote spaces (d = {})", k, d + 1, d));
        for (Mapping m : maps)
          for (auto r : rs) points_.push_back({d, k, r, m});
      }
  }
  std::vector<std::string> columns() const override {
    return {"dims", "k", "r", "mapping", "warps", "cycles", "lock_degree_mean", "bank_degree_mean"};
  }
  std::size_t size() const override { return points_.size(); }

  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    const std::vector<std::uint16_t>& assign = assignment(p.d, p.k);
    auto be = make_backend("analytic", cfg_.arch);
    const std::uint32_t lanes = cfg_.arch.warp_size;
    const auto k = static_cast<std::uint32_t>(p.k);
    std::int64_t cycles = 0, lock = 0, bank = 0, warps = 0, accesses = 0;
    const auto n = static_cast<std::size_t>(objects_);
    // Each warp of objects updates the counter, then each component (sums: the order of the
    // updates does not change the totals).
    for (std::int64_t s = 0; s <= p.d; ++s) {
      const std::uint32_t space_base = static_cast<std::uint32_t>(s) * p.r * k;
      const auto object_word = [&](std::size_t obj) {
        const auto tid = static_cast<std::uint32_t>(obj % tpb_);
        return space_base + copy_of(p.map, tid, p.r, tpb_) * k + assign[obj];
      };
      for_each_vote_warp(n, lanes, object_word, [&](const WarpAccess& wa) {
        const AccessResult res = be->evaluate(wa);
        cycles += res.latency;
        lock += res.degrees.lock;
        bank += res.degrees.bank;
        ++accesses;
      });
    }
    warps = static_cast<std::int64_t>((n + lanes - 1) / lanes);
    if (kernel_) cycles = run_kernel(p, assign);
    Row row{Value(p.d),
            Value(p.k),
            Value(std::int64_t{p.r}),
            Value(std::string(mapping_name(p.map))),
            Value(warps),
            Value(cycles),
            Value(double(lock) / double(accesses)),
            Value(double(bank) / double(accesses))};
    return {{row}, static_cast<std::uint64_t>(accesses)};
  }
  Report report(const Table& t) const override;

 private:
  struct Point {
    std::int64_t d, k;
    std::uint32_t r;
    Mapping map;
  };
  const std::vector<std::uint16_t>& assignment(std::int64_t d, std::int64_t k) const {
    Assignment& a = *cache_.at({d, k});
    std::call_once(a.once,
                   [&] { a.cluster = compute_assignment(d, k, kernel_ ? &a.objects : nullptr); });
    return a.cluster;
  }
  // Whole-kernel cycles of kmeans_update for one point; the counters are checked (the float sums
  // depend on the order of the atomics).
  std::int64_t run_kernel(const Point& p, const std::vector<std::uint16_t>& assign) const {
    const std::vector<float>& x = cache_.at({p.d, p.k})->objects;
    const auto n = assign.size();
    exec::GlobalMemory mem;
    std::vector<std::int32_t> member(assign.begin(), assign.end());
    const std::uint32_t ob =
        add_buffer(mem, "objects", exec::ElemType::F32, x.data(), x.size() * 4);
    const std::uint32_t mb =
        add_buffer(mem, "membership", exec::ElemType::S32, member.data(), n * 4);
    const std::uint32_t cb =
        add_buffer(mem, "counts", exec::ElemType::U32, nullptr, std::size_t(p.k) * 4);
    const std::uint32_t sb =
        add_buffer(mem, "sums", exec::ElemType::F32, nullptr, std::size_t(p.k * p.d) * 4);
    exec::Launch l;
    l.grid = {blocks_, 1, 1};
    l.block = {tpb_, 1, 1};
    l.dynamic_shared_bytes = static_cast<std::uint32_t>(4 * p.r * p.k * (1 + p.d));
    l.args = {exec::Arg::buf(ob),
              exec::Arg::buf(mb),
              exec::Arg::integer(std::int64_t(n)),
              exec::Arg::integer(p.d),
              exec::Arg::integer(p.k),
              exec::Arg::integer(p.r),
              exec::Arg::integer(p.map == Mapping::Block),
              exec::Arg::buf(cb),
              exec::Arg::buf(sb)};
    const std::uint64_t cycles = kernel_cycles(module_, "kmeans_update", cfg_.arch, l, mem);
    std::vector<std::uint32_t> want(static_cast<std::size_t>(p.k), 0);
    for (const auto c : assign) ++want[c];
    if (std::memcmp(mem.get("counts").bytes.data(), want.data(), want.size() * 4) != 0)
      throw std::runtime_error(
          fmt::format("kmeans_update gave wrong counts (d = {}, k = {}, R = {})", p.d, p.k, p.r));
    return static_cast<std::int64_t>(cycles);
  }
  std::vector<std::uint16_t> compute_assignment(std::int64_t d, std::int64_t k,
                                                std::vector<float>* objects) const {
    const auto n = static_cast<std::size_t>(objects_);
    const auto dim = static_cast<std::size_t>(d);
    // The data set of d components: the same for every k (stream derived from the seed and d).
    Rng rng(Rng::derive(cfg_.seed, static_cast<std::uint64_t>(100 + d)));
    std::vector<double> centre(static_cast<std::size_t>(blobs_) * dim);
    for (auto& c : centre) c = rng.uniform();
    std::vector<double> x(n * dim);
    for (std::size_t o = 0; o < n; ++o) {
      const std::size_t b = rng.below(static_cast<std::uint64_t>(blobs_));
      for (std::size_t j = 0; j < dim; ++j)
        x[o * dim + j] =
            centre[b * dim + j] + 0.08 * (rng.uniform() + rng.uniform() + rng.uniform() - 1.5);
    }
    // k distinct initial centroids (partial Fisher-Yates over object indices).
    Rng pick(Rng::derive(cfg_.seed, static_cast<std::uint64_t>(10000 + d * 100000 + k)));
    std::vector<std::size_t> idx(n);
    for (std::size_t o = 0; o < n; ++o) idx[o] = o;
    std::vector<double> c(static_cast<std::size_t>(k) * dim);
    for (std::size_t j = 0; j < static_cast<std::size_t>(k); ++j) {
      const std::size_t s = j + pick.below(n - j);
      std::swap(idx[j], idx[s]);
      for (std::size_t q = 0; q < dim; ++q) c[j * dim + q] = x[idx[j] * dim + q];
    }
    std::vector<std::uint16_t> out(n);
    for (std::size_t o = 0; o < n; ++o) {
      double best = 0;
      std::size_t arg = 0;
      for (std::size_t j = 0; j < static_cast<std::size_t>(k); ++j) {
        double dist = 0;
        for (std::size_t q = 0; q < dim; ++q) {
          const double diff = x[o * dim + q] - c[j * dim + q];
          dist += diff * diff;
        }
        if (j == 0 || dist < best) best = dist, arg = j;
      }
      out[o] = static_cast<std::uint16_t>(arg);
    }
    if (objects) objects->assign(x.begin(), x.end());
    return out;
  }

  StudyConfig cfg_;
  bool kernel_ = false;  // backend = cycle
  ptx::Module module_;
  std::uint32_t blocks_ = 16;
  std::int64_t objects_ = 0, blobs_ = 0;
  std::uint32_t tpb_ = 1024;
  std::vector<std::int64_t> dims_, ks_;
  std::vector<Point> points_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::shared_ptr<Assignment>> cache_;
};

struct KMeansBest {
  std::string mapping;
  std::int64_t d = 0, k = 0;
  int r = 0;
  double cycles = 0, r1_cycles = 0;
};

// What this run found, in 001 §4.1.1's terms: cyclic mapping's best R per k beside the largest R
// whose k-counter copies fit in the arch's locks (copies farther apart alias the same locks, so
// they add bank conflicts without removing lock conflicts), and block mapping's gain over R = 1.
std::string best_r_text(const std::vector<KMeansBest>& bests, const Arch& arch, std::uint32_t tpb) {
  std::vector<std::string> ks, found, predicted;
  std::size_t match = 0, cyclic = 0;
  double block_gain = 0;
  std::size_t block = 0;
  for (const KMeansBest& b : bests) {
    if (b.mapping == "block") {
      ++block;
      if (b.cycles > 0) block_gain = std::max(block_gain, b.r1_cycles / b.cycles - 1);
      continue;
    }
    ++cyclic;
    const int fit = arch.locks ? int(std::max<std::int64_t>(1, arch.locks / b.k)) : 0;
    match += fit == b.r;
    if (b.d == bests.front().d) {
      ks.push_back(fmt::format("{}", b.k));
      found.push_back(fmt::format("{}", b.r));
      predicted.push_back(fmt::format("{}", fit));
    }
  }
  std::string s = "As this run measured it: ";
  if (cyclic) {
    s += fmt::format("with cyclic mapping the best R is {} for k = {} (d = {})",
                     fmt::join(found, ", "), fmt::join(ks, ", "), bests.front().d);
    if (arch.locks)
      s += fmt::format(
          "; the largest R whose copies fit in the arch's {} locks, max(1, {} / k), is {}, the "
          "best R at {} of the {} (d, k) pairs",
          grouped(arch.locks), grouped(arch.locks), fmt::join(predicted, ", "), match, cyclic);
    else
      s += " (the arch has a lock per word, so no lock count bounds R)";
    s += ".";
  }
  if (block)
    s += fmt::format(
        " With block mapping ({} threads a block) the best R is at most {:.1f} % faster than R = "
        "1 over the {} (d, k) pairs.",
        tpb, 100 * block_gain, block);
  return s + "\n";
}

Report KMeans::report(const Table& t) const {
  Report rep;
  rep.markdown = kernel_ ? fmt::format(
                               "{} objects per data set ({} blobs); backend `cycle`: whole-kernel "
                               "cycles of kmeans_update on the cycle-level model, {} blocks of {} "
                               "threads.\n\n",
                               objects_, blobs_, blocks_, tpb_)
                         : fmt::format(
                               "{} objects per data set ({} blobs), thread blocks of {}; modeled "
                               "shared-memory atomic cycles of one centroid update (sum over "
                               "warps of the counter and component votes).\n\n",
                               objects_, blobs_, tpb_);
  std::vector<KMeansBest> bests;
  for (const std::string mapping : {"cyclic", "block"}) {
    std::set<int> rset;
    for (std::size_t q = 0; q < t.rows.size(); ++q)
      if (t.str(q, "mapping") == mapping) rset.insert(int(t.num(q, "r")));
    if (rset.empty()) continue;
    std::vector<std::string> header{"d", "k"};
    for (int r : rset) header.push_back(fmt::format("R={}", r));
    header.push_back("best R");
    std::vector<std::vector<std::string>> rows;
    for (auto d : dims_) {
      Figure f{
          fmt::format("fig8_kmeans_{}_d{}", mapping, d),
          fmt::format("k-means, {}-component objects, {} mapping (seed 001 Fig. 8)", d, mapping),
          "replication factor R",
          kernel_ ? "kernel cycles" : "modeled atomic cycles (sum over warps)"};
      f.logx = true;
      for (auto k : ks_) {
        std::vector<std::string> row{fmt::format("{}", d), fmt::format("{}", k)};
        Series s{fmt::format("{} clusters", k)};
        double best = -1, r1 = 0;
        int best_r = 0;
        for (int r : rset) {
          bool found = false;
          for (std::size_t q = 0; q < t.rows.size(); ++q)
            if (t.str(q, "mapping") == mapping && t.num(q, "dims") == double(d) &&
                t.num(q, "k") == double(k) && int(t.num(q, "r")) == r) {
              const double c = t.num(q, "cycles");
              row.push_back(fmt::format("{:.4g}", c));
              s.x.push_back(r);
              s.y.push_back(c);
              if (best < 0 || c < best) best = c, best_r = r;
              if (r == 1) r1 = c;
              found = true;
            }
          if (!found) row.push_back("-");
        }
        row.push_back(fmt::format("{}", best_r));
        bests.push_back({mapping, d, k, best_r, best, r1});
        rep.summary["best_r"].push_back(
            {{"mapping", mapping}, {"dims", d}, {"k", k}, {"r", best_r}});
        rows.push_back(std::move(row));
        f.series.push_back(std::move(s));
      }
      rep.figures.push_back(std::move(f));
    }
    rep.markdown += fmt::format("### {} mapping: cycles per replication factor\n\n", mapping);
    rep.markdown += md_table(header, rows) + "\n";
  }
  rep.markdown +=
      "Seed 001 §4.1.1 found that with cyclic mapping the best replication factor keeps each vote "
      "space's copies within 1,024 words (its 1,024 locks): R = 8, 4, 2 for k = 128, 256, 512; "
      "and that block mapping with 1,024-thread blocks and R <= 32 puts a whole warp on one copy, "
      "so it never removes intra-warp conflicts and stays at the R = 1 cost.\n\n";
  rep.markdown += best_r_text(bests, cfg_.arch, tpb_);
  return rep;
}

}  // namespace

StudyInfo kmeans_info() {
  return {
      "kmeans",
      "k-means centroid update: seeded clustered objects of 2, 4, 5 components, k = 128, 256, "
      "512, nearest-centroid assignment computed; counter and component vote spaces replicated "
      "R times (copies consecutive), cyclic and block mapping",
      "seed 001 §4.1, Fig. 8",
      {{"objects", "212340", "20000", "objects per data set (001 §4.1.1: 212,340)"},
       {"dims", "2,4,5", "2,4,5", "components per object"},
       {"k", "128,256,512", "128,256,512", "clusters"},
       {"r", "auto", "auto", "replication factors; auto = 1,2,4..32 that fit"},
       {"mappings", "cyclic,block", "cyclic", "copy mappings (001 Eq. 1-2)"},
       {"blobs", "32", "32", "true clusters in the generated data"},
       {"threads_per_block", "1024", "1024", "N of 001 Eq. 2 (ThId = object % N)"},
       {"seed", "1", "1", "study seed (data, initial centroids)"},
       {"backend", "analytic", "analytic",
        "analytic (modeled atomic time per access) or cycle (whole kernels on the cycle model)"},
       {"blocks", "16", "16", "thread blocks of the kernel (backend=cycle; 001 §4.1: 16)"}},
      [] { return std::make_unique<KMeans>(); },
      true};
}

}  // namespace smemsim::study

// Random-pattern studies of seed 001 §3: Fig. 5 (random-patterns), Fig. 6 (random-replication) and
// Fig. 7 (random-mapping). One warp (32 lanes, thread ids 0..31, so N = 32 in Eq. 2) performs
// atomic additions on uniformly random words of a vote space of S words (001 §3: "we can assume a
// uniform data distribution"). Every point of one vote-space size draws the SAME patterns (common
// random numbers, like the paper's "same 1,000,000 random warp access patterns"): the pattern
// stream of size index s is Rng::derive(seed, s).
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "random_text.hpp"
#include "smemsim/error.hpp"
#include "studies.hpp"
#include "util/rng.hpp"
#include "voting.hpp"

namespace smemsim::study {
namespace {

std::vector<std::int64_t> checked_sizes(const StudyConfig& cfg) {
  auto sizes = cfg.integers("sizes");
  for (auto s : sizes)
    if (s < 1 || s > cfg.arch.memory_words())
      throw InputError(
          fmt::format("study parameter 'sizes': {} words does not fit the {} words "
                      "of shared memory",
                      s, cfg.arch.memory_words()));
  return sizes;
}

std::int64_t checked_patterns(const StudyConfig& cfg) {
  const auto n = cfg.integer("patterns");
  if (n < 1 || n > 1'000'000'000)
    throw InputError("study parameter 'patterns' must be in 1..1000000000");
  return n;
}

// Accumulates the decomposition of Fig. 5: latency = t_base + lock/position penalty + bank penalty,
// the lock penalty being (lock degree - 1) * t_position (001 Algorithm 1: one extra round per lock
// level) and the bank penalty the rest ((degree - 1) * t_bank per read and write, 001 §2.1.4).
struct Acc {
  std::int64_t latency = 0, lock = 0, bank = 0, position = 0, n = 0;
  void add(const AccessResult& r) {
    latency += r.latency;
    lock += r.degrees.lock;
    bank += r.degrees.bank;
    position += r.degrees.position;
    ++n;
  }
  double mean(std::int64_t v) const { return n ? double(v) / double(n) : 0.0; }
  void put(Row& row, const Timing& t) const {
    const double lat = mean(latency);
    const double lock_pen = (mean(lock) - 1.0) * double(t.t_position);
    for (const double v :
         {lat, lock_pen, lat - double(t.t_base) - lock_pen, mean(lock), mean(bank), mean(position)})
      row.emplace_back(v);
  }
};
const std::vector<std::string> kAccCols{"latency_cycles_mean", "lock_penalty",
                                        "bank_penalty",        "lock_degree_mean",
                                        "bank_degree_mean",    "position_degree_mean"};

WarpAccess random_warp(Rng& rng, std::uint32_t lanes, std::uint32_t space) {
  WarpAccess wa;
  wa.op = Op::Atomic;
  wa.lanes = static_cast<std::uint8_t>(lanes);
  wa.active = lanes_mask(static_cast<int>(lanes));
  for (std::uint32_t l = 0; l < lanes; ++l) wa.addr[l] = static_cast<WordAddr>(rng.below(space));
  return wa;
}

// The study parameter max_r, checked once in configure.
std::uint64_t checked_max_r(const StudyConfig& cfg) {
  const std::int64_t r = cfg.integer("max_r");
  if (r < 1) throw InputError(fmt::format("study parameter 'max_r': {} must be >= 1", r));
  return static_cast<std::uint64_t>(r);
}

// The largest R <= cap whose copies of `size` words fit the memory.
std::uint32_t max_replication(const Arch& arch, std::uint64_t cap, std::uint64_t size,
                              std::uint64_t pad) {
  std::uint64_t r = 1;
  while (r + 1 <= cap &&
         vote_footprint(Layout::Replication, size, r + 1, pad) <= arch.memory_words())
    ++r;
  return static_cast<std::uint32_t>(r);
}

// ---------------------------------------------------------------- random-patterns (001 Fig. 5)
class RandomPatterns : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    sizes_ = checked_sizes(cfg);
    patterns_ = checked_patterns(cfg);
  }
  std::vector<std::string> columns() const override {
    std::vector<std::string> c{"size", "patterns"};
    c.insert(c.end(), kAccCols.begin(), kAccCols.end());
    return c;
  }
  std::size_t size() const override { return sizes_.size(); }
  PointResult run_point(std::size_t i) const override {
    const auto space = static_cast<std::uint32_t>(sizes_[i]);
    Rng rng(Rng::derive(cfg_.seed, i));
    auto be = make_backend(cfg_.backend, cfg_.arch);
    Acc acc;
    for (std::int64_t p = 0; p < patterns_; ++p)
      acc.add(be->evaluate(random_warp(rng, cfg_.arch.warp_size, space)));
    Row row{Value(sizes_[i]), Value(patterns_)};
    acc.put(row, cfg_.arch.timing);
    return {{row}, static_cast<std::uint64_t>(patterns_)};
  }
  Report report(const Table& t) const override {
    Report r;
    std::vector<std::vector<std::string>> rows;
    Figure f{"fig5_random_patterns",
             "Random warp access patterns: mean latency; labels: mean max lock/bank degree (seed "
             "001 Fig. 5)",
             "vote space size (words)", "mean latency (cycles)"};
    f.stacked = true;
    f.series = {{"base"}, {"lock/position penalty"}, {"bank penalty"}};
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      rows.push_back({t.str(k, "size"), fmt::format("{:.1f}", t.num(k, "latency_cycles_mean")),
                      fmt::format("{:.1f}", t.num(k, "lock_penalty")),
                      fmt::format("{:.1f}", t.num(k, "bank_penalty")),
                      fmt::format("{:.3f}", t.num(k, "lock_degree_mean")),
                      fmt::format("{:.3f}", t.num(k, "bank_degree_mean"))});
      f.categories.push_back(t.str(k, "size"));
      f.bar_labels.push_back(
          fmt::format("{:.2f}/{:.2f}", t.num(k, "lock_degree_mean"), t.num(k, "bank_degree_mean")));
      f.series[0].y.push_back(double(cfg_.arch.timing.t_base));
      f.series[1].y.push_back(t.num(k, "lock_penalty"));
      f.series[2].y.push_back(t.num(k, "bank_penalty"));
      r.summary["sizes"].push_back({{"size", std::int64_t(t.num(k, "size"))},
                                    {"lock_degree_mean", t.num(k, "lock_degree_mean")},
                                    {"bank_degree_mean", t.num(k, "bank_degree_mean")},
                                    {"latency_cycles_mean", t.num(k, "latency_cycles_mean")}});
    }
    r.markdown = fmt::format(
        "{} uniform random 32-lane atomic patterns per vote-space size; arch "
        "`{}`.\n\n",
        patterns_, arch_label(cfg_.arch));
    r.markdown += md_table({"size (words)", "mean latency", "lock/position penalty", "bank penalty",
                            "mean max lock degree", "mean max bank degree"},
                           rows);
    r.markdown += "\n";
    r.markdown += random_patterns_text(t, cfg_.arch);
    r.figures.push_back(std::move(f));
    return r;
  }

 protected:
  StudyConfig cfg_;
  std::vector<std::int64_t> sizes_;
  std::int64_t patterns_ = 0;
  std::uint64_t max_r_ = 1;  // the replication studies' max_r
};

// ---------------------------------------------------------------- random-replication (Fig. 6)
class RandomReplication : public RandomPatterns {
 public:
  void configure(const StudyConfig& cfg) override {
    RandomPatterns::configure(cfg);
    max_r_ = checked_max_r(cfg);
  }
  std::vector<std::string> columns() const override {
    std::vector<std::string> c{"size", "patterns", "r"};
    c.insert(c.end(), kAccCols.begin(), kAccCols.end());
    c.insert(c.end(), {"r1_latency_cycles_mean", "r1_lock_degree_mean"});
    return c;
  }
  PointResult run_point(std::size_t i) const override {
    const auto space = static_cast<std::uint32_t>(sizes_[i]);
    const std::uint32_t r = max_replication(cfg_.arch, max_r_, space, 0);
    const std::uint32_t lanes = cfg_.arch.warp_size;
    Rng rng(Rng::derive(cfg_.seed, i));
    auto be = make_backend(cfg_.backend, cfg_.arch);
    Acc acc, base;
    for (std::int64_t p = 0; p < patterns_; ++p) {
      WarpAccess wa = random_warp(rng, lanes, space);
      base.add(be->evaluate(wa));
      for (std::uint32_t l = 0; l < lanes; ++l)  // cyclic mapping, 001 Eq. 1
        wa.addr[l] = vote_address(Layout::Replication, wa.addr[l],
                                  copy_of(Mapping::Cyclic, l, r, lanes), space, r, 0);
      acc.add(be->evaluate(wa));
    }
    Row row{Value(sizes_[i]), Value(patterns_), Value(std::int64_t{r})};
    acc.put(row, cfg_.arch.timing);
    row.push_back(Value(base.mean(base.latency)));
    row.push_back(Value(base.mean(base.lock)));
    return {{row}, static_cast<std::uint64_t>(2 * patterns_)};
  }
  Report report(const Table& t) const override {
    Report r;
    std::vector<std::vector<std::string>> rows;
    Figure f{"fig6_random_replication",
             "Maximum replication; labels: mean max lock/bank degree (seed 001 Fig. 6)",
             "vote space size (words) [R]", "mean latency (cycles)"};
    f.stacked = true;
    f.series = {{"base"}, {"lock/position penalty"}, {"bank penalty"}};
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      rows.push_back({t.str(k, "size"), t.str(k, "r"),
                      fmt::format("{:.1f}", t.num(k, "r1_latency_cycles_mean")),
                      fmt::format("{:.1f}", t.num(k, "latency_cycles_mean")),
                      fmt::format("{:.3f}", t.num(k, "r1_lock_degree_mean")),
                      fmt::format("{:.3f}", t.num(k, "lock_degree_mean")),
                      fmt::format("{:.3f}", t.num(k, "bank_degree_mean"))});
      f.categories.push_back(fmt::format("{} [R={}]", t.str(k, "size"), t.str(k, "r")));
      f.bar_labels.push_back(
          fmt::format("{:.2f}/{:.2f}", t.num(k, "lock_degree_mean"), t.num(k, "bank_degree_mean")));
      f.series[0].y.push_back(double(cfg_.arch.timing.t_base));
      f.series[1].y.push_back(t.num(k, "lock_penalty"));
      f.series[2].y.push_back(t.num(k, "bank_penalty"));
      r.summary["sizes"].push_back(
          {{"size", std::int64_t(t.num(k, "size"))},
           {"r", std::int64_t(t.num(k, "r"))},
           {"lock_degree_mean", t.num(k, "lock_degree_mean")},
           {"r1_lock_degree_mean", t.num(k, "r1_lock_degree_mean")},
           {"latency_cycles_mean", t.num(k, "latency_cycles_mean")},
           {"r1_latency_cycles_mean", t.num(k, "r1_latency_cycles_mean")}});
    }
    r.markdown = fmt::format(
        "{} uniform random patterns per size; maximum replication factor "
        "(<= {}, within {} words), cyclic mapping.\n\n",
        patterns_, max_r_, cfg_.arch.memory_words());
    r.markdown += md_table({"size", "R", "latency R=1", "latency R", "lock degree R=1",
                            "lock degree R", "bank degree R"},
                           rows);
    r.markdown += "\n";
    r.markdown += random_replication_text(t, cfg_.arch);
    r.figures.push_back(std::move(f));
    return r;
  }
};

// ---------------------------------------------------------------- random-mapping (Fig. 7)
class RandomMapping : public RandomPatterns {
 public:
  void configure(const StudyConfig& cfg) override {
    RandomPatterns::configure(cfg);
    max_r_ = checked_max_r(cfg);
    points_.clear();
    for (std::size_t s = 0; s < sizes_.size(); ++s) {
      const std::uint32_t rmax =
          max_replication(cfg.arch, max_r_, static_cast<std::uint64_t>(sizes_[s]), 0);
      for (std::uint32_t r = 1; r <= rmax; r *= 2) points_.push_back({s, r});
      if (std::has_single_bit(rmax) == false) points_.push_back({s, rmax});
    }
  }
  std::size_t size() const override { return points_.size(); }
  std::vector<std::string> columns() const override {
    std::vector<std::string> c{"size", "patterns", "r", "mapping", "sorted", "pad"};
    c.insert(c.end(), kAccCols.begin(), kAccCols.end());
    return c;
  }
  PointResult run_point(std::size_t i) const override {
    const auto [s, r] = points_[i];
    const auto space = static_cast<std::uint32_t>(sizes_[s]);
    const std::uint32_t lanes = cfg_.arch.warp_size;
    const bool pad_fits =
        vote_footprint(Layout::Replication, space, r, 1) <= cfg_.arch.memory_words();
    Rng rng(Rng::derive(cfg_.seed, s));  // the size's pattern set, shared by all its points
    auto be = make_backend(cfg_.backend, cfg_.arch);
    Acc acc[2][2][2];  // [mapping][sorted][pad]
    for (std::int64_t p = 0; p < patterns_; ++p) {
      WarpAccess raw = random_warp(rng, lanes, space);
      for (int sorted = 0; sorted < 2; ++sorted) {
        if (sorted) std::sort(raw.addr.begin(), raw.addr.begin() + lanes);
        for (int m = 0; m < 2; ++m)
          for (int pad = 0; pad < (pad_fits ? 2 : 1); ++pad) {
            WarpAccess wa = raw;
            const auto map = m ? Mapping::Block : Mapping::Cyclic;
            for (std::uint32_t l = 0; l < lanes; ++l)
              wa.addr[l] = vote_address(Layout::Replication, raw.addr[l], copy_of(map, l, r, lanes),
                                        space, r, static_cast<std::uint32_t>(pad));
            acc[m][sorted][pad].add(be->evaluate(wa));
          }
      }
    }
    PointResult out;
    for (int m = 0; m < 2; ++m)
      for (int sorted = 0; sorted < 2; ++sorted)
        for (int pad = 0; pad < (pad_fits ? 2 : 1); ++pad) {
          Row row{Value(sizes_[s]),
                  Value(patterns_),
                  Value(std::int64_t{r}),
                  Value(std::string(mapping_name(m ? Mapping::Block : Mapping::Cyclic))),
                  Value(std::int64_t{sorted}),
                  Value(std::int64_t{pad})};
          acc[m][sorted][pad].put(row, cfg_.arch.timing);
          out.rows.push_back(std::move(row));
          out.accesses += static_cast<std::uint64_t>(patterns_);
        }
    return out;
  }
  Report report(const Table& t) const override;

 private:
  std::vector<std::pair<std::size_t, std::uint32_t>> points_;
};

Report RandomMapping::report(const Table& t) const {
  Report r;
  // One figure per (mapping, sorted): x = R, one series per (size, pad), as in 001 Fig. 7's panels.
  for (int m = 0; m < 2; ++m)
    for (int sorted = 0; sorted < 2; ++sorted) {
      const std::string mname = m ? "block" : "cyclic";
      Figure f{fmt::format("fig7_{}{}", mname, sorted ? "_sorted" : ""),
               fmt::format("Random patterns, {} mapping{} (seed 001 Fig. 7)", mname,
                           sorted ? " with sorting" : ""),
               "replication factor R", "mean latency (cycles)"};
      f.logx = true;
      for (auto size : sizes_)
        for (int pad = 0; pad < 2; ++pad) {
          Series s{fmt::format("{} words{}", size, pad ? " + pad" : "")};
          for (std::size_t k = 0; k < t.rows.size(); ++k)
            if (t.num(k, "size") == double(size) && t.str(k, "mapping") == mname &&
                t.num(k, "sorted") == sorted && t.num(k, "pad") == pad) {
              s.x.push_back(t.num(k, "r"));
              s.y.push_back(t.num(k, "latency_cycles_mean"));
            }
          if (!s.x.empty()) f.series.push_back(std::move(s));
        }
      r.figures.push_back(std::move(f));
    }
  // Table: best latency per size and variant.
  std::vector<std::vector<std::string>> rows;
  for (auto size : sizes_) {
    std::vector<std::string> row{fmt::format("{}", size)};
    for (int m = 0; m < 2; ++m)
      for (int sorted = 0; sorted < 2; ++sorted)
        for (int pad = 0; pad < 2; ++pad) {
          const MappingBest mb = mapping_best(t, double(size), m, sorted, pad);
          const double best = mb.best, best_r = mb.r, r1 = mb.r1;
          row.push_back(best < 0 ? "-"
                                 : fmt::format("{:.0f} (R={:.0f}, {:.2f}x)", best, best_r,
                                               best > 0 ? r1 / best : 0.0));
          const std::string key = fmt::format("{}{}{}", m ? "block" : "cyclic",
                                              sorted ? "_sorted" : "", pad ? "_pad" : "");
          if (best >= 0)
            r.summary["best"].push_back({{"variant", key},
                                         {"size", size},
                                         {"latency_cycles_mean", best},
                                         {"r", std::int64_t(best_r)},
                                         {"r1_latency_cycles_mean", r1}});
        }
    rows.push_back(std::move(row));
  }
  r.markdown = fmt::format(
      "{} random patterns per size (the same patterns for every R and variant); R = 1, 2, 4, ... "
      "up to the maximum (<= {}) that fits; padding 1 between copies where it still fits.\n\n"
      "Best mean latency per variant (R reaching it, gain over R = 1):\n\n",
      patterns_, max_r_);
  r.markdown += md_table({"size", "cyclic", "cyclic+pad", "cyclic sorted", "cyclic sorted+pad",
                          "block", "block+pad", "block sorted", "block sorted+pad"},
                         rows);
  r.markdown +=
      "\nSeed 001 §3 (Fig. 7) found plain cyclic and block mapping alike on random data; with "
      "sorting, cyclic mapping gaining markedly below 1,024 words (its 1,024 locks) and padding "
      "adding to it; block mapping with sorting gaining only at R = 32 (one copy per thread).\n\n";
  r.markdown += random_mapping_text(t, sizes_, cfg_.arch);
  return r;
}

const ParamSpec kSeed{"seed", "1", "1", "study seed (per-point streams: Rng::derive(seed, i))"};
const ParamSpec kBackend{"backend", "analytic", "analytic", "latency backend (analytic)"};
const ParamSpec kMaxR{"max_r", "32", "32", "largest replication factor"};
const ParamSpec kSizes{"sizes", "32,64,128,256,512,1024,2048,4096",
                       "32,64,128,256,512,1024,2048,4096", "vote-space sizes in words"};

}  // namespace

StudyInfo random_patterns_info() {
  return {
      "random-patterns",
      "Uniform random 32-lane atomic patterns per vote-space size: mean latency split into "
      "lock/position and bank penalties, mean maximum lock and bank degree",
      "seed 001 §3, Fig. 5",
      {kSizes, {"patterns", "1000000", "20000", "random warp patterns per size"}, kSeed, kBackend},
      [] { return std::make_unique<RandomPatterns>(); }};
}
StudyInfo random_replication_info() {
  return {"random-replication",
          "Random patterns with the maximum replication factor (<= 32, within memory), cyclic "
          "mapping",
          "seed 001 §3, Fig. 6",
          {kSizes,
           {"patterns", "1000000", "20000", "random warp patterns per size"},
           kMaxR,
           kSeed,
           kBackend},
          [] { return std::make_unique<RandomReplication>(); }};
}
StudyInfo random_mapping_info() {
  return {"random-mapping",
          "Random patterns, R from 1 to its maximum; cyclic and block mapping (001 Eq. 1-2), with "
          "and without sorting each warp's pattern, with and without padding 1",
          "seed 001 §3, Fig. 7",
          {kSizes,
           {"patterns", "200000", "5000", "random warp patterns per size"},
           kMaxR,
           kSeed,
           kBackend},
          [] { return std::make_unique<RandomMapping>(); }};
}

}  // namespace smemsim::study

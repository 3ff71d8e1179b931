// Hough transform voting study: seed 000 §V.C (Fig. 8).
//
// Input: a photograph brought to 640 x 480 (nearest-neighbour resampling), 8-bit grayscale as 000
// used (the 12-bit image >> 4), edge pixels by a Sobel L1 gradient magnitude >= `threshold`, stored
// as an array in raster order (000 §V.C, [18]).
// Vote-space layout (our choice; 000 gives none): the polar space rho = x cos(theta) + y sin(theta)
// has `thetas` angles in [0, pi) and n_rho = 2 * D + 1 rho bins, D = ceil(sqrt(W^2 + H^2)) (801 +
// 800 = 1,601 words for 640 x 480). It is far larger than the shared memory (180 x 1,601 words), so
// one thread block of N = 1024 threads handles one theta and keeps that theta's rho row (1,601
// words) in shared memory; thread ThId votes edge pixels ThId, ThId + N, ..., so each warp votes 32
// consecutive edge pixels. The row is replicated R times (copies consecutive, cyclic mapping, 001
// Eq. 1) up to floor(12,288 / 1,601) = 7 copies -- 000 Fig. 8 shows six factors -- or bin-stretched
// (rho bin b of copy c at b * R + c). The metric is the modeled atomic time summed over all warps
// of all theta blocks, for bank/lock hashes mod, xor, add; with backend = cycle, the whole-kernel
// cycles of kernels/hough.cu's hough_vote (one block per theta, the same layouts; its float rho may
// round a vote near a bin boundary into the neighbouring bin) on the cycle-level GPU model.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

const std::vector<std::string> kHashes{"mod", "xor", "add"};

class Hough : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    width_ = static_cast<int>(cfg.integer("width"));
    height_ = static_cast<int>(cfg.integer("height"));
    if (width_ < 8 || height_ < 8 || width_ > 8192 || height_ > 8192)
      throw InputError("study parameters 'width'/'height' must be in 8..8192");
    thetas_ = static_cast<int>(cfg.integer("thetas"));
    if (thetas_ < 1 || thetas_ > 3600)
      throw InputError("study parameter 'thetas' must be in 1..3600");
    const auto threshold = cfg.integer("threshold");
    tpb_ = static_cast<std::uint32_t>(cfg.integer("threads_per_block"));
    if (tpb_ < cfg.arch.warp_size || tpb_ % cfg.arch.warp_size)
      throw InputError("study parameter 'threads_per_block' must be a multiple of the warp size");
    const auto imgs = resolve_images(cfg, width_, height_);
    digest_ = images_digest(imgs);
    edges_.clear();
    names_.clear();
    for (const auto& im : imgs) {
      const auto sized = (im.width == width_ && im.height == height_)
                             ? im
                             : images::resize_nearest(im, width_, height_);
      edges_.push_back(images::sobel_edges(sized, static_cast<int>(threshold)));
      names_.push_back(im.name);
    }
    d_ =
        static_cast<int>(std::ceil(std::sqrt(double(width_) * width_ + double(height_) * height_)));
    nrho_ = static_cast<std::uint32_t>(2 * d_ + 1);
    cos_.resize(static_cast<std::size_t>(thetas_));
    sin_.resize(static_cast<std::size_t>(thetas_));
    for (int t = 0; t < thetas_; ++t) {
      const double a = M_PI * t / thetas_;
      cos_[static_cast<std::size_t>(t)] = std::cos(a);
      sin_[static_cast<std::size_t>(t)] = std::sin(a);
    }
    points_.clear();
    for (const auto& l : cfg.strings("layouts")) {
      Layout layout;
      if (l == "replication")
        layout = Layout::Replication;
      else if (l == "stretch")
        layout = Layout::Stretch;
      else
        throw InputError(
            fmt::format("study parameter 'layouts': unknown '{}' (replication, stretch)", l));
      std::vector<std::uint32_t> rs;
      if (cfg.params.at("r") == "auto")  // every factor that fits (000 Fig. 8: 1..6)
        for (std::uint32_t r = 1; vote_footprint(layout, nrho_, r, 0) <= cfg.arch.memory_words();
             ++r)
          rs.push_back(r);
      else
        rs = replication_list(cfg, nrho_, 0, layout, 1u << 30,
                              fmt::format("a {}-word rho row", nrho_));
      for (std::size_t im = 0; im < edges_.size(); ++im)
        for (auto r : rs) points_.push_back({im, layout, r});
    }
    for (const auto& h : kHashes) arch_[h] = with_hash(cfg.arch, h);
    kernel_ = cfg.backend == "cycle";
    if (kernel_) module_ = load_suite_module("hough");
  }
  std::vector<std::string> columns() const override {
    return {"image",      "edges",      "layout",     "r",           "warps",
            "cycles_mod", "cycles_xor", "cycles_add", "speedup_xor", "speedup_add"};
  }
  std::size_t size() const override { return points_.size(); }
  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    const auto& e = edges_[p.image];
    std::vector<std::unique_ptr<LatencyBackend>> be;
    if (!kernel_)
      for (const auto& h : kHashes) be.push_back(make_backend(cfg_.backend, arch_.at(h)));
    const std::uint32_t lanes = cfg_.arch.warp_size;
    std::int64_t cycles[3] = {0, 0, 0}, warps = 0;
    for (int t = 0; t < thetas_; ++t) {
      const double c = cos_[static_cast<std::size_t>(t)], s = sin_[static_cast<std::size_t>(t)];
      const auto edge_word = [&](std::size_t k) {
        const auto rho = static_cast<std::int64_t>(std::lround(e[k].x * c + e[k].y * s));
        const auto bin = static_cast<std::uint32_t>(rho + d_);
        const auto tid = static_cast<std::uint32_t>(k % tpb_);
        return vote_address(p.layout, bin, copy_of(Mapping::Cyclic, tid, p.r, tpb_), nrho_, p.r, 0);
      };
      for_each_vote_warp(e.size(), lanes, edge_word, [&](const WarpAccess& wa) {
        for (std::size_t h = 0; h < be.size(); ++h) cycles[h] += be[h]->evaluate(wa).latency;
        ++warps;
      });
    }
    if (kernel_)
      for (std::size_t h = 0; h < 3; ++h) cycles[h] = run_kernel(e, p, kHashes[h]);
    Row row{Value(names_[p.image]),
            Value(static_cast<std::int64_t>(e.size())),
            Value(std::string(p.layout == Layout::Stretch ? "stretch" : "replication")),
            Value(std::int64_t{p.r}),
            Value(warps),
            Value(cycles[0]),
            Value(cycles[1]),
            Value(cycles[2]),
            Value(speedup(cycles[0], cycles[1])),
            Value(speedup(cycles[0], cycles[2]))};
    return {{row}, static_cast<std::uint64_t>(3 * warps)};
  }
  std::string input_digest() const override { return digest_; }
  Report report(const Table& t) const override {
    Report rep;
    rep.markdown = fmt::format(
        "Images resized to {}x{}; {} angles; rho row of {} words per theta block ({} threads); "
        "edge "
        "pixels with Sobel |gx| + |gy| >= {} on the 8-bit image.\n\n",
        width_, height_, thetas_, nrho_, tpb_, cfg_.params.at("threshold"));
    for (const std::string layout : {"replication", "stretch"}) {
      std::vector<std::vector<std::string>> rows;
      const std::string metric = kernel_ ? "whole-kernel cycles" : "modeled atomic cycles";
      Figure f{fmt::format("fig8_hough_{}", layout),
               fmt::format("Hough voting, {}: {} (seed 000 Fig. 8)", layout, metric),
               "replication factor R",
               kernel_ ? "kernel cycles" : "modeled atomic cycles (sum over warps)"};
      std::map<std::string, Series> series;
      double best = 0;
      int best_r = 0;
      for (std::size_t k = 0; k < t.rows.size(); ++k) {
        if (t.str(k, "layout") != layout) continue;
        rows.push_back({t.str(k, "image"), t.str(k, "edges"), t.str(k, "r"), t.str(k, "cycles_mod"),
                        t.str(k, "cycles_xor"), t.str(k, "cycles_add"),
                        fmt::format("{:.2f}", t.num(k, "speedup_xor")),
                        fmt::format("{:.2f}", t.num(k, "speedup_add"))});
        for (const std::string& h : kHashes) {
          Series& s = series[t.str(k, "image") + " " + h];
          s.title = t.str(k, "image") + " " + h;
          s.x.push_back(t.num(k, "r"));
          s.y.push_back(t.num(k, "cycles_" + h));
        }
        const double sp = std::max(t.num(k, "speedup_xor"), t.num(k, "speedup_add"));
        if (sp > best) best = sp, best_r = int(t.num(k, "r"));
      }
      if (rows.empty()) continue;
      for (auto& [name, s] : series) f.series.push_back(std::move(s));
      rep.figures.push_back(std::move(f));
      rep.summary["max_speedup"][layout] = {{"speedup", best}, {"r", best_r}};
      rep.markdown += fmt::format("### Layout `{}`\n\n", layout);
      rep.markdown += md_table({"image", "edges", "R", "cycles mod", "cycles xor", "cycles add",
                                "xor speed-up", "add speed-up"},
                               rows);
      rep.markdown += fmt::format("\nMaximum hash speed-up: {:.2f}x at R = {}.\n\n", best, best_r);
    }
    rep.markdown +=
        "Seed 000 §V.C: up to 1.76x for replication (at R = 6) and neither gain nor loss with "
        "bin-stretching.";
    rep.markdown += kernel_ ? " Our numbers: whole-kernel cycles of hough_vote on the cycle-level "
                              "model (backend cycle).\n"
                            : " Our numbers: the modeled atomic time only (backend analytic).\n";
    return rep;
  }

 private:
  struct Point {
    std::size_t image;
    Layout layout;
    std::uint32_t r;
  };
  std::string digest_;
  // Whole-kernel cycles of hough_vote for one image, layout, R and hash. Every edge pixel votes
  // once per angle (rho + D is always a bin), so the votes must sum to edges x angles.
  std::int64_t run_kernel(const std::vector<images::EdgePixel>& e, const Point& p,
                          const std::string& hash) const {
    exec::GlobalMemory mem;
    std::vector<std::int32_t> xs, ys;
    for (const auto& px : e) xs.push_back(px.x), ys.push_back(px.y);
    const std::uint32_t xb = add_buffer(mem, "xs", exec::ElemType::S32, xs.data(), xs.size() * 4);
    const std::uint32_t yb = add_buffer(mem, "ys", exec::ElemType::S32, ys.data(), ys.size() * 4);
    const std::uint32_t ab =
        add_buffer(mem, "acc", exec::ElemType::U32, nullptr, std::size_t(thetas_) * nrho_ * 4);
    exec::Launch l;
    l.grid = {static_cast<std::uint32_t>(thetas_), 1, 1};
    l.block = {tpb_, 1, 1};
    l.dynamic_shared_bytes =
        static_cast<std::uint32_t>(4 * vote_footprint(p.layout, nrho_, p.r, 0));
    l.args = {exec::Arg::buf(xb),
              exec::Arg::buf(yb),
              exec::Arg::integer(std::int64_t(e.size())),
              exec::Arg::integer(nrho_),
              exec::Arg::real(d_),
              exec::Arg::integer(p.r),
              exec::Arg::integer(p.layout == Layout::Stretch),
              exec::Arg::buf(ab)};
    const std::uint64_t cycles = kernel_cycles(module_, "hough_vote", arch_.at(hash), l, mem);
    const exec::Buffer& acc = mem.get("acc");
    std::uint64_t votes = 0;
    for (std::size_t i = 0; i < acc.elements(); ++i) votes += acc.as<std::uint32_t>()[i];
    if (votes != std::uint64_t(e.size()) * std::uint64_t(thetas_))
      throw std::runtime_error(fmt::format("hough_vote counted {} votes, expected {}", votes,
                                           std::uint64_t(e.size()) * std::uint64_t(thetas_)));
    return static_cast<std::int64_t>(cycles);
  }

  StudyConfig cfg_;
  bool kernel_ = false;  // backend = cycle
  ptx::Module module_;
  int width_ = 640, height_ = 480, thetas_ = 180, d_ = 0;
  std::uint32_t nrho_ = 0, tpb_ = 1024;
  std::vector<std::vector<images::EdgePixel>> edges_;
  std::vector<std::string> names_;
  std::vector<double> cos_, sin_;
  std::vector<Point> points_;
  std::map<std::string, Arch> arch_;
};

}  // namespace

StudyInfo hough_info() {
  return {
      "hough",
      "Hough transform voting on the edge pixels of a 640x480 photograph: polar vote space, "
      "replication R up to the memory limit or bin-stretching, bank/lock hash mod/xor/add",
      "seed 000 §V.C, Fig. 8",
      {{"images", "cache/building.jpg", "generated:blocks",
        "image files, folders, 'cache' (scripts/fetch-images.sh) or 'generated'"},
       {"max_images", "1", "1", "at most this many images (000 used one)"},
       {"width", "640", "640", "image width after resampling"},
       {"height", "480", "480", "image height after resampling"},
       {"thetas", "180", "45", "angles in [0, pi)"},
       {"threshold", "200", "200", "Sobel L1 magnitude threshold (8-bit scale)"},
       {"r", "auto", "auto", "replication factors; auto = all that fit"},
       {"layouts", "replication,stretch", "replication,stretch", "vote-space layouts"},
       {"threads_per_block", "1024", "1024", "threads per theta block"},
       {"seed", "1", "1", "study seed (generated images)"},
       {"backend", "analytic", "analytic",
        "analytic (modeled atomic time per access) or cycle (whole kernels on the cycle model)"}},
      [] { return std::make_unique<Hough>(); },
      true};
}

}  // namespace smemsim::study

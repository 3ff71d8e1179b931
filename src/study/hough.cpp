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
// (our layout: rho bin b of copy c at b * R + c; 000 cites [2] for bin-stretching without
// defining it). The metric is the modeled atomic time summed over all warps of all theta blocks,
// for bank/lock hashes mod, xor, add (the lock hash under the arch's reading and under `all`,
// voting.hpp); with backend = cycle, the whole-kernel
// cycles of kernels/hough.cu's hough_vote (one block per theta, the same layouts; its float rho may
// round a vote near a bin boundary into the neighbouring bin) on the cycle-level GPU model.
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

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
    // The words a rho row takes in shared memory: the 2D + 1 bins, or that rounded up to a power
    // of two, or a given width (the bins beyond 2D stay empty).
    const std::string row = cfg.params.at("rho_row");
    if (row == "exact")
      row_ = nrho_;
    else if (row == "pow2")
      row_ = std::bit_ceil(nrho_);
    else {
      const std::int64_t w = cfg.integer("rho_row");
      if (w < nrho_ || w > cfg.arch.memory_words())
        throw InputError(fmt::format(
            "study parameter 'rho_row': {} is not exact, pow2 or a width in {}..{} words", row,
            nrho_, cfg.arch.memory_words()));
      row_ = static_cast<std::uint32_t>(w);
    }
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
        for (std::uint32_t r = 1; vote_footprint(layout, row_, r, 0) <= cfg.arch.memory_words();
             ++r)
          rs.push_back(r);
      else
        rs = replication_list(cfg, row_, 0, layout, 1u << 30,
                              fmt::format("a {}-word rho row", row_));
      for (std::size_t im = 0; im < edges_.size(); ++im)
        for (auto r : rs) points_.push_back({im, layout, r});
    }
    arch_.clear();
    for (const HashVariant& v : hash_variants()) arch_.push_back(with_hash(cfg.arch, v));
    alias_ = variant_aliases(arch_);
    kernel_ = cfg.backend == "cycle";
    if (kernel_) module_ = load_suite_module("hough");
  }
  std::vector<std::string> columns() const override {
    std::vector<std::string> c{"image", "edges", "layout", "r", "warps"};
    for (const HashVariant& v : hash_variants()) c.push_back(fmt::format("cycles_{}", v.column));
    for (const HashVariant& v : hash_variants())
      if (std::string_view(v.hash) != "mod") c.push_back(fmt::format("speedup_{}", v.column));
    return c;
  }
  std::size_t size() const override { return points_.size(); }
  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    const auto& e = edges_[p.image];
    const std::size_t nv = hash_variants().size();
    std::vector<std::unique_ptr<LatencyBackend>> be;
    if (!kernel_)
      for (std::size_t v = 0; v < nv; ++v)
        be.push_back(alias_[v] == v ? make_backend(cfg_.backend, arch_[v]) : nullptr);
    const std::uint32_t lanes = cfg_.arch.warp_size;
    std::vector<std::int64_t> cycles(nv, 0);
    std::int64_t warps = 0;
    for (int t = 0; t < thetas_; ++t) {
      const double c = cos_[static_cast<std::size_t>(t)], s = sin_[static_cast<std::size_t>(t)];
      const auto edge_word = [&](std::size_t k) {
        const auto rho = static_cast<std::int64_t>(std::lround(e[k].x * c + e[k].y * s));
        const auto bin = static_cast<std::uint32_t>(rho + d_);
        const auto tid = static_cast<std::uint32_t>(k % tpb_);
        return vote_address(p.layout, bin, copy_of(Mapping::Cyclic, tid, p.r, tpb_), row_, p.r, 0);
      };
      for_each_vote_warp(e.size(), lanes, edge_word, [&](const WarpAccess& wa) {
        for (std::size_t v = 0; v < be.size(); ++v)
          if (be[v]) cycles[v] += be[v]->evaluate(wa).latency;
        ++warps;
      });
    }
    for (std::size_t v = 0; v < nv; ++v)
      if (alias_[v] != v)
        cycles[v] = cycles[alias_[v]];
      else if (kernel_)
        cycles[v] = run_kernel(e, p, arch_[v]);
    Row row{Value(names_[p.image]), Value(static_cast<std::int64_t>(e.size())),
            Value(std::string(p.layout == Layout::Stretch ? "stretch" : "replication")),
            Value(std::int64_t{p.r}), Value(warps)};
    for (std::size_t v = 0; v < nv; ++v) row.push_back(Value(cycles[v]));
    for (std::size_t v = 1; v < nv; ++v) row.push_back(Value(speedup(cycles[0], cycles[v])));
    return {{row}, static_cast<std::uint64_t>(nv * warps)};
  }
  std::string input_digest() const override { return digest_; }
  Report report(const Table& t) const override;

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
                          const Arch& arch) const {
    exec::GlobalMemory mem;
    std::vector<std::int32_t> xs, ys;
    for (const auto& px : e) xs.push_back(px.x), ys.push_back(px.y);
    const std::uint32_t xb = add_buffer(mem, "xs", exec::ElemType::S32, xs.data(), xs.size() * 4);
    const std::uint32_t yb = add_buffer(mem, "ys", exec::ElemType::S32, ys.data(), ys.size() * 4);
    const std::uint32_t ab =
        add_buffer(mem, "acc", exec::ElemType::U32, nullptr, std::size_t(thetas_) * row_ * 4);
    exec::Launch l;
    l.grid = {static_cast<std::uint32_t>(thetas_), 1, 1};
    l.block = {tpb_, 1, 1};
    l.dynamic_shared_bytes = static_cast<std::uint32_t>(4 * vote_footprint(p.layout, row_, p.r, 0));
    l.args = {exec::Arg::buf(xb),
              exec::Arg::buf(yb),
              exec::Arg::integer(std::int64_t(e.size())),
              exec::Arg::integer(row_),
              exec::Arg::real(d_),
              exec::Arg::integer(p.r),
              exec::Arg::integer(p.layout == Layout::Stretch),
              exec::Arg::buf(ab)};
    const std::uint64_t cycles = kernel_cycles(module_, "hough_vote", arch, l, mem);
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
  std::uint32_t nrho_ = 0, row_ = 0, tpb_ = 1024;
  std::vector<std::vector<images::EdgePixel>> edges_;
  std::vector<std::string> names_;
  std::vector<double> cos_, sin_;
  std::vector<Point> points_;
  std::vector<Arch> arch_;          // one per hash_variants() entry
  std::vector<std::size_t> alias_;  // variant_aliases(arch_)
};

// Cycles summed over images per layout and R, per variant; each image's speed-ups.
struct HoughCell {
  std::map<std::string, double> cycles;
  std::map<std::string, std::vector<double>> per_img;
  double speedup(const std::string& v) const {
    return cycles.at(v) > 0 ? cycles.at("mod") / cycles.at(v) : 1.0;  // 1: no edge voted
  }
};

Report Hough::report(const Table& t) const {
  Report rep;
  const char* const shown[] = {"xor", "add", "xor_all", "add_all"};
  std::map<std::string, std::map<int, HoughCell>> cells;  // layout -> R
  std::set<std::string> images;
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    HoughCell& c = cells[t.str(k, "layout")][int(t.num(k, "r"))];
    c.cycles["mod"] += t.num(k, "cycles_mod");
    for (const char* v : shown) {
      c.cycles[v] += t.num(k, fmt::format("cycles_{}", v));
      c.per_img[v].push_back(t.num(k, fmt::format("speedup_{}", v)));
    }
    images.insert(fmt::format("{} ({} edges)", t.str(k, "image"), t.str(k, "edges")));
  }
  const std::string metric = kernel_ ? "whole-kernel cycles" : "modeled atomic cycles";
  rep.markdown = fmt::format(
      "{} image(s): {}; resized to {}x{}; {} angles; rho row of {} words per theta block ({} "
      "threads); edge pixels with Sobel |gx| + |gy| >= {} on the 8-bit image; arch `{}`; lock "
      "hash: {}; metric: {}{}.\n\n",
      images.size(), fmt::join(images, ", "), width_, height_, thetas_,
      row_ == nrho_ ? fmt::format("{}", nrho_) : fmt::format("{} ({} bins)", row_, nrho_), tpb_,
      cfg_.params.at("threshold"), arch_label(cfg_.arch), lock_reading_label(cfg_.arch), metric,
      images.size() > 1 ? ", summed over the images" : "");
  // Claims of seed 000 §V.C.
  std::vector<Claim> claims;
  if (cells.count("replication")) {
    const auto& rep_r = cells.at("replication");
    const auto text = [&](const std::string& s) {
      double best = 0;
      int at = 0;
      for (const auto& [r, c] : rep_r)
        for (const std::string& v : {"xor" + s, "add" + s})
          if (c.speedup(v) > best) best = c.speedup(v), at = r;
      const auto six = rep_r.find(6);
      return six == rep_r.end()
                 ? fmt::format("largest {:.2f} at R = {}", best, at)
                 : fmt::format("R = 6: XOR {:.2f}, ADD {:.2f}; largest {:.2f} at R = {}",
                               six->second.speedup("xor" + s), six->second.speedup("add" + s), best,
                               at);
    };
    double best = 0;
    for (const auto& [r, c] : rep_r) best = std::max({best, c.speedup("xor"), c.speedup("add")});
    claims.push_back({"replication: up to 1.76× at R = 6 (§V.C, Fig. 8)", "1.76", text(""),
                      text("_all"), versus_paper(best, 1.76)});
  }
  if (cells.count("stretch")) {
    const auto range = [&](const std::string& s, double& lo, double& hi) {
      lo = 1e9, hi = 0;
      for (const auto& [r, c] : cells.at("stretch"))
        for (const std::string& v : {"xor" + s, "add" + s})
          lo = std::min(lo, c.speedup(v)), hi = std::max(hi, c.speedup(v));
      return fmt::format("{:.2f}–{:.2f} over R and both hashes", lo, hi);
    };
    double lo = 0, hi = 0, lo2 = 0, hi2 = 0;
    const std::string ours = range("", lo, hi);
    claims.push_back({"bin-stretching [2]: neither gain nor loss (§V.C)", "1.00",
                      "our layout b·R + c, not [2]'s: " + ours, range("_all", lo2, hi2),
                      lo >= 0.95 && hi <= 1.05 ? "holds (within 5 %) for our layout"
                                               : "does not hold for our layout"});
  }
  add_claims(rep, claims, cfg_, "hough");
  for (const auto& [layout, by_r] : cells) {
    Figure f{fmt::format("fig8_hough_{}", layout),
             fmt::format("Hough voting, {}: {} (seed 000 Fig. 8)", layout, metric),
             "replication factor R", kernel_ ? "kernel cycles" : "modeled atomic cycles"};
    std::vector<std::vector<std::string>> rows;
    std::map<std::string, Series> series;
    double best = 0;
    int best_r = 0;
    for (const auto& [r, c] : by_r) {
      std::vector<std::string> row{fmt::format("{}", r), fmt::format("{:.0f}", c.cycles.at("mod"))};
      for (const char* v : shown) row.push_back(fmt::format("{:.2f}", c.speedup(v)));
      const Spread sx = spread_of(c.per_img.at("xor"));
      row.push_back(fmt::format("{:.2f}–{:.2f}", sx.min, sx.max));
      rows.push_back(std::move(row));
      for (const std::string h : {"mod", "xor", "add"}) {
        Series& s = series[h];
        s.title = h;
        s.x.push_back(r);
        s.y.push_back(c.cycles.at(h));
      }
      nlohmann::json j = {{"layout", layout}, {"r", r}};
      for (const char* v : shown) j[v] = c.speedup(v);
      rep.summary["speedup"].push_back(std::move(j));
      const double sp = std::max(c.speedup("xor"), c.speedup("add"));
      if (sp > best) best = sp, best_r = r;
    }
    for (auto& [name, s] : series) f.series.push_back(std::move(s));
    rep.figures.push_back(std::move(f));
    rep.summary["max_speedup"][layout] = {{"speedup", best}, {"r", best_r}};
    rep.markdown += fmt::format("### Layout `{}`\n\n", layout);
    rep.markdown += md_table(
        {"R", "cycles mod", "XOR", "ADD", "XOR (all)", "ADD (all)", "XOR per image"}, rows);
    rep.markdown += fmt::format("\nMaximum hash speed-up: {:.2f}x at R = {}.\n\n", best, best_r);
  }
  rep.markdown += kernel_ ? "Our numbers: whole-kernel cycles of hough_vote on the cycle-level "
                            "model (backend cycle).\n"
                          : "Our numbers: the modeled atomic time only (backend analytic).\n";
  return rep;
}

}  // namespace

StudyInfo hough_info() {
  return {
      "hough",
      "Hough transform voting on the edge pixels of a 640x480 image (by default a photograph of "
      "scripts/fetch-images.sh; --quick: a generated one; the report says which ran): polar vote "
      "space, "
      "replication R up to the memory limit or bin-stretching, bank/lock hash mod/xor/add",
      "seed 000 §V.C, Fig. 8",
      {{"images", "cache/building.jpg", "generated:blocks",
        "image files, folders, 'cache' (scripts/fetch-images.sh) or 'generated'"},
       {"max_images", "1", "1", "at most this many images (000 used one)"},
       {"width", "640", "640", "image width after resampling"},
       {"height", "480", "480", "image height after resampling"},
       {"thetas", "180", "45", "angles in [0, pi)"},
       {"threshold", "200", "200", "Sobel L1 magnitude threshold (8-bit scale)"},
       {"rho_row", "pow2", "pow2",
        "words of a rho row in shared memory: exact (2D + 1), pow2 (that rounded up to a power "
        "of two) or a width"},
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

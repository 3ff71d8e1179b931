// Histogram study: seed 000 §V.B (Fig. 7) and seed 001 §4.2 (Fig. 9).
//
// Each image is converted to 12-bit grayscale (seed 000 §V.B; images.hpp). A thread block of N =
// 1024 threads (001 §4.2: "16 blocks of 1,024 threads") votes pixels in raster order; pixel p is
// taken by thread ThId = p % N and each warp votes 32 consecutive pixels (a coalesced read, 001
// §4.2.1). A pixel's bin is its value >> (12 - log2(bins)). The vote space is replicated R times:
//   cyclic / block      R sub-histograms one after another, copy by 001 Eq. 1 / Eq. 2;
//   cyclic-pad / block-pad  the same with 1 word of padding between copies (001 §4.2, 000 §V.B);
//   stretch             bin-stretching (000 §V.B citing [2]): bin b of copy c at b*R + c, copy
//   cyclic.
// R ranges over powers of two 1..256 within the shared memory (000 §V.B: 4 bytes x bins x R <= 48
// KiB). The metric, for the bank/lock hashes mod, xor and add (000 Table I), and the speed-up of
// each hash over mod: with backend = analytic the modeled shared-memory atomic time, the sum over
// warps of the per-warp latency; with backend = cycle the whole-kernel cycles of kernels/
// histogram.cu's histogram12 (the same pixels, threads and layouts; `blocks` blocks of
// threads_per_block threads) on the cycle-level GPU model.
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "smemsim/images.hpp"
#include "studies.hpp"
#include "util/rng.hpp"
#include "voting.hpp"

namespace smemsim::study {

std::vector<images::Gray12> resolve_images(const StudyConfig& cfg, int gen_w, int gen_h) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::vector<images::Gray12> out;
  const auto items = cfg.strings("images");
  const std::int64_t max_images = cfg.integer("max_images");
  if (max_images < 1)
    throw InputError(fmt::format("study parameter 'max_images': {} must be >= 1", max_images));
  for (const std::string& item : items) {
    if (item == "generated") {
      for (std::size_t k = 0; k < images::generated_kinds().size(); ++k)
        out.push_back(images::generate(images::generated_kinds()[k], gen_w, gen_h,
                                       Rng::derive(cfg.seed, 1000 + k)));
    } else if (item.rfind("generated:", 0) == 0) {
      out.push_back(images::generate(item.substr(10), gen_w, gen_h, Rng::derive(cfg.seed, 1000)));
    } else if (item.rfind("cache/", 0) == 0) {
      files.push_back(images::default_image_dir() + item.substr(5));
    } else if (item == "cache" || fs::is_directory(item)) {
      const std::string dir = item == "cache" ? images::default_image_dir() : item;
      const auto found = images::list_images(dir);
      if (found.empty())
        throw InputError(fmt::format(
            "study parameter 'images': no photographs in {} (run scripts/fetch-images.sh, or use "
            "--set images=generated)",
            dir));
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(item);
    }
  }
  for (const auto& f : files) {
    if (static_cast<std::int64_t>(out.size()) >= max_images) break;
    out.push_back(images::load_gray12(f));
  }
  if (out.empty()) throw InputError("study parameter 'images': no images");
  if (static_cast<std::int64_t>(out.size()) > max_images)
    out.resize(static_cast<std::size_t>(max_images));
  return out;
}

std::string images_digest(const std::vector<images::Gray12>& imgs) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  for (const auto& im : imgs) {
    mix(im.name.data(), im.name.size());
    mix(&im.width, sizeof im.width);
    mix(&im.height, sizeof im.height);
    mix(im.px.data(), im.px.size() * sizeof(std::uint16_t));
  }
  return fmt::format("{:016x}", h);
}

// Replication factors: "auto" = powers of two 1..cap that fit; an explicit list must fit.
std::vector<std::uint32_t> replication_list(const StudyConfig& cfg, std::uint64_t space,
                                            std::uint64_t pad, Layout layout, std::uint32_t cap,
                                            const std::string& what) {
  std::vector<std::uint32_t> rs;
  const std::uint64_t words = cfg.arch.memory_words();
  if (cfg.params.at("r") == "auto") {
    for (std::uint32_t r = 1; r <= cap; r *= 2)
      if (vote_footprint(layout, space, r, pad) <= words) rs.push_back(r);
    return rs;
  }
  for (std::int64_t r : cfg.integers("r")) {
    if (r < 1) throw InputError(fmt::format("study parameter 'r': {} must be >= 1", r));
    const std::uint64_t need = vote_footprint(layout, space, static_cast<std::uint64_t>(r), pad);
    if (need > words)
      throw InputError(fmt::format(
          "replication R = {} of {} does not fit the shared memory: {} words x 4 B = {} B > {} B",
          r, what, need, need * 4, words * 4));
    rs.push_back(static_cast<std::uint32_t>(r));
  }
  return rs;
}

Arch with_hash(const Arch& a, const std::string& h) {
  Arch b = a;
  b.bank_hash = h;
  if (b.locks != 0) b.lock_hash = h;  // 000 §IV: the same function for banks and for locks
  validate(b);
  return b;
}

namespace {

const std::vector<std::string> kHashes{"mod", "xor", "add"};
struct LayoutDef {
  const char* name;
  Layout layout;
  Mapping mapping;
  std::uint32_t pad;
};
const std::vector<LayoutDef> kLayouts{{"cyclic", Layout::Replication, Mapping::Cyclic, 0},
                                      {"block", Layout::Replication, Mapping::Block, 0},
                                      {"cyclic-pad", Layout::Replication, Mapping::Cyclic, 1},
                                      {"block-pad", Layout::Replication, Mapping::Block, 1},
                                      {"stretch", Layout::Stretch, Mapping::Cyclic, 0}};

class Histogram : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    const int g = static_cast<int>(cfg.integer("generated_size"));
    if (g < 8 || g > 4096) throw InputError("study parameter 'generated_size' must be in 8..4096");
    images_ = resolve_images(cfg, g, g);
    digest_ = images_digest(images_);
    tpb_ = static_cast<std::uint32_t>(cfg.integer("threads_per_block"));
    if (tpb_ < cfg.arch.warp_size || tpb_ % cfg.arch.warp_size)
      throw InputError("study parameter 'threads_per_block' must be a multiple of the warp size");
    const std::vector<std::int64_t> bins = cfg.integers("bins");
    for (auto b : bins)
      if (b < 2 || b > 4096 || !std::has_single_bit(static_cast<std::uint64_t>(b)))
        throw InputError(
            fmt::format("study parameter 'bins': {} is not a power of two in 2..4096", b));
    std::vector<const LayoutDef*> layouts;
    for (const auto& l : cfg.strings("layouts")) {
      const LayoutDef* found = nullptr;
      for (const auto& d : kLayouts)
        if (l == d.name) found = &d;
      if (!found)
        throw InputError(
            fmt::format("study parameter 'layouts': unknown layout '{}' (known: "
                        "cyclic, block, cyclic-pad, block-pad, stretch)",
                        l));
      layouts.push_back(found);
    }
    points_.clear();
    for (std::size_t im = 0; im < images_.size(); ++im)
      for (auto b : bins)
        for (const LayoutDef* l : layouts) {
          auto rs = replication_list(cfg, static_cast<std::uint64_t>(b), l->pad, l->layout, 256,
                                     fmt::format("{} bins ({})", b, l->name));
          if (!rs.empty()) points_.push_back({im, static_cast<std::uint32_t>(b), l, std::move(rs)});
        }
    for (const auto& h : kHashes) arch_[h] = with_hash(cfg.arch, h);
    kernel_ = cfg.backend == "cycle";
    if (kernel_) {
      module_ = load_suite_module("histogram");
      blocks_ = blocks_param(cfg);
    }
  }
  std::vector<std::string> columns() const override {
    return {"image",      "bins",       "layout",      "r",           "warps",    "cycles_mod",
            "cycles_xor", "cycles_add", "speedup_xor", "speedup_add", "lock_mod", "bank_mod"};
  }
  std::size_t size() const override { return points_.size(); }
  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    const images::Gray12& img = images_[p.image];
    const int shift = 12 - std::countr_zero(p.bins);
    const std::uint32_t lanes = cfg_.arch.warp_size;
    // Per access (analytic): all three hashes. Whole kernels (cycle): the analytic evaluation of
    // mod only, for the degree columns.
    std::vector<std::unique_ptr<LatencyBackend>> be;
    for (const auto& h : kHashes) {
      be.push_back(make_backend("analytic", arch_.at(h)));
      if (kernel_) break;
    }
    PointResult out;
    const std::size_t npx = img.px.size();
    for (std::uint32_t r : p.rs) {
      std::int64_t cycles[3] = {0, 0, 0}, lock = 0, bank = 0, warps = 0;
      const auto pixel_word = [&](std::size_t px) {
        const auto tid = static_cast<std::uint32_t>(px % tpb_);
        const std::uint32_t bin = img.px[px] >> shift;
        return vote_address(p.layout->layout, bin, copy_of(p.layout->mapping, tid, r, tpb_), p.bins,
                            r, p.layout->pad);
      };
      for_each_vote_warp(npx, lanes, pixel_word, [&](const WarpAccess& wa) {
        for (std::size_t h = 0; h < be.size(); ++h) {
          const AccessResult res = be[h]->evaluate(wa);
          cycles[h] += res.latency;
          if (h == 0) lock += res.degrees.lock, bank += res.degrees.bank;
        }
        ++warps;
      });
      if (kernel_)
        for (std::size_t h = 0; h < 3; ++h) cycles[h] = run_kernel(img, p, r, kHashes[h]);
      out.accesses += static_cast<std::uint64_t>(3 * warps);
      out.rows.push_back({Value(img.name), Value(std::int64_t{p.bins}),
                          Value(std::string(p.layout->name)), Value(std::int64_t{r}), Value(warps),
                          Value(cycles[0]), Value(cycles[1]), Value(cycles[2]),
                          Value(speedup(cycles[0], cycles[1])),
                          Value(speedup(cycles[0], cycles[2])), Value(double(lock) / double(warps)),
                          Value(double(bank) / double(warps))});
    }
    return out;
  }
  Report report(const Table& t) const override;
  std::string input_digest() const override { return digest_; }

 private:
  struct Point {
    std::size_t image;
    std::uint32_t bins;
    const LayoutDef* layout;
    std::vector<std::uint32_t> rs;
  };
  // Whole-kernel cycles of histogram12 (kernels/histogram.cu) for one image, layout, R and hash;
  // the result is checked against the image's histogram.
  std::int64_t run_kernel(const images::Gray12& img, const Point& p, std::uint32_t r,
                          const std::string& hash) const {
    exec::GlobalMemory mem;
    const std::uint32_t db =
        add_buffer(mem, "data", exec::ElemType::U16, img.px.data(), img.px.size() * 2);
    const std::uint32_t bb =
        add_buffer(mem, "bins", exec::ElemType::U32, nullptr, std::size_t(p.bins) * 4);
    const bool stretch = p.layout->layout == Layout::Stretch;
    const int shift = 12 - std::countr_zero(p.bins);
    exec::Launch l;
    l.grid = {blocks_, 1, 1};
    l.block = {tpb_, 1, 1};
    l.dynamic_shared_bytes =
        static_cast<std::uint32_t>(4 * vote_footprint(p.layout->layout, p.bins, r, p.layout->pad));
    l.args = {exec::Arg::buf(db),
              exec::Arg::integer(std::int64_t(img.px.size())),
              exec::Arg::buf(bb),
              exec::Arg::integer(p.bins),
              exec::Arg::integer(shift),
              exec::Arg::integer(r),
              exec::Arg::integer(p.layout->mapping == Mapping::Block),
              exec::Arg::integer(p.layout->pad),
              exec::Arg::integer(stretch)};
    const std::uint64_t cycles = kernel_cycles(module_, "histogram12", arch_.at(hash), l, mem);
    std::vector<std::uint32_t> want(p.bins, 0);
    for (const std::uint16_t v : img.px) ++want[v >> shift];
    if (std::memcmp(mem.get("bins").bytes.data(), want.data(), want.size() * 4) != 0)
      throw std::runtime_error(
          fmt::format("histogram12 gave a wrong histogram for {} ({} bins, {}, "
                      "R = {})",
                      img.name, p.bins, p.layout->name, r));
    return static_cast<std::int64_t>(cycles);
  }

  StudyConfig cfg_;
  std::vector<images::Gray12> images_;
  std::string digest_;
  std::uint32_t tpb_ = 1024;
  bool kernel_ = false;  // backend = cycle
  ptx::Module module_;
  std::uint32_t blocks_ = 16;
  std::vector<Point> points_;
  std::map<std::string, Arch> arch_;
};

// Sums over images per (layout, bins, r): speed-ups are ratios of summed cycles (all images weigh
// by their pixel count, as one long run over the image set would).
struct Agg {
  double mod = 0, x = 0, a = 0;
};

Report Histogram::report(const Table& t) const {
  Report rep;
  std::map<std::string, std::map<int, std::map<int, Agg>>> agg;  // layout -> bins -> r
  std::set<std::string> names;
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    Agg& g = agg[t.str(k, "layout")][int(t.num(k, "bins"))][int(t.num(k, "r"))];
    g.mod += t.num(k, "cycles_mod");
    g.x += t.num(k, "cycles_xor");
    g.a += t.num(k, "cycles_add");
    names.insert(t.str(k, "image"));
  }
  const std::string metric = kernel_ ? "whole-kernel cycles" : "modeled atomic cycles";
  rep.markdown =
      kernel_ ? fmt::format(
                    "{} images ({}); arch `{}`; backend `cycle`: histogram12 on the "
                    "cycle-level model, {} blocks of {} threads; cycles summed over the "
                    "images.\n\n",
                    names.size(), fmt::join(names, ", "), arch_label(cfg_.arch), blocks_, tpb_)
              : fmt::format(
                    "{} images ({}); arch `{}`; {} threads per block; cycles summed over "
                    "all warps of all images.\n\n",
                    names.size(), fmt::join(names, ", "), arch_label(cfg_.arch), tpb_);
  for (const auto& [layout, by_bins] : agg) {
    // Speed-up table: bins x R (xor / add over mod).
    std::set<int> rset;
    for (const auto& [b, by_r] : by_bins)
      for (const auto& [r, g] : by_r) rset.insert(r);
    std::vector<std::string> header{"bins"};
    for (int r : rset) header.push_back(fmt::format("R={}", r));
    std::vector<std::vector<std::string>> rows;
    double best = 0;
    int best_b = 0, best_r = 0;
    Figure fx{
        fmt::format("fig7_speedup_xor_{}", layout),
        fmt::format("Histogram, {}: speed-up of the XOR hash over mod (seed 000 Fig. 7)", layout),
        "replication factor R", fmt::format("speed-up over mod ({})", metric)};
    fx.logx = true;
    Figure fc{fmt::format("fig9_cycles_{}", layout),
              fmt::format("Histogram, {}: {} with mod (seed 001 Fig. 9)", layout, metric),
              "replication factor R",
              kernel_ ? "kernel cycles (sum over images)"
                      : "shared-memory atomic cycles (sum over warps)"};
    fc.logx = true;
    fc.logy = true;
    for (const auto& [b, by_r] : by_bins) {
      std::vector<std::string> row{fmt::format("{}", b)};
      Series sx{fmt::format("{} bins", b)}, sc{fmt::format("{} bins", b)};
      for (int r : rset) {
        auto it = by_r.find(r);
        if (it == by_r.end()) {
          row.push_back("-");
          continue;
        }
        const double sxo = it->second.mod / it->second.x, sad = it->second.mod / it->second.a;
        row.push_back(fmt::format("{:.2f} / {:.2f}", sxo, sad));
        sx.x.push_back(r);
        sx.y.push_back(sxo);
        sc.x.push_back(r);
        sc.y.push_back(it->second.mod);
        rep.summary["speedup"].push_back({{"layout", layout},
                                          {"bins", b},
                                          {"r", r},
                                          {"xor", sxo},
                                          {"add", sad},
                                          {"cycles_mod", it->second.mod}});
        if (std::max(sxo, sad) > best) best = std::max(sxo, sad), best_b = b, best_r = r;
      }
      rows.push_back(std::move(row));
      fx.series.push_back(std::move(sx));
      fc.series.push_back(std::move(sc));
    }
    rep.summary["max_speedup"][layout] = {{"speedup", best}, {"bins", best_b}, {"r", best_r}};
    rep.markdown += fmt::format("### Layout `{}`: speed-up XOR / ADD over mod\n\n", layout);
    rep.markdown += md_table(header, rows);
    rep.markdown += fmt::format("\nMaximum: {:.2f}x at {} bins, R = {}.\n\n", best, best_b, best_r);
    rep.figures.push_back(std::move(fx));
    rep.figures.push_back(std::move(fc));
  }
  rep.markdown +=
      "Seed 000 §V.B reports, on GPGPU-Sim with Stanford 12-bit images: hash speed-up growing with "
      "R, up to 4.91x at 256 bins and R = 32 for replication; up to 1.79x with padding, where XOR "
      "slows the 32-bin histogram and ADD does not; up to 1.80x with bin-stretching. ";
  rep.markdown += kernel_ ? "Our numbers are whole-kernel cycles of the cycle-level model "
                            "(docs/timing.md, docs/studies.md).\n"
                          : "Our numbers are the modeled shared-memory atomic time only (no "
                            "global loads, no interwarp overlap), so they are an upper bound on "
                            "whole-kernel speed-ups (docs/studies.md).\n";
  return rep;
}

}  // namespace

StudyInfo histogram_info() {
  return {
      "histogram",
      "Histograms of 12-bit photographs: bins 32..4096, R 1..256 within memory, replication "
      "(cyclic, block), replication + padding, bin-stretching; bank/lock hash mod/xor/add",
      "seed 000 §V.B, Fig. 7; seed 001 §4.2, Fig. 9",
      {{"images", "cache", "generated",
        "image files, folders, 'cache' (scripts/fetch-images.sh) or 'generated'"},
       {"max_images", "10", "3", "at most this many images"},
       {"generated_size", "512", "128", "side of generated test images"},
       {"bins", "32,64,128,256,512,1024,2048,4096", "32,256", "histogram sizes (powers of 2)"},
       {"r", "auto", "auto", "replication factors; auto = 1,2,4..256 that fit"},
       {"layouts", "cyclic,block,cyclic-pad,block-pad,stretch", "cyclic,block,cyclic-pad,stretch",
        "vote-space layouts"},
       {"threads_per_block", "1024", "1024", "N of 001 Eq. 2 (ThId = pixel % N)"},
       {"seed", "1", "1", "study seed (generated images)"},
       {"backend", "analytic", "analytic",
        "analytic (modeled atomic time per access) or cycle (whole kernels on the cycle model)"},
       {"blocks", "16", "16", "thread blocks of the kernel (backend=cycle; 001 §4.2: 16)"}},
      [] { return std::make_unique<Histogram>(); },
      true};
}

}  // namespace smemsim::study

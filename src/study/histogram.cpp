// Histogram study: seed 000 §V.B (Fig. 7) and seed 001 §4.2 (Fig. 9).
//
// Each image is converted to 12-bit grayscale (seed 000 §V.B; images.hpp) and brought to
// `size` (000: 1,536 x 1,024) by a centred crop and area averaging (images::fit). A thread block of
// N = 1024 threads (001 §4.2: "16 blocks of 1,024 threads") votes pixels in raster order; pixel p
// is taken by thread ThId = p % N and each warp votes 32 consecutive pixels (a coalesced read, 001
// §4.2.1). A pixel's bin is its value >> (12 - log2(bins)). The vote space is replicated R times:
//   cyclic / block      R sub-histograms one after another, copy by 001 Eq. 1 / Eq. 2;
//   cyclic-pad / block-pad  the same with 1 word of padding between copies (001 §4.2, 000 §V.B);
//   stretch             our bin-stretching layout: bin b of copy c at b*R + c, copy cyclic (000
//                       §V.B cites [2] for bin-stretching but does not define it; voting.hpp).
// R ranges over powers of two 1..256 within the shared memory (000 §V.B: 4 bytes x bins x R <= 48
// KiB). The metric, for the bank/lock hashes mod, xor and add (000 Table I; xor and add with the
// lock hash under the arch's reading and under `all`, voting.hpp), and the speed-up of each hash
// over mod: with backend = analytic the modeled shared-memory atomic time, the sum over warps of
// the per-warp latency; with backend = cycle the whole-kernel cycles of kernels/histogram.cu's
// histogram12 (the same pixels, threads and layouts; `blocks` blocks of threads_per_block threads)
// on the cycle-level GPU model.
#include "histogram.hpp"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "studies.hpp"

namespace smemsim::study {
namespace {

const std::vector<HistogramLayout> kLayouts{{"cyclic", Layout::Replication, Mapping::Cyclic, 0},
                                            {"block", Layout::Replication, Mapping::Block, 0},
                                            {"cyclic-pad", Layout::Replication, Mapping::Cyclic, 1},
                                            {"block-pad", Layout::Replication, Mapping::Block, 1},
                                            {"stretch", Layout::Stretch, Mapping::Cyclic, 0}};

// Parameter 'size': "native" (0 x 0) or WxH.
std::pair<int, int> parse_size(const std::string& s) {
  if (s == "native") return {0, 0};
  const auto x = s.find('x');
  int w = 0, h = 0;
  try {
    if (x == std::string::npos) throw InputError("");
    w = static_cast<int>(std::stol(s.substr(0, x)));
    h = static_cast<int>(std::stol(s.substr(x + 1)));
  } catch (const std::exception&) {
    w = 0;
  }
  if (w < 8 || h < 8 || w > 8192 || h > 8192 || fmt::format("{}x{}", w, h) != s)
    throw InputError(fmt::format(
        "study parameter 'size': '{}' is not native or WxH with W and H in 8..8192", s));
  return {w, h};
}

}  // namespace

void Histogram::configure(const StudyConfig& cfg) {
  cfg_ = cfg;
  const int g = static_cast<int>(cfg.integer("generated_size"));
  if (g < 8 || g > 4096) throw InputError("study parameter 'generated_size' must be in 8..4096");
  std::tie(width_, height_) = parse_size(cfg.params.at("size"));
  images_ = width_ ? resolve_images(cfg, width_, height_) : resolve_images(cfg, g, g);
  if (width_)
    for (auto& im : images_) im = images::fit(im, width_, height_);
  digest_ = images_digest(images_);
  tpb_ = static_cast<std::uint32_t>(cfg.integer("threads_per_block"));
  if (tpb_ < cfg.arch.warp_size || tpb_ % cfg.arch.warp_size)
    throw InputError("study parameter 'threads_per_block' must be a multiple of the warp size");
  const std::vector<std::int64_t> bins = cfg.integers("bins");
  for (auto b : bins)
    if (b < 2 || b > 4096 || !std::has_single_bit(static_cast<std::uint64_t>(b)))
      throw InputError(
          fmt::format("study parameter 'bins': {} is not a power of two in 2..4096", b));
  std::vector<const HistogramLayout*> layouts;
  for (const auto& l : cfg.strings("layouts")) {
    const HistogramLayout* found = nullptr;
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
      for (const HistogramLayout* l : layouts) {
        auto rs = replication_list(cfg, static_cast<std::uint64_t>(b), l->pad, l->layout, 256,
                                   fmt::format("{} bins ({})", b, l->name));
        if (!rs.empty()) points_.push_back({im, static_cast<std::uint32_t>(b), l, std::move(rs)});
      }
  arch_.clear();
  for (const HashVariant& v : hash_variants()) arch_.push_back(with_hash(cfg.arch, v));
  alias_ = variant_aliases(arch_);
  kernel_ = cfg.backend == "cycle";
  if (kernel_) {
    module_ = load_suite_module("histogram");
    blocks_ = blocks_param(cfg);
  }
}

std::vector<std::string> Histogram::columns() const {
  std::vector<std::string> c{"image", "bins", "layout", "r", "warps"};
  for (const HashVariant& v : hash_variants()) c.push_back(fmt::format("cycles_{}", v.column));
  for (const HashVariant& v : hash_variants())
    if (std::string_view(v.hash) != "mod") c.push_back(fmt::format("speedup_{}", v.column));
  c.push_back("lock_mod");
  c.push_back("bank_mod");
  return c;
}

PointResult Histogram::run_point(std::size_t i) const {
  const Point& p = points_[i];
  const images::Gray12& img = images_[p.image];
  const int shift = 12 - std::countr_zero(p.bins);
  const std::uint32_t lanes = cfg_.arch.warp_size;
  const std::size_t nv = hash_variants().size();
  // Per access (analytic): every distinct variant. Whole kernels (cycle): the analytic evaluation
  // of mod only, for the degree columns.
  std::vector<std::unique_ptr<LatencyBackend>> be(nv);
  for (std::size_t v = 0; v < nv; ++v)
    if (alias_[v] == v && (!kernel_ || v == 0)) be[v] = make_backend("analytic", arch_[v]);
  PointResult out;
  const std::size_t npx = img.px.size();
  for (std::uint32_t r : p.rs) {
    std::vector<std::int64_t> cycles(nv, 0);
    std::int64_t lock = 0, bank = 0, warps = 0;
    const auto pixel_word = [&](std::size_t px) {
      const auto tid = static_cast<std::uint32_t>(px % tpb_);
      const std::uint32_t bin = img.px[px] >> shift;
      return vote_address(p.layout->layout, bin, copy_of(p.layout->mapping, tid, r, tpb_), p.bins,
                          r, p.layout->pad);
    };
    for_each_vote_warp(npx, lanes, pixel_word, [&](const WarpAccess& wa) {
      for (std::size_t v = 0; v < nv; ++v) {
        if (!be[v]) continue;
        const AccessResult res = be[v]->evaluate(wa);
        cycles[v] += res.latency;
        if (v == 0) lock += res.degrees.lock, bank += res.degrees.bank;
      }
      ++warps;
    });
    for (std::size_t v = 0; v < nv; ++v) {
      if (alias_[v] != v)
        cycles[v] = cycles[alias_[v]];
      else if (kernel_)
        cycles[v] = run_kernel(img, p, r, v);
    }
    out.accesses += static_cast<std::uint64_t>(warps) * nv;
    Row row{Value(img.name), Value(std::int64_t{p.bins}), Value(std::string(p.layout->name)),
            Value(std::int64_t{r}), Value(warps)};
    for (std::size_t v = 0; v < nv; ++v) row.emplace_back(std::int64_t{cycles[v]});
    for (std::size_t v = 1; v < nv; ++v) row.emplace_back(double(speedup(cycles[0], cycles[v])));
    row.push_back(Value(double(lock) / double(warps)));
    row.push_back(Value(double(bank) / double(warps)));
    out.rows.push_back(std::move(row));
  }
  return out;
}

// Whole-kernel cycles of histogram12 (kernels/histogram.cu) for one image, layout, R and hash
// variant; the result is checked against the image's histogram.
std::int64_t Histogram::run_kernel(const images::Gray12& img, const Point& p, std::uint32_t r,
                                   std::size_t variant) const {
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
  const std::uint64_t cycles = kernel_cycles(module_, "histogram12", arch_[variant], l, mem);
  std::vector<std::uint32_t> want(p.bins, 0);
  for (const std::uint16_t v : img.px) ++want[v >> shift];
  if (std::memcmp(mem.get("bins").bytes.data(), want.data(), want.size() * 4) != 0)
    throw std::runtime_error(
        fmt::format("histogram12 gave a wrong histogram for {} ({} bins, {}, R = {})", img.name,
                    p.bins, p.layout->name, r));
  return static_cast<std::int64_t>(cycles);
}

StudyInfo histogram_info() {
  return {
      "histogram",
      "Histograms of 12-bit gray images (by default the photographs of scripts/fetch-images.sh at "
      "1,536 x 1,024; --quick: generated ones; the report says which ran): bins 32..4096, R "
      "1..256 within memory, "
      "replication (cyclic, block), replication + padding, our bin-stretching layout; bank/lock "
      "hash mod/xor/add, the lock hash under the arch's reading and under `all`",
      "seed 000 §V.B, Fig. 7; seed 001 §4.2, Fig. 9",
      {{"images", "cache/mate-nature", "generated",
        "image files, folders, 'cache', 'cache/FILE', 'cache/FOLDER' (scripts/fetch-images.sh) "
        "or 'generated'"},
       {"max_images", "11", "3", "at most this many images"},
       {"size", "1536x1024", "native",
        "WxH: each image cropped to that aspect and area-averaged to it (000 §V.B: 1536x1024); "
        "native: as decoded"},
       {"generated_size", "512", "128", "side of generated test images when size = native"},
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

// Built-in drivers of the kernel suite (kernels/*.cu): seeded inputs, the launch the kernel's
// header comment documents, and a CPU reference written from the kernel's specification (not from
// its PTX). Integers compare bit-exact; float tolerances are given per driver (docs/exec.md).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "smemsim/error.hpp"
#include "smemsim/images.hpp"
#include "smemsim/workloads.hpp"
#include "util/names.hpp"
#include "util/rng.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

void load_ptx(Workload& w, const std::string& dir, const std::string& stem) {
  w.module = load_suite_ptx(dir.empty() ? suite_ptx_dir() : dir, stem, w.name);
}

// ---- input images: generated, or photographs through the images library --------------------

// A photograph as 8-bit gray: a file (any format stb reads) or a NAME in the image cache that
// scripts/fetch-images.sh fills (camera, moon, coins, building, sudoku, ...).
std::optional<std::vector<std::uint8_t>> load_photo(const std::string& kind, std::uint32_t& w,
                                                    std::uint32_t& h) {
  std::string path;
  if (std::filesystem::is_regular_file(kind)) {
    path = kind;
  } else {
    for (const std::string& f : images::list_images(images::default_image_dir()))
      if (std::filesystem::path(f).stem() == kind) path = f;
  }
  if (path.empty()) return std::nullopt;
  const images::Gray12 g = images::load_gray12(path);
  w = static_cast<std::uint32_t>(g.width);
  h = static_cast<std::uint32_t>(g.height);
  std::vector<std::uint8_t> px(g.px.size());
  for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>(g.px[i] >> 4);
  return px;
}

// gradient: a diagonal ramp; noise: uniform random; blobs: three soft discs over mild noise (a
// histogram with a few dominant bins, as natural images have).
std::vector<std::uint8_t> make_image(const std::string& kind, std::uint32_t& w, std::uint32_t& h,
                                     std::uint64_t seed) {
  if (kind != "gradient" && kind != "noise" && kind != "blobs")
    if (auto photo = load_photo(kind, w, h)) return *std::move(photo);
  std::vector<std::uint8_t> px(std::size_t(w) * h);
  Rng rng(seed);
  if (kind == "gradient") {
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x)
        px[std::size_t(y) * w + x] =
            static_cast<std::uint8_t>((x + y) * 255 / std::max(1u, w + h - 2));
  } else if (kind == "noise") {
    for (auto& p : px) p = static_cast<std::uint8_t>(rng.below(256));
  } else if (kind == "blobs") {
    double cx[3], cy[3], r[3], level[3];
    for (int i = 0; i < 3; ++i) {
      cx[i] = rng.uniform() * w;
      cy[i] = rng.uniform() * h;
      r[i] = (0.15 + 0.2 * rng.uniform()) * std::min(w, h);
      level[i] = 40 + 200 * rng.uniform();
    }
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) {
        double v = 20;
        for (int i = 0; i < 3; ++i)
          if (std::hypot(x - cx[i], y - cy[i]) < r[i]) v = level[i];
        v += double(rng.below(9)) - 4;
        px[std::size_t(y) * w + x] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
      }
  } else {
    throw InputError(fmt::format(
        "unknown image '{}' (generated: gradient, noise, blobs; an image file; or the name of a "
        "photograph in {} -- run scripts/fetch-images.sh to fetch camera, moon, coins, ...)",
        kind, images::default_image_dir()));
  }
  return px;
}

// ---- drivers -----------------------------------------------------------------------------------

// Seed 001 §3.3/§4.2, seed 000 §V.B: replicated sub-histograms.
void histogram(Workload& w, const BuiltinOptions& o) {
  const std::uint32_t bins = o.bins, r = or_default(o.replication, 1);
  if (bins == 0 || bins > 256) throw InputError("builtin:histogram: --bins must be in 1..256");
  if (o.mapping != "cyclic" && o.mapping != "block")
    throw InputError("builtin:histogram: --mapping must be cyclic or block");
  std::uint32_t iw = or_default(o.width, 128), ih = or_default(o.height, 128);
  const std::string image = o.image.empty() ? "gradient" : o.image;
  // A generated image: its pixels, their buffer and the reference's copy (a photograph's size is
  // its file's).
  if (image == "gradient" || image == "noise" || image == "blobs")
    check_budget(o, "histogram", 3.0 * iw * ih, fmt::format("a {}x{} image", iw, ih),
                 "--width/--height");
  const std::vector<std::uint8_t> px = make_image(image, iw, ih, o.seed);
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {8, 1, 1});
  w.launch.dynamic_shared_bytes = r * (bins + o.padding) * 4;
  const auto data = w.memory.add(make_buffer("data", ElemType::U8, px));
  const auto out =
      w.memory.add(make_buffer("bins", ElemType::U32, std::vector<std::uint32_t>(bins, 0)));
  w.launch.args = {Arg::buf(data),         Arg::integer(std::int64_t(px.size())),
                   Arg::buf(out),          Arg::integer(bins),
                   Arg::integer(r),        Arg::integer(o.mapping == "block"),
                   Arg::integer(o.padding)};
  w.description = fmt::format(
      "histogram of a {}x{} '{}' image: {} bins, replication {}, {} mapping, padding {}", iw, ih,
      image, bins, r, o.mapping, o.padding);
  w.check = [px, bins](const GlobalMemory& m) {
    std::vector<std::uint32_t> want(bins, 0);
    for (std::uint8_t v : px) ++want[std::size_t(v) * bins / 256];
    return compare_exact("bins", read_buffer<std::uint32_t>(m, "bins"), want);
  };
}

// Seed 002 §3.2.1-2: 16x16 tiles (16x16 threads), naive or padded; and the CUDA SDK's 32x32 tiles
// (32x8 threads), naive32 or padded32.
void transpose(Workload& w, const BuiltinOptions& o) {
  const std::string v = o.variant.empty() ? "naive" : o.variant;
  if (v != "naive" && v != "padded" && v != "naive32" && v != "padded32")
    throw InputError("builtin:transpose: --variant must be naive, padded, naive32 or padded32");
  const bool wide = v.ends_with("32");
  const std::uint32_t tile = wide ? 32 : 16, rows = wide ? 8 : 16;
  w.kernel = wide ? "transpose32_" + v.substr(0, v.size() - 2) : "transpose_" + v;
  const std::uint32_t W = or_default(o.width, 64), H = or_default(o.height, 64);
  if (W % tile || H % tile)
    throw InputError(
        fmt::format("builtin:transpose: --width and --height must be multiples of {}", tile));
  const Dim3 block = shape_or(o.block, {tile, rows, 1});
  if (block.x != tile || block.y != rows || block.z != 1)
    throw InputError(
        fmt::format("builtin:transpose: the {} kernel's tile needs --block {},{}", v, tile, rows));
  w.launch.block = block;
  w.launch.grid = shape_or(o.grid, {W / tile, H / tile, 1});
  if (w.launch.grid.x != W / tile || w.launch.grid.y != H / tile)
    throw InputError(fmt::format("builtin:transpose: a {}x{} matrix needs --grid {},{}", W, H,
                                 W / tile, H / tile));
  // The input, both buffers, the reference's copy and its transposed words: 5 x 4 bytes.
  check_budget(o, "transpose", 20.0 * W * H, fmt::format("a {}x{} matrix", W, H),
               "--width/--height");
  Rng rng(o.seed);
  std::vector<float> in(std::size_t(W) * H);
  for (auto& x : in) x = static_cast<float>(rng.uniform() * 2 - 1);
  const auto od =
      w.memory.add(make_buffer("odata", ElemType::F32, std::vector<float>(in.size(), 0.f)));
  const auto id = w.memory.add(make_buffer("idata", ElemType::F32, in));
  w.launch.args = {Arg::buf(od), Arg::buf(id), Arg::integer(W), Arg::integer(H)};
  w.description = fmt::format("{} of a {}x{} float matrix", w.kernel, W, H);
  w.check = [in, W, H](const GlobalMemory& m) {
    // odata is H wide: element (row x, column y) = idata (row y, column x). Bit-exact (a copy).
    std::vector<std::uint32_t> want(in.size());
    for (std::uint32_t y = 0; y < H; ++y)
      for (std::uint32_t x = 0; x < W; ++x)
        want[std::size_t(x) * H + y] = std::bit_cast<std::uint32_t>(in[std::size_t(y) * W + x]);
    return compare_exact("odata(bits)", read_buffer<std::uint32_t>(m, "odata"), want);
  };
}

// Seed 002 §3.2.3: block sums, interleaved (2*S*tx) or sequential addressing.
void reduction(Workload& w, const BuiltinOptions& o) {
  const std::string v = o.variant.empty() ? "interleaved" : o.variant;
  if (v != "interleaved" && v != "sequential")
    throw InputError("builtin:reduction: --variant must be interleaved or sequential");
  w.kernel = "reduce_" + v;
  w.launch.block = shape_or(o.block, {256, 1, 1});
  const std::uint32_t T = static_cast<std::uint32_t>(w.launch.block.count());
  if (!std::has_single_bit(T) || w.launch.block.y != 1 || w.launch.block.z != 1)
    throw InputError("builtin:reduction: --block must be one power-of-two dimension");
  const std::uint32_t n = or_default(o.size, 4096);
  w.launch.grid = shape_or(o.grid, {(n + T - 1) / T, 1, 1});
  // The input, its buffer and the reference's copy (12 bytes an element); the sums and their
  // reference (8 bytes a block).
  check_budget(o, "reduction", 12.0 * n + 8.0 * double(w.launch.grid.count()),
               fmt::format("{} ints in {} blocks", n, w.launch.grid.count()), "--size or --grid");
  const std::uint32_t blocks = static_cast<std::uint32_t>(w.launch.grid.count());
  w.launch.dynamic_shared_bytes = T * 4;
  Rng rng(o.seed);
  std::vector<std::int32_t> in(n);
  for (auto& x : in) x = static_cast<std::int32_t>(rng.below(2001)) - 1000;
  const auto ib = w.memory.add(make_buffer("in", ElemType::S32, in));
  const auto ob =
      w.memory.add(make_buffer("out", ElemType::S32, std::vector<std::int32_t>(blocks, 0)));
  w.launch.args = {Arg::buf(ib), Arg::buf(ob), Arg::integer(n)};
  w.description = fmt::format("reduce_{} of {} ints in blocks of {}", v, n, T);
  w.check = [in, T, blocks](const GlobalMemory& m) {
    std::vector<std::int32_t> want(blocks, 0);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint64_t i = std::uint64_t(b) * T; i < std::uint64_t(b + 1) * T && i < in.size();
           ++i)
        want[b] += in[i];
    return compare_exact("out", read_buffer<std::int32_t>(m, "out"), want);
  };
}

// Seed 002 §3.2.4: Fast Walsh Transform of one 2^log2n segment per block (natural order).
void fwt(Workload& w, const BuiltinOptions& o) {
  const std::uint32_t log2n = or_default(o.log2n, 11);
  if (log2n < 2 || log2n > 13) throw InputError("builtin:fwt: --log2n must be in 2..13");
  const std::uint32_t n = 1u << log2n;
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {2, 1, 1});
  check_budget(o, "fwt", 12.0 * n * double(w.launch.grid.count()),
               fmt::format("{} segments of 2^{} floats", w.launch.grid.count(), log2n),
               "--grid or --log2n");
  const std::uint32_t segs = static_cast<std::uint32_t>(w.launch.grid.count());
  w.launch.dynamic_shared_bytes = n * 4;
  Rng rng(o.seed);
  std::vector<float> in(std::size_t(n) * segs);
  for (auto& x : in) x = static_cast<float>(rng.uniform() * 2 - 1);
  const auto db = w.memory.add(make_buffer("data", ElemType::F32, in));
  w.launch.args = {Arg::buf(db), Arg::integer(log2n)};
  w.description = fmt::format("fwt of {} segments of 2^{} floats", segs, log2n);
  w.tolerance = "|got - ref| <= 1e-5 * N * max|input| (ref: the Walsh-Hadamard sum in double)";
  w.check = [in, n, segs](const GlobalMemory& m) {
    const std::vector<float> got = read_buffer<float>(m, "data");
    std::string out;
    std::size_t bad = 0;
    for (std::uint32_t s = 0; s < segs; ++s) {
      const float* x = in.data() + std::size_t(s) * n;
      double mx = 0;
      for (std::uint32_t j = 0; j < n; ++j) mx = std::max(mx, std::fabs(double(x[j])));
      const double tol = 1e-5 * n * mx;
      for (std::uint32_t k = 0; k < n; ++k) {
        double ref = 0;  // H[k] = sum_j x[j] * (-1)^popcount(j & k)
        for (std::uint32_t j = 0; j < n; ++j)
          ref += (std::popcount(j & k) & 1) ? -double(x[j]) : double(x[j]);
        const double g = got[std::size_t(s) * n + k];
        if (!(std::fabs(g - ref) <= tol) && ++bad <= 5)
          out += fmt::format("data[{}] = {}, the CPU reference has {}; ", std::size_t(s) * n + k, g,
                             ref);
      }
    }
    if (bad) out += fmt::format("{} elements outside the tolerance", bad);
    return out;
  };
}

// Seed 001 §4.1: k-means centroid update with replicated vote spaces, float shared atomics.
void kmeans(Workload& w, const BuiltinOptions& o) {
  const std::uint32_t n = or_default(o.size, 4096), k = or_default(o.k, 8),
                      dims = or_default(o.dims, 2);
  const std::uint32_t r = or_default(o.replication, 4);
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {4, 1, 1});
  // Objects and memberships, each with its buffer and the reference's copy (12 bytes a value);
  // the sums with the reference's sums and magnitudes in double (20 bytes a value).
  check_budget(o, "kmeans", 12.0 * n * (double(dims) + 1) + 20.0 * k * double(dims),
               fmt::format("{} objects of {} dims and {} clusters", n, dims, k),
               "--size, --dims or --k");
  w.launch.dynamic_shared_bytes = r * k * (1 + dims) * 4;
  Rng rng(o.seed);
  std::vector<float> obj(std::size_t(n) * dims);
  for (auto& x : obj) x = static_cast<float>(rng.uniform());
  std::vector<std::int32_t> mem(n);
  for (auto& c : mem) c = static_cast<std::int32_t>(rng.below(k));
  const auto ob = w.memory.add(make_buffer("objects", ElemType::F32, obj));
  const auto mb = w.memory.add(make_buffer("membership", ElemType::S32, mem));
  const auto cb =
      w.memory.add(make_buffer("counts", ElemType::U32, std::vector<std::uint32_t>(k, 0)));
  const auto sb = w.memory.add(
      make_buffer("sums", ElemType::F32, std::vector<float>(std::size_t(k) * dims, 0.f)));
  w.launch.args = {Arg::buf(ob),       Arg::buf(mb),    Arg::integer(n),
                   Arg::integer(dims), Arg::integer(k), Arg::integer(r),
                   Arg::integer(0),    Arg::buf(cb),    Arg::buf(sb)};
  w.description =
      fmt::format("kmeans_update of {} objects x {} dims, k = {}, replication {}", n, dims, k, r);
  w.tolerance = "counts exact; |sum - ref| <= 1e-5 * (sum of |x| over the cluster) + 1e-6";
  w.check = [obj, mem, k, dims](const GlobalMemory& m) {
    std::vector<std::uint32_t> cnt(k, 0);
    std::vector<double> sum(std::size_t(k) * dims, 0), mag(std::size_t(k) * dims, 0);
    for (std::size_t i = 0; i < mem.size(); ++i) {
      ++cnt[std::size_t(mem[i])];
      for (std::uint32_t d = 0; d < dims; ++d) {
        sum[std::size_t(mem[i]) * dims + d] += obj[i * dims + d];
        mag[std::size_t(mem[i]) * dims + d] += std::fabs(obj[i * dims + d]);
      }
    }
    std::string out = compare_exact("counts", read_buffer<std::uint32_t>(m, "counts"), cnt);
    const std::vector<float> got = read_buffer<float>(m, "sums");
    for (std::size_t i = 0; i < sum.size(); ++i)
      if (!(std::fabs(got[i] - sum[i]) <= 1e-5 * mag[i] + 1e-6))
        out += fmt::format("sums[{}] = {}, the CPU reference has {}; ", i, got[i], sum[i]);
    return out;
  };
}

// Seed 000 §V.C: Hough voting of edge pixels, one angle per block.
void hough(Workload& w, const BuiltinOptions& o) {
  std::uint32_t W = or_default(o.width, 64), H = or_default(o.height, 64);
  const std::uint32_t r = or_default(o.replication, 8);
  {
    // The accumulator (buffer and the reference's copy, and the per-angle bins of the check: 16
    // bytes a bin), the points (3 x 8 bytes; random lines give about 9 per column) and a
    // generated image (3 bytes a pixel).
    const double bins = double(shape_or(o.grid, {32, 1, 1}).x) * (2 * std::hypot(W, H) + 2);
    const bool generated = o.image == "gradient" || o.image == "noise" || o.image == "blobs";
    check_budget(o, "hough", 16.0 * bins + 24.0 * 9 * W + (generated ? 3.0 * W * H : 0.0),
                 fmt::format("a {}x{} image", W, H), "--width/--height or --grid");
  }
  Rng rng(o.seed);
  std::vector<std::int32_t> xs, ys;
  if (!o.image.empty()) {
    // An image's Sobel edges, as the hough study finds them (threshold 200 on the 8-bit scale).
    const std::vector<std::uint8_t> px = make_image(o.image, W, H, o.seed);
    images::Gray12 g;
    g.width = int(W);
    g.height = int(H);
    g.px.assign(px.begin(), px.end());
    for (auto& v : g.px) v = static_cast<std::uint16_t>(v << 4);
    for (const images::EdgePixel& e : images::sobel_edges(g, 200)) {
      xs.push_back(e.x);
      ys.push_back(e.y);
    }
    if (xs.empty())
      throw InputError(fmt::format("builtin:hough: image '{}' has no edges", o.image));
  }
  // Without an image: points on four random lines, plus 10% random points.
  for (int line = 0; o.image.empty() && line < 4; ++line) {
    const double x0 = rng.uniform() * W, y0 = rng.uniform() * H, a = rng.uniform() * 3.14159;
    for (int t = -int(W); t < int(W); ++t) {
      const long x = std::lround(x0 + t * std::cos(a)), y = std::lround(y0 + t * std::sin(a));
      if (x < 0 || y < 0 || x >= long(W) || y >= long(H)) continue;
      xs.push_back(std::int32_t(x));
      ys.push_back(std::int32_t(y));
    }
  }
  const std::size_t extra = o.image.empty() ? xs.size() / 10 + 1 : 0;
  for (std::size_t i = 0; i < extra; ++i) {
    xs.push_back(std::int32_t(rng.below(W)));
    ys.push_back(std::int32_t(rng.below(H)));
  }
  const std::uint32_t diag =
      static_cast<std::uint32_t>(std::ceil(std::hypot(double(W), double(H))));
  const std::uint32_t num_rho = 2 * diag + 2;
  const float offset = static_cast<float>(diag);
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {32, 1, 1});
  const std::uint32_t thetas = w.launch.grid.x;
  if (w.launch.grid.y != 1 || w.launch.grid.z != 1)
    throw InputError("builtin:hough: --grid is one dimension (angles)");
  w.launch.dynamic_shared_bytes = r * num_rho * 4;
  const auto xb = w.memory.add(make_buffer("xs", ElemType::S32, xs));
  const auto yb = w.memory.add(make_buffer("ys", ElemType::S32, ys));
  const auto ab = w.memory.add(make_buffer(
      "accumulator", ElemType::U32, std::vector<std::uint32_t>(std::size_t(thetas) * num_rho, 0)));
  w.launch.args = {Arg::buf(xb),          Arg::buf(yb),      Arg::integer(std::int64_t(xs.size())),
                   Arg::integer(num_rho), Arg::real(offset), Arg::integer(r),
                   Arg::integer(0),       Arg::buf(ab)};
  w.description = fmt::format(
      "hough_vote of {} edge pixels of a {}x{} image, {} angles x {} rho bins, replication {}",
      xs.size(), W, H, thetas, num_rho, r);
  w.tolerance = "a vote whose rho (double) is within 0.01 of a bin boundary may land in either bin";
  w.check = [xs, ys, thetas, num_rho, offset](const GlobalMemory& m) {
    const std::vector<std::uint32_t> got = read_buffer<std::uint32_t>(m, "accumulator");
    std::string out;
    for (std::uint32_t t = 0; t < thetas; ++t) {
      const float theta = float(t) * (3.14159265358979f / float(thetas));
      std::vector<std::uint32_t> sure(num_rho, 0), maybe(num_rho, 0);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const double rho =
            xs[i] * std::cos(double(theta)) + ys[i] * std::sin(double(theta)) + offset;
        const double fl = std::floor(rho);
        if (std::fabs(rho - fl - 0.5) < 0.01) {  // rounds either way
          ++maybe[std::size_t(fl)];
          ++maybe[std::size_t(fl) + 1];
        } else {
          ++sure[std::size_t(std::lround(rho))];
        }
      }
      for (std::uint32_t b = 0; b < num_rho; ++b) {
        const std::uint32_t g = got[std::size_t(t) * num_rho + b];
        if (g < sure[b] || g > sure[b] + maybe[b]) {
          out += fmt::format("accumulator[{}][{}] = {}, the CPU reference has {}..{}; ", t, b, g,
                             sure[b], sure[b] + maybe[b]);
          return out;
        }
      }
    }
    return out;
  };
}

// Seed 000 §III Eq. 1: index(id) = id * stride if id < conflicts, else id.
void atomic_bench(Workload& w, const BuiltinOptions& o) {
  const std::uint32_t it = or_default(o.iterations, 4);
  // The kernel's parameters are ints: values past INT_MAX would wrap into another launch.
  check_param("atomic_bench", "--iterations", it, 1u << 20);
  check_param("atomic_bench", "--conflicts", o.conflicts, 0x7fffffffu);
  check_param("atomic_bench", "--stride", o.stride, 0x7fffffffu);
  w.launch.block = shape_or(o.block, {32, 1, 1});
  w.launch.grid = shape_or(o.grid, {1, 1, 1});
  // Two buffers of a word per thread, and the reference's (12 bytes a thread).
  check_budget(
      o, "atomic_bench", 12.0 * double(w.launch.block.count()) * double(w.launch.grid.count()),
      fmt::format("{} blocks of {} threads", w.launch.grid.count(), w.launch.block.count()),
      "--grid");
  const std::uint32_t T = static_cast<std::uint32_t>(w.launch.block.count());
  const std::uint32_t blocks = static_cast<std::uint32_t>(w.launch.grid.count());
  const auto ob = w.memory.add(
      make_buffer("out", ElemType::U32, std::vector<std::uint32_t>(std::size_t(T) * blocks, 0)));
  const auto cb = w.memory.add(
      make_buffer("cycles", ElemType::U32, std::vector<std::uint32_t>(std::size_t(T) * blocks, 0)));
  w.launch.args = {Arg::buf(ob), Arg::buf(cb), Arg::integer(o.conflicts), Arg::integer(o.stride),
                   Arg::integer(it)};
  w.description =
      fmt::format("atomic_bench (seed 000 Eq. 1): conflicts {}, stride {}, {} iterations",
                  o.conflicts, o.stride, it);
  // The kernel's own clock() measurement (cycles under `sim`; under `run` %clock counts
  // instructions).
  w.report = [](const GlobalMemory& m) {
    const auto c = read_buffer<std::uint32_t>(m, "cycles");
    return fmt::format(
        "clock() in the kernel: {} cycles from an atomicAdd's issue to its result "
        "(thread 0, fastest of the iterations; buffer 'cycles' has every thread's)",
        c.empty() ? 0 : c[0]);
  };
  const std::uint32_t c = o.conflicts, s = o.stride;
  w.check = [T, blocks, c, s, it](const GlobalMemory& m) {
    auto index = [&](std::uint32_t id) {
      return id < c ? std::uint64_t(id) * s : std::uint64_t(id);
    };
    std::vector<std::uint32_t> want(std::size_t(T) * blocks);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t id = 0; id < T; ++id) {
        std::uint32_t sharing = 0;
        for (std::uint32_t j = 0; j < T; ++j) sharing += index(j) == index(id);
        want[std::size_t(b) * T + id] = sharing * it;
      }
    return compare_exact("out", read_buffer<std::uint32_t>(m, "out"), want);
  };
}

// Seed 002 §2: GenIndex pointer chase through shared memory (init[i] = i).
void genindex(Workload& w, const BuiltinOptions& o) {
  constexpr std::uint32_t kWords = 4096;  // GENINDEX_WORDS in kernels/genindex.cu
  const std::uint32_t stride = or_default(o.stride, 1), rep = or_default(o.repeat, 8);
  check_param("genindex", "--repeat", rep, 1u << 20);
  check_param("genindex", "--stride", stride, 0x7fffffffu);
  check_param("genindex", "--way", o.way, 0x7fffffffu);
  w.launch.block = shape_or(o.block, {32, 1, 1});
  w.launch.grid = shape_or(o.grid, {1, 1, 1});
  check_budget(
      o, "genindex", 8.0 * double(w.launch.block.count()) * double(w.launch.grid.count()),
      fmt::format("{} blocks of {} threads", w.launch.grid.count(), w.launch.block.count()),
      "--grid");
  const std::uint32_t T = static_cast<std::uint32_t>(w.launch.block.count());
  const std::uint32_t blocks = static_cast<std::uint32_t>(w.launch.grid.count());
  std::vector<std::int32_t> init(kWords);
  for (std::uint32_t i = 0; i < kWords; ++i) init[i] = std::int32_t(i);
  const auto ob = w.memory.add(
      make_buffer("out", ElemType::S32, std::vector<std::int32_t>(std::size_t(T) * blocks, 0)));
  const auto ib = w.memory.add(make_buffer("init", ElemType::S32, init));
  w.launch.args = {Arg::buf(ob), Arg::buf(ib), Arg::integer(o.way), Arg::integer(stride),
                   Arg::integer(rep)};
  w.description =
      fmt::format("genindex (seed 002 §2): way {}, stride {}, {} repeats", o.way, stride, rep);
  const std::uint32_t way = o.way;
  w.check = [T, blocks, way, stride](const GlobalMemory& m) {
    std::vector<std::int32_t> want(std::size_t(T) * blocks);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t t = 0; t < T; ++t)
        want[std::size_t(b) * T + t] = std::int32_t(t < way ? t * stride : t);
    return compare_exact("out", read_buffer<std::int32_t>(m, "out"), want);
  };
}

// A driver: its name, PTX file and default kernel, and the builtin options it reads (issue 28: any
// other given on the command line is an error; tests/builtin_options_test.cpp checks that each
// option left out changes nothing the driver makes). --swhash is checked by apply_software_hash.
struct Driver {
  std::string name, ptx, kernel;
  void (*make)(Workload&, const BuiltinOptions&);
  std::vector<std::string> options;
};

const std::vector<Driver>& drivers() {
  using V = std::vector<std::string>;
  static const std::vector<Driver> d = {
      {"histogram", "histogram", "histogram", histogram,
       V{"bins", "replication", "mapping", "padding", "image", "width", "height", "seed", "grid",
         "block"}},
      {"transpose", "transpose", "", transpose,
       V{"variant", "width", "height", "seed", "grid", "block"}},
      {"reduction", "reduction", "", reduction, V{"variant", "size", "seed", "grid", "block"}},
      {"fwt", "fwt", "fwt", fwt, V{"log2n", "seed", "grid", "block"}},
      {"kmeans", "kmeans", "kmeans_update", kmeans,
       V{"size", "k", "dims", "replication", "seed", "grid", "block"}},
      {"hough", "hough", "hough_vote", hough,
       V{"image", "width", "height", "replication", "seed", "grid", "block"}},
      {"atomic_bench", "atomic_bench", "atomic_bench", atomic_bench,
       V{"conflicts", "stride", "iterations", "grid", "block"}},
      {"genindex", "genindex", "genindex", genindex, V{"way", "stride", "repeat", "grid", "block"}},
      {"aes", "aes_tbox", "", aes_driver, V{"variant", "size", "seed", "grid", "block"}},
      {"dct8x8", "dct8x8", "", dct_driver,
       V{"variant", "width", "height", "seed", "grid", "block"}},
      {"tm_hashtable", "tm_hashtable", "", hashtable_driver,
       V{"variant", "buckets", "grid", "block"}},
      {"tm_kmeans", "tm_kmeans", "", tm_kmeans_driver, V{"variant", "k", "seed", "grid", "block"}},
      {"tm_genetic", "tm_genetic", "", tm_genetic_driver,
       V{"variant", "size", "seed", "grid", "block"}},
      // Seed 002 §7's benchmarks (Table 5) and the conflict-free five of §7.1.
      {"conv", "convolution", "", conv_driver, V{"variant", "width", "height", "seed"}},
      {"haar", "haar", "haar1d", haar_driver, V{"seed", "grid", "block"}},
      {"fft", "fft", "", fft_driver, V{"variant", "seed", "grid", "block"}},
      {"scan_matrix", "scan", "scan_matrix", scan_matrix_driver, V{"seed", "grid", "block"}},
      {"scan_blelloch", "scan", "scan_blelloch", scan_blelloch_driver, V{"seed", "grid", "block"}},
      {"grid3d", "gridding", "grid3d", grid3d_driver, V{"width", "size", "seed"}},
      {"lud", "lud", "", lud_driver, V{"size", "seed"}},
      {"nw", "nw", "", nw_driver, V{"size", "seed"}},
      {"lavamd", "lavamd", "lavamd", lavamd_driver, V{"size", "seed", "block"}},
      {"scalar_prod", "conflict_free", "scalar_prod", scalar_prod_driver,
       V{"size", "seed", "grid", "block"}},
      {"matmul", "conflict_free", "matmul", matmul_driver, V{"variant", "width", "seed"}},
      {"srad", "conflict_free", "", srad_driver, V{"width", "height", "seed"}},
      {"hotspot", "conflict_free", "", hotspot_driver, V{"width", "height", "seed"}},
      {"backprop", "conflict_free", "backprop", backprop_driver, V{"size", "seed"}},
      // Tensor-core kernels (issue 16).
      {"gemm", "gemm_tc", "", gemm_tc_driver, V{"variant", "width", "height", "size", "seed"}},
      {"attention", "attention_tc", "", attention_tc_driver, V{"variant", "size", "seed"}},
  };
  return d;
}

}  // namespace

const std::vector<std::string>& builtin_options(const std::string& name) {
  for (const Driver& d : drivers())
    if (d.name == name) return d.options;
  static const std::vector<std::string> none;
  return none;
}

const std::vector<std::string>& builtin_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Driver& d : drivers()) v.push_back(d.name);
    return v;
  }();
  return names;
}

Workload make_builtin(const std::string& name, const BuiltinOptions& o,
                      const std::string& ptx_dir) {
  for (const Driver& d : drivers()) {
    if (d.name != name) continue;
    Workload w;
    w.name = "builtin:" + name;
    w.kernel = d.kernel;
    load_ptx(w, ptx_dir, d.ptx);  // first: a driver may set the module's __constant__ data
    d.make(w, o);
    if (o.software_hash) apply_software_hash(w, o.software_hash->first, o.software_hash->second);
    return w;
  }
  std::string list;
  for (const std::string& n : builtin_names()) list += (list.empty() ? "" : ", ") + n;
  const std::string near = did_you_mean(name, builtin_names());
  throw InputError(fmt::format("unknown builtin '{}'{} (builtins: {})", name,
                               near.empty() ? "" : ": " + near, list));
}

const ptx::Kernel& find_kernel(const ptx::Module& m, const std::string& name) {
  const std::vector<const ptx::Kernel*> found = ptx::match_kernels(m, name);
  if (found.size() == 1) return *found[0];
  const auto listed = [](const ptx::Kernel& k) {
    const std::string d = ptx::demangle(k.name);
    return d == k.name ? k.name : fmt::format("{} [{}]", d, k.name);
  };
  std::string list;
  if (found.size() > 1) {
    for (const ptx::Kernel* k : found)
      list += fmt::format("{}{}", list.empty() ? " " : "; ", listed(*k));
    throw InputError(
        fmt::format("{}: kernel name '{}' is ambiguous; give the template arguments, "
                    "the signature or the mangled name of one of:{}",
                    m.filename, name, list));
  }
  for (const ptx::Kernel& k : m.kernels) list += (list.empty() ? "" : ", ") + listed(k);
  throw InputError(fmt::format("{}: no kernel named '{}' (kernels: {})", m.filename, name,
                               list.empty() ? "none" : list));
}

}  // namespace smemsim::exec

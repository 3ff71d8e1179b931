// Built-in drivers of seed 002's CUDA SDK-style benchmarks (Table 5): separable convolution
// (kernels/convolution.cu), the Haar wavelet (haar.cu), the FFTs (fft.cu) and the two scans
// (scan.cu). Seeded inputs, the launch each kernel's header documents, and CPU references written
// from the algorithms' definitions: sums in double for the float kernels, exact for the integer
// scans. Every kernel takes the software hash's k2 and mask last (zeros: the baseline ignores
// them).
#include <bit>
#include <cmath>
#include <complex>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/rng.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.uniform() * 2 - 1);
  return v;
}

std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = static_cast<std::int32_t>(rng.below(201)) - 100;
  return v;
}

// The block of a one-dimensional kernel: a power of two in 32..`max`.
std::uint32_t pow2_block(Workload& w, const BuiltinOptions& o, const char* name, std::uint32_t max,
                         std::uint32_t grid) {
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {grid, 1, 1});
  const Dim3 b = w.launch.block;
  if (b.y != 1 || b.z != 1 || !std::has_single_bit(b.x) || b.x < 32 || b.x > max)
    throw InputError(
        fmt::format("builtin:{}: --block must be a power of two in 32..{}", name, max));
  if (w.launch.grid.y != 1 || w.launch.grid.z != 1)
    throw InputError(fmt::format("builtin:{}: --grid is one dimension", name));
  return b.x;
}

Arg zero() {
  return Arg::integer(0);
}

}  // namespace

// ---- conv-1 / conv-2 -------------------------------------------------------------------------

void conv_driver(Workload& w, const BuiltinOptions& o) {
  constexpr int R = 8;
  const std::string v = o.variant.empty() ? "rows" : o.variant;
  if (v != "rows" && v != "cols") throw InputError("builtin:conv: --variant must be rows or cols");
  const std::uint32_t W = or_default(o.width, 256), H = or_default(o.height, 64);
  if (W % 128 || H % 64)
    throw InputError("builtin:conv: --width must be a multiple of 128 and --height of 64");
  check_param("conv", "--width", W, 1u << 14);
  check_param("conv", "--height", H, 1u << 14);
  check_budget(o, "conv", 28.0 * W * H, fmt::format("a {}x{} image", W, H), "--width/--height");
  const bool rows = v == "rows";
  w.kernel = rows ? "conv_rows" : "conv_cols";
  w.launch.block = rows ? Dim3{16, 4, 1} : Dim3{16, 8, 1};
  w.launch.grid = rows ? Dim3{W / 128, H / 4, 1} : Dim3{W / 16, H / 64, 1};
  if (o.grid || o.block)
    throw InputError("builtin:conv: the tile shape fixes the launch (no --grid or --block)");
  // A normalized Gaussian filter, as the SDK's sample uses.
  std::vector<float> f(2 * R + 1);
  double sum = 0;
  for (int j = -R; j <= R; ++j) sum += std::exp(-double(j * j) / 18.0);
  for (int j = -R; j <= R; ++j)
    f[std::size_t(j + R)] = float(std::exp(-double(j * j) / 18.0) / sum);
  set_module_variable(w, "c_filter", f.data(), f.size() * 4);
  const std::vector<float> in = random_floats(std::size_t(W) * H, o.seed);
  const auto ob = w.memory.add(make_buffer("out", ElemType::F32, std::vector<float>(in.size())));
  const auto ib = w.memory.add(make_buffer("in", ElemType::F32, in));
  w.launch.args = {Arg::buf(ob), Arg::buf(ib), Arg::integer(W), Arg::integer(H), zero(), zero()};
  w.description = fmt::format("conv_{} of a {}x{} float image, {} taps", v, W, H, 2 * R + 1);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |filter x input|) + 1e-6, ref in double";
  w.check = [in, f, W, H, rows](const GlobalMemory& m) {
    std::vector<double> want(in.size()), mag(in.size());
    for (std::uint32_t y = 0; y < H; ++y)
      for (std::uint32_t x = 0; x < W; ++x) {
        double s = 0, a = 0;
        for (int j = -R; j <= R; ++j) {
          const long xx = long(x) + (rows ? j : 0), yy = long(y) + (rows ? 0 : j);
          if (xx < 0 || yy < 0 || xx >= long(W) || yy >= long(H)) continue;
          const double t =
              double(f[std::size_t(R - j)]) * in[std::size_t(yy) * W + std::size_t(xx)];
          s += t;
          a += std::fabs(t);
        }
        want[std::size_t(y) * W + x] = s;
        mag[std::size_t(y) * W + x] = a;
      }
    return compare_within("out", read_buffer<float>(m, "out"), want,
                          [&](std::size_t i) { return 1e-5 * mag[i] + 1e-6; });
  };
}

// ---- dwtHaar1D -------------------------------------------------------------------------------

void haar_driver(Workload& w, const BuiltinOptions& o) {
  const std::uint32_t T = pow2_block(w, o, "haar", 512, 8);
  // Input, two buffers, the reference and its tolerances in double: 28 bytes a value.
  check_budget(o, "haar", 28.0 * 2 * T * double(w.launch.grid.count()),
               fmt::format("{} segments of {} floats", w.launch.grid.count(), 2 * T), "--grid");
  const std::uint32_t segs = static_cast<std::uint32_t>(w.launch.grid.count());
  const std::uint32_t n = 2 * T;
  const std::vector<float> in = random_floats(std::size_t(n) * segs, o.seed);
  const auto ib = w.memory.add(make_buffer("in", ElemType::F32, in));
  const auto ob = w.memory.add(make_buffer("out", ElemType::F32, std::vector<float>(in.size())));
  w.launch.args = {Arg::buf(ib), Arg::buf(ob), zero(), zero()};
  w.description = fmt::format("haar1d of {} segments of {} floats", segs, n);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |x| over the segment), ref in double";
  w.check = [in, n, segs](const GlobalMemory& m) {
    std::vector<double> want(in.size()), tol(in.size());
    const double c = 1 / std::sqrt(2.0);
    for (std::uint32_t s = 0; s < segs; ++s) {
      std::vector<double> a(in.begin() + std::ptrdiff_t(s) * n,
                            in.begin() + std::ptrdiff_t(s + 1) * n);
      double l1 = 0;
      for (double x : a) l1 += std::fabs(x);
      double* out = want.data() + std::size_t(s) * n;
      for (std::uint32_t half = n / 2; half >= 1; half /= 2) {
        for (std::uint32_t t = 0; t < half; ++t) out[half + t] = (a[2 * t] - a[2 * t + 1]) * c;
        for (std::uint32_t t = 0; t < half; ++t) a[t] = (a[2 * t] + a[2 * t + 1]) * c;
      }
      out[0] = a[0];
      std::fill(tol.begin() + std::ptrdiff_t(s) * n, tol.begin() + std::ptrdiff_t(s + 1) * n,
                1e-5 * l1);
    }
    return compare_within("out", read_buffer<float>(m, "out"), want,
                          [&](std::size_t i) { return tol[i]; });
  };
}

// ---- FFT-1 / FFT-2 ---------------------------------------------------------------------------

void fft_driver(Workload& w, const BuiltinOptions& o) {
  const std::string v = o.variant.empty() ? "dit" : o.variant;
  if (v != "dit" && v != "stockham")
    throw InputError("builtin:fft: --variant must be dit or stockham");
  w.kernel = "fft_" + v;
  const std::uint32_t T = pow2_block(w, o, "fft", 512, 8);
  // Real and imaginary parts, their buffers, the reference's and its tolerances: 48 bytes a point.
  check_budget(o, "fft", 48.0 * 2 * T * double(w.launch.grid.count()),
               fmt::format("{} signals of {} points", w.launch.grid.count(), 2 * T), "--grid");
  const std::uint32_t sigs = static_cast<std::uint32_t>(w.launch.grid.count());
  const std::uint32_t n = 2 * T;
  const std::vector<float> re = random_floats(std::size_t(n) * sigs, o.seed);
  const std::vector<float> im = random_floats(std::size_t(n) * sigs, o.seed + 1);
  const auto rb = w.memory.add(make_buffer("re", ElemType::F32, re));
  const auto ib = w.memory.add(make_buffer("im", ElemType::F32, im));
  w.launch.args = {Arg::buf(rb), Arg::buf(ib), Arg::integer(std::countr_zero(n)), zero(), zero()};
  w.description = fmt::format("fft_{} of {} signals of {} complex floats", v, sigs, n);
  w.tolerance = "|got - ref| <= 2e-5 (sum of |x| over the signal), ref: the DFT in double";
  w.check = [re, im, n, sigs](const GlobalMemory& m) {
    std::vector<double> wr(re.size()), wi(re.size()), tol(re.size());
    constexpr double kPi = 3.14159265358979323846;
    std::vector<std::complex<double>> tw(n);  // e^(-2 pi i k / n)
    for (std::uint32_t k = 0; k < n; ++k) tw[k] = std::polar(1.0, -2 * kPi * double(k) / n);
    for (std::uint32_t s = 0; s < sigs; ++s) {
      const std::size_t b = std::size_t(s) * n;
      double l1 = 0;
      for (std::uint32_t k = 0; k < n; ++k)
        l1 += std::abs(std::complex<double>(re[b + k], im[b + k]));
      for (std::uint32_t k = 0; k < n; ++k) {
        std::complex<double> x = 0;
        for (std::uint32_t j = 0; j < n; ++j)
          x += std::complex<double>(re[b + j], im[b + j]) * tw[(std::uint64_t(k) * j) % n];
        wr[b + k] = x.real();
        wi[b + k] = x.imag();
        tol[b + k] = 2e-5 * l1;
      }
    }
    const auto t = [&](std::size_t i) { return tol[i]; };
    return compare_within("re", read_buffer<float>(m, "re"), wr, t) +
           compare_within("im", read_buffer<float>(m, "im"), wi, t);
  };
}

// ---- matrix scan and MRI-grid-1's scan -------------------------------------------------------

namespace {

// Inclusive (matrix scan) or exclusive (Blelloch) scan of each block's `per` ints.
void scan_common(Workload& w, const BuiltinOptions& o, const char* name, std::uint32_t per_thread,
                 bool inclusive) {
  const std::uint32_t T = pow2_block(w, o, name, 512, 8);
  check_budget(o, name, 16.0 * per_thread * T * double(w.launch.grid.count()),
               fmt::format("{} blocks of {} ints", w.launch.grid.count(), per_thread * T),
               "--grid");
  const std::uint32_t blocks = static_cast<std::uint32_t>(w.launch.grid.count());
  const std::uint32_t per = per_thread * T;
  const std::vector<std::int32_t> in = random_ints(std::size_t(per) * blocks, o.seed);
  const auto ib = w.memory.add(make_buffer("in", ElemType::S32, in));
  const auto ob =
      w.memory.add(make_buffer("out", ElemType::S32, std::vector<std::int32_t>(in.size())));
  w.launch.args = {Arg::buf(ib), Arg::buf(ob), zero(), zero()};
  w.description = fmt::format("{} of {} blocks of {} ints ({} scan)", w.kernel, blocks, per,
                              inclusive ? "inclusive" : "exclusive");
  w.check = [in, per, inclusive](const GlobalMemory& m) {
    std::vector<std::int32_t> want(in.size());
    for (std::size_t b = 0; b < in.size(); b += per) {
      std::int32_t acc = 0;
      for (std::size_t i = b; i < b + per; ++i) {
        if (!inclusive) want[i] = acc;
        acc += in[i];
        if (inclusive) want[i] = acc;
      }
    }
    return compare_exact("out", read_buffer<std::int32_t>(m, "out"), want);
  };
}

}  // namespace

void scan_matrix_driver(Workload& w, const BuiltinOptions& o) {
  scan_common(w, o, "scan_matrix", 8, true);
}

void scan_blelloch_driver(Workload& w, const BuiltinOptions& o) {
  scan_common(w, o, "scan_blelloch", 2, false);
}

}  // namespace smemsim::exec

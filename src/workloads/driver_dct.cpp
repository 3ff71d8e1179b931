// builtin:dct8x8 (kernels/dct8x8.cu): 8x8 DCT / IDCT of a seeded image, float and 16-bit fixed
// point, padded or with the padding undone (`_nopad`, seed 004 §5). The CPU reference is the
// separable transform written from its definition: in double precision for the float kernels
// (compared within 1e-3 + 1e-5 |v|), in the kernels' documented integer arithmetic for the short
// ones (bit-exact).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/rng.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"
#include "workloads/dct_ref.hpp"

namespace smemsim::exec {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Each 8x8 block of a W x H image: rows, then columns; forward y[u] = sum_x C[u][x] v[x], inverse
// y[x] = sum_u C[u][x] v[u]. T is double or int (int: (sum + 2048) >> 12, kept as a short).
template <typename T, typename F>
std::vector<T> transform(const std::vector<T>& img, std::uint32_t W, std::uint32_t H, bool inverse,
                         F one) {
  std::vector<T> out = img;
  for (std::uint32_t by = 0; by < H; by += 8)
    for (std::uint32_t bx = 0; bx < W; bx += 8)
      for (int pass = 0; pass < 2; ++pass)
        for (int line = 0; line < 8; ++line) {
          T v[8], y[8];
          auto at = [&](int k) -> T& {
            return pass == 0 ? out[std::size_t(by + line) * W + bx + k]
                             : out[std::size_t(by + k) * W + bx + line];
          };
          for (int k = 0; k < 8; ++k) v[k] = at(k);
          for (int u = 0; u < 8; ++u) y[u] = one(v, u, inverse);
          for (int k = 0; k < 8; ++k) at(k) = y[k];
        }
  return out;
}

}  // namespace

namespace dct_ref {

namespace {
// The 64 coefficients and their fixed-point forms, computed once (a cos per multiply was 7 % of
// `sim builtin:dct8x8`).
struct Coefs {
  std::array<std::array<double, 8>, 8> c{};
  std::array<std::array<int, 8>, 8> q{};
  Coefs() {
    for (int u = 0; u < 8; ++u)
      for (int x = 0; x < 8; ++x) {
        c[u][x] = (u == 0 ? std::sqrt(1.0 / 8) : 0.5) * std::cos((2 * x + 1) * u * kPi / 16);
        q[u][x] = static_cast<int>(std::lround(4096 * c[u][x]));
      }
  }
};
const Coefs& coefs() {
  static const Coefs t;
  return t;
}
}  // namespace

double coef(int u, int x) {  // orthonormal DCT-II
  return coefs().c[std::size_t(u)][std::size_t(x)];
}
int coef_q(int u, int x) {  // the kernels' fixed point: round(4096 C)
  return coefs().q[std::size_t(u)][std::size_t(x)];
}

std::vector<double> dct_double(const std::vector<double>& img, std::uint32_t W, std::uint32_t H,
                               bool inverse) {
  return transform(img, W, H, inverse, [](const double* v, int u, bool inv) {
    double s = 0;
    for (int k = 0; k < 8; ++k) s += (inv ? coef(k, u) : coef(u, k)) * v[k];
    return s;
  });
}

std::vector<int> dct_fixed(const std::vector<int>& img, std::uint32_t W, std::uint32_t H,
                           bool inverse) {
  return transform(img, W, H, inverse, [](const int* v, int u, bool inv) {
    int s = 0;
    for (int k = 0; k < 8; ++k) s += (inv ? coef_q(k, u) : coef_q(u, k)) * v[k];
    return int(static_cast<std::int16_t>((s + 2048) >> 12));
  });
}

}  // namespace dct_ref

namespace {

using dct_ref::dct_double;
using dct_ref::dct_fixed;

// A smooth image with texture and noise, 0..255.
std::vector<int> image(std::uint32_t W, std::uint32_t H, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<int> px(std::size_t(W) * H);
  for (std::uint32_t y = 0; y < H; ++y)
    for (std::uint32_t x = 0; x < W; ++x) {
      const double v =
          128 + 60 * std::sin(x / 13.0) + 50 * std::cos(y / 7.0) + double(rng.below(41)) - 20;
      px[std::size_t(y) * W + x] = int(std::lround(std::clamp(v, 0.0, 255.0)));
    }
  return px;
}

std::vector<std::uint32_t> pack16(const std::vector<int>& v) {
  std::vector<std::uint32_t> w(v.size() / 2);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = (std::uint32_t(v[2 * i]) & 0xffff) | (std::uint32_t(v[2 * i + 1]) << 16);
  return w;
}

}  // namespace

void dct_driver(Workload& w, const BuiltinOptions& o) {
  std::string v = o.variant.empty() ? "dct" : o.variant;
  const bool nopad = v.ends_with("_nopad");
  const std::string base = nopad ? v.substr(0, v.size() - 6) : v;
  if (base != "dct" && base != "idct" && base != "dct_short" && base != "idct_short")
    throw InputError(
        "builtin:dct8x8: --variant must be dct, idct, dct_short or idct_short, optionally with "
        "_nopad (the padding undone)");
  const bool inverse = base.starts_with("i"), is_short = base.ends_with("_short");
  w.kernel = base + (nopad ? "_nopad" : "_pad");
  const std::uint32_t W = or_default(o.width, 512), H = or_default(o.height, 512);
  const std::uint32_t rh = is_short ? 32 : 16;  // region: 32 wide, 16 or 32 high
  if (W % 32 || H % rh || W > 16384 || H > 16384)
    throw InputError(fmt::format(
        "builtin:dct8x8: {} needs --width a multiple of 32 and --height a multiple of {} (at most "
        "16384)",
        base, rh));
  const Dim3 block = is_short ? Dim3{8, 4, 4} : Dim3{8, 4, 2};
  w.launch.block = shape_or(o.block, block);
  if (w.launch.block.x != block.x || w.launch.block.y != block.y || w.launch.block.z != block.z)
    throw InputError(fmt::format("builtin:dct8x8: the {} kernel needs --block {},{},{}", base,
                                 block.x, block.y, block.z));
  w.launch.grid = shape_or(o.grid, {W / 32, H / rh, 1});
  if (w.launch.grid.x != W / 32 || w.launch.grid.y != H / rh || w.launch.grid.z != 1)
    throw InputError(
        fmt::format("builtin:dct8x8: a {}x{} image needs --grid {},{}", W, H, W / 32, H / rh));
  // The image, the input in its type and in double, the buffers and the reference: 40 bytes a
  // pixel.
  check_budget(o, "dct8x8", 40.0 * W * H, fmt::format("a {}x{} image", W, H), "--width/--height");
  const std::vector<int> px = image(W, H, o.seed);
  const std::size_t n = px.size();
  if (is_short) {
    std::vector<int> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = px[i] - 128;  // level shift
    if (inverse) in = dct_fixed(in, W, H, false);
    const std::vector<std::uint32_t> want = pack16(dct_fixed(in, W, H, inverse));
    const auto ib = w.memory.add(make_buffer("in", ElemType::U32, pack16(in)));
    const auto ob =
        w.memory.add(make_buffer("out", ElemType::U32, std::vector<std::uint32_t>(n / 2, 0)));
    w.launch.args = {Arg::buf(ib), Arg::buf(ob), Arg::integer(W)};
    w.check = [want](const GlobalMemory& m) {
      return compare_exact("out(pairs of shorts)", read_buffer<std::uint32_t>(m, "out"), want);
    };
  } else {
    std::vector<double> in(px.begin(), px.end());
    if (inverse) in = dct_double(in, W, H, false);
    std::vector<float> inf(in.begin(), in.end());
    const std::vector<double> want =
        dct_double(std::vector<double>(inf.begin(), inf.end()), W, H, inverse);
    const auto ib = w.memory.add(make_buffer("in", ElemType::F32, inf));
    const auto ob = w.memory.add(make_buffer("out", ElemType::F32, std::vector<float>(n, 0.f)));
    w.launch.args = {Arg::buf(ib), Arg::buf(ob), Arg::integer(W)};
    w.tolerance = "|got - ref| <= 1e-3 + 1e-5 |ref| (ref: the separable transform in double)";
    w.check = [want](const GlobalMemory& m) {
      const std::vector<float> got = read_buffer<float>(m, "out");
      std::string out;
      std::size_t bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::fabs(got[i] - want[i]) <= 1e-3 + 1e-5 * std::fabs(want[i])) continue;
        if (++bad <= 5)
          out += fmt::format("out[{}] = {}, the CPU reference has {:.6f}; ", i, got[i], want[i]);
      }
      if (bad) out += fmt::format("{} of {} elements differ", bad, want.size());
      return out;
    };
  }
  w.description =
      fmt::format("{} {} of a {}x{} image in 8x8 blocks ({})", w.kernel, inverse ? "IDCT" : "DCT",
                  W, H, nopad ? "padding undone: bank conflicts" : "padded tile");
}

}  // namespace smemsim::exec

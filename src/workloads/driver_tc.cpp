// Built-in drivers of the tensor-core kernels (issue 16): the tiled f16 GEMM (kernels/gemm_tc.cu)
// and the attention tile (kernels/attention_tc.cu), each row-major or XOR-swizzled in shared
// memory. Inputs are seeded f16 values in [-1, 1]; CPU references in double from the same f16
// values, compared within the tolerance each driver states (docs/exec.md "Tensor cores").
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "exec/half.hpp"
#include "smemsim/error.hpp"
#include "util/rng.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

// n f16 patterns of values uniform in [-1, 1], rounded to nearest even; `values` gets them exactly.
std::vector<std::uint16_t> random_halves(std::size_t n, std::uint64_t seed,
                                         std::vector<double>& values) {
  Rng rng(seed);
  std::vector<std::uint16_t> h(n);
  values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = static_cast<std::uint16_t>(
        detail::double_to_small(2.0 * rng.uniform() - 1.0, detail::kF16, ptx::Rounding::Rn));
    values[i] = detail::f16_value(h[i]);
  }
  return h;
}

// Four warps per tile: the launch follows from the sizes, which `sizes` says how to give.
void fixed_block(const BuiltinOptions& o, const char* name, const char* sizes) {
  if (o.block || o.grid)
    throw InputError(fmt::format(
        "builtin:{}: four warps per tile fix the launch (no --grid or --block; {})", name, sizes));
}

}  // namespace

// C (M x N) = A (M x K) B^T (B: N x K), f16 inputs, f32 accumulators. --variant bk64 (128-byte
// tile rows, 8-way ldmatrix conflicts), bk32 (64-byte rows, 4-way), each with _swizzled;
// --height M, --width N (multiples of 64), --size K (a multiple of the tile's BK).
void gemm_tc_driver(Workload& w, const BuiltinOptions& o) {
  fixed_block(o, "gemm", "--height, --width and --size give M, N and K");
  const std::string v = o.variant.empty() ? "bk64" : o.variant;
  if (v != "bk64" && v != "bk64_swizzled" && v != "bk32" && v != "bk32_swizzled")
    throw InputError(
        "builtin:gemm: --variant must be bk64, bk64_swizzled, bk32 or bk32_swizzled (BK halves "
        "per shared tile row: 64 = 128 bytes, 32 = 64 bytes)");
  const std::uint32_t bk = v.starts_with("bk64") ? 64 : 32;
  const std::uint32_t m = or_default(o.height, 128), n = or_default(o.width, 128),
                      k = or_default(o.size, 256);
  if (m % 64 || n % 64 || m > 4096 || n > 4096)
    throw InputError(
        "builtin:gemm: --height (M) and --width (N) must be multiples of 64 up to 4096");
  if (k % bk || k > 4096)
    throw InputError(fmt::format(
        "builtin:gemm: --size (K) must be a multiple of {} (the tile's BK) up to 4096", bk));
  w.kernel = "gemm_" + v;
  w.launch.block = {128, 1, 1};
  w.launch.grid = {n / 64, m / 64, 1};
  std::vector<double> a, b;
  const auto ha = random_halves(std::size_t(m) * k, o.seed, a);
  const auto hb = random_halves(std::size_t(n) * k, o.seed + 1, b);
  const auto ab = w.memory.add(make_buffer("A", ElemType::F16, ha));
  const auto bb = w.memory.add(make_buffer("B", ElemType::F16, hb));
  const auto cb =
      w.memory.add(make_buffer("C", ElemType::F32, std::vector<float>(std::size_t(m) * n)));
  w.launch.args = {Arg::buf(ab), Arg::buf(bb), Arg::buf(cb), Arg::integer(n), Arg::integer(k)};
  w.description = fmt::format(
      "gemm_{}: C ({} x {}, f32) = A ({} x {}, f16) B^T, 64 x 64 tiles of {}-byte shared rows{}", v,
      m, n, m, k, bk * 2, v.ends_with("_swizzled") ? ", XOR-swizzled" : "");
  // Each mma.sync adds 16 exact products in double and rounds once to f32 (docs/exec.md): K / 16
  // roundings of at most 2^-24 relative each, far inside 1e-5 of the sum of |a b|.
  w.tolerance = "|got - ref| <= 1e-5 (sum of |a b|) + 1e-6, ref in double";
  w.check = [a, b, m, n, k](const GlobalMemory& mem) {
    std::vector<double> want(std::size_t(m) * n), mag(want.size());
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        double s = 0, g = 0;
        for (std::uint32_t x = 0; x < k; ++x) {
          const double p = a[std::size_t(i) * k + x] * b[std::size_t(j) * k + x];
          s += p;
          g += std::fabs(p);
        }
        want[std::size_t(i) * n + j] = s;
        mag[std::size_t(i) * n + j] = g;
      }
    return compare_within("C", read_buffer<float>(mem, "C"), want,
                          [&](std::size_t i) { return 1e-5 * mag[i] + 1e-6; });
  };
}

// O = softmax(Q K^T / 8) V per head (64 x 64 tiles, f16 inputs); --variant rowmajor | swizzled,
// --size heads (CTAs).
void attention_tc_driver(Workload& w, const BuiltinOptions& o) {
  fixed_block(o, "attention", "--size gives the heads");
  const std::string v = o.variant.empty() ? "rowmajor" : o.variant;
  if (v != "rowmajor" && v != "swizzled")
    throw InputError("builtin:attention: --variant must be rowmajor or swizzled");
  const std::uint32_t heads = or_default(o.size, 4);
  check_param("attention", "--size", heads, 4096);
  w.kernel = v == "swizzled" ? "attention_swizzled" : "attention";
  w.launch.block = {128, 1, 1};
  w.launch.grid = {heads, 1, 1};
  const std::size_t n = std::size_t(heads) * 64 * 64;
  std::vector<double> q, kk, vv;
  const auto hq = random_halves(n, o.seed, q);
  const auto hk = random_halves(n, o.seed + 1, kk);
  const auto hv = random_halves(n, o.seed + 2, vv);
  const auto qb = w.memory.add(make_buffer("Q", ElemType::F16, hq));
  const auto kb = w.memory.add(make_buffer("K", ElemType::F16, hk));
  const auto vb = w.memory.add(make_buffer("V", ElemType::F16, hv));
  const auto ob = w.memory.add(make_buffer("O", ElemType::F32, std::vector<float>(n)));
  w.launch.args = {Arg::buf(qb), Arg::buf(kb), Arg::buf(vb), Arg::buf(ob)};
  w.description = fmt::format(
      "attention{}: O = softmax(Q K^T / 8) V on {} heads of 64 x 64 f16 tiles (128-byte shared "
      "rows{})",
      v == "swizzled" ? "_swizzled" : "", heads, v == "swizzled" ? ", XOR-swizzled" : "");
  // The kernel rounds the probabilities to f16 before P V (relative error 2^-11) and computes exp
  // with ex2.approx; |V| <= 1 and the probabilities sum to 1, so |got - ref| stays below 2e-3.
  w.tolerance = "|got - ref| <= 2e-3 (P rounded to f16 before P V), ref in double";
  w.check = [q, kk, vv, heads](const GlobalMemory& mem) {
    std::vector<double> want(q.size());
    std::vector<double> p(64);
    for (std::uint32_t h = 0; h < heads; ++h) {
      const std::size_t base = std::size_t(h) * 4096;
      for (int i = 0; i < 64; ++i) {
        double mx = -1e300;
        for (int j = 0; j < 64; ++j) {
          double s = 0;
          for (int x = 0; x < 64; ++x) s += q[base + i * 64 + x] * kk[base + j * 64 + x];
          p[j] = s / 8.0;
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int j = 0; j < 64; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (int d = 0; d < 64; ++d) {
          double acc = 0;
          for (int j = 0; j < 64; ++j) acc += p[j] * vv[base + j * 64 + d];
          want[base + i * 64 + d] = acc / sum;
        }
      }
    }
    return compare_within("O", read_buffer<float>(mem, "O"), want,
                          [](std::size_t) { return 2e-3; });
  };
}

}  // namespace smemsim::exec

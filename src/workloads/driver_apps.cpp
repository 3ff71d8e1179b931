// Built-in drivers of seed 002's Rodinia and Parboil benchmarks (Table 5): LU decomposition
// (kernels/lud.cu) and Needleman-Wunsch (nw.cu) as multi-launch pipelines, lavaMD (lavamd.cu) and
// MRI gridding (gridding.cu). Seeded inputs and CPU references written from the algorithms: LU in
// double, the alignment scores exactly, lavaMD and gridding in double within a tolerance.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/rng.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

Arg zero_arg() {
  return Arg::integer(0);
}

void no_shape(const BuiltinOptions& o, const char* name) {
  if (o.grid || o.block)
    throw InputError(fmt::format(
        "builtin:{}: the algorithm fixes every launch's shape (no --grid or --block)", name));
}

}  // namespace

// ---- LUD-1 (lud_diagonal) and LUD-2 (lud_perimeter) ------------------------------------------

void lud_driver(Workload& w, const BuiltinOptions& o) {
  no_shape(o, "lud");
  const std::uint32_t n = or_default(o.size, 64);
  if (n % 16 || n > 4096)
    throw InputError("builtin:lud: --size must be a multiple of 16 up to 4096");
  Rng rng(o.seed);
  std::vector<float> a(std::size_t(n) * n);
  for (std::uint32_t i = 0; i < n; ++i)  // diagonally dominant: no pivoting needed
    for (std::uint32_t j = 0; j < n; ++j)
      a[std::size_t(i) * n + j] = float(rng.uniform()) + (i == j ? float(n) : 0.0f);
  const auto ab = w.memory.add(make_buffer("a", ElemType::F32, a));
  const std::uint32_t nb = n / 16;
  for (std::uint32_t it = 0; it < nb; ++it) {
    const std::vector<Arg> args = {Arg::buf(ab), Arg::integer(n), Arg::integer(16 * it), zero_arg(),
                                   zero_arg()};
    add_step(w, "lud_diagonal", {{1, 1, 1}, {16, 1, 1}, 0, args});
    if (it + 1 == nb) break;
    add_step(w, "lud_perimeter", {{nb - 1 - it, 1, 1}, {32, 1, 1}, 0, args});
    add_step(w, "lud_internal", {{nb - 1 - it, nb - 1 - it, 1}, {16, 16, 1}, 0, args});
  }
  w.description = fmt::format("blocked LU decomposition of a {}x{} float matrix ({} launches)", n,
                              n, w.pipeline.size());
  w.tolerance = "|got - ref| <= 1e-3 max(1, |ref|), ref: Doolittle in double";
  w.check = [a, n](const GlobalMemory& m) {
    std::vector<double> lu(a.begin(), a.end());
    for (std::uint32_t k = 0; k < n; ++k)
      for (std::uint32_t i = k + 1; i < n; ++i) {
        double& l = lu[std::size_t(i) * n + k];
        l /= lu[std::size_t(k) * n + k];
        for (std::uint32_t j = k + 1; j < n; ++j)
          lu[std::size_t(i) * n + j] -= l * lu[std::size_t(k) * n + j];
      }
    return compare_within("a", read_buffer<float>(m, "a"), lu,
                          [&](std::size_t i) { return 1e-3 * std::max(1.0, std::fabs(lu[i])); });
  };
}

// ---- NW-1 (nw_upper) and NW-2 (nw_lower) -----------------------------------------------------

void nw_driver(Workload& w, const BuiltinOptions& o) {
  no_shape(o, "nw");
  const std::uint32_t n = or_default(o.size, 64);
  if (n % 16 || n > 4096)
    throw InputError("builtin:nw: --size must be a multiple of 16 up to 4096");
  constexpr std::int32_t kPenalty = 10;
  const std::uint32_t c = n + 1;
  Rng rng(o.seed);
  std::vector<std::int32_t> sim(std::size_t(c) * c, 0), mat(std::size_t(c) * c, 0);
  for (std::uint32_t i = 1; i < c; ++i)
    for (std::uint32_t j = 1; j < c; ++j)
      sim[std::size_t(i) * c + j] = std::int32_t(rng.below(15)) - 4;  // a BLOSUM-like range
  for (std::uint32_t i = 0; i < c; ++i) {
    mat[std::size_t(i) * c] = -std::int32_t(i) * kPenalty;
    mat[i] = -std::int32_t(i) * kPenalty;
  }
  const auto mb = w.memory.add(make_buffer("score", ElemType::S32, mat));
  const auto sb = w.memory.add(make_buffer("similarity", ElemType::S32, sim));
  const std::uint32_t nb = n / 16;
  const auto step = [&](const char* k, std::uint32_t i) {
    add_step(w, k,
             {{i, 1, 1},
              {16, 1, 1},
              0,
              {Arg::buf(mb), Arg::buf(sb), Arg::integer(n), Arg::integer(kPenalty), Arg::integer(i),
               zero_arg(), zero_arg()}});
  };
  for (std::uint32_t i = 1; i <= nb; ++i) step("nw_upper", i);
  for (std::uint32_t i = nb - 1; i >= 1; --i) step("nw_lower", i);
  w.description = fmt::format("Needleman-Wunsch scores of two {}-long sequences ({} launches)", n,
                              w.pipeline.size());
  w.check = [sim, mat, c](const GlobalMemory& m) {
    std::vector<std::int32_t> want = mat;
    for (std::uint32_t i = 1; i < c; ++i)
      for (std::uint32_t j = 1; j < c; ++j) {
        const std::size_t k = std::size_t(i) * c + j;
        want[k] =
            std::max({want[k - c - 1] + sim[k], want[k - 1] - kPenalty, want[k - c] - kPenalty});
      }
    return compare_exact("score", read_buffer<std::int32_t>(m, "score"), want);
  };
}

// ---- lavaMD ----------------------------------------------------------------------------------

void lavamd_driver(Workload& w, const BuiltinOptions& o) {
  constexpr std::uint32_t P = 100;  // LAVA_P
  const std::uint32_t b1 = or_default(o.size, 2);
  if (b1 > 16) throw InputError("builtin:lavamd: --size (boxes per dimension) must be 1..16");
  w.launch.block = shape_or(o.block, {128, 1, 1});
  w.launch.grid = {b1 * b1 * b1, 1, 1};
  if (o.grid) throw InputError("builtin:lavamd: one block per box (no --grid)");
  if (w.launch.block.count() < P || w.launch.block.y != 1 || w.launch.block.z != 1)
    throw InputError(fmt::format("builtin:lavamd: --block must be at least {} threads in x", P));
  const std::uint32_t boxes = b1 * b1 * b1;
  Rng rng(o.seed);
  std::vector<double> rv(std::size_t(boxes) * P * 4), qv(std::size_t(boxes) * P);
  for (std::size_t i = 0; i < std::size_t(boxes) * P; ++i) {
    double* r = &rv[4 * i];
    for (int k = 1; k < 4; ++k) r[k] = rng.uniform();
    r[0] = (r[1] * r[1] + r[2] * r[2] + r[3] * r[3]) / 2;
    qv[i] = 0.1 + 0.9 * rng.uniform();
  }
  const double a2 = 0.5;  // 2 alpha^2, alpha = 0.5 (Rodinia's default)
  const auto rb = w.memory.add(make_buffer("rv", ElemType::F64, rv));
  const auto qb = w.memory.add(make_buffer("qv", ElemType::F64, qv));
  const auto fb = w.memory.add(make_buffer("fv", ElemType::F64, std::vector<double>(rv.size())));
  w.launch.args = {Arg::buf(rb), Arg::buf(qb), Arg::buf(fb), Arg::integer(b1), Arg::real(a2)};
  w.description = fmt::format("lavamd: {}^3 boxes of {} particles", b1, P);
  w.tolerance = "|got - ref| <= 1e-6 (1 + |ref|), ref in double (exp as the kernel's __expf)";
  w.check = [rv, qv, b1, a2](const GlobalMemory& m) {
    std::vector<double> want(rv.size(), 0.0);
    const int B = int(b1);
    for (int home = 0; home < B * B * B; ++home) {
      const int hx = home % B, hy = (home / B) % B, hz = home / (B * B);
      for (int nz = hz - 1; nz <= hz + 1; ++nz)
        for (int ny = hy - 1; ny <= hy + 1; ++ny)
          for (int nx = hx - 1; nx <= hx + 1; ++nx) {
            if (nx < 0 || ny < 0 || nz < 0 || nx >= B || ny >= B || nz >= B) continue;
            const int nb = (nz * B + ny) * B + nx;
            for (std::uint32_t i = 0; i < P; ++i) {
              const double* a = &rv[4 * (std::size_t(home) * P + i)];
              double* f = &want[4 * (std::size_t(home) * P + i)];
              for (std::uint32_t j = 0; j < P; ++j) {
                const double* b = &rv[4 * (std::size_t(nb) * P + j)];
                const double r2 = a[0] + b[0] - (a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
                // The kernel's __expf: ex2.approx of x log2(e) in single precision.
                const double vij = std::exp2(float(float(-a2 * r2) * 1.44269504f));
                const double fs = 2 * vij, q = qv[std::size_t(nb) * P + j];
                f[0] += q * vij;
                for (int k = 1; k < 4; ++k) f[k] += q * (fs * (a[k] - b[k]));
              }
            }
          }
    }
    return compare_within("fv", read_buffer<double>(m, "fv"), want,
                          [&](std::size_t i) { return 1e-6 * (1 + std::fabs(want[i])); });
  };
}

// ---- MRI-grid-2 (gridding) -------------------------------------------------------------------

void grid3d_driver(Workload& w, const BuiltinOptions& o) {
  no_shape(o, "grid3d");
  const std::uint32_t g = or_default(o.width, 16), m = or_default(o.size, 512);
  if (g % 8 || g > 128)
    throw InputError("builtin:grid3d: --width (grid side) must be 8, 16, .. 128");
  if (m % 256 || m > (1u << 20))
    throw InputError("builtin:grid3d: --size (samples) must be a multiple of 256 up to 2^20");
  constexpr float kW2 = 2.25f;  // window radius 1.5 cells
  Rng rng(o.seed);
  std::vector<float> s(std::size_t(m) * 6);
  for (std::uint32_t i = 0; i < m; ++i) {
    float* x = &s[6 * std::size_t(i)];
    x[0] = float(rng.uniform() * 2 - 1);  // re, im
    x[1] = float(rng.uniform() * 2 - 1);
    for (int k = 2; k < 5; ++k) x[k] = float(rng.uniform() * (g - 1));  // kx, ky, kz
    x[5] = float(0.5 + rng.uniform());                                  // sdc
  }
  const std::size_t cells = std::size_t(g) * g * g;
  const auto sb = w.memory.add(make_buffer("samples", ElemType::F32, s));
  const auto rb = w.memory.add(make_buffer("grid_re", ElemType::F32, std::vector<float>(cells)));
  const auto ib = w.memory.add(make_buffer("grid_im", ElemType::F32, std::vector<float>(cells)));
  w.launch.block = {256, 1, 1};
  w.launch.grid = {(g / 8) * (g / 8) * (g / 4), 1, 1};
  w.launch.args = {Arg::buf(sb), Arg::integer(m), Arg::integer(g), Arg::real(kW2),
                   Arg::buf(rb), Arg::buf(ib),    zero_arg(),      zero_arg()};
  w.description = fmt::format("grid3d: {} samples onto a {}^3 grid", m, g);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |w v|) + 1e-6, ref in double";
  w.check = [s, g, m](const GlobalMemory& mem) {
    const std::size_t cells = std::size_t(g) * g * g;
    std::vector<double> re(cells, 0), im(cells, 0), mag(cells, 0);
    for (std::size_t c = 0; c < cells; ++c) {
      const double px = double(c % g), py = double((c / g) % g), pz = double(c / (g * g));
      for (std::uint32_t j = 0; j < m; ++j) {
        const float* x = &s[6 * std::size_t(j)];
        const double dx = px - x[2], dy = py - x[3], dz = pz - x[4];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 >= double(kW2) - 1e-6) continue;  // (the kernel compares in float; see below)
        const double wt = (1 - d2 / kW2) * x[5];
        re[c] += wt * x[0];
        im[c] += wt * x[1];
        mag[c] += std::fabs(wt) * (std::fabs(x[0]) + std::fabs(x[1]));
      }
    }
    // A sample within 1e-6 of the window's edge has a weight below 1e-6: either side is fine.
    const auto tol = [&](std::size_t i) { return 1e-5 * mag[i] + 1e-5; };
    return compare_within("grid_re", read_buffer<float>(mem, "grid_re"), re, tol) +
           compare_within("grid_im", read_buffer<float>(mem, "grid_im"), im, tol);
  };
}

}  // namespace smemsim::exec

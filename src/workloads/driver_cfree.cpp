// Built-in drivers of the five conflict-free benchmarks seed 002 §7.1 uses to measure the hash's
// extra cycle (kernels/conflict_free.cu): scalar product, matrix multiply, srad (two launches),
// hotspot (two steps, ping-pong) and back propagation's layer-forward pass. CPU references in
// double, written from the algorithms, compared within a tolerance.
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

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, double lo, double hi) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(lo + (hi - lo) * rng.uniform());
  return v;
}

void fixed_shape(const BuiltinOptions& o, const char* name) {
  if (o.grid || o.block)
    throw InputError(
        fmt::format("builtin:{}: the 16 x 16 tiles fix the launch (no --grid or "
                    "--block)",
                    name));
}

std::uint32_t side(std::uint32_t v, std::uint32_t d, const char* name) {
  const std::uint32_t s = or_default(v, d);
  if (s % 16 || s > 4096)
    throw InputError(
        fmt::format("builtin:{}: --width and --height must be multiples of 16 up to "
                    "4096",
                    name));
  return s;
}

}  // namespace

void scalar_prod_driver(Workload& w, const BuiltinOptions& o) {
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {16, 1, 1});
  const std::uint32_t T = w.launch.block.x, pairs = w.launch.grid.x;
  if (w.launch.block.count() != T || (T & (T - 1)) || T > 1024 || w.launch.grid.count() != pairs)
    throw InputError(
        "builtin:scalar_prod: --block is a power of two up to 1024, --grid one "
        "dimension (vector pairs)");
  const std::uint32_t len = or_default(o.size, 4096);
  check_param("scalar_prod", "--size", len, 1u << 24);
  check_budget(o, "scalar_prod", 16.0 * pairs * len,
               fmt::format("{} pairs of {} floats", pairs, len), "--size or --grid");
  const std::vector<float> a = uniform_floats(std::size_t(pairs) * len, o.seed, -1, 1);
  const std::vector<float> b = uniform_floats(a.size(), o.seed + 1, -1, 1);
  const auto ab = w.memory.add(make_buffer("a", ElemType::F32, a));
  const auto bb = w.memory.add(make_buffer("b", ElemType::F32, b));
  const auto ob = w.memory.add(make_buffer("out", ElemType::F32, std::vector<float>(pairs)));
  w.launch.args = {Arg::buf(ab), Arg::buf(bb), Arg::buf(ob), Arg::integer(len)};
  w.description = fmt::format("scalar_prod of {} vector pairs of {} floats", pairs, len);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |a b|), ref in double";
  w.check = [a, b, pairs, len](const GlobalMemory& m) {
    std::vector<double> want(pairs, 0), mag(pairs, 0);
    for (std::size_t i = 0; i < a.size(); ++i) {
      want[i / len] += double(a[i]) * b[i];
      mag[i / len] += std::fabs(double(a[i]) * b[i]);
    }
    return compare_within("out", read_buffer<float>(m, "out"), want,
                          [&](std::size_t i) { return 1e-5 * mag[i]; });
  };
}

void matmul_driver(Workload& w, const BuiltinOptions& o) {
  fixed_shape(o, "matmul");
  // tiled: 16 x 16 tiles through shared memory (the seed's kernel); naive: straight from global
  // memory (issue 44: the traffic the tile saves).
  const std::string v = o.variant.empty() ? "tiled" : o.variant;
  if (v != "tiled" && v != "naive")
    throw InputError("builtin:matmul: --variant must be tiled or naive");
  w.kernel = v == "naive" ? "matmul_naive" : "matmul";
  const std::uint32_t n = side(o.width, 64, "matmul");
  const std::vector<float> a = uniform_floats(std::size_t(n) * n, o.seed, -1, 1);
  const std::vector<float> b = uniform_floats(a.size(), o.seed + 1, -1, 1);
  const auto ab = w.memory.add(make_buffer("a", ElemType::F32, a));
  const auto bb = w.memory.add(make_buffer("b", ElemType::F32, b));
  const auto cb = w.memory.add(make_buffer("c", ElemType::F32, std::vector<float>(a.size())));
  w.launch = {{n / 16, n / 16, 1},
              {16, 16, 1},
              0,
              {Arg::buf(ab), Arg::buf(bb), Arg::buf(cb), Arg::integer(n)}};
  w.description =
      fmt::format("matmul{} of two {}x{} float matrices", v == "naive" ? " (naive)" : "", n, n);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |a b|), ref in double";
  w.check = [a, b, n](const GlobalMemory& m) {
    std::vector<double> want(a.size()), mag(a.size());
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j)
        for (std::uint32_t k = 0; k < n; ++k) {
          const double t = double(a[std::size_t(i) * n + k]) * b[std::size_t(k) * n + j];
          want[std::size_t(i) * n + j] += t;
          mag[std::size_t(i) * n + j] += std::fabs(t);
        }
    return compare_within("c", read_buffer<float>(m, "c"), want,
                          [&](std::size_t i) { return 1e-5 * mag[i]; });
  };
}

void srad_driver(Workload& w, const BuiltinOptions& o) {
  fixed_shape(o, "srad");
  const std::uint32_t cols = side(o.width, 64, "srad"), rows = side(o.height, 64, "srad");
  const std::size_t n = std::size_t(rows) * cols;
  std::vector<float> J = uniform_floats(n, o.seed, 0, 1);
  for (auto& x : J) x = std::exp(x);  // Rodinia's srad works on exp(image)
  double mean = 0, sq = 0;
  for (float x : J) mean += x, sq += double(x) * x;
  mean /= double(n);
  const double var = sq / double(n) - mean * mean;
  const float q0 = float(var / (mean * mean)), lambda = 0.5f;
  const auto jb = w.memory.add(make_buffer("J", ElemType::F32, J));
  std::vector<std::uint32_t> bufs;
  for (const char* name : {"c", "dN", "dS", "dW", "dE"})
    bufs.push_back(w.memory.add(make_buffer(name, ElemType::F32, std::vector<float>(n))));
  const Dim3 grid{cols / 16, rows / 16, 1}, block{16, 16, 1};
  // srad1 takes q0 last, srad2 lambda; their other arguments are the same buffers and sizes.
  for (const auto& [kernel, last] : {std::pair{"srad1", q0}, std::pair{"srad2", lambda}})
    add_step(
        w, kernel,
        {grid,
         block,
         0,
         {Arg::buf(jb), Arg::buf(bufs[0]), Arg::buf(bufs[1]), Arg::buf(bufs[2]), Arg::buf(bufs[3]),
          Arg::buf(bufs[4]), Arg::integer(rows), Arg::integer(cols), Arg::real(last)}});
  w.description = fmt::format("srad: one diffusion iteration on a {}x{} image", cols, rows);
  w.tolerance = "|got - ref| <= 1e-4 (1 + |ref|), ref in double";
  w.check = [J, rows, cols, q0, lambda](const GlobalMemory& m) {
    const auto at = [&](const std::vector<double>& v, long r, long c) {
      r = std::clamp(r, 0L, long(rows) - 1);
      c = std::clamp(c, 0L, long(cols) - 1);
      return v[std::size_t(r) * cols + std::size_t(c)];
    };
    const std::vector<double> j(J.begin(), J.end());
    std::vector<double> cf(j.size()), dn(j.size()), ds(j.size()), dw(j.size()), de(j.size());
    for (long r = 0; r < long(rows); ++r)
      for (long c = 0; c < long(cols); ++c) {
        const std::size_t i = std::size_t(r) * cols + std::size_t(c);
        const double v = j[i];
        dn[i] = at(j, r - 1, c) - v, ds[i] = at(j, r + 1, c) - v;
        dw[i] = at(j, r, c - 1) - v, de[i] = at(j, r, c + 1) - v;
        const double g2 = (dn[i] * dn[i] + ds[i] * ds[i] + dw[i] * dw[i] + de[i] * de[i]) / (v * v);
        const double l = (dn[i] + ds[i] + dw[i] + de[i]) / v;
        const double num = 0.5 * g2 - l * l / 16, den = 1 + 0.25 * l;
        const double coef = 1 / (1 + (num / (den * den) - q0) / (q0 * (1 + double(q0))));
        cf[i] = std::clamp(coef, 0.0, 1.0);
      }
    std::vector<double> want(j.size());
    for (long r = 0; r < long(rows); ++r)
      for (long c = 0; c < long(cols); ++c) {
        const std::size_t i = std::size_t(r) * cols + std::size_t(c);
        const double div =
            cf[i] * dn[i] + at(cf, r + 1, c) * ds[i] + cf[i] * dw[i] + at(cf, r, c + 1) * de[i];
        want[i] = j[i] + 0.25 * lambda * div;
      }
    return compare_within("J", read_buffer<float>(m, "J"), want,
                          [&](std::size_t i) { return 1e-4 * (1 + std::fabs(want[i])); });
  };
}

void hotspot_driver(Workload& w, const BuiltinOptions& o) {
  fixed_shape(o, "hotspot");
  const std::uint32_t cols = side(o.width, 64, "hotspot"), rows = side(o.height, 64, "hotspot");
  const std::size_t n = std::size_t(rows) * cols;
  const std::vector<float> power = uniform_floats(n, o.seed, 0, 0.01);
  const std::vector<float> temp = uniform_floats(n, o.seed + 1, 320, 340);
  // Rodinia's chip constants reduced to the step's coefficients (uncalibrated, any stable set).
  const float step_cap = 0.5f, rx = 0.1f, ry = 0.1f, rz = 0.01f, amb = 80.0f;
  const auto pb = w.memory.add(make_buffer("power", ElemType::F32, power));
  const auto t0 = w.memory.add(make_buffer("temp", ElemType::F32, temp));
  const auto t1 = w.memory.add(make_buffer("temp_next", ElemType::F32, std::vector<float>(n)));
  const Dim3 grid{(cols + 13) / 14, (rows + 13) / 14, 1}, block{16, 16, 1};
  for (int s = 0; s < 2; ++s)  // two steps: temp -> temp_next -> temp
    add_step(w, "hotspot",
             {grid,
              block,
              0,
              {Arg::buf(pb), Arg::buf(s ? t1 : t0), Arg::buf(s ? t0 : t1), Arg::integer(rows),
               Arg::integer(cols), Arg::real(step_cap), Arg::real(rx), Arg::real(ry), Arg::real(rz),
               Arg::real(amb)}});
  w.description = fmt::format("hotspot: two steps on a {}x{} grid", cols, rows);
  w.tolerance = "|got - ref| <= 1e-3, ref in double";
  w.check = [=](const GlobalMemory& m) {
    std::vector<double> t(temp.begin(), temp.end());
    for (int s = 0; s < 2; ++s) {
      std::vector<double> next(n);
      const auto at = [&](long r, long c) {
        return t[std::size_t(std::clamp(r, 0L, long(rows) - 1)) * cols +
                 std::size_t(std::clamp(c, 0L, long(cols) - 1))];
      };
      for (long r = 0; r < long(rows); ++r)
        for (long c = 0; c < long(cols); ++c) {
          const double v = at(r, c);
          next[std::size_t(r) * cols + std::size_t(c)] =
              v + step_cap * (power[std::size_t(r) * cols + std::size_t(c)] +
                              (at(r + 1, c) + at(r - 1, c) - 2 * v) * ry +
                              (at(r, c + 1) + at(r, c - 1) - 2 * v) * rx + (amb - v) * rz);
        }
      t = next;
    }
    return compare_within("temp", read_buffer<float>(m, "temp"), t,
                          [](std::size_t) { return 1e-3; });
  };
}

void backprop_driver(Workload& w, const BuiltinOptions& o) {
  fixed_shape(o, "backprop");
  const std::uint32_t in = or_default(o.size, 1024);
  if (in % 16 || in > (1u << 20))
    throw InputError("builtin:backprop: --size (input units) must be a multiple of 16");
  const std::vector<float> x = uniform_floats(in, o.seed, 0, 1);
  const std::vector<float> wt = uniform_floats(std::size_t(in) * 16, o.seed + 1, -1, 1);
  const auto xb = w.memory.add(make_buffer("input", ElemType::F32, x));
  const auto wb = w.memory.add(make_buffer("weights", ElemType::F32, wt));
  const auto pb = w.memory.add(make_buffer("partial", ElemType::F32, std::vector<float>(in)));
  w.launch = {{1, in / 16, 1},
              {16, 16, 1},
              0,
              {Arg::buf(xb), Arg::buf(wb), Arg::buf(pb), Arg::integer(in)}};
  w.description = fmt::format("backprop layer forward: {} inputs, 16 hidden units", in);
  w.tolerance = "|got - ref| <= 1e-5 (sum of |w x|), ref in double";
  w.check = [x, wt, in](const GlobalMemory& m) {
    std::vector<double> want(in, 0), mag(in, 0);
    for (std::uint32_t i = 0; i < in; ++i)
      for (std::uint32_t h = 0; h < 16; ++h) {
        const double t = double(wt[std::size_t(i) * 16 + h]) * x[i];
        want[(i / 16) * 16 + h] += t;
        mag[(i / 16) * 16 + h] += std::fabs(t);
      }
    return compare_within("partial", read_buffer<float>(m, "partial"), want,
                          [&](std::size_t i) { return 1e-5 * mag[i]; });
  };
}

}  // namespace smemsim::exec

// builtin:dct8x8 (kernels/dct8x8.cu, seed 004 Table 4's DCT, IDCT, DCT_short, IDCT_short): the CPU
// references alone (against the 2-D DCT-II definition), every variant against its reference, and
// the bank conflicts derived by hand in the kernel's header, per instruction, on cf11 (8 banks,
// 8-lane transactions) and on the default Fermi preset (32 banks, 32 lanes).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "util/rng.hpp"
#include "workloads/dct_ref.hpp"

namespace smemsim::exec {
namespace {

using test::source_line;

const char* kVariants[] = {"dct",       "idct",       "dct_short",       "idct_short",
                           "dct_nopad", "idct_nopad", "dct_short_nopad", "idct_short_nopad"};

// ---- CPU references alone ---------------------------------------------------------------------

// X[u][v] = c(u) c(v) sum_y sum_x x[y][x] cos((2y+1)u pi/16) cos((2x+1)v pi/16), c(0) = sqrt(1/8),
// c(k > 0) = 1/2: the 2-D DCT-II written as one double sum, independently of the reference's
// separable loop.
double dct2d(const std::vector<double>& b, int u, int v) {
  const double pi = std::acos(-1.0);
  auto c = [](int k) { return k == 0 ? std::sqrt(1.0 / 8) : 0.5; };
  double s = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      s += b[std::size_t(8 * y + x)] * std::cos((2 * y + 1) * u * pi / 16) *
           std::cos((2 * x + 1) * v * pi / 16);
  return c(u) * c(v) * s;
}

std::vector<double> random_image(std::uint32_t W, std::uint32_t H, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(std::size_t(W) * H);
  for (double& x : v) x = double(rng.below(256));
  return v;
}

TEST(DctReference, ConstantBlockHasOnlyTheDcCoefficient) {
  for (double value : {0.0, 1.0, 37.0, 255.0}) {
    const std::vector<double> y = dct_ref::dct_double(std::vector<double>(64, value), 8, 8, false);
    EXPECT_NEAR(y[0], 8 * value, 1e-9) << value;  // orthonormal: 8 sqrt(1/8)^2 * 8 value
    for (std::size_t i = 1; i < 64; ++i) EXPECT_NEAR(y[i], 0.0, 1e-9) << value << " at " << i;
  }
}

TEST(DctReference, FloatMatchesTheTwoDimensionalDefinition) {
  const std::vector<double> img = random_image(16, 8, 3);  // two blocks side by side
  const std::vector<double> y = dct_ref::dct_double(img, 16, 8, false);
  for (int b = 0; b < 2; ++b) {
    std::vector<double> blk(64);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c)
        blk[std::size_t(8 * r + c)] = img[std::size_t(16 * r + 8 * b + c)];
    for (int u = 0; u < 8; ++u)
      for (int v = 0; v < 8; ++v)
        EXPECT_NEAR(y[std::size_t(16 * u + 8 * b + v)], dct2d(blk, u, v), 1e-9) << b << u << v;
  }
}

TEST(DctReference, FloatInverseUndoesTheForward) {
  const std::vector<double> img = random_image(32, 16, 5);
  const std::vector<double> back =
      dct_ref::dct_double(dct_ref::dct_double(img, 32, 16, false), 32, 16, true);
  for (std::size_t i = 0; i < img.size(); ++i) EXPECT_NEAR(back[i], img[i], 1e-9) << i;
}

// The fixed point: Cq = round(4096 C), each 1-D pass (sum + 2048) >> 12. On level-shifted pixels
// (-128..127) the forward transform stays within 2 of the exact DCT and the inverse of the forward
// within 3 of the pixel: the largest errors over 2 million random blocks (uniform, 0/255 only, and
// noisy gradients) were 1.75 and 3; on this test's 256 uniform random blocks 1.34 and 2. Sources:
// each pass rounds by at most 1/2, a row of |C| sums to at most 2 sqrt(2) (so the column pass
// amplifies the row pass's rounding up to 1.41), and each Cq is off by at most 1/8192.
TEST(DctReference, ShortIsCloseToTheExactTransformAndRoundTrips) {
  EXPECT_EQ(dct_ref::coef_q(0, 0), 1448);  // round(4096 sqrt(1/8))
  EXPECT_EQ(dct_ref::coef_q(1, 0), 2009);  // round(2048 cos(pi / 16))
  const std::uint32_t W = 128, H = 128;
  const std::vector<double> img = random_image(W, H, 7);
  std::vector<int> px(img.size());
  std::vector<double> shifted(img.size());
  for (std::size_t i = 0; i < img.size(); ++i) {
    px[i] = int(img[i]) - 128;
    shifted[i] = px[i];
  }
  const std::vector<int> q = dct_ref::dct_fixed(px, W, H, false);
  const std::vector<double> exact = dct_ref::dct_double(shifted, W, H, false);
  const std::vector<int> back = dct_ref::dct_fixed(q, W, H, true);
  double fwd_err = 0;
  int rt_err = 0;
  for (std::size_t i = 0; i < px.size(); ++i) {
    fwd_err = std::max(fwd_err, std::fabs(q[i] - exact[i]));
    rt_err = std::max(rt_err, std::abs(back[i] - px[i]));
  }
  EXPECT_LE(fwd_err, 2.0);
  EXPECT_LE(rt_err, 3);
  // A constant block: DC only, 8 x value, exactly.
  const std::vector<int> c = dct_ref::dct_fixed(std::vector<int>(64, 100), 8, 8, false);
  EXPECT_EQ(c[0], 800);
  EXPECT_EQ(std::count(c.begin(), c.end(), 0), 63);
}

// ---- the kernels against the references ---------------------------------------------------------

void run_and_check(const char* variant, std::uint32_t w, std::uint32_t h) {
  BuiltinOptions o;
  o.variant = variant;
  o.width = w;
  o.height = h;
  o.seed = w + 3 * h;
  Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
  Executor ex(wl.module, find_kernel(wl.module, wl.kernel), default_arch(), wl.launch, wl.memory);
  ex.run();
  EXPECT_EQ(wl.check(wl.memory), "") << variant << " " << w << "x" << h;
}

TEST(Dct, EveryVariantMatchesTheReferenceOnTwoShapes) {
  for (const char* v : kVariants)
    for (const auto& [w, h] : {std::pair{64u, 32u}, std::pair{32u, 64u}}) run_and_check(v, w, h);
}

TEST(Dct, EveryVariantMatchesTheReferenceAt512x512) {  // Table 4's image: ~0.1 s a variant
  for (const char* v : kVariants) run_and_check(v, 512, 512);
}

TEST(Dct, KernelNamesAndTable4Shapes) {
  const std::map<std::string, std::string> kernel = {{"dct", "dct_pad"},
                                                     {"idct_nopad", "idct_nopad"},
                                                     {"dct_short", "dct_short_pad"},
                                                     {"idct_short_nopad", "idct_short_nopad"}};
  for (const auto& [v, k] : kernel) {
    BuiltinOptions o;
    o.variant = v;
    const Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
    EXPECT_EQ(wl.kernel, k);
    const bool s = v.find("short") != std::string::npos;
    EXPECT_EQ(wl.launch.grid.x, 16u) << v;
    EXPECT_EQ(wl.launch.grid.y, s ? 16u : 32u) << v;
    EXPECT_EQ(wl.launch.block.z, s ? 4u : 2u) << v;
  }
}

// ---- bank conflicts, derived in the header of kernels/dct8x8.cu
// ----------------------------------

// Every shared-memory instruction of the variant, profiled on `arch` (the reference checked too).
std::vector<ProfileRow> profile_rows(const std::string& variant, const Arch& arch) {
  BuiltinOptions o;
  o.variant = variant;
  o.width = o.height = 64;
  Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
  const ptx::Kernel& k = find_kernel(wl.module, wl.kernel);
  Executor ex(wl.module, k, arch, wl.launch, wl.memory);
  Profiler prof(wl.module, k, arch);
  ex.set_consumer(&prof);
  ex.run();
  EXPECT_EQ(wl.check(wl.memory), "") << variant;
  return prof.rows();
}

std::string at(const char* needle) {
  const std::uint32_t line = source_line("dct8x8.cu", needle);
  EXPECT_NE(line, 0u) << needle;
  return "dct8x8.cu:" + std::to_string(line);
}

struct Want {
  int row_pass;   // the row pass's loads and stores
  int load_tile;  // the global-to-shared copy and the shared-to-global copy
  double mean;    // over every shared-memory warp access
};

// Each row must have the derived degree in every execution; the phases are told apart by their
// CUDA line; every other shared access (the column pass) is conflict-free on both presets.
void expect_degrees(const std::string& variant, const Arch& arch, const Want& want) {
  const bool is_short = variant.find("short") != std::string::npos;
  const std::string row_ld = at(is_short ? "const unsigned w = tile[row + j]" : "= TILE(row + k)");
  const std::string row_st = at(is_short ? "tile[row + j] =" : "TILE(row + u) = s");
  const std::string copy_in =
      at(is_short ? "tile[r * (STRIDE / 2) + c] = in" : "TILE(r * STRIDE + c) = in");
  const std::string copy_out =
      at(is_short ? "= tile[r * (STRIDE / 2) + c]" : "= TILE(r * STRIDE + c)");
  const std::vector<ProfileRow> rows = profile_rows(variant, arch);
  std::int64_t sum = 0;
  std::uint64_t n = 0;
  int row_pass_rows = 0;
  for (const ProfileRow& r : rows) {
    int d = 1;
    if (r.cuda == row_ld || r.cuda == row_st) {
      d = want.row_pass;
      ++row_pass_rows;
    } else if (r.cuda == copy_in || r.cuda == copy_out) {
      d = want.load_tile;
    }
    EXPECT_EQ(r.totals.max_bank_degree, d) << variant << " " << r.cuda << " " << r.text;
    EXPECT_EQ(r.totals.sum_bank_degree, d * std::int64_t(r.totals.accesses)) << variant << r.cuda;
    sum += r.totals.sum_bank_degree;
    n += r.totals.accesses;
  }
  EXPECT_EQ(row_pass_rows, is_short ? 8 : 16) << variant;  // unrolled: 4+4 words or 8+8 floats
  EXPECT_NEAR(double(sum) / double(n), want.mean, 1e-12) << variant << " on " << arch.name;
}

// cf11: per 8-lane subwarp. Float: 16 of 48 accesses per thread in the row pass, 8-way unpadded:
// (16 x 8 + 32) / 48 = 10/3 (004 Table 4: 3.33). Short: 8 of 32, (8 x 8 + 24) / 32 = 2.75 (Table
// 4: 2.75). Padded: 1 everywhere. Every transaction of an access has the same degree, so the mean
// of the per-access maximum is also 1 + conflicts / transactions.
TEST(DctProfile, Cf11DegreesAreTheHeadersAndTable4s) {
  const Arch& cf11 = find_preset("cf11");
  for (const char* v : {"dct", "idct", "dct_short", "idct_short"})
    expect_degrees(v, cf11, {1, 1, 1.0});
  for (const char* v : {"dct_nopad", "idct_nopad"}) expect_degrees(v, cf11, {8, 1, 10.0 / 3});
  for (const char* v : {"dct_short_nopad", "idct_short_nopad"})
    expect_degrees(v, cf11, {8, 1, 2.75});
}

// Fermi (32 banks, 32-lane transactions): float as on cf11 (rows 8-way unpadded, 1 padded).
// Short unpadded: rows 4-way, (8 x 4 + 24) / 32 = 1.75. Short padded (stride 17 words): rows
// 2-way and the tile copies 2-way (a warp's 32 words span two tile rows and the 17-word stride
// puts words 0 and 32 of the span in one bank): (8 x 2 + 8 x 2 + 16) / 32 = 1.5.
TEST(DctProfile, FermiDegreesAreTheHeaders) {
  const Arch& fermi = default_arch();
  ASSERT_EQ(fermi.banks, 32u);
  ASSERT_EQ(fermi.transaction_lanes, 32u);
  for (const char* v : {"dct", "idct"}) expect_degrees(v, fermi, {1, 1, 1.0});
  for (const char* v : {"dct_nopad", "idct_nopad"}) expect_degrees(v, fermi, {8, 1, 10.0 / 3});
  for (const char* v : {"dct_short", "idct_short"}) expect_degrees(v, fermi, {2, 2, 1.5});
  for (const char* v : {"dct_short_nopad", "idct_short_nopad"})
    expect_degrees(v, fermi, {4, 1, 1.75});
}

// The cycle-level model sees the same passes per subwarp access as the profile (cf11).
TEST(DctProfile, TimingModelPassesMatchOnCf11) {
  const Arch& cf11 = find_preset("cf11");
  const std::pair<const char*, double> want[] = {{"dct", 1.0},
                                                 {"idct_short", 1.0},
                                                 {"dct_nopad", 10.0 / 3},
                                                 {"idct_nopad", 10.0 / 3},
                                                 {"dct_short_nopad", 2.75},
                                                 {"idct_short_nopad", 2.75}};
  for (const auto& [v, degree] : want) {
    BuiltinOptions o;
    o.variant = v;
    o.width = o.height = 64;
    Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
    timing::GpuSim sim(wl.module, find_kernel(wl.module, wl.kernel), cf11, wl.launch, wl.memory,
                       {});
    const timing::TimingStats& s = sim.run();
    EXPECT_EQ(wl.check(wl.memory), "") << v;
    EXPECT_DOUBLE_EQ(double(s.units.smem_passes) / double(s.units.smem_accesses), degree) << v;
  }
}

TEST(Dct, BadOptionsAreErrors) {
  auto throws = [](BuiltinOptions o) {
    EXPECT_THROW(make_builtin("dct8x8", o, SMEMSIM_PTX_DIR), InputError);
  };
  BuiltinOptions o;
  o.variant = "fft";
  throws(o);
  o.variant = "dct_pad";  // the padded kernels are the plain names
  throws(o);
  o.variant = "dct_short";
  o.width = 64;
  o.height = 48;  // not a multiple of the 32-row region
  throws(o);
  o.variant = "dct";
  o.width = 48;  // not a multiple of 32
  o.height = 16;
  throws(o);
  o.variant = "dct_short";
  o.width = o.height = 64;
  o.block = Dim3{8, 4, 2};  // the float kernels' block
  throws(o);
  o.block.reset();
  o.grid = Dim3{2, 1, 1};  // a 64x64 short image needs 2,2
  throws(o);
}

}  // namespace
}  // namespace smemsim::exec

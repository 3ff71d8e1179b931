// Issue 5 "must show" 3, end to end: the trace `profile --emit-trace` writes for the transpose
// kernel goes to `hash search`; the CUDA software hash it emits is applied in a variant of the
// transpose kernel source (every tile index through the hash, seed 002 §6/§7.2), compiled by nvcc,
// and that variant profiles conflict-free while still transposing correctly. Skipped without nvcc.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;
using test::temp_file;

// transpose_naive of kernels/transpose.cu with a 1D tile whose indices go through smemsim_hash.
const char* kVariant = R"(
#define TILE_DIM 16
extern "C" __global__ void transpose_hashed(float* odata, const float* idata, int width,
                                            int height) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  tile[smemsim_hash(threadIdx.y * TILE_DIM + threadIdx.x)] = idata[x + y * width];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  odata[x + y * height] = tile[smemsim_hash(threadIdx.x * TILE_DIM + threadIdx.y)];
}
)";

#ifdef SMEMSIM_NVCC
// Compiles `variant` (which calls smemsim_hash) with the emitted `cuh` included, profiles it on a
// 64 x 64 iota matrix with `grid` and `block`, checks that the output is the transposed matrix and
// returns the profile's JSON.
nlohmann::json profile_variant(const std::string& name, const std::string& cuh, const char* variant,
                               const std::string& grid, const std::string& block) {
  const std::string dir = ::testing::TempDir();
  const std::string cu = temp_file(name + ".cu", "#include \"" + cuh + "\"\n" + variant);
  const std::string ptx = dir + "smemsim_" + name + ".ptx";
  const std::string nvcc = std::string(SMEMSIM_NVCC) +
                           " -ptx -lineinfo -arch=" + SMEMSIM_NVCC_ARCH + " " + cu + " -o " + ptx +
                           " 2>&1";
  EXPECT_EQ(std::system(nvcc.c_str()), 0) << nvcc;
  const std::string out = dir + "smemsim_" + name + "_odata.txt";
  const std::string spec = temp_file(
      name + ".toml", "grid = " + grid + "\nblock = " + block +
                          "\nargs = [\"odata\", \"idata\", 64, 64]\n"
                          "[buffers.idata]\ntype = \"f32\"\ncount = 4096\ninit = \"iota\"\n"
                          "[buffers.odata]\ntype = \"f32\"\ncount = 4096\nwrite = \"" +
                          out + "\"\n");
  const auto r = cli("profile " + ptx + " --launch " + spec + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(out);
  double v = 0;
  int n = 0;
  for (; in >> v; ++n) EXPECT_EQ(v, double((n % 64) * 64 + n / 64)) << n;  // transposed iota
  EXPECT_EQ(n, 4096);
  return nlohmann::json::parse(r.out, nullptr, false);
}
#endif

TEST(ExecHashEndToEnd, TransposeTraceToSearchToSoftwareHashProfilesConflictFree) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  const std::string dir = ::testing::TempDir();
  const std::string trace = dir + "smemsim_e2e_transpose.trace";
  auto r = cli("profile builtin:transpose --emit-trace " + trace + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["totals"]["bank_conflicts"], 128 * 7);  // 8-way reads
  // The code alone goes to stdout (issue 10 item 1): the redirected file is included as it is.
  const std::string cuh = dir + "smemsim_e2e_hash.cuh";
  r = test::shell("(" + std::string(SMEMSIM_CLI) + " hash search --family bvxor --trace " + trace +
                  " --emit cuda > " + cuh + ")");
  if (r.exit_code == 2 && r.out.find("not expected") != std::string::npos)
    GTEST_SKIP() << "no `smemsim hash search` in this build";
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("conflicts            0"), std::string::npos) << r.out;  // on stderr

  const auto j = profile_variant("e2e_transpose", cuh, kVariant, "[4, 4]", "[16, 16]");
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["accesses"], 128);
    EXPECT_EQ(row["bank_conflicts"], 0) << row.dump();
    EXPECT_EQ(row["bank_degree_max"], 1) << row.dump();
  }
#endif
}

// transpose32_naive of kernels/transpose.cu with its 32 x 32 tile as a 1D array whose index goes
// through smemsim_hash (the swizzle of profile's hint).
const char* kVariant32 = R"(
#define TILE32 32
#define ROWS32 8
extern "C" __global__ void transpose32_swizzled(float* odata, const float* idata, int width,
                                                int height) {
  __shared__ float tile[TILE32 * TILE32];
  int x = blockIdx.x * TILE32 + threadIdx.x;
  int y = blockIdx.y * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    tile[smemsim_hash((threadIdx.y + i) * TILE32 + threadIdx.x)] = idata[(y + i) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE32 + threadIdx.x;
  y = blockIdx.x * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    odata[(y + i) * height + x] = tile[smemsim_hash(threadIdx.x * TILE32 + threadIdx.y + i)];
}
)";

// Issue 10 item 6: the swizzle profile's hint names for a conflicting line of the transposed-tile
// kernel is what `hash search --pc LINE --emit cuda` emits; applied through a variant of the kernel
// (every tile index through it), compiled by nvcc, every line profiles conflict-free and the
// matrix is still transposed.
TEST(ExecHashEndToEnd, ProfileSwizzleHintAppliedRemovesTheConflict) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  const std::string dir = ::testing::TempDir();
  const std::string trace = dir + "smemsim_e2e_t32.trace";
  auto r = cli("profile builtin:transpose --variant naive32 --emit-trace " + trace + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto prof = nlohmann::json::parse(r.out);
  std::string spec, pc;
  for (const auto& row : prof["rows"])
    if (row["bank_conflicts"] > 0 && pc.empty()) {
      spec = row["hints"]["swizzle"]["spec"];
      pc = std::to_string(row["ptx"]["line"].get<int>());
      // Applied to every line of the kernel, the swizzle leaves no conflict (computed, not
      // guessed: measured again below on the compiled variant).
      EXPECT_EQ(row["hints"]["swizzle"]["kernel_conflicts_after"], 0) << row.dump();
    }
  ASSERT_FALSE(spec.empty()) << r.out;
  const std::string cuh = dir + "smemsim_e2e_hash32.cuh";
  r = test::shell("(" + std::string(SMEMSIM_CLI) + " hash search --family bvxor --trace " + trace +
                  " --pc " + pc + " --emit cuda > " + cuh + ")");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("spec                 " + spec), std::string::npos) << r.out;  // stderr

  const auto j = profile_variant("e2e_t32", cuh, kVariant32, "[2, 2]", "[32, 8]");
  EXPECT_EQ(j["rows"].size(), 8u);  // four stores, four loads (the loops unrolled)
  EXPECT_EQ(j["totals"]["accesses"], prof["totals"]["accesses"]);
  EXPECT_EQ(j["totals"]["bank_conflicts"], 0) << j.dump();
#endif
}

}  // namespace
}  // namespace smemsim

// Issue 26, "what it must show": the CUDA `smemsim fix --emit cuda` hands over, pasted into the
// kernel (its tile index through the emitted function, the padded size for a padding), compiled by
// nvcc and run again, gives the same output with the conflicts gone and fewer cycles. Skipped
// without nvcc.
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

// A 32 x 32 transpose through a shared tile read by column (lane x reads word 32 x + r: bank r
// for every lane, 32-way). TILE_INDEX and TILE_WORDS are where a fix is pasted.
const char* kKernel = R"(
#ifndef TILE_INDEX
#define TILE_INDEX(i) (i)
#endif
#ifndef TILE_WORDS
#define TILE_WORDS (32 * 32)
#endif
extern "C" __global__ void tr(float* out, const float* in) {
  __shared__ float tile[TILE_WORDS];
  const unsigned x = threadIdx.x, b = blockIdx.x * 1024;
  for (unsigned r = threadIdx.y; r < 32; r += 8) tile[TILE_INDEX(r * 32 + x)] = in[b + r * 32 + x];
  __syncthreads();
  for (unsigned r = threadIdx.y; r < 32; r += 8) out[b + r * 32 + x] = tile[TILE_INDEX(x * 32 + r)];
}
)";

#ifdef SMEMSIM_NVCC
std::string compile(const std::string& name, const std::string& flags) {
  const std::string cu = temp_file("fix_e2e.cu", kKernel);
  const std::string ptx = ::testing::TempDir() + "smemsim_" + name + ".ptx";
  const std::string cmd = std::string(SMEMSIM_NVCC) + " -ptx -lineinfo -arch=" + SMEMSIM_NVCC_ARCH +
                          " " + flags + " " + cu + " -o " + ptx + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return ptx;
}

// The launch spec: 4 tiles of iota, the output written to `out`.
std::string spec(const std::string& name, const std::string& out) {
  return temp_file(name + ".toml",
                   "grid = 4\nblock = [32, 8]\nargs = [\"out\", \"in\"]\n"
                   "[buffers.in]\ntype = \"f32\"\ncount = 4096\ninit = \"iota\"\n"
                   "[buffers.out]\ntype = \"f32\"\ncount = 4096\nwrite = \"" +
                       out + "\"\n");
}

// profile --timing of `ptx`: the document (its output in `out`).
nlohmann::json profile(const std::string& ptx, const std::string& name, const std::string& out) {
  const CliResult r = cli("profile " + ptx + " --kernel tr --arch fermi-gtx580 --timing --launch " +
                          spec(name, out) + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
}
#endif

#ifdef SMEMSIM_NVCC
// Runs the loop with `fix_options` (--swizzles 0: the padding); `kind` is the function expected.
void fix_compile_run(const std::string& fix_options, const std::string& kind) {
  const std::string dir = ::testing::TempDir();
  const std::string ptx = compile("fix_e2e", "");
  const std::string out0 = dir + "smemsim_fix_e2e_out0.txt",
                    out1 = dir + "smemsim_fix_e2e_out1.txt";
  const nlohmann::json before = profile(ptx, "fix_e2e0", out0);
  ASSERT_TRUE(before.is_object());
  EXPECT_EQ(before["totals"]["bank_conflicts"], 4 * 4 * 8 * 31);  // 4 column reads x 8 warps x 4

  const std::string cuh = dir + "smemsim_fix_e2e.cuh";
  const CliResult f =
      shell("(" + std::string(SMEMSIM_CLI) + " fix " + ptx + " --kernel tr --arch fermi-gtx580 " +
            "--launch " + spec("fix_e2e_fix", dir + "smemsim_fix_e2e_unused.txt") + " " +
            fix_options + " --emit cuda > " + cuh + ")");
  ASSERT_EQ(f.exit_code, 0) << f.out;
  const std::string code = slurp(cuh);
  EXPECT_NE(code.find("smemsim_" + kind + "_tile("), std::string::npos) << code;
  // Paste it: the swizzle's function, or the padding's function and padded size.
  std::string flags = "-include " + cuh;
  if (code.find("smemsim_swizzle_tile(") != std::string::npos)
    flags += " '-DTILE_INDEX(i)=smemsim_swizzle_tile(i)'";
  else if (code.find("smemsim_pad_tile(") != std::string::npos)
    flags += " '-DTILE_INDEX(i)=smemsim_pad_tile(i)' '-DTILE_WORDS=(32 * 33)'";
  else
    FAIL() << "no fix for the tile:\n" << code;
  const nlohmann::json after = profile(compile("fix_e2e_fixed", flags), "fix_e2e1", out1);
  ASSERT_TRUE(after.is_object());
  EXPECT_EQ(after["totals"]["bank_conflicts"], 0) << code;
  EXPECT_LT(after["timing"]["cycles"], before["timing"]["cycles"]);
  // Issue 43: the cycles fix claimed for the fix it printed against the pasted, compiled kernel's.
  // The bar is 2 %; where it is missed the gap is pinned (a change that moves it is seen):
  // - swizzle: -3.5 % (3374 against 3497). nvcc's code for the flat function costs more than the
  //   index function fix inserts per address (the unrolled loop's row offsets, once swizzled, no
  //   longer fold into the accesses' immediates);
  // - pad: -7.5 % (3380 against 3655). fix claims the padded declaration tile[32][33] (a row
  //   stride), while this kernel pastes the flat function i + i / 32 with 32 x 33 words, which
  //   nvcc compiles into more arithmetic. The row-stride claim is checked against a hand-padded
  //   kernel in tests/fix_applied_test.cpp (within 0.2 %).
  const CliResult fj =
      shell(std::string(SMEMSIM_CLI) + " fix " + ptx + " --kernel tr --arch fermi-gtx580 " +
            "--launch " + spec("fix_e2e_fix", dir + "smemsim_fix_e2e_unused.txt") + " " +
            fix_options + " --json 2>/dev/null");
  ASSERT_EQ(fj.exit_code, 0) << fj.out;
  const nlohmann::json j = nlohmann::json::parse(fj.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << fj.out;
  double claimed = 0;
  for (const auto& c : j["arrays"][0]["candidates"])
    if (c["recommended"]) claimed = c["cycles"];
  const double measured = after["timing"]["cycles"];
  const double gap = kind == "pad" ? -0.075 : -0.035;
  EXPECT_NEAR((claimed - measured) / measured, gap, 0.01) << kind << ": fix claimed " << claimed;
  const std::string a = slurp(out0), b = slurp(out1);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "the fixed kernel's output differs";
}
#endif

TEST(FixEndToEnd, TheEmittedFixCompiledAndRunGivesTheSameOutputWithoutConflicts) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  fix_compile_run("", "swizzle");          // the best: i ^ ((i >> 5) & 31), no added bytes
  fix_compile_run("--swizzles 0", "pad");  // tile[32][33]
#endif
}

// A tiled matrix multiply that keeps B's tile transposed and reads it by column: lanes tx = 0..15
// read Bs[tx][k], words 16 tx + k, banks (16 tx + k) mod 32: two banks for 16 lanes of a row, an
// 8-way access per half of the warp (16-way over the warp's 32 lanes). `fix` on the compiled kernel
// must offer a relayout of Bs that runs with the same product, fewer conflicts and fewer cycles.
const char* kMatmul = R"(
extern "C" __global__ void mm(float* c, const float* a, const float* b, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    As[ty][tx] = a[row * n + t + tx];
    Bs[tx][ty] = b[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[tx][k];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
)";

TEST(FixEndToEnd, MatmulReadingItsTileByColumnGetsAVerifiedRelayout) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  const std::string cu = temp_file("fix_mm.cu", kMatmul);
  const std::string ptx = ::testing::TempDir() + "smemsim_fix_mm.ptx";
  const std::string cmd = std::string(SMEMSIM_NVCC) + " -ptx -lineinfo -arch=" + SMEMSIM_NVCC_ARCH +
                          " " + cu + " -o " + ptx + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string toml =
      temp_file("fix_mm.toml",
                "grid = [4, 4]\nblock = [16, 16]\nargs = [\"c\", \"a\", \"b\", 64]\n"
                "[buffers.a]\ntype = \"f32\"\ncount = 4096\ninit = \"iota\"\n"
                "[buffers.b]\ntype = \"f32\"\ncount = 4096\ninit = \"iota\"\n"
                "[buffers.c]\ntype = \"f32\"\ncount = 4096\n");
  const CliResult r =
      cli("fix " + ptx + " --kernel mm --arch fermi-gtx580 --launch " + toml + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const nlohmann::json* bs = nullptr;
  for (const auto& a : j["arrays"])
    if (a["cuda_name"].get<std::string>().ends_with("Bs")) bs = &a;
  ASSERT_NE(bs, nullptr) << j.dump(1);
  EXPECT_GT((*bs)["conflicts"], 0);
  const auto& best = (*bs)["candidates"][0];
  EXPECT_TRUE(best["offered"]) << best.dump();
  EXPECT_TRUE(best["identical"]);
  EXPECT_LT(best["conflicts"], (*bs)["conflicts"]);
  EXPECT_LT(best["cycles"], j["cycles"]);
#endif
}

}  // namespace
}  // namespace smemsim::test

// Issue 26, "what it must show": the CUDA `smemsim fix --emit cuda` hands over, pasted into the
// kernel (the flat index function, and the two-dimensional form the code names: the padded
// declaration, the swizzle of the column alone), compiled by nvcc and run again, gives the same
// output with the conflicts gone and fewer cycles; issue 43: with the cycles fix claimed. Skipped
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
// for every lane, 32-way). TILE_DECL and TILE(r, c) are where a fix is pasted: the declaration
// and the element at row r, column c.
const char* kKernel = R"(
#ifndef TILE_DECL
#define TILE_DECL float tile[32 * 32]
#define TILE(r, c) tile[(r) * 32 + (c)]
#endif
extern "C" __global__ void tr(float* out, const float* in) {
  __shared__ TILE_DECL;
  const unsigned x = threadIdx.x, b = blockIdx.x * 1024;
  for (unsigned r = threadIdx.y; r < 32; r += 8) TILE(r, x) = in[b + r * 32 + x];
  __syncthreads();
  for (unsigned r = threadIdx.y; r < 32; r += 8) out[b + r * 32 + x] = TILE(x, r);
}
)";

#ifdef SMEMSIM_NVCC
// The kernel compiled with `paste` (the fix's code and the two macros) in front.
std::string compile(const std::string& name, const std::string& paste) {
  const std::string cu = temp_file(name + ".cu", paste + kKernel);
  const std::string ptx = ::testing::TempDir() + "smemsim_" + name + ".ptx";
  const std::string cmd = std::string(SMEMSIM_NVCC) + " -ptx -lineinfo -arch=" + SMEMSIM_NVCC_ARCH +
                          " " + cu + " -o " + ptx + " 2>&1";
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

// The text of `code` from `from` (included) to `to` (excluded); "" when absent.
std::string between(const std::string& code, const std::string& from, const std::string& to) {
  const auto a = code.find(from);
  const auto b = a == std::string::npos ? a : code.find(to, a);
  return b == std::string::npos ? "" : code.substr(a, b - a);
}

// Pastes the emitted code, compiles and runs the kernel: the same output, no conflict, fewer
// cycles; returns the cycles.
double paste_and_run(const std::string& name, const std::string& paste,
                     const nlohmann::json& before, const std::string& out0) {
  const std::string out1 = ::testing::TempDir() + "smemsim_" + name + "_out.txt";
  const nlohmann::json after = profile(compile(name, paste), name, out1);
  EXPECT_TRUE(after.is_object()) << paste;
  if (!after.is_object()) return 0;
  EXPECT_EQ(after["totals"]["bank_conflicts"], 0) << paste;
  EXPECT_LT(after["timing"]["cycles"], before["timing"]["cycles"]) << paste;
  const std::string a = slurp(out0), b = slurp(out1);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "the fixed kernel's output differs:\n" << paste;
  return after["timing"]["cycles"];
}

// Runs fix on the kernel, pastes each form of its padding and of its best swizzle as the code it
// prints says, and checks each claim against the compiled kernel's cycles.
void fix_compile_run() {
  const std::string dir = ::testing::TempDir();
  const std::string ptx = compile("fix_e2e", "");
  const std::string out0 = dir + "smemsim_fix_e2e_out0.txt";
  const nlohmann::json before = profile(ptx, "fix_e2e0", out0);
  ASSERT_TRUE(before.is_object());
  EXPECT_EQ(before["totals"]["bank_conflicts"], 4 * 4 * 8 * 31);  // 4 column reads x 8 warps x 4

  const std::string unused = spec("fix_e2e_fix", dir + "smemsim_fix_e2e_unused.txt");
  const std::string fix = std::string(SMEMSIM_CLI) + " fix " + ptx +
                          " --kernel tr --arch fermi-gtx580 --launch " + unused;
  const std::string cuh = dir + "smemsim_fix_e2e.cuh";
  const CliResult f = shell("(" + fix + " --emit cuda 2>/dev/null > " + cuh + ")");
  ASSERT_EQ(f.exit_code, 0) << f.out;
  const std::string header = slurp(cuh);
  const CliResult fj = shell(fix + " --json 2>/dev/null");
  ASSERT_EQ(fj.exit_code, 0) << fj.out;
  const nlohmann::json j = nlohmann::json::parse(fj.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << fj.out;

  for (const std::string kind : {"pad", "swizzle"}) {
    SCOPED_TRACE(kind);
    const nlohmann::json* c = nullptr;  // the first (fastest) of the kind
    for (const auto& x : j["arrays"][0]["candidates"])
      if (x["kind"] == kind && !c) c = &x;
    ASSERT_NE(c, nullptr) << j.dump(1);
    ASSERT_TRUE((*c)["applied"]) << (*c)["not_applied"];
    const double claimed = (*c)["cycles"];
    const std::string code = (*c)["code"];
    // The padding is recommended (the fastest as code): --emit prints it first, under its name.
    EXPECT_EQ((*c)["recommended"], kind == "pad");
    if (kind == "pad") EXPECT_EQ(header.find(code.substr(0, 40)), header.find("\n") + 1) << header;

    // 1. The flat function on the flat array; with --emit's whole header (the alternatives
    //    too: it must compile) for the padding.
    const std::string words = kind == "pad" ? "32 * 33" : "32 * 32";
    const double flat =
        paste_and_run("fix_e2e_flat_" + kind,
                      (kind == "pad" ? header : code) + "#define TILE_DECL float tile[" + words +
                          "]\n#define TILE(r, c) tile[smemsim_" + kind + "_tile((r) * 32 + (c))]\n",
                      before, out0);
    // 2. The two-dimensional form the code names: the padded declaration, or the swizzle on
    //    the column alone.
    std::string decl, element;
    if (kind == "pad") {
      decl = between(code, "tile[32][", "  (was");  // "declare it as  T tile[32][32 + 1]"
      element = "tile[r][c]";
    } else {
      decl = "tile[32][32]";
      element = between(code, "tile[r][c ^", ", the column alone");
    }
    ASSERT_FALSE(decl.empty() || element.empty()) << code;
    const double two_d = paste_and_run(
        "fix_e2e_2d_" + kind,
        "#define TILE_DECL float " + decl + "\n#define TILE(r, c) " + element + "\n", before, out0);
    // Issue 43: the cycles fix claimed against the pasted, compiled kernel's; the bar is 2 %.
    // - pad: the claim is the row stride's (a shl by 5 becomes a multiply by 33, the loop's step
    //   over 8 rows 1,024 -> 1,056 bytes); nvcc compiles tile[32][33] into a mad for the row:
    //   within 2 % (3,184 against 3,179 with nvcc 13, sm_75). The flat function i + i / 32 costs
    //   nvcc's division arithmetic too (3,655): it is there for an array that must stay flat.
    // - swizzle: the claim inserts the function's three instructions (shr, and, xor) where each
    //   address is made, and the loops keep stepping their pointers; nvcc rebuilds the address
    //   from the row in every iteration instead (and, xor, shl, add for tile[r][c ^ (r & 31)];
    //   the flat function's shr, and, xor on the whole index too). The claim lies between the
    //   two: 3,374 against 3,307 for the column form (+2.0 %) and 3,497 for the flat function
    //   (-3.5 %), nvcc 13, sm_75. The gaps are pinned so that a change that moves them is seen;
    //   this swizzle is not recommended (the padding is faster).
    if (kind == "pad") {
      EXPECT_NEAR(claimed, two_d, 0.02 * two_d) << claimed << " against " << two_d;
      EXPECT_GT(flat, two_d);
    } else {
      EXPECT_NEAR((claimed - two_d) / two_d, 0.020, 0.01) << claimed << " against " << two_d;
      EXPECT_NEAR((claimed - flat) / flat, -0.035, 0.01) << claimed << " against " << flat;
    }
  }
}
#endif

TEST(FixEndToEnd, TheEmittedFixCompiledAndRunGivesTheSameOutputWithoutConflicts) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  fix_compile_run();
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

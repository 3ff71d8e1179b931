// `smemsim launch init` (issue 15 item 10): the skeleton of a launch spec, typed from the kernel's
// C++ signature, runs as written; the errors a newcomer meets (CUDA source given as PTX, a module
// of several kernels, an existing output file) say what to do.
#include <string>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

#ifndef SMEMSIM_CORPUS_PTX_DIR
#define SMEMSIM_CORPUS_PTX_DIR ""
#endif

namespace smemsim::test {
namespace {

TEST(LaunchInit, SkeletonFromTheSignature) {
  // An extern "C" kernel has no C++ signature: pointer-sized parameters become u32 buffers the
  // user is told to type; a mangled one (scale(float*, int, float)) gives f32 and two scalars (the
  // float guessed 1.0, not 0, which would zero a product).
  const ptx::Module m = ptx::parse(
      ".version 7.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry plain(.param .u64 a, .param .u32 n)\n{\n  ret;\n}\n"
      ".visible .entry _Z5scalePfif(.param .u64 a, .param .u32 n, .param .f32 s)\n"
      ".reqntid 64, 2\n{\n  ret;\n}\n",
      "k.ptx");
  const std::string plain = exec::launch_spec_skeleton(m, m.kernels[0], "k.ptx");
  // One line per parameter, commented with its type (issue 24); n is never compared here: 0.
  EXPECT_NE(plain.find("args = [\n  \"p0\",                         # 1: u64\n"
                       "  0,                            # 2: u32\n]"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("type = \"u32\"                    # the pointee type could not be read"),
            std::string::npos)
      << plain;
  const std::string scale = exec::launch_spec_skeleton(m, m.kernels[1], "k.ptx", "s.toml");
  EXPECT_NE(scale.find("kernel = \"_Z5scalePfif\"         # scale(float*, int, float)"),
            std::string::npos)
      << scale;
  EXPECT_NE(scale.find("args = [\n  \"p0\",                         # 1: float*\n"
                       "  0,                            # 2: int\n"
                       "  1.0,                          # 3: float: guessed\n]"),
            std::string::npos)
      << scale;
  EXPECT_NE(scale.find("type = \"f32\"\n"), std::string::npos) << scale;
  EXPECT_NE(scale.find("block = [64, 2, 1]"), std::string::npos) << scale;
  EXPECT_NE(scale.find("smemsim profile k.ptx --launch s.toml"), std::string::npos) << scale;
}

TEST(LaunchInit, CorpusSkeletonsRunAsWritten) {
  SKIP_WITHOUT_NVCC();
  const std::string dir = SMEMSIM_CORPUS_PTX_DIR;
  for (const auto& [file, kernel] :
       std::vector<std::pair<std::string, std::string>>{{"conv_constant", "conv1d"},
                                                        {"warp_intrinsics", "block_scan"},
                                                        {"warp_intrinsics", "segment_shuffles"},
                                                        {"warp_intrinsics", "key_votes"},
                                                        {"warp_intrinsics", "cg_sum"},
                                                        {"warp_intrinsics", "block_sum<256>"}}) {
    const std::string spec = ::testing::TempDir() + "smemsim_init_" + file + ".toml";
    const CliResult w = cli("launch init " + dir + "/" + file + ".ptx --kernel '" + kernel +
                            "' -o " + spec + " --force");
    ASSERT_EQ(w.exit_code, 0) << w.out;
    const CliResult r = cli("run " + dir + "/" + file + ".ptx --launch " + spec);
    EXPECT_EQ(r.exit_code, 0) << kernel << "\n" << r.out;
  }
}

TEST(LaunchInit, NewcomerErrors) {
  const std::string cu = temp_file("scale.cu", "__global__ void scale(float* a) { a[0] = 1; }\n");
  CliResult r = cli("launch init " + cu);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is CUDA source; smemsim reads the PTX nvcc makes of it: nvcc -ptx "
                       "-lineinfo -arch=sm_75 " +
                       cu + " -o smemsim_scale.ptx"),
            std::string::npos)
      << r.out;
  r = cli("run " + cu + " --grid 1 --block 32 --launch x.toml");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is CUDA source"), std::string::npos) << r.out;
  const std::string two =
      temp_file("two.ptx",
                ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry a()\n{\n ret;\n}\n"
                ".visible .entry b()\n{\n ret;\n}\n");
  r = cli("launch init " + two);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("give --kernel NAME (the module has 2 kernels: a; b)"), std::string::npos)
      << r.out;
  const std::string existing = temp_file("exists.toml", "# mine\n");
  r = cli("launch init " + two + " --kernel a -o " + existing);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("exists (give --force to replace it)"), std::string::npos) << r.out;
}

// Issue 47, item 5: where -lineinfo names the CUDA file and it is found, the buffers take the
// parameters' names from it (they were p0, p1); a source whose parameters do not match the PTX's
// one for one keeps p0, p1.
TEST(LaunchInit, BuffersAreNamedAsTheCudaSourceNamesTheParameters) {
  const std::string dir = ::testing::TempDir();
  const std::string ptx =
      ".version 7.0\n.target sm_75\n.address_size 64\n.file 1 \"" + dir +
      "smemsim_names.cu\"\n"
      ".visible .entry _Z5scalePfPKffi(.param .u64 a, .param .u64 b, .param .f32 c, "
      ".param .u32 d)\n{\n  .loc 1 4 0\n  ret;\n}\n";
  const ptx::Module m = ptx::parse(ptx, "names.ptx");
  temp_file("names.cu",
            "// scale(out, in, a, n) is also named in this comment\n"
            "template <int N> __device__ int unused(int x) { return x; }\n"
            "__global__ void __launch_bounds__(256)\n"
            "scale(float* __restrict__ out, const float *in, float a = 2.0f, int n) {}\n");
  const std::string s = exec::launch_spec_skeleton(m, m.kernels[0], "names.ptx");
  EXPECT_NE(s.find("  \"out\",                        # 1: float*"), std::string::npos) << s;
  EXPECT_NE(s.find("  \"in\",                         # 2: float const*"), std::string::npos) << s;
  EXPECT_NE(s.find("[buffers.out]"), std::string::npos) << s;
  EXPECT_NE(s.find("[buffers.in]"), std::string::npos) << s;
  // Three names for four parameters (a stale source): the numbered names.
  temp_file("names.cu", "__global__ void scale(float* out, const float* in, int n) {}\n");
  const std::string stale = exec::launch_spec_skeleton(m, m.kernels[0], "names.ptx");
  EXPECT_NE(stale.find("[buffers.p0]"), std::string::npos) << stale;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// Issue 47 item 5: the block and grid by trial runs. transpose32_naive (kernels/transpose.cu) was
// written for 32 x 8 threads: each thread stores rows ty, ty + 8, ty + 16 and ty + 24 of a 32 x 32
// float tile (4,096 bytes), so with ty <= 7 the last row is 31 (bytes up to 4,092), while the 2D
// guess, 16 x 16, has ty = 15 storing row 39, past the tile. One CTA of 16 x 16 runs out of bounds,
// one of 32 x 8 does not: the skeleton takes 32 x 8 and says why. A grid of a thread per element of
// the 32 x 32 guessed (1 x 4) runs past the 2,048-element buffers (each CTA covers 32 rows); the
// square tiles of 32 x 32, one CTA, do not. The spec then runs as written, where the old guess
// (16 x 16, 2 x 2) stopped with the shared store's error.
TEST(LaunchInit, TrialRunsChooseTheBlockTheKernelWasWrittenFor) {
  const std::string ptx = std::string(SMEMSIM_PTX_DIR) + "/transpose.ptx";
  const ptx::Module m = ptx::parse(slurp(ptx), ptx);
  const std::string s =
      exec::launch_spec_skeleton(m, exec::find_kernel(m, "transpose32_naive"), ptx, "t.toml");
  EXPECT_NE(s.find("block = [32, 8]                 # guessed by trial runs of one CTA: this ran "
                   "past the kernel's data: 16 x 16 (out-of-bounds shared store"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("transpose.cu:77); check it"), std::string::npos) << s;
  EXPECT_NE(s.find("grid = [1, 1]                   # guessed: square tiles of 32 x 32 elements"),
            std::string::npos)
      << s;
  const std::string spec = temp_file("init_t32.toml", s);
  const CliResult r = cli("run " + ptx + " --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string old = s;
  old.replace(old.find("grid = [1, 1]"), 13, "grid = [2, 2]");
  old.replace(old.find("block = [32, 8]"), 15, "block = [16, 16]");
  const CliResult o = cli("run " + ptx + " --launch " + temp_file("init_t16.toml", old));
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("out-of-bounds shared store"), std::string::npos) << o.out;
  // A kernel the 16 x 16 guess fits keeps it, and says a trial ran it.
  const std::string n =
      exec::launch_spec_skeleton(m, exec::find_kernel(m, "transpose_naive"), ptx, "n.toml");
  EXPECT_NE(n.find("block = [16, 16]                # guessed, and one CTA of it ran in a trial"),
            std::string::npos)
      << n;
}

}  // namespace
}  // namespace smemsim::test

// cuda::barrier and cuda::pipeline (issue 27; tests/corpus/barrier_pipeline.cu): libcu++'s
// mbarrier code runs under `run` (a warp whose wait fails yields to the others) and `sim`, each
// result against a CPU computation written in the comments; a phase nobody can complete and an
// uninitialized barrier are one-line errors.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

// tile_sum: tiles of in = 0, 1, 2, ...: out[t] = sum_k (256 k + (7 t) % 256).
TEST(Mbarrier, CudaBarrierDoubleBufferedCopies) {
  SKIP_WITHOUT_NVCC();
  const int tiles = 4;
  std::vector<float> in(256 * tiles);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  Launcher l("barrier_pipeline");
  l.raw("in", in, ElemType::F32).raw("out", std::vector<float>(256), ElemType::F32).value(tiles);
  l.run("tile_sum", 1, 256);
  const auto out = l.got<float>("out");
  for (int t = 0; t < 256; ++t)
    EXPECT_EQ(out[std::size_t(t)], 256 * (0 + 1 + 2 + 3) + tiles * ((7 * t) % 256)) << t;
}

// split: out[t] = 3 ((t + 1) % 128), written by another warp before its arrival.
TEST(Mbarrier, ArriveThenWaitSeesTheOtherWarpsWrites) {
  SKIP_WITHOUT_NVCC();
  Launcher l("barrier_pipeline");
  l.raw("out", std::vector<std::int32_t>(128), ElemType::S32);
  l.run("split", 2, 128);
  const auto out = l.got<std::int32_t>("out");
  for (int t = 0; t < 128; ++t) EXPECT_EQ(out[std::size_t(t)], 3 * ((t + 1) % 128)) << t;
}

// pipe_sum over 5 tiles of in = 0, 1, ...: out[t] = sum_k (128 k + (t + k) % 128).
TEST(Mbarrier, TwoStageCudaPipeline) {
  SKIP_WITHOUT_NVCC();
  const int tiles = 5;
  Launcher l("barrier_pipeline");
  std::vector<std::int32_t> in(128 * tiles);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::int32_t(i);
  l.raw("in", in, ElemType::S32).raw("out", std::vector<std::int32_t>(128), ElemType::S32);
  l.value(tiles);
  l.run("pipe_sum", 1, 128);
  const auto out = l.got<std::int32_t>("out");
  for (int t = 0; t < 128; ++t) {
    int want = 0;
    for (int k = 0; k < tiles; ++k) want += 128 * k + (t + k) % 128;
    EXPECT_EQ(out[std::size_t(t)], want) << t;
  }
}

// The same kernels under the cycle model: the waits spin (with libcu++'s nanosleep back-off)
// while other warps arrive, and the results are the functional ones.
TEST(Mbarrier, SimTimesTheWaitLoops) {
  SKIP_WITHOUT_NVCC();
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/barrier_pipeline.ptx";
  const std::string out = ::testing::TempDir() + "smemsim_mbar_sim.txt";
  const std::string spec = test::temp_file("mbar_sim.toml", R"(kernel = "pipe_sum"
grid = [4]
block = [128]
args = ["in", "out", 6]
[buffers.in]
type = "s32"
count = 768
init = "iota"
[buffers.out]
type = "s32"
count = 128
write = ")" + out + "\"\n");
  const auto r = test::cli("sim " + ptx + " --launch " + spec + " --arch hopper-h100");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(out);
  std::vector<int> got;
  for (int v; in >> v;) got.push_back(v);
  ASSERT_EQ(got.size(), 128u);
  for (int t = 0; t < 128; ++t) {
    int want = 0;
    for (int k = 0; k < 6; ++k) want += 128 * k + (t + k) % 128;
    EXPECT_EQ(got[std::size_t(t)], want) << t;
  }
}

TEST(Mbarrier, APhaseThatCannotCompleteAndAnUninitializedBarrierAreErrors) {
  SKIP_WITHOUT_NVCC();
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/barrier_pipeline.ptx";
  for (const std::string k : {"never", "uninitialized"}) {
    const std::string spec = test::temp_file("mbar_bad_" + k + ".toml",
                                             "kernel = \"" + k +
                                                 "\"\ngrid = [1]\nblock = [64]\nargs = [\"out\"]\n"
                                                 "[buffers.out]\ntype = \"s32\"\ncount = 64\n");
    const auto r = test::cli("run " + ptx + " --launch " + spec);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(k == "never" ? "waits for an mbarrier phase that cannot complete"
                                      : "is not initialized (mbarrier.init)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("barrier_pipeline.cu:"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace smemsim::exec

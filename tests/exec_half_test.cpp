// Half precision through nvcc's own code (tests/corpus/halfs.cu, issue 16): the results of
// cuda_fp16.h / cuda_bf16.h intrinsics against values derived by hand. x = -3 + t / 4 and
// y = x + 1/4 are exact in f16 and bf16 and so are the results used: x + y (two fraction bits,
// under 10), x^2 + x (four fraction bits, under 28: 9 significant bits <= 11), (x + y) * 2 in bf16
// (7 significant bits <= 8). z = 1 + 2^-10 + 2^-11 + 2^-20: towards zero 1 + 2^-10, to nearest
// 1 + 2^-9 (the dropped part 2^-11 + 2^-20 is past half of 2^-10). Skips without nvcc.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

TEST(ExecHalf, IntrinsicsOfCudaFp16AndBf16) {
  SKIP_WITHOUT_NVCC();
  std::vector<float> in(65);
  for (int t = 0; t < 33; ++t) in[std::size_t(t)] = -3.0f + 0.25f * t;
  in[64] = float(1 + std::ldexp(1.0, -10) + std::ldexp(1.0, -11) + std::ldexp(1.0, -20));
  Launcher l("halfs");
  l.raw("in", in, ElemType::F32).raw("out", std::vector<float>(8 * 32), ElemType::F32);
  l.run("half_math", 1, 32);
  const std::vector<float> out = l.got<float>("out");
  for (int t = 0; t < 32; ++t) {
    const double x = -3.0 + 0.25 * t, y = x + 0.25;
    const float* o = out.data() + 8 * t;
    EXPECT_EQ(o[0], x + y) << t;
    EXPECT_EQ(o[1], std::fabs(x * x + x)) << t;
    EXPECT_EQ(o[2], std::fabs(y * y + y)) << t;
    EXPECT_EQ(o[3], (x + y) * 2) << t;
    EXPECT_EQ(o[4], 1 + std::ldexp(1.0, -10)) << t;
    EXPECT_EQ(o[5], 1 + std::ldexp(1.0, -9)) << t;
    EXPECT_EQ(o[6], 1.0f) << t;
    EXPECT_EQ(o[7], (x * x + x) - (y * y + y)) << t;
  }
}

}  // namespace
}  // namespace smemsim::exec

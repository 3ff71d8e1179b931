// The classic-kernel part of the real-kernel corpus (tests/corpus/classics.cu, issue 15), run by
// the executor against CPU references written from each kernel's comment. Skips without nvcc.
#include <algorithm>
#include <bit>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

TEST(ExecCorpus2, ClassicReductions) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(1024, -100, 100, 11);
  for (const char* k : {"reduce_modulo", "reduce_unrolled"}) {
    Launcher l("classics");
    l.buffer("in", in).buffer("out", Ints(4));
    l.run(k, 4, 256);
    const Ints out = l.get("out");
    for (int b = 0; b < 4; ++b)
      EXPECT_EQ(out[std::size_t(b)],
                std::accumulate(in.begin() + 256 * b, in.begin() + 256 * (b + 1), 0))
          << k << " " << b;
  }
}

TEST(ExecCorpus2, WarpDotAndFloat4Add) {
  SKIP_WITHOUT_NVCC();
  std::vector<float> a(128), b(128);
  for (int i = 0; i < 128; ++i)
    a[std::size_t(i)] = float(i % 9), b[std::size_t(i)] = float(i % 4) - 1;
  Launcher l("classics");
  l.raw("a", a, ElemType::F32)
      .raw("b", b, ElemType::F32)
      .raw("dot", std::vector<float>(128), ElemType::F32);
  l.run("warp_dot", 1, 128);
  const auto dot = l.got<float>("dot");
  for (int w = 0; w < 4; ++w) {
    float s = 0;  // small integers: exact in any order
    for (int j = 0; j < 32; ++j) s += a[std::size_t(32 * w + j)] * b[std::size_t(32 * w + j)];
    for (int j = 0; j < 32; ++j) EXPECT_EQ(dot[std::size_t(32 * w + j)], s) << w << " " << j;
  }
  Launcher v("classics");
  v.raw("a", a, ElemType::F32)
      .raw("b", b, ElemType::F32)
      .raw("c", std::vector<float>(128), ElemType::F32);
  v.run("vec_add4", 1, 32);
  const auto c = v.got<float>("c");
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(c[std::size_t(i)], a[std::size_t(i)] + b[std::size_t(i)]) << i;
}

TEST(ExecCorpus2, StencilOnASharedTileWithHalo) {
  SKIP_WITHOUT_NVCC();
  const int w = 32, h = 48;
  const Ints in = random_ints(std::size_t(w * h), -9, 9, 12);
  Launcher l("classics");
  l.buffer("in", in).buffer("out", Ints(in.size())).value(w).value(h);
  l.run("stencil5", Dim3{2, 3, 1}, Dim3{16, 16, 1});
  const Ints out = l.get("out");
  const auto at = [&](int x, int y) {
    return x >= 0 && y >= 0 && x < w && y < h ? in[std::size_t(y * w + x)] : 0;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      ASSERT_EQ(out[std::size_t(y * w + x)],
                at(x, y) + at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1))
          << x << " " << y;
}

TEST(ExecCorpus2, WarpAggregatedHistogramAndMatvec) {
  SKIP_WITHOUT_NVCC();
  const Ints data = random_ints(512, 0, 63, 13);
  Launcher l("classics");
  l.buffer("data", data).buffer("bins", Ints(64));
  l.run("histogram_aggregated", 4, 128);
  const Ints bins = l.get("bins");
  for (int v = 0; v < 64; ++v)
    EXPECT_EQ(bins[std::size_t(v)], std::count(data.begin(), data.end(), v)) << v;
  const int n = 128;
  std::vector<float> m(std::size_t(n * n)), x(n);
  for (int i = 0; i < n * n; ++i) m[std::size_t(i)] = float((i * 7) % 5) - 2;
  for (int i = 0; i < n; ++i) x[std::size_t(i)] = float(i % 3);
  Launcher mv("classics");
  mv.raw("m", m, ElemType::F32)
      .raw("x", x, ElemType::F32)
      .raw("y", std::vector<float>(n), ElemType::F32)
      .value(n);
  mv.run("matvec_shared", Dim3{2, 1, 1}, Dim3{64, 1, 1}, n * 4);
  const auto y = mv.got<float>("y");
  for (int r = 0; r < n; ++r) {
    float s = 0;
    for (int k = 0; k < n; ++k) s += m[std::size_t(r * n + k)] * x[std::size_t(k)];
    EXPECT_EQ(y[std::size_t(r)], s) << r;
  }
}

TEST(ExecCorpus2, Dp4aBitIntrinsicsAndCarries) {
  SKIP_WITHOUT_NVCC();
  const Ints a = random_ints(64, INT32_MIN, INT32_MAX, 14),
             b = random_ints(64, INT32_MIN, INT32_MAX, 15), c = random_ints(64, -1000, 1000, 16);
  Launcher d("classics");
  d.buffer("a", a).buffer("b", b).buffer("c", c).buffer("out", Ints(64));
  d.run("dot_bytes", 1, 64);
  const Ints out = d.get("out");
  for (int i = 0; i < 64; ++i) {
    std::int64_t s = c[std::size_t(i)];
    for (int k = 0; k < 4; ++k)
      s += std::int64_t(std::int8_t(std::uint32_t(a[std::size_t(i)]) >> (8 * k))) *
           std::int8_t(std::uint32_t(b[std::size_t(i)]) >> (8 * k));
    EXPECT_EQ(out[std::size_t(i)], std::int32_t(std::uint32_t(s))) << i;
  }
  std::vector<std::uint32_t> v = {0u,          1u,          0x80000000u, 0x12345678u,
                                  0xffffffffu, 0x00f000f0u, 999u,        0xabcdef01u};
  Launcher bt("classics");
  bt.raw("in", v, ElemType::U32).raw("out", std::vector<std::uint32_t>(64), ElemType::U32);
  bt.run("bit_tricks", 1, 8);
  const auto o = bt.got<std::uint32_t>("out");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t x = v[i];
    std::uint32_t rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((x >> k) & 1u) << (31 - k);
    // __byte_perm(x, y, 0x5140): result byte k is byte s_k of the 8-byte {y, x} with selector
    // nibbles 0, 4, 1, 5 (from the low end): x.b0, y.b0, x.b1, y.b1.
    const std::uint64_t xy = (std::uint64_t{0x11223344u} << 32) | x;
    std::uint32_t perm = 0;
    const int sel[4] = {0, 4, 1, 5};
    for (int k = 0; k < 4; ++k) perm |= std::uint32_t((xy >> (8 * sel[k])) & 0xff) << (8 * k);
    const std::uint64_t funnel = ((std::uint64_t{0xdeadbeefu} << 32) | x)
                                 << 7;  // hi:lo = 0xdeadbeef:x
    const std::uint32_t lo16 = x & 0xffffu;
    EXPECT_EQ(o[8 * i + 0], rev) << i;
    EXPECT_EQ(o[8 * i + 1], std::uint32_t(std::countl_zero(x))) << i;
    EXPECT_EQ(o[8 * i + 2], x ? std::uint32_t(std::countr_zero(x) + 1) : 0u) << i;
    EXPECT_EQ(o[8 * i + 3], std::uint32_t(std::popcount(x))) << i;
    EXPECT_EQ(o[8 * i + 4], perm) << i;
    EXPECT_EQ(o[8 * i + 5], std::uint32_t(funnel >> 32)) << i;
    EXPECT_EQ(o[8 * i + 6], (lo16 > 1000u ? lo16 - 1000u : 1000u - lo16) + 5u) << i;
    EXPECT_EQ(o[8 * i + 7], (x & 0xffffffu) * 3u) << i;
  }
  // 128-bit sums: limbs with carries into every position.
  std::vector<std::uint32_t> x4 = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0u, 1u, 2u, 3u, 4u},
                             y4 = {1u, 0u, 0u, 0u, 0xffffffffu, 0xfffffffeu, 0u, 7u};
  Launcher ad("classics");
  ad.raw("a", x4, ElemType::U32)
      .raw("b", y4, ElemType::U32)
      .raw("s", std::vector<std::uint32_t>(8), ElemType::U32);
  ad.run("add128", 1, 2);
  const auto s = ad.got<std::uint32_t>("s");
  // (2^96 - 1) + 1 = 2^96: limbs 0, 0, 0, 1. (4.3.2.1) + (7.0.0xfffffffe.0xffffffff): limb 0 = 0
  // carry 1; limb 1 = 2 + 0xfffffffe + 1 = 1 carry 1; limb 2 = 3 + 0 + 1 = 4; limb 3 = 11.
  EXPECT_EQ(s, (std::vector<std::uint32_t>{0, 0, 0, 1, 0, 1, 4, 11}));
}

}  // namespace
}  // namespace smemsim::exec

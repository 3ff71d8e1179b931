// The real-kernel corpus (tests/corpus/*.cu, issue 15) compiled by nvcc and run by the executor,
// each against a CPU reference written from the kernel's comment. The kernels are found by their
// C++ names (block_sum<128> is _Z9block_sumILi128EEvPKiPii). Skips without nvcc.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

TEST(ExecCorpus, ShuffleBlockSumTemplateInstances) {
  SKIP_WITHOUT_NVCC();
  const int n = 1000;  // not a multiple of the block: the last block reads zeros past n
  const Ints in = random_ints(n, -1000, 1000, 1);
  for (const int block : {128, 256}) {
    const int blocks = (n + block - 1) / block;
    Launcher l("warp_intrinsics");
    l.buffer("in", in).buffer("out", Ints(std::size_t(blocks), -1)).value(n);
    l.run("block_sum<" + std::to_string(block) + ">", std::uint32_t(blocks), std::uint32_t(block));
    const Ints out = l.get("out");
    for (int b = 0; b < blocks; ++b) {
      const int end = std::min(n, (b + 1) * block);
      EXPECT_EQ(out[std::size_t(b)], std::accumulate(in.begin() + b * block, in.begin() + end, 0))
          << block << " " << b;
    }
  }
}

TEST(ExecCorpus, CooperativeGroupsReduce) {
  SKIP_WITHOUT_NVCC();
  const int n = 700;
  const Ints in = random_ints(n, 0, 50, 2);
  Launcher l("warp_intrinsics");
  l.buffer("in", in).buffer("out", Ints{0}).value(n);
  l.run("cg_sum", 3, 256);
  EXPECT_EQ(l.get("out")[0], std::accumulate(in.begin(), in.end(), 0));
}

TEST(ExecCorpus, BlockScan) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(512, -9, 9, 3);
  Launcher l("warp_intrinsics");
  l.buffer("in", in).buffer("out", Ints(512, 0));
  l.run("block_scan", 2, 256);
  const Ints out = l.get("out");
  for (int b = 0; b < 2; ++b) {
    int s = 0;
    for (int t = 0; t < 256; ++t) {
      s += in[std::size_t(b * 256 + t)];
      EXPECT_EQ(out[std::size_t(b * 256 + t)], s) << b << " " << t;
    }
  }
}

TEST(ExecCorpus, BallotCompaction) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(256, -5, 5, 4);
  Launcher l("warp_intrinsics");
  l.buffer("in", in).buffer("out", Ints(256, 0)).buffer("count", Ints{0});
  l.run("compact_positive", 2, 128);
  Ints want;
  for (int v : in)
    if (v > 0) want.push_back(v);
  const int count = l.get("count")[0];
  ASSERT_EQ(count, int(want.size()));
  const Ints out = l.get("out");
  Ints got(out.begin(), out.begin() + count);
  // Each warp's values stay in lane order; warps may land in any order: compare as multisets,
  // and the first warp's run (warps run in index order here) exactly.
  std::sort(got.begin(), got.end());
  Ints sorted = want;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(got, sorted);
  const auto first_warp = std::count_if(in.begin(), in.begin() + 32, [](int v) { return v > 0; });
  EXPECT_TRUE(std::equal(want.begin(), want.begin() + first_warp, out.begin()));
}

TEST(ExecCorpus, MatchVoteAndActivemask) {
  SKIP_WITHOUT_NVCC();
  // Warp 0: keys 1..32 (all positive, none above 100 but 32 < 100, thousands all 0); warp 1: keys
  // with repeats, one negative, one above 100, thousands differ.
  Ints key(64);
  for (int i = 0; i < 32; ++i) key[std::size_t(i)] = i + 1;
  for (int i = 32; i < 64; ++i) key[std::size_t(i)] = (i % 5) * 7;
  key[40] = -3;
  key[41] = 2500;
  Launcher l("warp_intrinsics");
  l.buffer("key", key).buffer("same", Ints(64)).buffer("flags", Ints(64)).buffer("odd", Ints(64));
  l.run("key_votes", 1, 64);
  const Ints same = l.get("same"), flags = l.get("flags"), odd = l.get("odd");
  for (int w = 0; w < 2; ++w) {
    bool all_pos = true, any_big = false, one_thousand = true;
    std::uint32_t odd_mask = 0;
    for (int j = 0; j < 32; ++j) {
      const int k = key[std::size_t(32 * w + j)];
      all_pos &= k > 0;
      any_big |= k > 100;
      one_thousand &= k / 1000 == key[std::size_t(32 * w)] / 1000;
      if (k & 1) odd_mask |= 1u << j;
    }
    for (int j = 0; j < 32; ++j) {
      const std::size_t i = std::size_t(32 * w + j);
      const auto n = std::count(key.begin() + 32 * w, key.begin() + 32 * w + 32, key[i]);
      EXPECT_EQ(same[i], n) << i;
      EXPECT_EQ(flags[i], (all_pos ? 1 : 0) | (any_big ? 2 : 0) | (one_thousand ? 4 : 0)) << i;
      EXPECT_EQ(std::uint32_t(odd[i]), (key[i] & 1) ? odd_mask : 0u) << i;
    }
  }
}

TEST(ExecCorpus, ShufflesWithSegmentWidths) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(64, 0, 99, 5);
  Launcher l("warp_intrinsics");
  l.buffer("in", in).buffer("out", Ints(64));
  l.run("segment_shuffles", 1, 64);
  const Ints out = l.get("out");
  for (int i = 0; i < 64; ++i) {
    const int w = i & ~31, lane = i & 31;
    const int a = in[std::size_t(w + ((lane & ~7) | 3))];
    const int b = in[std::size_t(w + (lane ^ 4))];  // width 16: lane ^ 4 stays inside
    const int c = in[std::size_t(w + (lane % 8 >= 2 ? lane - 2 : lane))];  // up 2 within 8
    EXPECT_EQ(out[std::size_t(i)], a + 1000 * b + 1000000 * c) << i;
  }
}

TEST(ExecCorpus, ReduxOnSm80) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(96, -500, 500, 6);
  Launcher l("redux_sm80");
  l.buffer("in", in).buffer("out", Ints(12));
  l.run("warp_reductions", 1, 96);
  const Ints out = l.get("out");
  for (int w = 0; w < 3; ++w) {
    const auto first = in.begin() + 32 * w, last = first + 32;
    std::uint32_t mx = 0, orv = 0;
    for (auto it = first; it != last; ++it) {
      mx = std::max(mx, std::uint32_t(*it));
      orv |= std::uint32_t(*it);
    }
    EXPECT_EQ(out[std::size_t(4 * w)], std::accumulate(first, last, 0));
    EXPECT_EQ(out[std::size_t(4 * w + 1)], *std::min_element(first, last));
    EXPECT_EQ(std::uint32_t(out[std::size_t(4 * w + 2)]), mx);
    EXPECT_EQ(std::uint32_t(out[std::size_t(4 * w + 3)]), orv);
  }
}

TEST(ExecCorpus, TiledTransposeBothPaddings) {
  SKIP_WITHOUT_NVCC();
  const int w = 64, h = 96;
  std::vector<float> in(std::size_t(w * h));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  for (const char* k : {"transpose_tile<0>", "transpose_tile<1>"}) {
    Launcher l("samples");
    l.raw("in", in, ElemType::F32).raw("out", std::vector<float>(in.size()), ElemType::F32);
    l.value(w).value(h);
    l.run(k, Dim3{w / 32, h / 32, 1}, Dim3{32, 8, 1});
    const auto out = l.got<float>("out");
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_EQ(out[std::size_t(x * h + y)], in[std::size_t(y * w + x)]) << k << " " << x;
  }
}

TEST(ExecCorpus, TiledMatrixMultiply) {
  SKIP_WITHOUT_NVCC();
  const int n = 32;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i)
    a[std::size_t(i)] = float(i % 7) - 3, b[std::size_t(i)] = float(i % 5);
  Launcher l("samples");
  l.raw("a", a, ElemType::F32).raw("b", b, ElemType::F32);
  l.raw("c", std::vector<float>(n * n), ElemType::F32).value(n);
  l.run("matmul_tiled", Dim3{n / 16, n / 16, 1}, Dim3{16, 16, 1});
  const auto c = l.got<float>("c");
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;  // small integers: every partial sum is exact in float, in any order
      for (int k = 0; k < n; ++k) s += a[std::size_t(i * n + k)] * b[std::size_t(k * n + j)];
      ASSERT_EQ(c[std::size_t(i * n + j)], s) << i << " " << j;
    }
}

TEST(ExecCorpus, BitonicSortHistogramAndCube) {
  SKIP_WITHOUT_NVCC();
  const Ints keys = random_ints(512, -1000, 1000, 7);
  Launcher s("samples");
  s.buffer("keys", keys);
  s.run("bitonic_sort256", 2, 256);
  const Ints sorted = s.get("keys");
  for (int b = 0; b < 2; ++b) {
    Ints want(keys.begin() + 256 * b, keys.begin() + 256 * (b + 1));
    std::sort(want.begin(), want.end());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), sorted.begin() + 256 * b)) << b;
  }
  std::vector<std::uint8_t> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::uint8_t((i * 37) % 251);
  Launcher h("samples");
  h.raw("data", data, ElemType::U8).value(3000).buffer("bins", Ints(256, 0));
  h.run("histogram256", 4, 128);
  const Ints bins = h.get("bins");
  for (int v = 0; v < 256; ++v)
    EXPECT_EQ(bins[std::size_t(v)], std::count(data.begin(), data.end(), std::uint8_t(v))) << v;
  const Ints in = random_ints(2 * 128, -50, 50, 8);
  Launcher c("samples");
  c.buffer("in", in).buffer("out", Ints(in.size()));
  c.run("cube_sum3", Dim3{2, 1, 1}, Dim3{8, 4, 4}, 128 * 4);
  const Ints out = c.get("out");
  for (int i = 0; i < 256; ++i) {
    const int x = i % 8;
    const int want = in[std::size_t(i)] + (x > 0 ? in[std::size_t(i - 1)] : 0) +
                     (x < 7 ? in[std::size_t(i + 1)] : 0);
    EXPECT_EQ(out[std::size_t(i)], want) << i;
  }
}

}  // namespace
}  // namespace smemsim::exec

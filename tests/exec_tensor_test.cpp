// Tensor-core instructions through nvcc's code (tests/corpus/tensor_core.cu, stmatrix_sm90.cu;
// issue 16): ldmatrix fragment contents and phases, stmatrix, mma.sync on small integer matrices
// (exact in every format), cp.async groups, and GEMMs written with the nvcuda::wmma API, each
// against a CPU reference or values derived in the comments. Skips without nvcc.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "exec/half.hpp"
#include "kernel_test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

std::uint16_t f16(double v) {
  return static_cast<std::uint16_t>(detail::double_to_small(v, detail::kF16, ptx::Rounding::Rn));
}
std::uint16_t bf16(double v) {
  return static_cast<std::uint16_t>(detail::double_to_small(v, detail::kBF16, ptx::Rounding::Rn));
}

// Records the bank degree (distinct words in the busiest of 32 banks, by brute force over the
// access's slots) of every WarpAccess, by PTX line.
struct Degrees final : AccessConsumer {
  std::map<std::uint32_t, std::vector<int>> by_line;
  void on_access(const WarpAccess& wa) override {
    std::map<std::uint32_t, std::set<WordAddr>> banks;
    for (int s = 0; s < wa.lanes; ++s)
      if ((wa.active >> s) & 1) banks[wa.addr[std::size_t(s)] % 32].insert(wa.addr[std::size_t(s)]);
    std::size_t worst = 0;
    for (const auto& [b, words] : banks) worst = std::max(worst, words.size());
    by_line[wa.pc].push_back(int(worst));
  }
};

TEST(ExecTensor, LdmatrixFragmentsAndPhases) {
  SKIP_WITHOUT_NVCC();
  // Rows r = 0..31 of 8 halves, row r of matrix r / 8; element (r, c) = 1000 + 8 r + c.
  std::vector<std::uint16_t> in(256);
  for (int i = 0; i < 256; ++i) in[std::size_t(i)] = std::uint16_t(1000 + i);
  for (const int stride : {8, 64}) {  // halves between rows: 16 bytes (dense) or 128 bytes
    Launcher l("tensor_core");
    l.raw("in", in, ElemType::U16).raw("out", std::vector<std::uint32_t>(32 * 11), ElemType::U32);
    l.value(stride);
    Degrees deg;
    l.launch.grid = {1, 1, 1};
    l.launch.block = {32, 1, 1};
    l.launch.dynamic_shared_bytes = std::uint32_t(32 * stride * 2);
    const ptx::Kernel& k = find_kernel(l.module, "ldmatrix_probe");
    Executor ex(l.module, k, default_arch(), l.launch, l.mem);
    ex.set_consumer(&deg);
    ex.run();
    const std::vector<std::uint32_t> out = l.got<std::uint32_t>("out");
    const auto at = [&](int r, int c) { return std::uint32_t(1000 + 8 * r + c); };
    for (int t = 0; t < 32; ++t) {
      const std::uint32_t* o = out.data() + 11 * t;
      for (int i = 0; i < 4; ++i) {
        // Thread t: row t / 4, columns 2 (t % 4) and + 1; transposed: rows 2 (t % 4) and + 1 of
        // column t / 4. The first element is the low half.
        const int r = 8 * i + t / 4, c = 2 * (t % 4);
        EXPECT_EQ(o[i], at(r, c) | at(r, c + 1) << 16) << stride << " x4 t" << t << " m" << i;
        const int tr = 8 * i + 2 * (t % 4), tc = t / 4;
        EXPECT_EQ(o[4 + i], at(tr, tc) | at(tr + 1, tc) << 16) << "trans t" << t << " m" << i;
      }
      EXPECT_EQ(o[8], o[0]);  // x2: matrices 0 and 1
      EXPECT_EQ(o[9], o[1]);
      EXPECT_EQ(o[10], o[0]);  // x1: matrix 0
    }
    // One phase per matrix: x4 and x4.trans 4 each, x2 2, x1 1. Dense rows fill 32 distinct
    // banks; at 128 bytes every row starts at bank 0, so a phase's 8 rows share banks 0-3: 8-way.
    const int want = stride == 8 ? 1 : 8;
    std::vector<int> counts;
    for (const ptx::Instruction& ins : k.code) {
      if (ins.op != ptx::Opcode::Ldmatrix) continue;
      const std::vector<int>& d = deg.by_line[ins.ptx_line];
      counts.push_back(int(d.size()));
      for (const int x : d) EXPECT_EQ(x, want) << "stride " << stride << " line " << ins.ptx_line;
    }
    EXPECT_EQ(counts, (std::vector<int>{4, 4, 2, 1}));
  }
}

TEST(ExecTensor, StmatrixWritesTheFragmentsBack) {
  SKIP_WITHOUT_NVCC();
  std::vector<std::uint16_t> in(256);
  for (int i = 0; i < 256; ++i) in[std::size_t(i)] = std::uint16_t(3 * i + 7);
  for (const int trans : {0, 1}) {
    Launcher l("stmatrix_sm90");
    l.raw("in", in, ElemType::U16).raw("out", std::vector<std::uint16_t>(256), ElemType::U16);
    l.value(trans);
    l.run("stmatrix_probe", 1, 32);
    const std::vector<std::uint16_t> out = l.got<std::uint16_t>("out");
    // Plain: the rows come back as they were. Transposed: each 8 x 8 matrix comes back transposed.
    for (int m = 0; m < 4; ++m)
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c)
          EXPECT_EQ(out[std::size_t(64 * m + 8 * r + c)],
                    in[std::size_t(64 * m + (trans ? 8 * c + r : 8 * r + c))])
              << trans << " " << m << " " << r << " " << c;
  }
}

// A (16 x 16), B (16 x 8), C (16 x 8) of small integers; D = A B + C is exact in f32 (|D| < 200).
struct Small {
  double a[16][16], b[16][8], c[16][8];
  Small() {
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 16; ++k) a[i][k] = (i * 3 + k) % 7 - 3;
    for (int k = 0; k < 16; ++k)
      for (int j = 0; j < 8; ++j) b[k][j] = (k + 2 * j) % 5 - 2;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) c[i][j] = i - j;
  }
  double d(int i, int j, int kmax = 16) const {
    double s = c[i][j];
    for (int k = 0; k < kmax; ++k) s += a[i][k] * b[k][j];
    return s;
  }
};

TEST(ExecTensor, MmaM16n8k16OnF16AndBf16) {
  SKIP_WITHOUT_NVCC();
  const Small s;
  for (const bool brain : {false, true}) {
    std::vector<std::uint16_t> a(256), bt(128);
    std::vector<float> c(128);
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 16; ++k)
        a[std::size_t(i * 16 + k)] = brain ? bf16(s.a[i][k]) : f16(s.a[i][k]);
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 16; ++k)
        bt[std::size_t(j * 16 + k)] = brain ? bf16(s.b[k][j]) : f16(s.b[k][j]);
    for (int i = 0; i < 128; ++i) c[std::size_t(i)] = float(s.c[i / 8][i % 8]);
    Launcher l("tensor_core");
    l.raw("a", a, ElemType::U16).raw("bt", bt, ElemType::U16).raw("c", c, ElemType::F32);
    l.raw("d", std::vector<float>(128), ElemType::F32);
    l.run(brain ? "mma_bf16" : "mma_f16", 1, 32);
    const std::vector<float> d = l.got<float>("d");
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j)
        EXPECT_EQ(d[std::size_t(i * 8 + j)], s.d(i, j)) << brain << i << j;
  }
}

TEST(ExecTensor, MmaWithF16AccumulatorsAndOnTf32) {
  SKIP_WITHOUT_NVCC();
  const Small s;
  {
    std::vector<std::uint16_t> a(256), bt(128), c(128);
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 16; ++k) a[std::size_t(i * 16 + k)] = f16(s.a[i][k]);
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 16; ++k) bt[std::size_t(j * 16 + k)] = f16(s.b[k][j]);
    for (int i = 0; i < 128; ++i) c[std::size_t(i)] = f16(s.c[i / 8][i % 8]);
    Launcher l("tensor_core");
    l.raw("a", a, ElemType::U16).raw("bt", bt, ElemType::U16).raw("c", c, ElemType::U16);
    l.raw("d", std::vector<std::uint16_t>(128), ElemType::U16);
    l.run("mma_f16_acc", 1, 32);
    const std::vector<std::uint16_t> d = l.got<std::uint16_t>("d");
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) EXPECT_EQ(d[std::size_t(i * 8 + j)], f16(s.d(i, j))) << i << j;
  }
  {  // m16n8k8 on tf32: the first 8 columns of A and rows of B.
    std::vector<float> a(128), b(64), c(128);
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 8; ++k) a[std::size_t(i * 8 + k)] = float(s.a[i][k]);
    for (int k = 0; k < 8; ++k)
      for (int j = 0; j < 8; ++j) b[std::size_t(k * 8 + j)] = float(s.b[k][j]);
    for (int i = 0; i < 128; ++i) c[std::size_t(i)] = float(s.c[i / 8][i % 8]);
    Launcher l("tensor_core");
    l.raw("a", a, ElemType::F32).raw("b", b, ElemType::F32).raw("c", c, ElemType::F32);
    l.raw("d", std::vector<float>(128), ElemType::F32);
    l.run("mma_tf32", 1, 32);
    const std::vector<float> d = l.got<float>("d");
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) EXPECT_EQ(d[std::size_t(i * 8 + j)], s.d(i, j, 8)) << i << j;
  }
}

TEST(ExecTensor, CpAsyncLandsAtTheWaitOfItsGroup) {
  SKIP_WITHOUT_NVCC();
  Ints c0(128), c1(128);
  for (int i = 0; i < 128; ++i) {
    c0[std::size_t(i)] = 100 + i;
    c1[std::size_t(i)] = 200 + i;
  }
  Launcher l("tensor_core");
  l.buffer("chunk0", c0).buffer("chunk1", c1).buffer("out", Ints(128));
  l.run("cp_async_groups", 1, 32);
  const Ints out = l.get("out");
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(out[std::size_t(t)], 100 + 4 * t);       // group 0 landed at wait_group 1
    EXPECT_EQ(out[std::size_t(32 + t)], -1);           // group 1 had not
    EXPECT_EQ(out[std::size_t(64 + t)], 200 + 4 * t);  // wait_group 0: it has
    EXPECT_EQ(out[std::size_t(96 + t)], 0);            // src-size 0 zero-fills
  }
}

// The wmma API against a CPU product: A (m x k) and B (k x n) of small integers, exact in f16/bf16
// and in the f32 or f16 sums (|C| <= 32 * 9).
void check_wmma(const char* kernel, int m, int n, int k, bool bf, bool half_c) {
  std::vector<std::uint16_t> a(std::size_t(m * k)), b(std::size_t(k * n));
  std::vector<double> ad(a.size()), bd(b.size());
  // A[r][c] = (3c + 5r) mod 7 - 3, B[r][c] = (2c + 3r) mod 5 - 2: every row and column differs.
  for (int i = 0; i < m * k; ++i) ad[std::size_t(i)] = ((i % k) * 3 + (i / k) * 5) % 7 - 3;
  for (int i = 0; i < k * n; ++i) bd[std::size_t(i)] = ((i % n) * 2 + (i / n) * 3) % 5 - 2;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = bf ? bf16(ad[i]) : f16(ad[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = bf ? bf16(bd[i]) : f16(bd[i]);
  Launcher l("tensor_core");
  l.raw("a", a, ElemType::U16).raw("b", b, ElemType::U16);
  if (half_c)
    l.raw("c", std::vector<std::uint16_t>(std::size_t(m * n)), ElemType::U16);
  else
    l.raw("c", std::vector<float>(std::size_t(m * n)), ElemType::F32);
  l.value(m).value(n).value(k);
  l.run(kernel, 1, 128);
  const std::vector<std::uint16_t> ch =
      half_c ? l.got<std::uint16_t>("c") : std::vector<std::uint16_t>();
  const std::vector<float> cf = half_c ? std::vector<float>() : l.got<float>("c");
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int kk = 0; kk < k; ++kk) s += ad[std::size_t(i * k + kk)] * bd[std::size_t(kk * n + j)];
      const double got =
          half_c ? detail::f16_value(ch[std::size_t(i * n + j)]) : cf[std::size_t(i * n + j)];
      EXPECT_EQ(got, s) << kernel << " " << i << "," << j;
    }
}

TEST(ExecTensor, WmmaApiGemmsMatchACpuProduct) {
  SKIP_WITHOUT_NVCC();
  check_wmma("wmma_16x16x16", 32, 32, 32, false, false);
  check_wmma("wmma_32x8x16", 32, 16, 32, false, false);
  check_wmma("wmma_8x32x16", 16, 32, 32, false, true);
  check_wmma("wmma_bf16", 32, 32, 32, true, false);
}

}  // namespace
}  // namespace smemsim::exec

// Integer, single-bit, f64 and Volta-shape tensor cores through nvcc's code
// (tests/corpus/tensor_int.cu; issue 27), each against a CPU product:
// - mma.sync at every integer and b1 shape: the kernels pack their fragments by the PTX ISA's
//   layout formulas written out in the .cu, so a layout the executor gets wrong shows as a wrong
//   product; s32 sums wrap modulo 2^32, or clamp with .satfinite (PTX ISA "mma": "saturates to
//   MIN_INT32/MAX_INT32");
// - f16 m8n8k4: four independent 8x8x4 products, one per quad-pair;
// - the wmma API: an int8 GEMM (s8, u8; three shapes), s4 m8n8k32, b1 m8n8k128 (XOR, AND), f64.
// Skips without nvcc.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "exec/half.hpp"
#include "kernel_test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

struct IntCase {
  const char* kernel;
  int m, k, bits;
  bool a_signed, b_signed;
  int bitop;  // b1: 1 AND, 2 XOR
  bool satfinite;
};

// Values of a `bits`-bit element type: s8 [-128, 127], u8 [0, 255], s4 [-8, 7], u4 [0, 15], b1.
std::vector<int> values(std::size_t n, int bits, bool sign, unsigned seed) {
  const int lo = bits == 1 ? 0 : sign ? -(1 << (bits - 1)) : 0;
  const int hi = bits == 1 ? 1 : sign ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = d(g);
  return v;
}

std::vector<std::int8_t> bytes_of(const std::vector<int>& v) {
  std::vector<std::int8_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = static_cast<std::int8_t>(v[i]);
  return b;
}

void check_mma_int(const IntCase& c) {
  const int n = 8;
  const auto a = values(std::size_t(c.m * c.k), c.bits, c.a_signed, 11);
  const auto b = values(std::size_t(c.k * n), c.bits, c.b_signed, 12);
  std::vector<std::int32_t> acc(std::size_t(c.m * n));
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = std::int32_t(i * 37 % 201) - 100;
  // Sums past the s32 range: .satfinite clamps them, otherwise they wrap.
  acc[1] = INT32_MAX - 2;
  acc[2] = INT32_MIN + 2;
  Launcher l("tensor_int");
  l.raw("a", bytes_of(a), ElemType::S8).raw("b", bytes_of(b), ElemType::S8);
  l.raw("c", acc, ElemType::S32).raw("d", std::vector<std::int32_t>(acc.size()), ElemType::S32);
  l.run(c.kernel, 1, 32);
  const auto d = l.got<std::int32_t>("d");
  int clamped = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int64_t s = acc[std::size_t(i * n + j)];
      for (int kk = 0; kk < c.k; ++kk) {
        const int x = a[std::size_t(i * c.k + kk)], y = b[std::size_t(kk * n + j)];
        s += c.bitop == 1 ? (x & y) : c.bitop == 2 ? (x ^ y) : x * y;
      }
      const std::int64_t want = c.satfinite
                                    ? std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX)
                                    : std::int64_t(std::int32_t(std::uint32_t(std::uint64_t(s))));
      clamped += want != s;
      EXPECT_EQ(d[std::size_t(i * n + j)], want) << c.kernel << " " << i << "," << j;
    }
  EXPECT_GT(clamped, 0) << c.kernel << ": no sum left the s32 range";
}

TEST(ExecTensorInt, MmaOnEveryIntegerAndSingleBitShape) {
  SKIP_WITHOUT_NVCC();
  const IntCase cases[] = {
      {"mma_m8n8k16_s8", 8, 16, 8, true, true, 0, false},
      {"mma_m8n8k32_u4", 8, 32, 4, false, false, 0, false},
      {"mma_m8n8k128_b1_and", 8, 128, 1, false, false, 1, false},
      {"mma_m16n8k16_u8s8", 16, 16, 8, false, true, 0, false},
      {"mma_m16n8k32_s4_sat", 16, 32, 4, true, true, 0, true},
      {"mma_m16n8k128_b1_xor", 16, 128, 1, false, false, 2, false},
      {"mma_m16n8k32_s8", 16, 32, 8, true, true, 0, false},
      {"mma_m16n8k64_s4", 16, 64, 4, true, true, 0, false},
      {"mma_m16n8k256_b1_and", 16, 256, 1, false, false, 1, false},
  };
  for (const IntCase& c : cases) check_mma_int(c);
}

// A wrapped sum, worked by hand: m16n8k32 s8 with A row 0 all 127, B column 1 all 127 and C[0][1]
// = 2147483600 gives 2147483600 + 32 * 16129 = 2147483600 + 516128 = 2147999728, which wraps to
// 2147999728 - 4294967296 = -2146967568.
TEST(ExecTensorInt, S32SumsWrapWithoutSatfinite) {
  SKIP_WITHOUT_NVCC();
  std::vector<std::int8_t> a(16 * 32, 0), b(32 * 8, 0);
  for (int k = 0; k < 32; ++k) a[std::size_t(k)] = 127, b[std::size_t(k * 8 + 1)] = 127;
  std::vector<std::int32_t> c(128, 0);
  c[1] = 2147483600;
  Launcher l("tensor_int");
  l.raw("a", a, ElemType::S8).raw("b", b, ElemType::S8).raw("c", c, ElemType::S32);
  l.raw("d", std::vector<std::int32_t>(128), ElemType::S32);
  l.run("mma_m16n8k32_s8", 1, 32);
  EXPECT_EQ(l.got<std::int32_t>("d")[1], -2146967568);
}

TEST(ExecTensorInt, MmaF64M8n8k4) {
  SKIP_WITHOUT_NVCC();
  std::vector<double> a(32), b(32), c(64);
  for (int i = 0; i < 32; ++i)
    a[std::size_t(i)] = 0.1 * (i % 7) - 0.3, b[std::size_t(i)] = 1.0 / (i + 3);
  for (int i = 0; i < 64; ++i) c[std::size_t(i)] = i * 0.01;
  Launcher l("tensor_int");
  l.raw("a", a, ElemType::F64).raw("b", b, ElemType::F64).raw("c", c, ElemType::F64);
  l.raw("d", std::vector<double>(64), ElemType::F64);
  l.run("mma_m8n8k4_f64", 1, 32);
  const auto d = l.got<double>("d");
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = c[std::size_t(i * 8 + j)];
      for (int k = 0; k < 4; ++k) s += a[std::size_t(i * 4 + k)] * b[std::size_t(k * 8 + j)];
      // Four products: a sum in any order is within a few ulps of this one.
      EXPECT_NEAR(d[std::size_t(i * 8 + j)], s, 1e-15) << i << "," << j;
    }
}

// f16 m8n8k4: quad-pair q's D_q = A_q B_q + C_q only; small integers, exact in f16 and in f32 (or
// f16) sums, and different per quad-pair, so a lane serving the wrong product shows.
TEST(ExecTensorInt, MmaF16M8n8k4IsFourQuadPairProducts) {
  SKIP_WITHOUT_NVCC();
  std::vector<std::uint16_t> a(128), b(128);
  std::vector<double> ad(128), bd(128);
  std::vector<float> c(256);
  for (int i = 0; i < 128; ++i) {
    ad[std::size_t(i)] = (i * 5 + i / 32) % 7 - 3;
    bd[std::size_t(i)] = (i * 3 + 2 * (i / 32)) % 5 - 2;
    a[std::size_t(i)] =
        std::uint16_t(detail::double_to_small(ad[std::size_t(i)], detail::kF16, ptx::Rounding::Rn));
    b[std::size_t(i)] =
        std::uint16_t(detail::double_to_small(bd[std::size_t(i)], detail::kF16, ptx::Rounding::Rn));
  }
  for (int i = 0; i < 256; ++i) c[std::size_t(i)] = float(i % 9 - 4);
  for (const char* k : {"mma_m8n8k4_f16_rowrow", "mma_m8n8k4_f16_colcol", "mma_m8n8k4_f16_acc16"}) {
    Launcher l("tensor_int");
    l.raw("a", a, ElemType::U16).raw("b", b, ElemType::U16).raw("c", c, ElemType::F32);
    l.raw("d", std::vector<float>(256), ElemType::F32);
    l.run(k, 1, 32);
    const auto d = l.got<float>("d");
    for (int q = 0; q < 4; ++q)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          double s = c[std::size_t(q * 64 + i * 8 + j)];
          for (int kk = 0; kk < 4; ++kk)
            s += ad[std::size_t(q * 32 + i * 4 + kk)] * bd[std::size_t(q * 32 + kk * 8 + j)];
          EXPECT_EQ(d[std::size_t(q * 64 + i * 8 + j)], s) << k << " " << q << " " << i << "," << j;
        }
  }
}

// The int8 wmma GEMM of the issue: C = A B, 64 x 64 x 64, against a CPU product.
void check_wmma_int8(const char* kernel, bool sign, bool bcol, int tm, int tn) {
  const int m = 64, n = 64, k = 64;
  const auto a = values(std::size_t(m * k), 8, sign, 21);
  const auto b = values(std::size_t(k * n), 8, sign, 22);
  std::vector<int> stored = b;  // column-major B: stored transposed (n x k)
  if (bcol)
    for (int r = 0; r < k; ++r)
      for (int cc = 0; cc < n; ++cc) stored[std::size_t(cc * k + r)] = b[std::size_t(r * n + cc)];
  Launcher l("tensor_int");
  l.raw("a", bytes_of(a), sign ? ElemType::S8 : ElemType::U8);
  l.raw("b", bytes_of(stored), sign ? ElemType::S8 : ElemType::U8);
  l.raw("c", std::vector<std::int32_t>(std::size_t(m * n)), ElemType::S32);
  l.value(m).value(n).value(k);
  const int warps = (m / tm) * (n / tn);
  l.run(kernel, std::uint32_t(warps / 4), 128);
  const auto c = l.got<std::int32_t>("c");
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int64_t s = 0;
      for (int kk = 0; kk < k; ++kk) s += a[std::size_t(i * k + kk)] * b[std::size_t(kk * n + j)];
      EXPECT_EQ(c[std::size_t(i * n + j)], s) << kernel << " " << i << "," << j;
    }
}

TEST(ExecTensorInt, Int8WmmaGemmMatchesACpuProduct) {
  SKIP_WITHOUT_NVCC();
  check_wmma_int8("wmma_s8_16x16x16", true, false, 16, 16);
  check_wmma_int8("wmma_u8_32x8x16", false, true, 32, 8);
  check_wmma_int8("wmma_s8_8x32x16", true, true, 8, 32);
}

// Sub-byte packing in memory: element e of a row at bit e * bits of the row's bytes (low nibble,
// bit 0 first).
std::vector<std::uint8_t> pack(const std::vector<int>& v, int bits) {
  std::vector<std::uint8_t> out(v.size() * std::size_t(bits) / 8);
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i * std::size_t(bits) / 8] |=
        std::uint8_t((unsigned(v[i]) & ((1u << bits) - 1)) << (i * std::size_t(bits) % 8));
  return out;
}

TEST(ExecTensorInt, SubByteAndF64WmmaMatchACpuProduct) {
  SKIP_WITHOUT_NVCC();
  // s4 m8n8k32: A 8 x 32 row-major, B 32 x 8 column-major (column j's 32 values together), C += .
  {
    const auto a = values(256, 4, true, 31), bt = values(256, 4, true, 32);
    std::vector<std::int32_t> c(64);
    for (int i = 0; i < 64; ++i) c[std::size_t(i)] = i - 30;
    Launcher l("tensor_int");
    l.raw("a", pack(a, 4), ElemType::U8).raw("b", pack(bt, 4), ElemType::U8);
    l.raw("c", c, ElemType::S32);
    l.run("wmma_s4", 1, 32);
    const auto d = l.got<std::int32_t>("c");
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        int s = c[std::size_t(i * 8 + j)];
        for (int kk = 0; kk < 32; ++kk)
          s += a[std::size_t(i * 32 + kk)] * bt[std::size_t(j * 32 + kk)];
        EXPECT_EQ(d[std::size_t(i * 8 + j)], s) << "s4 " << i << "," << j;
      }
  }
  // b1 m8n8k128: popc(A_row XOR / AND B_col).
  for (const bool x : {true, false}) {
    const auto a = values(1024, 1, false, 41), bt = values(1024, 1, false, 42);
    Launcher l("tensor_int");
    l.raw("a", pack(a, 1), ElemType::U8).raw("b", pack(bt, 1), ElemType::U8);
    l.raw("c", std::vector<std::int32_t>(64), ElemType::S32);
    l.run(x ? "wmma_b1_xor" : "wmma_b1_and", 1, 32);
    const auto d = l.got<std::int32_t>("c");
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        int s = 0;
        for (int kk = 0; kk < 128; ++kk) {
          const int p = a[std::size_t(i * 128 + kk)], q = bt[std::size_t(j * 128 + kk)];
          s += x ? (p ^ q) : (p & q);
        }
        EXPECT_EQ(d[std::size_t(i * 8 + j)], s) << (x ? "xor " : "and ") << i << "," << j;
      }
  }
  // f64 m8n8k4: A 8 x 4 row-major, B 4 x 8 column-major, through shared memory.
  {
    std::vector<double> a(32), bt(32), c(64);
    for (int i = 0; i < 32; ++i)
      a[std::size_t(i)] = i * 0.25 - 3, bt[std::size_t(i)] = 2.0 - i * 0.125;
    for (int i = 0; i < 64; ++i) c[std::size_t(i)] = i;
    Launcher l("tensor_int");
    l.raw("a", a, ElemType::F64).raw("b", bt, ElemType::F64).raw("c", c, ElemType::F64);
    l.run("wmma_f64", 1, 32);
    const auto d = l.got<double>("c");
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double s = c[std::size_t(i * 8 + j)];  // quarters and eighths: every sum is exact
        for (int kk = 0; kk < 4; ++kk)
          s += a[std::size_t(i * 4 + kk)] * bt[std::size_t(j * 4 + kk)];
        EXPECT_EQ(d[std::size_t(i * 8 + j)], s) << "f64 " << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace smemsim::exec

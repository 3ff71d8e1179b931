// Hopper's warpgroup matrix multiply (issue 46; kernels/wgmma.cu, its PTX shipped in kernels/ptx):
// the product under each descriptor swizzle mode, B N-major, a negated A, A from registers with
// f16 accumulators, s8, a GEMM whose tiles the TMA brings in swizzled, the timing against Luo et
// al. 2024's measured latencies, and bad input. Every expected product is the CPU's, on small
// integers that f16 (and f32 sums) hold exactly, so any misplaced element changes the result.
// The kernels place their operands in shared memory the way the CUDA guide pictures a swizzled
// TMA box (16-byte chunks of each 128-byte line XORed with the line number), and the GEMM's tiles
// come from the TMA itself (tested against the guide in tma_test.cpp): the executor's descriptor
// reading must agree with both.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "calibrate/replicas.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

using test::cli;

// f16 bits of a small integer (exact).
std::uint16_t half_of_int(int v) {
  if (v == 0) return 0;
  const std::uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = unsigned(v < 0 ? -v : v);
  int e = 0;
  while ((m >> e) > 1) ++e;
  // value = 1.f x 2^e: mantissa bits are m's bits below the leading one, shifted to 10 bits.
  const unsigned frac = (m << (10 - e)) & 0x3ff;
  return std::uint16_t(sign | std::uint16_t((e + 15) << 10) | frac);
}

// Deterministic small integers in [-3, 3].
int small(std::uint32_t i, std::uint32_t salt) {
  std::uint32_t x = i * 2654435761u + salt * 40503u;
  x ^= x >> 13;
  return int(x % 7) - 3;
}

struct Wg {
  Workload w;
  explicit Wg(const std::string& kernel) {
    w.module = load_suite_ptx(suite_ptx_dir(), "wgmma", "wgmma_test");
    w.kernel = kernel;
  }
  std::uint32_t buf(const std::string& name, ElemType t, std::vector<std::uint8_t> bytes) {
    return w.memory.add(Buffer{name, t, std::move(bytes)});
  }
  void run(std::uint32_t gx = 1, std::uint32_t gy = 1, std::uint32_t block = 128) {
    w.launch.grid = {gx, gy, 1};
    w.launch.block = {block, 1, 1};
    Executor ex(w.module, find_kernel(w.module, w.kernel), find_preset("hopper-h100"), w.launch,
                w.memory);
    ex.run();
  }
  template <typename T>
  std::vector<T> out(const std::string& name) const {
    const Buffer& b = *w.memory.find(name);
    std::vector<T> v(b.bytes.size() / sizeof(T));
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
};

std::vector<std::uint8_t> halves(const std::vector<int>& v) {
  std::vector<std::uint8_t> b(v.size() * 2);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint16_t h = half_of_int(v[i]);
    std::memcpy(&b[2 * i], &h, 2);
  }
  return b;
}

// A (64 x 16) and B (16 x 32) of small integers, and their product on the CPU.
struct Operands {
  std::vector<int> a, b;
  std::vector<float> d;
  Operands(int m, int k, int n, std::uint32_t salt) : a(std::size_t(m * k)), b(std::size_t(k * n)) {
    for (int i = 0; i < m * k; ++i) a[std::size_t(i)] = small(std::uint32_t(i), salt);
    for (int i = 0; i < k * n; ++i) b[std::size_t(i)] = small(std::uint32_t(i), salt + 1);
    d.assign(std::size_t(m * n), 0.0f);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c) {
        int s = 0;
        for (int kk = 0; kk < k; ++kk) s += a[std::size_t(r * k + kk)] * b[std::size_t(kk * n + c)];
        d[std::size_t(r * n + c)] = float(s);
      }
  }
};

// bf16 bits of a small integer: the float's top half (exact).
std::vector<std::uint8_t> bf16s(const std::vector<int>& v) {
  std::vector<std::uint8_t> b(v.size() * 2);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float f = float(v[i]);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    const auto h = std::uint16_t(bits >> 16);
    std::memcpy(&b[2 * i], &h, 2);
  }
  return b;
}

struct Layout {
  int mode = 0, trans_a = 0, trans_b = 0, variant = 0, accumulate = 0;
};

// kernels/wgmma.cu's wgmma_layouts: D starts at 1,000 everywhere.
std::vector<float> run_layouts(const Layout& l, const Operands& o) {
  Wg g("_Z13wgmma_layoutsPKtS0_Pfiiiii");
  const bool bf = l.variant == 3;
  const std::uint32_t a = g.buf("a", ElemType::U16, bf ? bf16s(o.a) : halves(o.a));
  const std::uint32_t b = g.buf("b", ElemType::U16, bf ? bf16s(o.b) : halves(o.b));
  const std::uint32_t out = g.buf("out", ElemType::F32, std::vector<std::uint8_t>(64 * 32 * 4));
  g.w.launch.args = {Arg::buf(a),
                     Arg::buf(b),
                     Arg::buf(out),
                     Arg::integer(l.mode),
                     Arg::integer(l.trans_a),
                     Arg::integer(l.trans_b),
                     Arg::integer(l.variant),
                     Arg::integer(l.accumulate)};
  g.run();
  return g.out<float>("out");
}

// Every swizzle mode with A K- or M-major and B K- or N-major (the transposes): the layouts the
// kernel writes are the PTX ISA's canonical ones drawn as the CUDA guide draws a swizzled TMA box
// (kmajor, mnmajor in kernels/wgmma.cu), including the LBO between swizzle atoms along M/N (A
// M-major under 32B and 64B spans two or four atoms).
TEST(Wgmma, EverySwizzleModeAndMajorOfTheDescriptorReadsWhatThatLayoutHolds) {
  const Operands o(64, 16, 32, 7);
  for (const int mode : {0, 32, 64, 128})
    for (const int ta : {0, 1})
      for (const int tb : {0, 1}) {
        SCOPED_TRACE(testing::Message()
                     << "mode " << mode << " trans_a " << ta << " trans_b " << tb);
        EXPECT_EQ(run_layouts({mode, ta, tb, 0, 0}, o), o.d);
      }
}

// scale-d: false drops the 1,000 D started with, true adds to it.
TEST(Wgmma, ScaleDKeepsOrDropsTheAccumulator) {
  const Operands o(64, 16, 32, 3);
  std::vector<float> plus = o.d;
  for (float& v : plus) v += 1000;
  EXPECT_EQ(run_layouts({0, 0, 0, 0, 1}, o), plus);
  EXPECT_EQ(run_layouts({64, 0, 0, 0, 0}, o), o.d);
}

TEST(Wgmma, AOrBNegatedByItsScaleImmediate) {
  const Operands o(64, 16, 32, 13);
  std::vector<float> neg = o.d;
  for (float& v : neg) v = -v;
  EXPECT_EQ(run_layouts({0, 0, 0, 1, 0}, o), neg);
  EXPECT_EQ(run_layouts({128, 0, 0, 2, 0}, o), neg);
}

TEST(Wgmma, Bf16Elements) {
  const Operands o(64, 16, 32, 5);
  EXPECT_EQ(run_layouts({32, 0, 0, 3, 0}, o), o.d);
}

// tf32 takes a float's sign, exponent and top 10 mantissa bits: the low 13 bits set in every
// input change nothing.
TEST(Wgmma, Tf32IgnoresTheLow13Bits) {
  const Operands o(64, 8, 32, 31);
  Wg g("_Z10wgmma_tf32PKfS0_Pf");
  auto floats = [](const std::vector<int>& v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float f = float(v[i]);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      if (v[i] != 0) bits |= 0x1fff;
      std::memcpy(&b[4 * i], &bits, 4);
    }
    return b;
  };
  const std::uint32_t a = g.buf("a", ElemType::F32, floats(o.a));
  const std::uint32_t b = g.buf("b", ElemType::F32, floats(o.b));
  const std::uint32_t out = g.buf("out", ElemType::F32, std::vector<std::uint8_t>(64 * 32 * 4));
  g.w.launch.args = {Arg::buf(a), Arg::buf(b), Arg::buf(out)};
  g.run();
  EXPECT_EQ(g.out<float>("out"), o.d);
}

TEST(Wgmma, AFromRegistersIntoF16AccumulatorsTwice) {
  // D starts at 1,000, which the first product drops (scale-d false); the second adds to the
  // first (scale-d true): D = 2 A B, |2 A B| <= 2 x 16 x 9 = 288, exact in f16.
  const Operands o(64, 16, 32, 17);
  Wg g("_Z12wgmma_rs_f16PK6__halfS1_Pf");
  const std::uint32_t a = g.buf("a", ElemType::F16, halves(o.a));
  const std::uint32_t b = g.buf("b", ElemType::F16, halves(o.b));
  const std::uint32_t out = g.buf("out", ElemType::F32, std::vector<std::uint8_t>(64 * 32 * 4));
  g.w.launch.args = {Arg::buf(a), Arg::buf(b), Arg::buf(out)};
  g.run();
  std::vector<float> twice = o.d;
  for (float& v : twice) v *= 2;
  EXPECT_EQ(g.out<float>("out"), twice);
}

std::vector<std::int32_t> run_s8(const std::vector<std::uint8_t>& a,
                                 const std::vector<std::uint8_t>& b, int variant, int init) {
  Wg g("_Z8wgmma_s8PKaS0_Piii");
  const std::uint32_t ab = g.buf("a", ElemType::S8, a), bb = g.buf("b", ElemType::S8, b);
  const std::uint32_t out = g.buf("out", ElemType::S32, std::vector<std::uint8_t>(64 * 32 * 4));
  g.w.launch.args = {Arg::buf(ab), Arg::buf(bb), Arg::buf(out), Arg::integer(variant),
                     Arg::integer(init)};
  g.run();
  return g.out<std::int32_t>("out");
}

// s8 x s8, u8 x s8 (A's bytes read unsigned: 3 x 40 = 120 stays, -3 x 40 = 0x88 is 136), and a
// sum past the s32 range from D = 2,147,483,000: clamped with .satfinite, wrapped without.
TEST(Wgmma, EightBitProductsSumToS32) {
  const Operands o(64, 32, 32, 19);
  std::vector<std::uint8_t> a(o.a.size()), b(o.b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::uint8_t(std::int8_t(o.a[i] * 40));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::uint8_t(std::int8_t(o.b[i] * 40));
  std::vector<std::int32_t> s8(o.d.size()), u8(o.d.size()), sat(o.d.size()), wrap(o.d.size());
  const std::int64_t init = 2147483000;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 32; ++c) {
      std::int64_t ss = 0, us = 0;
      for (int k = 0; k < 32; ++k) {
        const std::int64_t bv = std::int8_t(b[std::size_t(k * 32 + c)]);
        ss += std::int8_t(a[std::size_t(r * 32 + k)]) * bv;
        us += std::int64_t(a[std::size_t(r * 32 + k)]) * bv;
      }
      const std::size_t i = std::size_t(r * 32 + c);
      s8[i] = std::int32_t(ss);
      u8[i] = std::int32_t(us);
      sat[i] = std::int32_t(std::min<std::int64_t>(init + ss, 2147483647));
      wrap[i] = std::int32_t(std::uint32_t(std::uint64_t(init + ss)));
    }
  EXPECT_EQ(run_s8(a, b, 0, 7), s8);
  EXPECT_EQ(run_s8(a, b, 1, 7), u8);
  const std::vector<std::int32_t> got_sat = run_s8(a, b, 2, std::int32_t(init));
  EXPECT_EQ(got_sat, sat);
  EXPECT_EQ(run_s8(a, b, 3, std::int32_t(init)), wrap);
  // Some sums did pass the range (else the two would agree).
  EXPECT_NE(sat, wrap);
}

// fp8 (e4m3 and e5m2): each byte's value from its encoding, sign | exponent | mantissa. e4m3
// (bias 7, 3 mantissa bits): 0x38 = 0 0111 000 = 1, 0x3C = 1.5, 0x30 = 0.5, 0x40 = 2, 0xC4 =
// 1 1000 100 = -3, 0x20 = 0.125, 0xB8 = -1, 0x01 = 1/8 x 2^-6 = 2^-9 (subnormal), 0x00 = 0. e5m2
// (bias 15, 2 bits): 0x3C = 0 01111 00 = 1, 0x3E = 1.5, 0xB8 = 1 01110 00 = -0.5, 0x40 = 2,
// 0x34 = 0.25, 0xC2 = 1 10000 10 = -3, 0x00 = 0. Every product is a multiple of 2^-12 and a sum
// of 32 is below 2^9 in size: exact in f32, so D is the exact sum (no rounding to argue about).
TEST(Wgmma, Fp8ProductsDecodeEachFormat) {
  const std::pair<std::uint8_t, double> e4m3[] = {{0x38, 1},  {0x3C, 1.5},    {0x30, 0.5},
                                                  {0x40, 2},  {0xC4, -3},     {0x20, 0.125},
                                                  {0xB8, -1}, {0x01, 0x1p-9}, {0x00, 0}};
  const std::pair<std::uint8_t, double> e5m2[] = {
      {0x3C, 1}, {0x3E, 1.5}, {0xB8, -0.5}, {0x40, 2}, {0x34, 0.25}, {0xC2, -3}, {0x00, 0}};
  std::mt19937 gen(31);
  for (const int variant : {0, 1}) {
    std::vector<std::uint8_t> a(64 * 32), b(32 * 32);
    std::vector<double> av(a.size()), bv(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto& [byte, v] = variant ? e5m2[gen() % 7] : e4m3[gen() % 9];
      a[i] = byte;
      av[i] = v;
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      const auto& [byte, v] = e4m3[gen() % 9];
      b[i] = byte;
      bv[i] = v;
    }
    std::vector<float> want(64 * 32);
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 32; ++c) {
        double sum = 0;
        for (int k = 0; k < 32; ++k)
          sum += av[std::size_t(r * 32 + k)] * bv[std::size_t(k * 32 + c)];
        want[std::size_t(r * 32 + c)] = float(sum);
      }
    Wg g("_Z9wgmma_fp8PKhS0_Pfi");
    const std::uint32_t ab = g.buf("a", ElemType::U8, a), bb = g.buf("b", ElemType::U8, b);
    const std::uint32_t out = g.buf("out", ElemType::F32, std::vector<std::uint8_t>(64 * 32 * 4));
    g.w.launch.args = {Arg::buf(ab), Arg::buf(bb), Arg::buf(out), Arg::integer(variant)};
    g.run();
    EXPECT_EQ(g.out<float>("out"), want) << "variant " << variant;
  }
}

// The GEMM through the launch spec as a user writes it: A (256 x 128) and B^T (256 x 128) f16,
// the TMA's maps with the 128B swizzle, a 2 x 2 grid of 128 x 128 tiles.
TEST(Wgmma, TmaFedGemmMatchesTheCpu) {
  const int m = 256, n = 256, k = 128;
  const Operands a_op(m, k, 1, 23), b_op(n, k, 1, 29);  // their `a`s: A and B^T
  Wg g("_Z10wgmma_gemm14CUtensorMap_stS_Pfii");
  const std::string spec =
      "kernel = \"_Z10wgmma_gemm14CUtensorMap_stS_Pfii\"\n"
      "args = [\"ta\", \"tb\", \"c\", 256, 128]\n"
      "[buffers.a]\ntype = \"f16\"\ncount = 32768\n"
      "[buffers.bt]\ntype = \"f16\"\ncount = 32768\n"
      "[buffers.c]\ntype = \"f32\"\ncount = 65536\n"
      "[tensor_maps.ta]\nbuffer = \"a\"\ndims = [128, 256]\nbox = [64, 128]\nswizzle = \"128B\"\n"
      "[tensor_maps.tb]\nbuffer = \"bt\"\ndims = [128, 256]\nbox = [64, 128]\nswizzle = "
      "\"128B\"\n";
  bool grid = false, block = false;
  apply_launch_spec_text(spec, "gemm.toml", g.w, grid, block);
  const std::vector<std::uint8_t> ab = halves(a_op.a), bb = halves(b_op.a);
  g.w.memory.get("a").bytes = ab;
  g.w.memory.get("bt").bytes = bb;
  g.run(2, 2, 256);
  const std::vector<float> c = g.out<float>("c");
  int wrong = 0;
  for (int r = 0; r < m; ++r)
    for (int col = 0; col < n; ++col) {
      int s = 0;
      for (int kk = 0; kk < k; ++kk)
        s += a_op.a[std::size_t(r * k + kk)] * b_op.a[std::size_t(col * k + kk)];
      wrong += c[std::size_t(r * n + col)] != float(s);
    }
  EXPECT_EQ(wrong, 0);
}

// The cycles a product of kernels/wgmma.cu's latency loop (1,024 products into one accumulator,
// then commit and wait; the replicas of Luo et al. 2024's Table X) on hopper-h100, derived from
// the keys: each warp's sub-core multiplies its 16 rows, 16 x N x 16 multiply-adds at
// sm.wgmma_fmas = 512 a cycle, N / 2 cycles; no product takes fewer than sm.lat_wgmma = 13; with A
// and B in shared memory the one port reads 64 x 16 x 2 = 2,048 bytes of A and N x 32 of B a
// product, 128 bytes a pass: 16 + N / 4 cycles. A product takes the largest of the three (the
// loop's tail, one wait and a clock read, adds under 0.1 a product; where a product is the
// pipeline's 13, the loop's branch, 5 cycles and its predicate's guard delay, under 0.6).
TEST(Wgmma, AProductTakesItsMultiplyItsReadsOrTheTensorPipelinesLeast) {
  const calibrate::Code code = calibrate::load_replicas();
  const Arch h = find_preset("hopper-h100");
  ASSERT_EQ(h.sm.wgmma_fmas, 512u);
  ASSERT_EQ(h.sm.lat_wgmma, 13u);
  struct Case {
    const char* replica;
    double cycles;
  };
  const Case cases[] = {
      {"wgmma_n256", 128},   // multiply 128, reads 80
      {"wgmma_n128", 64},    // 64, 48
      {"wgmma_n64", 32},     // 32, 32
      {"wgmma_n32", 24},     // multiply 16, reads 24
      {"wgmma_n8", 18},      // 4, 18
      {"wgmma_rs_n32", 16},  // A in registers: multiply 16, reads 8 (B only)
      {"wgmma_rs_n8", 13},   // multiply 4, reads 2: the pipeline's 13
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.replica);
    const double got = calibrate::run_replica(*calibrate::find_replica(c.replica), h, code);
    EXPECT_GE(got, c.cycles);
    EXPECT_LT(got, c.cycles + (c.cycles < 16 ? 0.6 : 0.1));
  }
  // Half the tensor core's rate doubles the large product's time, not the small one's.
  Arch slow = h;
  slow.sm.wgmma_fmas = 256;
  EXPECT_NEAR(calibrate::run_replica(*calibrate::find_replica("wgmma_n256"), slow, code), 256, 0.1);
  EXPECT_NEAR(calibrate::run_replica(*calibrate::find_replica("wgmma_n8"), slow, code), 18, 0.1);
}

// A one-warpgroup kernel around `body` (line 11 on), with a u64 descriptor parameter in %rd1.
std::string wg_module(const std::string& body) {
  return ".version 8.0\n"                       // 1
         ".target sm_90a\n"                     // 2
         ".address_size 64\n"                   // 3
         ".visible .entry k(.param .u64 p0)\n"  // 4
         "{\n"                                  // 5
         "  .reg .b64 %rd<4>;\n"                // 6
         "  .reg .f32 %f<40>;\n"                // 7
         "  .reg .b32 %r<8>;\n"                 // 8
         "  .reg .pred %p<2>;\n"                // 9
         "  ld.param.u64 %rd1, [p0];\n"         // 10
         + body + "\n  ret;\n}\n";
}

std::string parse_error(const std::string& text) {
  try {
    ptx::parse(text, "wg.ptx");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string unsupported(const std::string& text) {
  const ptx::Module m = ptx::parse(text, "wg.ptx");
  return m.kernels[0].unsupported.empty() ? "supported" : m.kernels[0].unsupported[0].message;
}

TEST(Wgmma, MalformedFormsAreLocatedErrors) {
  const std::string d4 = "{%f1, %f2, %f3, %f4}";
  // m64n8k16.f32: N / 2 = 4 accumulators; 8 operands with the f16 immediates.
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 +
                                  ", %rd1, %rd1, 0, 1, 1, 0, 0;")),
            "no error");
  // N = 12 is no shape; 3 accumulators for N = 8; an imm-scale-a of 2; bf16 into f16; a 32-bit
  // descriptor; a wait_group without N.
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 " + d4 +
                                  ", %rd1, %rd1, 0, 1, 1, 0, 0;")),
            "wg.ptx:11: 'wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16': N = 12 is not a "
            "shape of .f16 (8 to 256 in steps of 8)");
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, "
                                  "%f2, %f3}, %rd1, %rd1, 0, 1, 1, 0, 0;")),
            "wg.ptx:11: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16' needs 4 registers in "
            "its accumulator d");
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 +
                                  ", %rd1, %rd1, 0, 2, 1, 0, 0;")),
            "wg.ptx:11: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16': operand 5 "
            "(imm-scale-a) must be the integer 1 or -1");
  EXPECT_NE(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r1, "
                                  "%r2}, %rd1, %rd1, 0, 1, 1, 0, 0;"))
                .find("wg.ptx:11: "),
            std::string::npos);
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 +
                                  ", %r1, %rd1, 0, 1, 1, 0, 0;")),
            "wg.ptx:11: operand 2 of 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16' must be "
            "a 64-bit register (A's matrix descriptor)");
  EXPECT_EQ(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, "
                                  "%f2, %f3, %rd2}, %rd1, %rd1, 0, 1, 1, 0, 0;")),
            "wg.ptx:11: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16': the accumulator d "
            "holds 32-bit registers; %rd2 is not one");
  EXPECT_EQ(parse_error(wg_module("  wgmma.wait_group.sync.aligned;")),
            "wg.ptx:11: 'wgmma.wait_group.sync.aligned' needs 1 operand, got 0");
  // fp8 takes k32 and no transposes (two immediates: the scales).
  EXPECT_NE(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3 " + d4 +
                                  ", %rd1, %rd1, 0, 1, 1;"))
                .find(".e4m3/.e5m2 with .f16 or .f32 at k32"),
            std::string::npos);
  EXPECT_NE(parse_error(wg_module("  wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 " + d4 +
                                  ", %rd1, %rd1, 0, 1, 1, 0, 0;"))
                .find("needs 6 operands"),
            std::string::npos);
  // Valid forms the executor does not model fail only the kernel that uses them.
  EXPECT_EQ(unsupported(wg_module("  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 +
                                  ", %rd1, %rd1, 0, 1, 1;")),
            "unsupported PTX instruction 'wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16' "
            "(sparse wgmma)");
}

// A descriptor outside the CTA's shared memory (a kernel with none) is the thread's error, exit 2.
TEST(Wgmma, ADescriptorOutsideSharedMemoryIsAnError) {
  const std::string ptx = test::temp_file(
      "wgmma_oob.ptx", wg_module("  wgmma.fence.sync.aligned;\n"
                                 "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, "
                                 "%f3, %f4}, %rd1, %rd1, 0, 1, 1, 0, 0;\n"
                                 "  wgmma.commit_group.sync.aligned;\n"
                                 "  wgmma.wait_group.sync.aligned 0;"));
  // Start address 1024 (64 in 16-byte units) in a kernel with no shared memory.
  const std::string spec = test::temp_file("wgmma_oob.toml", "kernel = \"k\"\nargs = [64]\n");
  const auto r = cli("run " + ptx + " --launch " + spec + " --grid 1 --block 128");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("wgmma_oob.ptx:12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out-of-bounds shared matrix read (through the wgmma descriptor) of 16 "
                       "bytes at byte offset 1024"),
            std::string::npos)
      << r.out;
  // A block of 64 threads has no whole warpgroup.
  const auto half = cli("run " + ptx + " --launch " + spec + " --grid 1 --block 64");
  EXPECT_EQ(half.exit_code, 2) << half.out;
  EXPECT_NE(half.out.find("needs the warpgroup's four warps of 32 threads: warp 0 is in "
                          "warpgroup 0, and the block has 2 warps"),
            std::string::npos)
      << half.out;
  // The cycle model refuses it on a preset without warpgroup tensor cores.
  const auto v =
      cli("sim " + ptx + " --launch " + spec + " --arch volta-v100 --grid 1 --block 128");
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_NE(v.out.find("sm.wgmma_fmas = 0"), std::string::npos) << v.out;
}

}  // namespace
}  // namespace smemsim::exec

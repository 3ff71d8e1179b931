// f16, bf16 and tf32 encoding (issue 16, src/exec/half.hpp) at the rounding boundaries, each value
// worked by hand from IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits, bias 15), bfloat16
// (8 exponent, 7 mantissa bits: the high half of an f32) and TensorFloat-32 (an f32 keeping 10
// mantissa bits).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "exec/half.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Rounding;

std::uint32_t f16(double v, Rounding r = Rounding::Rn) {
  return double_to_small(v, kF16, r);
}

TEST(HalfFormats, F16RoundsAtItsBoundaries) {
  EXPECT_EQ(f16(1.0), 0x3C00u);
  EXPECT_EQ(f16(65504.0), 0x7BFFu);  // the largest finite f16
  // 65520 lies halfway between 65504 (mantissa 0x3FF, odd) and 2^16 (beyond the range): to
  // nearest even goes up, to infinity; towards zero stays at 65504.
  EXPECT_EQ(f16(65520.0), 0x7C00u);
  EXPECT_EQ(f16(65520.0, Rounding::Rz), 0x7BFFu);
  EXPECT_EQ(f16(1e9, Rounding::Rm), 0x7BFFu);
  EXPECT_EQ(f16(-1e9, Rounding::Rm), 0xFC00u);
  // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10: rn stays, rp and rna go up.
  EXPECT_EQ(f16(1 + std::ldexp(1.0, -11)), 0x3C00u);
  EXPECT_EQ(f16(1 + std::ldexp(1.0, -11), Rounding::Rp), 0x3C01u);
  EXPECT_EQ(f16(1 + std::ldexp(1.0, -11), Rounding::Rna), 0x3C01u);
  // 1 + 3 * 2^-11 is halfway between 0x3C01 (odd) and 0x3C02 (even).
  EXPECT_EQ(f16(1 + 3 * std::ldexp(1.0, -11)), 0x3C02u);
  // -(1 + 2^-12): towards -inf grows the magnitude, towards +inf and zero shrink it.
  EXPECT_EQ(f16(-(1 + std::ldexp(1.0, -12)), Rounding::Rm), 0xBC01u);
  EXPECT_EQ(f16(-(1 + std::ldexp(1.0, -12)), Rounding::Rp), 0xBC00u);
  EXPECT_EQ(f16(-(1 + std::ldexp(1.0, -12)), Rounding::Rz), 0xBC00u);
  // Subnormals: 2^-24 is the smallest; 2^-25 is halfway to 0 (even); 0.75 * 2^-24 rounds up.
  EXPECT_EQ(f16(std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(f16(std::ldexp(1.0, -25)), 0x0000u);
  EXPECT_EQ(f16(0.75 * std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(f16(std::ldexp(1.0, -14) - std::ldexp(1.0, -24)), 0x03FFu);  // largest subnormal
  EXPECT_EQ(f16(-0.0), 0x8000u);
  EXPECT_EQ(f16(std::nan("")), 0x7FFFu);
  // Decoding: 0x3555 = 1.0101010101b x 2^-2 = 1365 / 4096.
  EXPECT_EQ(small_to_double(0x3555, kF16), 1365.0 / 4096.0);
  EXPECT_EQ(small_to_double(0x0001, kF16), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(small_to_double(0xFC00, kF16)));
  EXPECT_LT(small_to_double(0xFC00, kF16), 0);
}

TEST(HalfFormats, Bf16AndTf32KeepTheF32ExponentRange) {
  const auto bf = [](std::uint32_t f32_bits, Rounding r = Rounding::Rn) {
    return double_to_small(std::bit_cast<float>(f32_bits), kBF16, r);
  };
  EXPECT_EQ(bf(0x3F800000), 0x3F80u);
  // 0x3F808000 = 1 + 2^-8, halfway between 0x3F80 (even) and 0x3F81; 0x3F818000 between 0x3F81
  // (odd) and 0x3F82.
  EXPECT_EQ(bf(0x3F808000), 0x3F80u);
  EXPECT_EQ(bf(0x3F818000), 0x3F82u);
  EXPECT_EQ(bf(0x3F808001), 0x3F81u);  // past halfway
  // The largest f32 rounds to infinity under rn, to the largest bf16 (0x7F7F) towards zero.
  EXPECT_EQ(bf(0x7F7FFFFF), 0x7F80u);
  EXPECT_EQ(bf(0x7F7FFFFF, Rounding::Rz), 0x7F7Fu);
  EXPECT_EQ(double_to_small(1e39, kBF16, Rounding::Rn, true), 0x7F7Fu);  // satfinite
  // tf32 drops the 13 low mantissa bits of an f32: 0x3F801000 has exactly half of the dropped
  // range set, so rna rounds away (0x3F802000) and rn to even (0x3F800000).
  const double x = std::bit_cast<float>(0x3F801000u);
  EXPECT_EQ(double_to_small(x, kTF32, Rounding::Rna), 0x3F802000u);
  EXPECT_EQ(double_to_small(x, kTF32, Rounding::Rn), 0x3F800000u);
  EXPECT_EQ(small_to_double(0x3F802000u, kTF32), 1 + std::ldexp(1.0, -10));
}

}  // namespace
}  // namespace smemsim::exec::detail

namespace smemsim::exec::detail {
namespace {

// Every f16 and bf16 pattern decodes to (-1)^s x 2^(e - bias) x 1.m (normal) or 2^(1 - bias) x
// 0.m (subnormal), computed here with ldexp; all-ones exponents are infinities and NaNs.
TEST(HalfFormats, EveryPatternDecodesToItsValue) {
  for (const SmallFloat f : {kF16, kBF16}) {
    const int bias = (1 << (f.exp_bits - 1)) - 1;
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
      const std::uint32_t man = bits & ((1u << f.man_bits) - 1);
      const std::uint32_t exp = (bits >> f.man_bits) & ((1u << f.exp_bits) - 1);
      const double sign = (bits >> 15) ? -1.0 : 1.0;
      const double got = small_to_double(bits, f);
      if (exp == (1u << f.exp_bits) - 1) {
        EXPECT_EQ(std::isnan(got), man != 0) << bits;
        if (!man) EXPECT_EQ(got, sign * INFINITY) << bits;
        continue;
      }
      const double want = exp == 0 ? sign * std::ldexp(double(man), 1 - bias - f.man_bits)
                                   : sign * std::ldexp(1.0 + double(man) / double(1u << f.man_bits),
                                                       int(exp) - bias);
      ASSERT_EQ(got, want) << bits << (f.exp_bits == 5 ? " f16" : " bf16");
      EXPECT_EQ(std::signbit(got), (bits >> 15) != 0) << bits;  // -0 keeps its sign
    }
  }
}

}  // namespace
}  // namespace smemsim::exec::detail

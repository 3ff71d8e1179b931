// Small floating-point formats of the tensor-core instructions (issue 16): IEEE binary16 (.f16),
// bfloat16 (.bf16) and TensorFloat-32 (.tf32, 19 bits in a 32-bit container), decoded exactly to
// double and encoded from double with every PTX rounding mode, subnormals and overflow as IEEE 754
// defines them (PTX ISA "Floating Point Data Types", "cvt").
#pragma once

#include <cstdint>

#include "smemsim/ptx.hpp"

namespace smemsim::exec::detail {

// A binary format with `exp_bits` exponent and `man_bits` stored mantissa bits, its bits starting
// at bit `shift` of the container (tf32 keeps the 19 high bits of an f32).
struct SmallFloat {
  int exp_bits, man_bits, shift;
};
inline constexpr SmallFloat kF16{5, 10, 0};
inline constexpr SmallFloat kBF16{8, 7, 0};
inline constexpr SmallFloat kTF32{8, 10, 13};

// The exact value of a pattern (NaN for NaNs).
double small_to_double(std::uint32_t bits, SmallFloat f);
// The pattern nearest `v` under rounding `r` (Rn; Rna: ties away from zero; Rz, Rm, Rp); NaN gives
// the canonical NaN (all exponent and mantissa bits set), overflow infinity or the largest finite
// value as the direction demands. `satfinite` clamps infinities and overflow to the largest finite
// value (and NaN stays NaN).
std::uint32_t double_to_small(double v, SmallFloat f, ptx::Rounding r, bool satfinite = false);

inline double f16_value(std::uint64_t bits) {
  return small_to_double(static_cast<std::uint32_t>(bits & 0xffff), kF16);
}
inline double bf16_value(std::uint64_t bits) {
  return small_to_double(static_cast<std::uint32_t>(bits & 0xffff), kBF16);
}

// The format of a 16-bit float type (F16 or BF16; also the halves of F16X2 and BF16X2).
inline SmallFloat half_format(ptx::Type t) {
  return t == ptx::Type::BF16 || t == ptx::Type::BF16X2 ? kBF16 : kF16;
}

}  // namespace smemsim::exec::detail

// Encoding and decoding of f16, bf16 and tf32 (half.hpp).
#include "exec/half.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace smemsim::exec::detail {
namespace {

using ptx::Rounding;

// n rounded to an integer under r, for a non-negative magnitude of a number whose sign is `neg`.
double round_magnitude(double n, Rounding r, bool neg) {
  const double fl = std::floor(n);
  const double frac = n - fl;
  switch (r) {
    case Rounding::Rz:
      return fl;
    case Rounding::Rm:  // towards -inf: a negative number's magnitude grows
      return neg && frac > 0 ? fl + 1 : fl;
    case Rounding::Rp:
      return !neg && frac > 0 ? fl + 1 : fl;
    case Rounding::Rna:
      return frac >= 0.5 ? fl + 1 : fl;
    default:  // to nearest, ties to even
      if (frac > 0.5) return fl + 1;
      if (frac < 0.5) return fl;
      return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
  }
}

}  // namespace

double small_to_double(std::uint32_t bits, SmallFloat f) {
  bits >>= f.shift;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const std::uint32_t man = bits & ((1u << f.man_bits) - 1);
  const std::uint32_t exp = (bits >> f.man_bits) & ((1u << f.exp_bits) - 1);
  const bool neg = (bits >> (f.man_bits + f.exp_bits)) & 1;
  // Every value of these formats is a normal double: built from its bits (no ldexp: the tensor
  // cores decode two values per product, and ldexp was 40 % of a GEMM's run time).
  const auto pow2 = [](int e) {  // 2^e for -1022 <= e <= 1023
    return std::bit_cast<double>(std::uint64_t(e + 1023) << 52);
  };
  double v;
  if (exp == (1u << f.exp_bits) - 1)
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = double(man) * pow2(1 - bias - f.man_bits);  // exact: a power-of-two scale
  else
    v = std::bit_cast<double>((std::uint64_t(int(exp) - bias + 1023) << 52) |
                              (std::uint64_t(man) << (52 - f.man_bits)));
  return neg ? -v : v;
}

std::uint32_t double_to_small(double v, SmallFloat f, Rounding r, bool satfinite) {
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const std::uint32_t exp_all = (1u << f.exp_bits) - 1;
  const std::uint32_t sign = std::signbit(v) ? 1u << (f.exp_bits + f.man_bits) : 0;
  const std::uint32_t max_finite = ((exp_all - 1) << f.man_bits) | ((1u << f.man_bits) - 1);
  auto pack = [&](std::uint32_t b) { return (sign | b) << f.shift; };
  if (std::isnan(v)) return ((exp_all << f.man_bits) | ((1u << f.man_bits) - 1)) << f.shift;
  const bool neg = sign != 0;
  const double a = std::fabs(v);
  const std::uint32_t inf = exp_all << f.man_bits;
  if (std::isinf(a)) return pack(satfinite ? max_finite : inf);
  if (a == 0) return pack(0);
  const int emin = 1 - bias, emax = bias;
  int e = std::ilogb(a);
  if (e < emin) e = emin;  // subnormal: the quantum of the smallest exponent
  const double q = std::ldexp(1.0, e - f.man_bits);
  const double n = round_magnitude(a / q, r, neg);
  const double value = n * q;
  // Overflow: beyond the largest finite value after rounding.
  const double largest = std::ldexp(double((2u << f.man_bits) - 1), emax - f.man_bits);
  if (value > largest) {
    const bool to_inf =
        !satfinite && (r == Rounding::Rn || r == Rounding::Rna || r == Rounding::None ||
                       (r == Rounding::Rp && !neg) || (r == Rounding::Rm && neg));
    return pack(to_inf ? inf : max_finite);
  }
  if (value == 0) return pack(0);
  int ev = std::ilogb(value);
  if (ev < emin) {  // subnormal: exponent field 0
    return pack(static_cast<std::uint32_t>(std::ldexp(value, f.man_bits - emin)));
  }
  const std::uint32_t man =
      static_cast<std::uint32_t>(std::ldexp(value, f.man_bits - ev)) - (1u << f.man_bits);
  return pack((std::uint32_t(ev + bias) << f.man_bits) | man);
}

}  // namespace smemsim::exec::detail

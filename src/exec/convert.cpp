// cvt: conversions between integer and floating-point types with every PTX rounding mode
// (.rn/.rz/.rm/.rp for float results, .rni/.rzi/.rmi/.rpi for integral values), saturating
// float-to-integer conversion and .ftz, as the PTX ISA specifies them.
#include <cmath>
#include <limits>

#include "exec/exec_internal.hpp"
#include "exec/float_bits.hpp"
#include "exec/half.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Rounding;
using ptx::Type;

double round_int(double v, Rounding r) {
  switch (r) {
    case Rounding::Rni:
    case Rounding::Rn:
      return std::nearbyint(v);  // default rounding mode: to nearest even
    case Rounding::Rmi:
    case Rounding::Rm:
      return std::floor(v);
    case Rounding::Rpi:
    case Rounding::Rp:
      return std::ceil(v);
    default:
      return std::trunc(v);
  }
}

std::uint64_t float_to_int(double v, Rounding r, Type to) {
  const int w = ptx::type_bits(to);
  if (std::isnan(v)) return 0;
  v = round_int(v, r);
  if (ptx::is_signed(to)) {
    const double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
    std::int64_t x;
    if (v < lo)
      x = w == 64 ? INT64_MIN : -(std::int64_t{1} << (w - 1));
    else if (v >= hi)
      x = w == 64 ? INT64_MAX : (std::int64_t{1} << (w - 1)) - 1;
    else
      x = static_cast<std::int64_t>(v);
    return static_cast<std::uint64_t>(x) & width_mask(w);
  }
  if (v <= 0) return 0;
  if (v >= std::ldexp(1.0, w)) return width_mask(w);
  return static_cast<std::uint64_t>(v);
}

// Integer (exact as long double) to F with a directed rounding mode.
template <typename F, typename I>
F int_to_float(I v, Rounding r) {
  F f = static_cast<F>(v);
  if (r == Rounding::Rz || r == Rounding::Rm || r == Rounding::Rp) {
    const long double exact = static_cast<long double>(v), got = static_cast<long double>(f);
    if (got != exact) {
      const bool above = got > exact;
      if ((r == Rounding::Rz && (above == (exact > 0))) || (r == Rounding::Rm && above) ||
          (r == Rounding::Rp && !above))
        f = std::nextafter(
            f, above ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity());
    }
  }
  return f;
}

float double_to_float(double v, Rounding r) {
  float f = static_cast<float>(v);
  if ((r == Rounding::Rz || r == Rounding::Rm || r == Rounding::Rp) && std::isfinite(v) &&
      static_cast<double>(f) != v) {
    const bool above = static_cast<double>(f) > v;
    if ((r == Rounding::Rz && (above == (v > 0))) || (r == Rounding::Rm && above) ||
        (r == Rounding::Rp && !above))
      f = std::nextafter(f, above ? -INFINITY : INFINITY);
  }
  return f;
}

bool is_small(Type t) {
  return t == Type::F16 || t == Type::BF16 || t == Type::TF32;
}

SmallFloat small_format(Type t) {
  return t == Type::F16 ? kF16 : t == Type::BF16 ? kBF16 : kTF32;
}

// A conversion to or from f16, bf16 or tf32 (issue 16): through the source's exact value as a
// double, rounded once to the destination with the instruction's rounding (.rn by default; .rna
// for tf32), .relu and .satfinite applied.
std::uint64_t convert_small(std::uint64_t src, const ptx::Instruction& ins) {
  const Type to = ins.type, from = ins.type2;
  const int wf = ptx::type_bits(from);
  double v;
  if (is_small(from))
    v = small_to_double(static_cast<std::uint32_t>(src), small_format(from));
  else if (from == Type::F32)
    v = f32(src);
  else if (from == Type::F64)
    v = f64(src);
  else
    v = ptx::is_signed(from) ? double(sext(src, wf)) : double(src & width_mask(wf));
  const Rounding r = ins.rounding;
  if (!is_small(to)) {
    if (!ptx::is_float(to)) return float_to_int(v, r, to);
    if (r >= Rounding::Rni) v = round_int(v, r);
    if (ins.has(ptx::kSat)) v = saturate(v);
    return to == Type::F64 ? bits(v) : bits(static_cast<float>(v));  // exact: f16/bf16 fit f32
  }
  if (ins.has(ptx::kRelu) && !std::isnan(v) && v < 0) v = 0.0;
  if (ins.has(ptx::kSat)) v = saturate(v);
  return double_to_small(v, small_format(to), r == Rounding::None ? Rounding::Rn : r,
                         ins.has(ptx::kSatfinite));
}

}  // namespace

std::uint64_t convert(std::uint64_t src, const ptx::Instruction& ins) {
  const Type to = ins.type, from = ins.type2;
  if (is_small(to) || is_small(from)) return convert_small(src, ins);
  const int wt = ptx::type_bits(to), wf = ptx::type_bits(from);
  const bool ftz = ins.has(ptx::kFtz), sat = ins.has(ptx::kSat);
  const Rounding r = ins.rounding;
  const bool from_f = ptx::is_float(from), to_f = ptx::is_float(to);
  if (from_f) {
    double v = from == Type::F32 ? double(ftz ? flush(f32(src)) : f32(src)) : f64(src);
    if (!to_f) return float_to_int(v, r, to);
    if (r >= Rounding::Rni) v = round_int(v, r);
    if (to == Type::F64) {
      if (sat) v = saturate(v);
      return bits(v);
    }
    float f = from == Type::F32 ? static_cast<float>(v) : double_to_float(v, r);
    if (ftz) f = flush(f);
    if (sat) f = saturate(f);
    return bits(f);
  }
  if (to_f) {
    const bool s = ptx::is_signed(from);
    if (to == Type::F64) {
      double f = s ? int_to_float<double>(sext(src, wf), r)
                   : int_to_float<double>(src & width_mask(wf), r);
      if (sat) f = saturate(f);
      return bits(f);
    }
    float f =
        s ? int_to_float<float>(sext(src, wf), r) : int_to_float<float>(src & width_mask(wf), r);
    if (sat) f = saturate(f);
    return bits(f);
  }
  // Integer to integer: extend by the source type, truncate (or saturate) to the destination.
  if (!sat) {
    const std::uint64_t v =
        ptx::is_signed(from) ? static_cast<std::uint64_t>(sext(src, wf)) : (src & width_mask(wf));
    return v & width_mask(wt);
  }
  const i128 v = ptx::is_signed(from) ? i128(sext(src, wf)) : i128(src & width_mask(wf));
  const i128 lo = ptx::is_signed(to) ? -(i128(1) << (wt - 1)) : 0;
  const i128 hi = ptx::is_signed(to) ? (i128(1) << (wt - 1)) - 1 : (i128(1) << wt) - 1;
  return static_cast<std::uint64_t>(v < lo ? lo : (v > hi ? hi : v)) & width_mask(wt);
}

}  // namespace smemsim::exec::detail

// The values a launch spec gives for buffer elements (launch_spec.cpp): reading a number, checking
// that it fits its element type, and storing it.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "exec/half.hpp"
#include "exec/spec_context.hpp"

namespace smemsim::exec {
namespace {

template <typename T>
void put(Buffer& b, std::uint64_t i, T v) {
  std::memcpy(b.bytes.data() + i * sizeof(T), &v, sizeof(T));
}

}  // namespace

// Stores number `v` (integer or float) as element i.
void store(Buffer& b, std::uint64_t i, double f, std::int64_t n, bool is_float_value) {
  switch (b.type) {
    case ElemType::U8:
    case ElemType::S8:
      return put<std::uint8_t>(b, i,
                               static_cast<std::uint8_t>(is_float_value ? std::int64_t(f) : n));
    case ElemType::U16:
    case ElemType::S16:
      return put<std::uint16_t>(b, i,
                                static_cast<std::uint16_t>(is_float_value ? std::int64_t(f) : n));
    case ElemType::U32:
    case ElemType::S32:
      return put<std::uint32_t>(b, i,
                                static_cast<std::uint32_t>(is_float_value ? std::int64_t(f) : n));
    case ElemType::U64:
    case ElemType::S64:
      return put<std::uint64_t>(b, i,
                                static_cast<std::uint64_t>(is_float_value ? std::int64_t(f) : n));
    case ElemType::F32:
      return put<float>(b, i, static_cast<float>(is_float_value ? f : double(n)));
    case ElemType::F64:
      return put<double>(b, i, is_float_value ? f : double(n));
    case ElemType::F16:
    case ElemType::BF16:
      return put<std::uint16_t>(
          b, i,
          static_cast<std::uint16_t>(detail::double_to_small(
              is_float_value ? f : double(n),
              b.type == ElemType::F16 ? detail::kF16 : detail::kBF16, ptx::Rounding::Rn)));
  }
}

// A finite number; for an integer buffer (`integral`) also within the 64-bit integer range, so
// that converting it is defined (issue 11: nan or 1e300 filled buffers with zeros).
double num(const SpecContext& c, const toml::table& t, const char* key, double dflt, bool integral,
           bool nonfinite) {
  const toml::node* n = t.get(key);
  if (!n) return dflt;
  auto v = n->value<double>();
  if (!v) c.fail(n, fmt::format("'{}' must be a number", key));
  if (!std::isfinite(*v) && !(nonfinite && !integral))
    c.fail(n, fmt::format("'{}' must be a finite number{}", key,
                          nonfinite ? " (inf, -inf and nan are for float buffers)" : ""));
  if (integral && std::fabs(*v) >= 9.2e18)
    c.fail(n, fmt::format("'{}' = {} is outside the 64-bit integer range", key, *v));
  return *v;
}

std::int64_t inum(const SpecContext& c, const toml::table& t, const char* key, std::int64_t dflt) {
  const toml::node* n = t.get(key);
  if (!n) return dflt;
  if (const auto v = n->value_exact<std::int64_t>()) return *v;  // every TOML integer, exactly
  const double d = num(c, t, key, double(dflt), true);
  if (d != std::floor(d))
    c.fail(n,
           fmt::format("'{}' = {} is not a whole number, and the buffer holds integers", key, d));
  return static_cast<std::int64_t>(d);
}

// What a value given for an element of type `t` may be (issue 28: 300 in a u8, 70000 in an f16 or
// 1e300 in an f32 wrapped or became infinite in silence). An integer type takes either reading of
// its bits (-1 in a u32 is 0xffffffff); a float type its largest finite magnitude.
void check_fits(const SpecContext& c, const toml::node* n, const std::string& what, ElemType t,
                long double v) {
  // A float type: the largest finite value and the magnitude from which a value rounds to
  // infinity (the largest plus half its unit in the last place: round to nearest even).
  long double lo = 0, hi = 0, largest = 0;
  switch (t) {
    case ElemType::F16:
      largest = 65504.0L, hi = 65520.0L;
      break;
    case ElemType::BF16:
      largest = std::ldexp(255.0L, 120), hi = std::ldexp(511.0L, 119);
      break;
    case ElemType::F32:
      largest = std::ldexp(16777215.0L, 104), hi = std::ldexp(33554431.0L, 103);
      break;
    case ElemType::F64:
      return;
    default: {
      const int bits = 8 * int(elem_bytes(t));
      if (bits >= 64) return;  // the 64-bit range is checked where the number is read
      lo = -std::ldexp(1.0L, bits - 1);
      hi = std::ldexp(1.0L, bits) - 1;
      if (v < lo || v > hi)
        // Whole numbers as integers (9223372036854775807, not 9.223372036854776e+18).
        c.fail(n, fmt::format("{} = {} does not fit {} ({} to {})", what,
                              v == std::floor(v) && std::fabs(v) <= 9223372036854775807.0L
                                  ? fmt::format("{}", static_cast<std::int64_t>(v))
                                  : fmt::format("{}", double(v)),
                              elem_name(t), double(lo), double(hi)));
      return;
    }
  }
  if (!std::isfinite(v)) return;  // inf, -inf or nan given as such (float buffers only)
  if (std::fabs(v) >= hi)
    c.fail(n, fmt::format("{} = {} rounds to infinity in {} (largest finite {})", what, double(v),
                          elem_name(t), double(largest)));
}

}  // namespace smemsim::exec

// Register bit patterns as floats and back, shared by the ALU and cvt (src/exec).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace smemsim::exec::detail {

inline float f32(std::uint64_t v) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(v));
}
inline double f64(std::uint64_t v) {
  return std::bit_cast<double>(v);
}
inline std::uint64_t bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
inline std::uint64_t bits(double d) {
  return std::bit_cast<std::uint64_t>(d);
}

template <typename F>
inline F load(std::uint64_t v) {
  if constexpr (sizeof(F) == 4)
    return f32(v);
  else
    return f64(v);
}

template <typename F>
inline F flush(F x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(F(0), x) : x;
}

template <typename F>
inline F saturate(F x) {
  if (std::isnan(x)) return F(0);
  return x < F(0) ? F(0) : (x > F(1) ? F(1) : x);
}

}  // namespace smemsim::exec::detail

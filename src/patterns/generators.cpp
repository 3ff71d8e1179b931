// Access-pattern generators: 002 §3.1 classes (linear, stride, block, random) and the conflict
// microbenchmarks of 000 Eq. 1 / 002 §2 (GenIndex).
#include <fmt/format.h>

#include "../util/rng.hpp"
#include "smemsim/error.hpp"
#include "smemsim/patterns.hpp"

namespace smemsim {
namespace {

template <class F>
void emit(const GenCommon& c, F&& address_of_tid, const AccessSink& sink) {
  if (c.lanes == 0 || c.lanes > kMaxLanes)
    throw InputError(fmt::format("warp width {} is not between 1 and {}", c.lanes, kMaxLanes));
  WarpAccess wa;
  wa.op = c.op;
  wa.lanes = static_cast<std::uint8_t>(c.lanes);
  for (std::uint64_t w = 0; w < c.count; ++w) {
    wa.warp = static_cast<std::uint32_t>(w);
    wa.active = 0;
    for (std::uint32_t l = 0; l < c.lanes; ++l) {
      const std::int64_t a = address_of_tid(w, l);
      if (a < 0 || static_cast<std::uint64_t>(a) >= c.memory_words)
        throw InputError(fmt::format(
            "warp {} lane {}: address {} is outside the memory (0..{} words); lower the count, "
            "stride or offset, or choose a larger --arch",
            w, l, a, c.memory_words - 1));
      wa.set(static_cast<int>(l), static_cast<WordAddr>(a));
    }
    sink(wa);
  }
}

std::int64_t as_i64(std::uint64_t v) {
  if (v > (std::uint64_t{1} << 40)) throw InputError(fmt::format("value {} is too large", v));
  return static_cast<std::int64_t>(v);
}

}  // namespace

void gen_linear(const GenCommon& c, std::uint64_t offset, const AccessSink& sink) {
  gen_stride(c, 1, offset, sink);
}

void gen_stride(const GenCommon& c, std::uint64_t stride, std::uint64_t offset,
                const AccessSink& sink) {
  const std::int64_t s = as_i64(stride), o = as_i64(offset);
  emit(
      c,
      [&](std::uint64_t w, std::uint32_t l) {
        return o + s * static_cast<std::int64_t>(w * c.lanes + l);
      },
      sink);
}

void gen_block(const GenCommon& c, const BlockParams& p, const AccessSink& sink) {
  if (p.block_x <= 0) throw InputError("--block-x must be positive");
  emit(
      c,
      [&](std::uint64_t w, std::uint32_t l) {
        const std::int64_t tid = static_cast<std::int64_t>(w * c.lanes + l);
        const std::int64_t tx = tid % p.block_x, ty = tid / p.block_x;
        return (p.m[0] * ty + p.m[1] * tx + p.o[0]) * p.cols + p.m[2] * ty + p.m[3] * tx + p.o[1];
      },
      sink);
}

void gen_random(const GenCommon& c, std::uint64_t space, std::uint64_t offset, std::uint64_t seed,
                const AccessSink& sink) {
  if (space == 0) throw InputError("--space must be at least 1");
  Rng rng(seed);
  const std::int64_t o = as_i64(offset);
  emit(
      c,
      [&](std::uint64_t, std::uint32_t) { return o + static_cast<std::int64_t>(rng.below(space)); },
      sink);
}

void gen_eq1(const GenCommon& c, std::uint32_t conflicts, std::uint64_t stride,
             const AccessSink& sink) {
  if (conflicts > c.lanes)
    throw InputError(fmt::format("--conflicts {} exceeds the warp width {}", conflicts, c.lanes));
  const std::int64_t s = as_i64(stride);
  emit(
      c,
      [&](std::uint64_t, std::uint32_t l) {
        const std::int64_t id = l;
        return id < static_cast<std::int64_t>(conflicts) ? id * s : id;
      },
      sink);
}

}  // namespace smemsim

// Access-pattern generators (the `smemsim gen` kinds). Each yields `count` warp accesses to a sink.
// Thread ids are global: tid = warp * lanes + lane, so multi-warp streams see consecutive threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "smemsim/warp_access.hpp"

namespace smemsim {

using AccessSink = std::function<void(const WarpAccess&)>;

struct GenCommon {
  Op op = Op::Load;
  std::uint32_t lanes = 32;            // warp width
  std::uint64_t count = 1;             // warp accesses to generate
  std::uint32_t memory_words = 12288;  // every address must fit (checked: InputError otherwise)
};

// linear: offset + tid (002 Eq. 5).
void gen_linear(const GenCommon& c, std::uint64_t offset, const AccessSink& sink);
// stride: offset + stride * tid (002 Eq. 1 / Eq. 6).
void gen_stride(const GenCommon& c, std::uint64_t stride, std::uint64_t offset,
                const AccessSink& sink);
// block (002 Eq. 4/7): s = (S1*ty + S2*tx + o0) * cols + S3*ty + S4*tx + o1,
// with tx = tid % block_x, ty = tid / block_x.
struct BlockParams {
  std::array<std::int64_t, 4> m{0, 1, 1, 0};  // S1 S2 S3 S4
  std::array<std::int64_t, 2> o{0, 0};
  std::int64_t cols = 16;
  std::int64_t block_x = 16;
};
void gen_block(const GenCommon& c, const BlockParams& p, const AccessSink& sink);
// random: uniform word addresses in [offset, offset + space), from a seeded generator (bit-exact on
// every platform: xoshiro256** with an unbiased bounded draw, src/util/rng.hpp).
void gen_random(const GenCommon& c, std::uint64_t space, std::uint64_t offset, std::uint64_t seed,
                const AccessSink& sink);
// eq1 (000 Eq. 1) and genindex (002 §2) are one formula: lane id < conflicts ? id * stride : id.
// It uses the lane id within the warp (a single-warp microbenchmark), for every generated warp.
void gen_eq1(const GenCommon& c, std::uint32_t conflicts, std::uint64_t stride,
             const AccessSink& sink);

}  // namespace smemsim

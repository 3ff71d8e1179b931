// Memory access pattern classification of seed 002 §3.1: each warp access is linear (Eq. 5),
// stride S (Eq. 6), block (Eq. 7: a 2D pattern over tx = lane % bx, ty = lane / bx) or random (Eq.
// 8). Only active lanes count; the lane number is the thread index within the warp.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>

#include "smemsim/warp_access.hpp"

namespace smemsim {

enum class AccessClass : std::uint8_t { Linear, Stride, Block, Random };
const char* access_class_name(AccessClass c);

struct Classification {
  AccessClass cls = AccessClass::Random;
  std::int64_t stride = 0;    // Linear: 1; Stride: S (non-zero, not 1); Block: the tx stride
  std::int64_t stride_y = 0;  // Block: the ty stride
  int block_x = 0;            // Block: threads per row (tx = lane % block_x)
  std::int64_t offset = 0;    // address of lane 0 (extrapolated)
};

// Fewer than two active lanes: Linear (one address is trivially consecutive).
// All lanes on one word: Block with all strides 0 (002 §3.1: "S1 = S2 = S3 = S4 = 0").
Classification classify_access(const WarpAccess& wa);

// The k of S = S0 * 2^k and MSB = floor(log2((t-1) * |S|)) of seed 002 §5.1.
int stride_k(std::int64_t stride);
int stride_msb(std::int64_t stride, int threads);

struct ClassCounts {
  std::uint64_t linear = 0, stride = 0, block = 0, random = 0;
  std::map<std::int64_t, std::uint64_t> strides;  // Linear and Stride accesses per S
  std::map<std::tuple<std::int64_t, std::int64_t, int>, std::uint64_t> blocks;  // (Sx, Sy, bx)
  void add(const Classification& c);
  std::uint64_t total() const { return linear + stride + block + random; }
};

}  // namespace smemsim

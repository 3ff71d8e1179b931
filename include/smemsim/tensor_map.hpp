// Tensor maps (issue 46, docs/exec.md "TMA"): what cuTensorMapEncodeTiled describes -- a tensor in
// global memory (element type, 1 to 5 dimensions, their sizes and byte strides) and the box a
// cp.async.bulk.tensor copies between it and shared memory (its size, the traversal strides, the
// shared-memory swizzle and the fill of out-of-bound elements). A launch spec declares tensor maps
// ([tensor_maps.NAME]); a kernel receives one as a 128-byte `const __grid_constant__ CUtensorMap`
// parameter, or reads it from global memory, and names its address in the copy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "smemsim/ptx.hpp"

namespace smemsim::exec {

// CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}: the span in bytes (0: none). The sm_100 modes
// (128B_ATOM_*) are not modelled.
enum class TmaSwizzle : std::uint8_t { None = 0, B32 = 32, B64 = 64, B128 = 128 };

// The shared-memory byte address a copy writes `addr` to, under `s` (cuda.h: "swizzle 16B chunks
// within a 32/64/128B span"): the 16-byte chunk index (address bits 4 and up) XORed with the
// address bits 7 and up, 1, 2 or 3 of them. The pattern is a function of the absolute shared
// address, so it repeats every 256, 512 or 1024 bytes.
inline std::uint32_t tma_swizzle(std::uint32_t addr, TmaSwizzle s) {
  const std::uint32_t bits = s == TmaSwizzle::B32    ? 1
                             : s == TmaSwizzle::B64  ? 2
                             : s == TmaSwizzle::B128 ? 3
                                                     : 0;
  const std::uint32_t mask = ((1u << bits) - 1) << 4;
  return addr ^ ((addr >> 3) & mask);
}

struct TensorMap {
  std::string name;
  std::uint32_t buffer = 0;              // GlobalMemory::buffers index
  std::uint64_t offset = 0;              // bytes into the buffer: globalAddress
  std::uint8_t elem_bytes = 4;           // from tensorDataType
  bool is_float = false;                 // a floating-point type (NaN fill allowed)
  std::string type = "f32";              // the spec's name of the type
  ptx::Type elem_type = ptx::Type::F32;  // how a reduction combines elements (tf32: as f32)
  std::uint8_t rank = 1;                 // 1..5
  std::array<std::uint64_t, 5> dims{1, 1, 1, 1, 1};  // globalDim, elements
  std::array<std::uint64_t, 5> strides{0, 0, 0, 0,
                                       0};  // bytes; [0] = elem_bytes, [i] = globalStrides[i-1]
  std::array<std::uint32_t, 5> box{1, 1, 1, 1, 1};       // boxDim, elements traversed
  std::array<std::uint32_t, 5> estrides{1, 1, 1, 1, 1};  // elementStrides
  TmaSwizzle swizzle = TmaSwizzle::None;
  std::uint8_t l2_promotion = 0;  // bytes / 64 ... kept for the image; no functional effect
  bool oob_nan = false;           // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  // cuTensorMapEncodeIm2col's map (rank 3 to 5: NWC, NHWC, NDHWC, C innermost): a copy moves
  // pixels_per_column pixels of channels_per_pixel channels, row i of the shared tile the i-th
  // pixel of the bounding box's traversal (bulk_tensor.cpp). The corners are per spatial
  // dimension, W first (rank - 2 of them); `box` is not used.
  bool im2col = false;
  std::array<std::int32_t, 3> lower{0, 0, 0};  // pixelBoxLowerCorner
  std::array<std::int32_t, 3> upper{0, 0, 0};  // pixelBoxUpperCorner
  std::uint32_t channels = 1;                  // channelsPerPixel
  std::uint32_t pixels = 1;                    // pixelsPerColumn

  // Elements the box copies along dimension d: ceil(box / elementStride) (cuda.h); dimension 0's
  // element stride is ignored (interleave none).
  std::uint32_t count(int d) const {
    if (d == 0) return box[0];
    return (box[std::size_t(d)] + estrides[std::size_t(d)] - 1) / estrides[std::size_t(d)];
  }
  // Bytes the box occupies in shared memory (and the transaction count a load completes).
  std::uint64_t box_bytes() const {
    if (im2col) return std::uint64_t(pixels) * channels * elem_bytes;
    std::uint64_t n = elem_bytes;
    for (int d = 0; d < rank; ++d) n *= count(d);
    return n;
  }
};

// The 128-byte image a kernel receives (our own encoding: CUtensorMap is opaque). `address` is the
// tensor's generic global address.
inline constexpr std::size_t kTensorMapBytes = 128;
std::array<std::uint8_t, kTensorMapBytes> encode_tensor_map(const TensorMap& t,
                                                            std::uint64_t address);
// The fields of an image, or nullopt when the bytes are not one (a number passed for the map).
struct DecodedTensorMap {
  TensorMap map;
  std::uint64_t address = 0;
};
std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* bytes);

// The cuTensorMapEncodeTiled requirements (cuda.h's documentation of the function), checked when
// the spec is read: rank 1..5, dims 1..2^32, strides multiples of 16 below 2^40 and each at least
// the previous dimension's extent, the address 16-byte aligned, boxes 1..256 with the inner box a
// multiple of 16 bytes and no wider than the swizzle span, element strides 1..8, NaN fill only for
// float types. An im2col map (cuTensorMapEncodeIm2col's): rank 3..5, corners in the rank's range
// ([-2^15, 2^15) for 3, [-128, 128) for 4, [-16, 16) for 5) with a bounding box of at least one
// pixel, channels 1..256 (their bytes a multiple of 16 and within the swizzle span), pixels
// 1..1024, and N's element stride 1. Throws InputError "<where>tensor map 'NAME': ...".
void check_tensor_map(const TensorMap& t, std::uint64_t buffer_bytes, const std::string& where);

}  // namespace smemsim::exec

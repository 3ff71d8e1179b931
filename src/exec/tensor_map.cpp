// Tensor maps (tensor_map.hpp): the 128-byte image a kernel receives, and the requirements
// cuTensorMapEncodeTiled places on its arguments (cuda.h, the function's documentation).
#include "smemsim/tensor_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "smemsim/error.hpp"

namespace smemsim::exec {
namespace {

// Our image (CUtensorMap is opaque, 128 bytes aligned to 64): "SMTM", version, rank, element
// bytes, swizzle (0..3), flags (1: NaN fill, 2: float type), L2 promotion; at 16 the address, at
// 24 the five sizes, at 64 the strides of dimensions 1..4, at 96 the boxes less one, at 101 the
// element strides; an im2col map has b[11] = 1, at 108 its lower and at 114 its upper corners
// (three signed 16-bit numbers each), at 120 its channels and at 122 its pixels (16 bits each).
constexpr std::uint8_t kMagic[4] = {'S', 'M', 'T', 'M'};
constexpr std::uint8_t kVersion = 1;

void put64(std::uint8_t* p, std::uint64_t v) {
  std::memcpy(p, &v, 8);
}
std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

std::uint8_t swizzle_code(TmaSwizzle s) {
  return s == TmaSwizzle::B32 ? 1 : s == TmaSwizzle::B64 ? 2 : s == TmaSwizzle::B128 ? 3 : 0;
}

// cuTensorMapEncodeIm2col's own requirements (cuda.h, the function's documentation).
template <typename Fail>
void check_im2col(const TensorMap& t, Fail&& fail) {
  if (t.rank < 3)
    fail(fmt::format("rank {}: an im2col map has 3 to 5 dimensions (NWC, NHWC, NDHWC)", t.rank));
  // The corners' range: 16 bits shared by the spatial dimensions (cuda.h's table).
  const int bits = t.rank == 3 ? 16 : t.rank == 4 ? 8 : 5;
  const std::int32_t lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
  static const char* kDim[] = {"W", "H", "D"};
  for (int k = 0; k < t.rank - 2; ++k) {
    const auto K = std::size_t(k);
    for (const auto& [v, name] : {std::pair{t.lower[K], "pixel_box_lower_corner"},
                                  std::pair{t.upper[K], "pixel_box_upper_corner"}})
      if (v < lo || v > hi)
        fail(fmt::format("{}[{}] = {}: a rank-{} map's corners are {} to {}", name, k, v,
                         int(t.rank), lo, hi));
    if (std::int64_t(t.dims[K + 1]) - 1 + t.upper[K] < t.lower[K])
      fail(
          fmt::format("the bounding box is empty along {}: from the lower corner {} to {} (the "
                      "size {} - 1 + the upper corner {})",
                      kDim[k], t.lower[K], std::int64_t(t.dims[K + 1]) - 1 + t.upper[K],
                      t.dims[K + 1], t.upper[K]));
  }
  if (t.channels < 1 || t.channels > 256)
    fail(fmt::format("channels_per_pixel = {}: it is 1 to 256", t.channels));
  if (t.pixels < 1 || t.pixels > 1024)
    fail(fmt::format("pixels_per_column = {}: it is 1 to 1024", t.pixels));
  if (t.estrides[std::size_t(t.rank - 1)] != 1)
    fail("element_strides for N must be 1 in an im2col map (other values are not documented)");
}

}  // namespace

std::array<std::uint8_t, kTensorMapBytes> encode_tensor_map(const TensorMap& t,
                                                            std::uint64_t address) {
  std::array<std::uint8_t, kTensorMapBytes> b{};
  std::memcpy(b.data(), kMagic, 4);
  b[4] = kVersion;
  b[5] = t.rank;
  b[6] = t.elem_bytes;
  b[7] = swizzle_code(t.swizzle);
  b[8] = std::uint8_t((t.oob_nan ? 1 : 0) | (t.is_float ? 2 : 0));
  b[9] = t.l2_promotion;
  b[10] = std::uint8_t(t.elem_type);
  put64(b.data() + 16, address);
  if (t.im2col) {
    b[11] = 1;
    for (int k = 0; k < 3; ++k) {
      const auto lo = std::int16_t(t.lower[std::size_t(k)]),
                 hi = std::int16_t(t.upper[std::size_t(k)]);
      std::memcpy(b.data() + 108 + 2 * k, &lo, 2);
      std::memcpy(b.data() + 114 + 2 * k, &hi, 2);
    }
    const auto c = std::uint16_t(t.channels), p = std::uint16_t(t.pixels);
    std::memcpy(b.data() + 120, &c, 2);
    std::memcpy(b.data() + 122, &p, 2);
  }
  for (int d = 0; d < 5; ++d) put64(b.data() + 24 + 8 * d, t.dims[std::size_t(d)]);
  for (int d = 1; d < 5; ++d) put64(b.data() + 64 + 8 * (d - 1), t.strides[std::size_t(d)]);
  for (int d = 0; d < 5; ++d) {
    b[std::size_t(96 + d)] = std::uint8_t(t.box[std::size_t(d)] - 1);
    b[std::size_t(101 + d)] = std::uint8_t(t.estrides[std::size_t(d)]);
  }
  return b;
}

std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* b) {
  if (std::memcmp(b, kMagic, 4) != 0 || b[4] != kVersion || b[5] < 1 || b[5] > 5 || b[7] > 3)
    return std::nullopt;
  DecodedTensorMap out;
  TensorMap& t = out.map;
  t.rank = b[5];
  t.elem_bytes = b[6];
  if (t.elem_bytes != 1 && t.elem_bytes != 2 && t.elem_bytes != 4 && t.elem_bytes != 8)
    return std::nullopt;
  static constexpr TmaSwizzle kSwizzles[] = {TmaSwizzle::None, TmaSwizzle::B32, TmaSwizzle::B64,
                                             TmaSwizzle::B128};
  t.swizzle = kSwizzles[b[7]];
  t.oob_nan = (b[8] & 1) != 0;
  t.is_float = (b[8] & 2) != 0;
  t.l2_promotion = b[9];
  t.elem_type = ptx::Type(b[10]);
  out.address = get64(b + 16);
  if (b[11] > 1) return std::nullopt;
  t.im2col = b[11] == 1;
  if (t.im2col) {
    for (int k = 0; k < 3; ++k) {
      std::int16_t lo = 0, hi = 0;
      std::memcpy(&lo, b + 108 + 2 * k, 2);
      std::memcpy(&hi, b + 114 + 2 * k, 2);
      t.lower[std::size_t(k)] = lo;
      t.upper[std::size_t(k)] = hi;
    }
    std::uint16_t c = 0, p = 0;
    std::memcpy(&c, b + 120, 2);
    std::memcpy(&p, b + 122, 2);
    t.channels = c;
    t.pixels = p;
    if (t.rank < 3 || c == 0 || c > 256 || p == 0 || p > 1024) return std::nullopt;
  }
  t.strides[0] = t.elem_bytes;
  for (int d = 0; d < 5; ++d) {
    t.dims[std::size_t(d)] = get64(b + 24 + 8 * d);
    if (d) t.strides[std::size_t(d)] = get64(b + 64 + 8 * (d - 1));
    t.box[std::size_t(d)] = std::uint32_t(b[96 + d]) + 1;
    t.estrides[std::size_t(d)] = b[101 + d];
    if (d < t.rank && (t.dims[std::size_t(d)] == 0 || t.estrides[std::size_t(d)] == 0 ||
                       t.estrides[std::size_t(d)] > 8))
      return std::nullopt;
  }
  return out;
}

void check_tensor_map(const TensorMap& t, std::uint64_t buffer_bytes, const std::string& where) {
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}tensor map '{}': {}", where, t.name, what));
  };
  if (t.rank < 1 || t.rank > 5)
    fail(fmt::format("rank {}: a tensor map has 1 to 5 dimensions", t.rank));
  if (t.offset % 16)
    fail(fmt::format("the global address is {} bytes into its buffer; it must be 16-byte aligned",
                     t.offset));
  std::uint64_t last = 0;  // the byte offset of the tensor's last element
  for (int d = 0; d < t.rank; ++d) {
    const auto k = std::size_t(d);
    if (t.dims[k] < 1 || t.dims[k] > (std::uint64_t{1} << 32))
      fail(fmt::format("dims[{}] = {}: each size is 1 to 2^32 elements", d, t.dims[k]));
    if (d > 0 &&
        (t.strides[k] % 16 != 0 || t.strides[k] == 0 || t.strides[k] >= (std::uint64_t{1} << 40)))
      fail(fmt::format("strides[{}] = {} bytes: each stride is a multiple of 16 below 2^40", d - 1,
                       t.strides[k]));
    if (t.box[k] < 1 || t.box[k] > 256)
      fail(fmt::format("box[{}] = {}: each box size is 1 to 256 elements", d, t.box[k]));
    if (t.estrides[k] < 1 || t.estrides[k] > 8)
      fail(fmt::format("element_strides[{}] = {}: each is 1 to 8", d, t.estrides[k]));
    const std::uint64_t step = d ? t.strides[k] : t.elem_bytes;
    if (t.dims[k] - 1 > (buffer_bytes + 1) / step)
      last = buffer_bytes + 1;  // past it; no overflow
    else
      last = std::min<std::uint64_t>(last + (t.dims[k] - 1) * step, buffer_bytes + 1);
  }
  if (t.im2col) check_im2col(t, fail);
  const std::uint64_t inner = std::uint64_t(t.im2col ? t.channels : t.box[0]) * t.elem_bytes;
  const char* what = t.im2col ? "a pixel's channels are" : "the box's inner dimension is";
  if (inner % 16)
    fail(fmt::format("{} {} bytes ({} x {}); it must be a multiple of 16", what, inner,
                     t.im2col ? t.channels : t.box[0], t.elem_bytes));
  if (t.swizzle != TmaSwizzle::None && inner > std::uint64_t(t.swizzle))
    fail(fmt::format("{} {} bytes, wider than the {}-byte swizzle span", what, inner,
                     int(t.swizzle)));
  if (t.oob_nan && !t.is_float) fail("oob_fill = \"nan\" needs a floating-point type");
  if (t.offset + last + t.elem_bytes > buffer_bytes)
    fail(fmt::format("the tensor reaches byte {} of its buffer, which has {}",
                     t.offset + last + t.elem_bytes, buffer_bytes));
}

}  // namespace smemsim::exec

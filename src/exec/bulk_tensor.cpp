// A tensor map's box moved between the tensor and shared memory (PTX ISA "cp.async.bulk.tensor";
// docs/exec.md "TMA"): the tiled mode's box and the im2col mode's pixels, their out-of-bound fill
// and their swizzled shared layout.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "exec/bulk_context.hpp"

namespace smemsim::exec::detail {
namespace {

// A float type's canonical quiet NaN of `bytes` bytes (f16 and bf16: 0x7fff).
std::uint64_t nan_bits(int bytes) {
  switch (bytes) {
    case 2:
      return 0x7fff;
    case 4:
      return 0x7fffffff;
    default:
      return 0x7fffffffffffffffull;
  }
}

// The tile's shared bytes checked (bounds, 128-byte alignment); a load's tile is noted for the
// swizzle what-if of the loads that read it (tma_reads). A swizzle permutes 16-byte chunks within
// each 128-byte line: the tile's last line is written whole. `row` is the tile's row in bytes.
void note_tile(BulkContext& bc, const TensorMap& t, std::uint64_t smem, std::uint64_t row,
               bool load) {
  const std::uint64_t span =
      t.swizzle == TmaSwizzle::None ? t.box_bytes() : (t.box_bytes() + 127) / 128 * 128;
  (void)bc.shared(smem, span, 128);
  if (!load) return;
  const auto mode = std::uint8_t(t.swizzle == TmaSwizzle::B32    ? 1
                                 : t.swizzle == TmaSwizzle::B64  ? 2
                                 : t.swizzle == TmaSwizzle::B128 ? 3
                                                                 : 0);
  const Cta::TmaTile tile{std::uint32_t(smem), std::uint32_t(span), std::uint32_t(row), mode};
  auto& tiles = bc.cta.tma_tiles;
  auto it = std::find_if(tiles.begin(), tiles.end(),
                         [&](const Cta::TmaTile& x) { return x.base == tile.base; });
  if (it != tiles.end())
    *it = tile;
  else if (tiles.size() < 64)
    tiles.push_back(tile);
}

// One row of the tile: `n` elements at shared `row_at` (swizzled), of which [lo, hi) are inside
// the tensor at global `at` (the row's element lo); the others read as `fill` and are not written.
void move_row(BulkContext& bc, const TensorMap& t, std::uint64_t at, std::int64_t lo,
              std::int64_t hi, std::uint32_t n, std::uint64_t row_at, bool load,
              ptx::AtomOp reduce) {
  const std::uint64_t eb = t.elem_bytes;
  const std::uint64_t fill = t.oob_nan ? nan_bits(int(eb)) : 0;
  std::uint8_t* g = nullptr;
  if (hi > lo) g = bc.global(at, std::uint64_t(hi - lo) * eb, !load, eb);
  for (std::uint32_t e = 0; e < n; ++e) {
    const std::uint64_t s = tma_swizzle(std::uint32_t(row_at + e * eb), t.swizzle);
    const bool in = std::int64_t(e) >= lo && std::int64_t(e) < hi;
    std::uint8_t* ge = in ? g + (std::int64_t(e) - lo) * std::int64_t(eb) : nullptr;
    if (load) {
      bc.put(s, in ? ge : reinterpret_cast<const std::uint8_t*>(&fill), eb);
    } else if (in && reduce != ptx::AtomOp::None) {
      std::uint64_t v = 0;
      bc.get(s, reinterpret_cast<std::uint8_t*>(&v), eb);
      reduce_into(reduce, t.elem_type, ge, v);
    } else if (in) {
      bc.get(s, ge, eb);
    }
  }
}

// The elements [lo, hi) of `n` starting at coordinate c0 of a dimension of `size` that are inside
// it (none when `inside` is false).
std::pair<std::int64_t, std::int64_t> inside_range(bool inside, std::int64_t c0, std::uint32_t n,
                                                   std::uint64_t size) {
  if (!inside) return {n, n};
  const std::int64_t lo = std::clamp<std::int64_t>(-c0, 0, n);
  return {lo, std::clamp<std::int64_t>(std::int64_t(size) - c0, lo, n)};
}

}  // namespace

DecodedTensorMap read_map(BulkContext& bc, const ptx::Operand& o) {
  Impl& im = bc.im;
  const std::uint64_t a = operand_address(im, bc.w, o, bc.l);
  ptx::Space space = ptx::Space::Generic;
  if (o.sym != ptx::kNone) space = im.kernel.symbols[o.sym].space;
  LaneMask shared = 0;
  const std::uint8_t* p =
      lane_pointer(im, bc.cta, bc.w, bc.pc, bc.l, space, a, kTensorMapBytes, false, shared, 64);
  im.gaddr[std::size_t(bc.l)] = kNoSector;
  std::optional<DecodedTensorMap> d = decode_tensor_map(p);
  if (!d)
    im.fail(bc.cta, bc.w, bc.l, bc.pc,
            fmt::format("the 128 bytes at address {:#x} are not a tensor map of the launch (pass a "
                        "[tensor_maps] entry of the launch spec as the CUtensorMap argument)",
                        a));
  return *d;
}

void tensor_copy(BulkContext& bc, const DecodedTensorMap& d, const std::int32_t* coord,
                 std::uint64_t smem, bool load, ptx::AtomOp reduce) {
  const TensorMap& t = d.map;
  const std::uint64_t eb = t.elem_bytes;
  std::array<std::uint32_t, 5> n{1, 1, 1, 1, 1};
  for (int k = 0; k < t.rank; ++k) n[std::size_t(k)] = t.count(k);
  const std::uint64_t row_bytes = std::uint64_t(n[0]) * eb;
  note_tile(bc, t, smem, row_bytes, load);
  std::uint64_t row = 0;  // the box's row index (dimensions 1..4)
  for (std::uint32_t i4 = 0; i4 < n[4]; ++i4)
    for (std::uint32_t i3 = 0; i3 < n[3]; ++i3)
      for (std::uint32_t i2 = 0; i2 < n[2]; ++i2)
        for (std::uint32_t i1 = 0; i1 < n[1]; ++i1, ++row) {
          const std::uint32_t idx[5] = {0, i1, i2, i3, i4};
          bool inside = true;
          std::uint64_t off = 0;  // bytes from the tensor's start to the row's first element
          for (int k = 1; k < t.rank; ++k) {
            const std::int64_t c =
                std::int64_t(coord[k]) + std::int64_t(idx[k]) * t.estrides[std::size_t(k)];
            inside &= c >= 0 && std::uint64_t(c) < t.dims[std::size_t(k)];
            off += std::uint64_t(c) * t.strides[std::size_t(k)];
          }
          const auto [lo, hi] = inside_range(inside, coord[0], n[0], t.dims[0]);
          move_row(bc, t, d.address + off + std::uint64_t(coord[0] + lo) * eb, lo, hi, n[0],
                   smem + row * row_bytes, load, reduce);
        }
}

// The im2col traversal (PTX ISA "im2col mode"; the CUDA driver API's cuTensorMapEncodeIm2col):
// along spatial dimension k (W, H, D) the bounding box runs from lower[k] to dims - 1 + upper[k];
// the copy starts at the instruction's W, H, D, N and visits pixels_per_column places, W fastest:
// W steps by its element stride, and past the box's end goes back to its lower corner while H
// steps, and so on; past the last spatial dimension's end N steps by one. Place i is row i of the
// tile: the pixel at the place plus the offsets (an offset moves the read, not the box: a
// convolution's filter tap), channels C .. C + channels_per_pixel - 1. Elements outside the
// tensor (padding, an N or C past its end) read as the fill and are not written by a store.
void im2col_copy(BulkContext& bc, const DecodedTensorMap& d, const std::int32_t* coord,
                 const std::int32_t* offs, std::uint64_t smem, bool load, ptx::AtomOp reduce) {
  const TensorMap& t = d.map;
  const int spatial = t.rank - 2;
  const auto nd = std::size_t(t.rank - 1);  // N's dimension
  const std::uint64_t eb = t.elem_bytes;
  const std::uint64_t row_bytes = std::uint64_t(t.channels) * eb;
  note_tile(bc, t, smem, row_bytes, load);
  std::int64_t place[3] = {0, 0, 0};
  for (int k = 0; k < spatial; ++k) place[k] = coord[k + 1];
  std::int64_t image = coord[nd];
  for (std::uint32_t row = 0; row < t.pixels; ++row) {
    bool inside = image >= 0 && std::uint64_t(image) < t.dims[nd];
    std::uint64_t off = std::uint64_t(image) * t.strides[nd];
    for (int k = 0; k < spatial; ++k) {
      const auto K = std::size_t(k + 1);
      const std::int64_t p = place[k] + offs[k];
      inside &= p >= 0 && std::uint64_t(p) < t.dims[K];
      off += std::uint64_t(p) * t.strides[K];
    }
    const auto [lo, hi] = inside_range(inside, coord[0], t.channels, t.dims[0]);
    move_row(bc, t, d.address + off + std::uint64_t(coord[0] + lo) * eb, lo, hi, t.channels,
             smem + row * row_bytes, load, reduce);
    // The next place: W steps; past the box's end it wraps to the lower corner and H steps, ...
    for (int k = 0;; ++k) {
      if (k == spatial) {
        ++image;
        break;
      }
      const auto K = std::size_t(k);
      place[k] += t.estrides[K + 1];
      if (place[k] <= std::int64_t(t.dims[K + 1]) - 1 + t.upper[K]) break;
      place[k] = t.lower[K];
    }
  }
}

}  // namespace smemsim::exec::detail

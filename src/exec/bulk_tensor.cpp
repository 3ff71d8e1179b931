// A tensor map's box moved between the tensor and shared memory (PTX ISA "cp.async.bulk.tensor";
// docs/exec.md "TMA"): the tiled mode's box, its out-of-bound fill and its swizzled shared layout.
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
  // A swizzle permutes 16-byte chunks within each 128-byte line: the box's last line is written
  // whole.
  const std::uint64_t span =
      t.swizzle == TmaSwizzle::None ? t.box_bytes() : (t.box_bytes() + 127) / 128 * 128;
  (void)bc.shared(smem, span, 128);  // bounds and alignment
  if (load) {  // the tile, for the swizzle what-if of the loads that read it (tma_reads)
    const auto mode = std::uint8_t(t.swizzle == TmaSwizzle::B32    ? 1
                                   : t.swizzle == TmaSwizzle::B64  ? 2
                                   : t.swizzle == TmaSwizzle::B128 ? 3
                                                                   : 0);
    const Cta::TmaTile tile{std::uint32_t(smem), std::uint32_t(span),
                            std::uint32_t(std::uint64_t(t.count(0)) * t.elem_bytes), mode};
    auto& tiles = bc.cta.tma_tiles;
    auto it = std::find_if(tiles.begin(), tiles.end(),
                           [&](const Cta::TmaTile& x) { return x.base == tile.base; });
    if (it != tiles.end())
      *it = tile;
    else if (tiles.size() < 64)
      tiles.push_back(tile);
  }
  const std::uint64_t row_bytes = std::uint64_t(n[0]) * eb;
  const std::uint64_t fill = t.oob_nan ? nan_bits(int(eb)) : 0;
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
          // Dimension 0: the elements [lo, hi) of the row are inside the tensor.
          const std::int64_t c0 = coord[0];
          const std::int64_t lo = inside ? std::clamp<std::int64_t>(-c0, 0, n[0]) : n[0];
          const std::int64_t hi =
              inside ? std::clamp<std::int64_t>(std::int64_t(t.dims[0]) - c0, lo, n[0]) : n[0];
          std::uint8_t* g = nullptr;
          if (hi > lo)
            g = bc.global(d.address + off + std::uint64_t(c0 + lo) * eb,
                          std::uint64_t(hi - lo) * eb, !load, eb);
          const std::uint64_t row_at = smem + row * row_bytes;
          for (std::uint32_t e = 0; e < n[0]; ++e) {
            const std::uint64_t s = tma_swizzle(std::uint32_t(row_at + e * eb), t.swizzle);
            const bool in = std::int64_t(e) >= lo && std::int64_t(e) < hi;
            if (load) {
              const std::uint8_t* from = in ? g + (std::int64_t(e) - lo) * std::int64_t(eb)
                                            : reinterpret_cast<const std::uint8_t*>(&fill);
              bc.put(s, from, eb);
            } else if (in && reduce != ptx::AtomOp::None) {
              std::uint64_t v = 0;
              bc.get(s, reinterpret_cast<std::uint8_t*>(&v), eb);
              reduce_into(reduce, t.elem_type, g + (std::int64_t(e) - lo) * std::int64_t(eb), v);
            } else if (in) {
              bc.get(s, g + (std::int64_t(e) - lo) * std::int64_t(eb), eb);
            }
          }
        }
}

}  // namespace smemsim::exec::detail

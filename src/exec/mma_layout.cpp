// Fragment layouts of mma.sync and wmma (mma_layout.hpp).
#include "exec/mma_layout.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::MmaShape;
using ptx::Type;

// One mma.sync tile (m16 x k16/k8 A, k x n8 B, m16 x n8 C) of `lane`, its registers numbered from
// `reg0` and its coordinates offset by (row0, col0).
int tile(int which, int k, Type t, int lane, int reg0, int row0, int col0, FragSlots& out, int n) {
  const int g = lane / 4, tq = lane % 4;
  auto put = [&](int reg, int half, int row, int col) {
    out[std::size_t(n++)] = {std::uint8_t(reg0 + reg), std::uint8_t(half),
                             std::uint16_t(row0 + row), std::uint16_t(col0 + col)};
  };
  if (which == 0) {  // A: m16 x k
    if (t == Type::TF32) {
      for (int r = 0; r < 4; ++r) put(r, 0, g + 8 * (r & 1), tq + 4 * (r >> 1));
    } else if (k == 16) {
      for (int r = 0; r < 4; ++r)
        for (int h = 0; h < 2; ++h) put(r, h, g + 8 * (r & 1), 2 * tq + h + 8 * (r >> 1));
    } else {
      for (int r = 0; r < 2; ++r)
        for (int h = 0; h < 2; ++h) put(r, h, g + 8 * r, 2 * tq + h);
    }
  } else if (which == 1) {  // B: k x n8
    if (t == Type::TF32) {
      for (int r = 0; r < 2; ++r) put(r, 0, tq + 4 * r, g);
    } else {
      for (int r = 0; r < k / 8; ++r)
        for (int h = 0; h < 2; ++h) put(r, h, 2 * tq + h + 8 * r, g);
    }
  } else if (t == Type::F32) {  // C/D: m16 x n8
    for (int r = 0; r < 4; ++r) put(r, 0, g + 8 * (r >> 1), 2 * tq + (r & 1));
  } else {
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h) put(r, h, g + 8 * r, 2 * tq + h);
  }
  return n;
}

// Registers of one tile of matrix `which`.
int tile_regs(int which, int k, Type t) {
  if (which == 0) return t == Type::TF32 ? 4 : k == 16 ? 4 : 2;
  if (which == 1) return t == Type::TF32 ? 2 : k / 8;
  return t == Type::F32 ? 4 : 2;
}

}  // namespace

MmaDims mma_dims(MmaShape s) {
  switch (s) {
    case MmaShape::M16N8K16:
      return {16, 8, 16};
    case MmaShape::M16N8K8:
      return {16, 8, 8};
    case MmaShape::M16N16K16:
      return {16, 16, 16};
    case MmaShape::M32N8K16:
      return {32, 8, 16};
    case MmaShape::M8N32K16:
      return {8, 32, 16};
    case MmaShape::M16N16K8:
      return {16, 16, 8};
    default:
      return {0, 0, 0};
  }
}

int mma_fragment(MmaShape shape, int which, Type ab, Type cd, int lane, FragSlots& out) {
  const int k = mma_dims(shape).k;
  return tile(which, k, which == 2 ? cd : ab, lane, 0, 0, 0, out, 0);
}

int wmma_fragment(MmaShape shape, int which, Type t, int lane, FragSlots& out) {
  const MmaDims d = mma_dims(shape);
  const int per = tile_regs(which, d.k, t);
  int n = 0;
  switch (shape) {
    case MmaShape::M16N16K16:
    case MmaShape::M16N16K8:  // A: one m16 tile; B and C: two n8 tiles
      if (which == 0) return tile(0, d.k, t, lane, 0, 0, 0, out, 0);
      for (int j = 0; j < 2; ++j) n = tile(which, d.k, t, lane, j * per, 0, j * 8, out, n);
      return n;
    case MmaShape::M32N8K16:  // A and C: two m16 tiles; B: one
      if (which == 1) return tile(1, d.k, t, lane, 0, 0, 0, out, 0);
      for (int j = 0; j < 2; ++j) n = tile(which, d.k, t, lane, j * per, j * 16, 0, out, n);
      return n;
    case MmaShape::M8N32K16: {  // the top eight rows of A; four n8 tiles of B and C
      FragSlots full;
      if (which == 0) {
        const int all = tile(0, d.k, t, lane, 0, 0, 0, full, 0);
        for (int i = 0; i < all; ++i)
          if (full[std::size_t(i)].row < 8) {
            FragSlot s = full[std::size_t(i)];
            s.reg = std::uint8_t(s.reg >> 1);  // registers 0 and 2 of the tile: rows g
            out[std::size_t(n++)] = s;
          }
        return n;
      }
      const int keep = which == 2 ? per / 2 : per;  // C: only the rows g of each tile
      for (int j = 0; j < 4; ++j) {
        const int all = tile(which, d.k, t, lane, 0, 0, j * 8, full, 0);
        for (int i = 0; i < all; ++i) {
          FragSlot s = full[std::size_t(i)];
          if (which == 2 && s.row >= 8) continue;
          if (which == 2 && t == Type::F32) s.reg = std::uint8_t(s.reg & 1);  // c0, c1
          if (which == 2 && t != Type::F32) s.reg = 0;                        // the pair of row g
          s.reg = std::uint8_t(s.reg + j * keep);
          out[std::size_t(n++)] = s;
        }
      }
      return n;
    }
    default:
      return 0;
  }
}

int wmma_primary_registers(MmaShape shape, int which, Type t) {
  FragSlots s;
  const int n = wmma_fragment(shape, which, t, 0, s);
  int regs = 0;
  for (int i = 0; i < n; ++i) regs = std::max(regs, int(s[std::size_t(i)].reg) + 1);
  return regs;
}

}  // namespace smemsim::exec::detail

// Fragment layouts of mma.sync and wmma (mma_layout.hpp).
#include "exec/mma_layout.hpp"

#include <algorithm>

namespace smemsim::exec::detail {
namespace {

using ptx::MmaShape;
using ptx::Type;

struct Out {
  FragSlots& slots;
  int n = 0;
  void put(int reg, int sub, int row, int col) {
    slots[std::size_t(n++)] = {std::uint8_t(reg), std::uint8_t(sub), std::uint16_t(row),
                               std::uint16_t(col)};
  }
};

// One mma.sync tile (m8 or m16 x k A, k x n8 B, m x n8 C) of `lane`, its registers numbered from
// `reg0` and its coordinates offset by (row0, col0).
void tile(int which, int m, int k, Type t, int lane, int reg0, int row0, int col0, Out& o) {
  const int g = lane / 4, tq = lane % 4, e_n = elements_per_register(t);
  auto put = [&](int reg, int sub, int row, int col) {
    o.put(reg0 + reg, sub, row0 + row, col0 + col);
  };
  const int blocks = k / (4 * e_n);  // register columns along K
  if (which == 0) {
    const bool m16 = m == 16;
    for (int r = 0; r < blocks * (m16 ? 2 : 1); ++r)
      for (int e = 0; e < e_n; ++e)
        put(r, e, g + (m16 ? 8 * (r & 1) : 0), e_n * tq + e + 4 * e_n * (m16 ? r >> 1 : r));
  } else if (which == 1) {
    for (int r = 0; r < blocks; ++r)
      for (int e = 0; e < e_n; ++e) put(r, e, e_n * tq + e + 4 * e_n * r, g);
  } else if (e_n == 2) {  // f16 C/D, m16 x n8
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h) put(r, h, g + 8 * r, 2 * tq + h);
  } else {
    for (int r = 0; r < m / 4; ++r) put(r, 0, g + 8 * (r >> 1), 2 * tq + (r & 1));
  }
}

// Registers of one tile of matrix `which`.
int tile_regs(int which, int m, int k, Type t) {
  const int blocks = k / (4 * elements_per_register(t));
  if (which == 0) return blocks * m / 8;
  if (which == 1) return blocks;
  return m * 8 / 32 / elements_per_register(t);
}

// f16 mma.m8n8k4: quad-pair q = (lane / 4) % 4 computes its own 8x8x4 product; the low lanes
// (< 16) hold rows 0-3 of A and C, the high ones rows 4-7 (PTX ISA figures 46-52).
void quad_pair(int which, Type t, bool col, int lane, Out& o) {
  const int q = (lane >> 2) & 3, hi = lane >= 16 ? 4 : 0, l4 = lane % 4;
  for (int i = 0; i < (which < 2 ? 4 : 8); ++i) {
    const int reg = t == Type::F32 ? i : i / 2, sub = t == Type::F32 ? 0 : i % 2;
    int row = 0, c = 0;
    if (which == 0) {
      row = col ? i + hi : l4 + hi;
      c = col ? l4 : i;
      o.put(reg, sub, 8 * q + row, 4 * q + c);
    } else if (which == 1) {
      row = col ? i : l4;
      c = col ? l4 + hi : i + hi;
      o.put(reg, sub, 4 * q + row, 8 * q + c);
    } else if (t == Type::F16) {
      o.put(reg, sub, 8 * q + l4 + hi, 8 * q + i);
    } else {  // f32: row X (+4 high), X = (lane & 1) + (i & 2); col (i & 4) + (lane & 2) + (i & 1)
      row = (lane & 1) + (i & 2) + hi;
      c = (i & 4) + (lane & 2) + (i & 1);
      o.put(reg, sub, 8 * q + row, 8 * q + c);
    }
  }
}

}  // namespace

int elements_per_register(Type t) {
  const int bits = ptx::type_bits(t);
  return bits >= 32 ? 1 : 32 / bits;
}

MmaProduct mma_product(MmaShape s, Type ab) {
  if (s == MmaShape::M8N8K4 && ab == Type::F16) return {32, 32, 16, 4};
  const ptx::MmaDims d = ptx::mma_shape_dims(s);
  return {d.m, d.n, d.k, 1};
}

int mma_fragment(MmaShape shape, int which, Type t, bool col, int lane, FragSlots& out) {
  Out o{out};
  if (shape == MmaShape::M8N8K4 && t != Type::F64) {
    quad_pair(which, t, col, lane, o);
    return o.n;
  }
  const ptx::MmaDims d = ptx::mma_shape_dims(shape);
  tile(which, d.m, d.k, t, lane, 0, 0, 0, o);
  return o.n;
}

int wgmma_fragment(MmaShape shape, int which, Type t, int n, int rank, int lane, FragSlots& out) {
  const int k = ptx::mma_shape_dims(shape).k;
  Out o{out};
  if (which == 0) {
    tile(0, 16, k, t, lane, 0, 16 * rank, 0, o);
    return o.n;
  }
  const int per = tile_regs(2, 16, k, t);
  for (int j = 0; j < n / 8; ++j) tile(2, 16, k, t, lane, j * per, 16 * rank, 8 * j, o);
  return o.n;
}

int wmma_fragment(MmaShape shape, int which, Type t, int lane, FragSlots& out) {
  const ptx::MmaDims d = ptx::mma_shape_dims(shape);
  const int per = tile_regs(which, 16, d.k, t);
  Out o{out};
  switch (shape) {
    case MmaShape::M16N16K16:
    case MmaShape::M16N16K8:  // A: one m16 tile; B and C: two n8 tiles
      if (which == 0) {
        tile(0, 16, d.k, t, lane, 0, 0, 0, o);
        return o.n;
      }
      for (int j = 0; j < 2; ++j) tile(which, 16, d.k, t, lane, j * per, 0, j * 8, o);
      return o.n;
    case MmaShape::M32N8K16:  // A and C: two m16 tiles; B: one
      if (which == 1) {
        tile(1, 16, d.k, t, lane, 0, 0, 0, o);
        return o.n;
      }
      for (int j = 0; j < 2; ++j) tile(which, 16, d.k, t, lane, j * per, j * 16, 0, o);
      return o.n;
    case MmaShape::M8N32K16: {  // the top eight rows of A; four n8 tiles of B and C
      FragSlots full;
      Out all{full};
      if (which == 0) {
        tile(0, 16, d.k, t, lane, 0, 0, 0, all);
        for (int i = 0; i < all.n; ++i)
          if (full[std::size_t(i)].row < 8) {
            FragSlot s = full[std::size_t(i)];
            s.reg = std::uint8_t(s.reg >> 1);  // registers 0 and 2 of the tile: rows g
            out[std::size_t(o.n++)] = s;
          }
        return o.n;
      }
      const int keep = which == 2 ? per / 2 : per;  // C: only the rows g of each tile
      for (int j = 0; j < 4; ++j) {
        all.n = 0;
        tile(which, 16, d.k, t, lane, 0, 0, j * 8, all);
        for (int i = 0; i < all.n; ++i) {
          FragSlot s = full[std::size_t(i)];
          if (which == 2 && s.row >= 8) continue;
          if (which == 2) s.reg = elements_per_register(t) == 1 ? s.reg & 1 : 0;  // row g's
          s.reg = std::uint8_t(s.reg + j * keep);
          out[std::size_t(o.n++)] = s;
        }
      }
      return o.n;
    }
    case MmaShape::M8N8K4:  // f64
    case MmaShape::M8N8K32:
    case MmaShape::M8N8K128:
      tile(which, 8, d.k, t, lane, 0, 0, 0, o);
      return o.n;
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

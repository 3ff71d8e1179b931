// Which matrix elements each lane holds in the registers of an mma.sync or wmma fragment (issues
// 16 and 27). mma.sync follows the PTX ISA's "Matrix Fragments for mma.mMnNkK" figures, with
// g = lane / 4 (groupID), t = lane % 4 (threadID_in_group) and E the elements one register holds
// (f16/bf16 2, s8/u8 4, s4/u4 8, b1 32; tf32, f32, s32 and f64 one):
//   A (m x k), register r, element e:  row g (+ 8 (r & 1) for m16),
//                                      col E t + e + 4E (r >> 1) (m16) or + 4E r (m8)
//   B (k x n8), register r, element e: k E t + e + 4E r, n g
//   C/D f16 (m16 x n8), 2 registers:   row g + 8 r, col 2t + e
//   C/D one per register:              row g + 8 (r >> 1), col 2t + (r & 1) (m8: r < 2, row g)
// which, for f16 m16n8k16 (E = 2), is the familiar "row g + 8 (r & 1), col 2t + h + 8 (r >> 1)".
// f16 mma.m8n8k4 is four independent 8x8x4 products, one per quad-pair (lanes 4q..4q+3 low and
// 16+4q.. high, PTX ISA "Matrix Fragments for mma.m8n8k4 with .f16"); they are placed on the
// diagonal of a 32x32x16 product: quad-pair q's A at rows 8q, columns 4q, its B at rows 4q,
// columns 8q, its C/D at (8q, 8q).
// wmma fragments are opaque in CUDA ("unspecified", CUDA C++ Programming Guide, WMMA); ours are
// the mma.sync tiles they are executed as on sm_80 and later, side by side: m16n16k16 is two n8
// tiles, m32n8k16 two m16 tiles, m8n32k16 four n8 tiles of the top eight rows, m16n16k8 (tf32) two
// n8 tiles of m16n8k8; the m8n8 shapes (s4 m8n8k32, b1 m8n8k128, f64 m8n8k4) are one m8n8 tile.
// Where the PTX ISA gives a fragment more registers than its elements need (f16 A and B always
// have 8), the extra registers repeat the first ones.
#pragma once

#include <array>
#include <cstdint>

#include "smemsim/ptx.hpp"

namespace smemsim::exec::detail {

struct FragSlot {
  std::uint8_t reg = 0, sub = 0;   // register of the fragment; element within it (low bits first)
  std::uint16_t row = 0, col = 0;  // in A (m x k), B (k x n) or C/D (m x n)
};
inline constexpr int kMaxFragSlots = 128;  // b1 m16n8k256's A: 4 registers of 32 elements
using FragSlots = std::array<FragSlot, kMaxFragSlots>;

// The product the executor forms: the shape's m x n x k, except f16 m8n8k4, whose four quad-pair
// products sit on the diagonal of a 32 x 32 x 16 one (`groups` = 4: row block i of D sums only
// over column block i of A).
struct MmaProduct {
  int m = 0, n = 0, k = 0, groups = 1;
};
MmaProduct mma_product(ptx::MmaShape s, ptx::Type ab);

// Elements of type t in one fragment register.
int elements_per_register(ptx::Type t);

// Elements that `lane` holds of matrix `which` (0 A, 1 B, 2 C or D) of an mma.sync whose element
// type for that matrix is `t`; `col`: that matrix is column-major (f16 m8n8k4 only). Returns how
// many (out[0..n)).
int mma_fragment(ptx::MmaShape shape, int which, ptx::Type t, bool col, int lane, FragSlots& out);
// The same for a wmma fragment of element type `t`: its primary registers only.
int wmma_fragment(ptx::MmaShape shape, int which, ptx::Type t, int lane, FragSlots& out);
// wgmma (issue 46): the elements `lane` of warp `rank` (0-3) of a warpgroup holds of A (which 0,
// from registers) or of the accumulator D (which 2) of an m64nNkK product: the warp's 16 rows
// (16 rank on) of A as mma.sync's m16 A tile of the same K, and of D N / 8 mma.sync m16n8 D
// tiles side by side, their registers in order (PTX ISA "Register Fragments" of wgmma).
int wgmma_fragment(ptx::MmaShape shape, int which, ptx::Type t, int n, int rank, int lane,
                   FragSlots& out);
// Element `sub` of a fragment register of type t, and a result v stored into one (rounded to
// nearest; .satfinite clamps), as mma.sync reads and writes them (matrix_exec.cpp).
double element(std::uint64_t reg, int sub, ptx::Type t);
void store_element(std::uint64_t& reg, int sub, ptx::Type t, double v, bool satfinite);
// The number of distinct registers of that wmma fragment (the rest repeat them).
int wmma_primary_registers(ptx::MmaShape shape, int which, ptx::Type t);

}  // namespace smemsim::exec::detail

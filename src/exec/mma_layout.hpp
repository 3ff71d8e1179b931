// Which matrix elements each lane holds in the registers of an mma.sync or wmma fragment (issue
// 16). mma.sync follows the PTX ISA's "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8" figures,
// with g = lane / 4 (groupID) and t = lane % 4 (threadID_in_group):
//   A m16k16 (f16, bf16), 4 regs of 2 halves h:  row g + 8 (r & 1), col 2t + h + 8 (r >> 1)
//   A m16k8 f16, 2 regs:                         row g + 8 r,       col 2t + h
//   A m16k8 tf32, 4 regs of one element:         row g + 8 (r & 1), col t + 4 (r >> 1)
//   B k16n8 (f16, bf16), 2 regs:                 k 2t + h + 8 r,    n g
//   B k8n8 f16, 1 reg:                           k 2t + h,          n g
//   B k8n8 tf32, 2 regs:                         k t + 4 r,         n g
//   C/D f32, 4 regs:                             row g + 8 (r >> 1), col 2t + (r & 1)
//   C/D f16, 2 regs of 2 halves:                 row g + 8 r,       col 2t + h
// wmma fragments are opaque in CUDA ("unspecified", CUDA C++ Programming Guide, WMMA); ours are
// the mma.sync tiles they are executed as on sm_80 and later, side by side: m16n16k16 is two n8
// tiles, m32n8k16 two m16 tiles, m8n32k16 four n8 tiles of the top eight rows, m16n16k8 (tf32) two
// n8 tiles of m16n8k8. Where the PTX ISA gives a fragment more registers than its elements need
// (f16 A and B always have 8), the extra registers repeat the first ones.
#pragma once

#include <array>
#include <cstdint>

#include "smemsim/ptx.hpp"

namespace smemsim::exec::detail {

struct FragSlot {
  std::uint8_t reg = 0, half = 0;  // register of the fragment; half of a 2 x 16-bit register
  std::uint16_t row = 0, col = 0;  // in A (m x k), B (k x n) or C/D (m x n)
};
using FragSlots = std::array<FragSlot, 16>;

struct MmaDims {
  int m, n, k;
};
MmaDims mma_dims(ptx::MmaShape s);

// Elements that `lane` holds of matrix `which` (0 A, 1 B, 2 C or D) of an mma.sync, whose A/B type
// is `ab` and C/D type `cd`; returns how many (out[0..n)).
int mma_fragment(ptx::MmaShape shape, int which, ptx::Type ab, ptx::Type cd, int lane,
                 FragSlots& out);
// The same for a wmma fragment of element type `t` (A/B: f16, bf16, tf32; C/D: f16, f32): its
// primary registers only.
int wmma_fragment(ptx::MmaShape shape, int which, ptx::Type t, int lane, FragSlots& out);
// The number of distinct registers of that wmma fragment (the rest repeat them).
int wmma_primary_registers(ptx::MmaShape shape, int which, ptx::Type t);

}  // namespace smemsim::exec::detail

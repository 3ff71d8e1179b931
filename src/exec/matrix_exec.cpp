// ldmatrix, stmatrix, mma.sync and wmma in the executor (issue 16; PTX ISA "Warp-level matrix
// instructions"). They are warp-collective (.sync.aligned): every lane of a full warp executes them
// together, or the instruction is an error naming the lanes.
//
// Shared-memory traffic is reported as the hardware serves it: ldmatrix/stmatrix as one phase per
// 8x8 matrix, eight row addresses of 16 bytes (the lanes 8i..8i+7 that supply matrix i's rows,
// quarter-warp phases of 128-bit accesses); wmma.load/store of a 16-bit A or B fragment as the
// ldmatrix/stmatrix phases sm_80 compiles them to (each register of the fragment's mma tiles is one
// 8x8 block); 32-bit fragments (tf32 A/B, C/D) per register, 64-bit pairs of f32 C/D columns
// together (LDS.64/STS.64).
//
// The products are exact (f16, bf16 and tf32 products fit a double) and summed in double; each
// result is rounded once to its type. Hardware accumulates in a tensor-core order NVIDIA does not
// document, so results on a GPU may differ in the last bits of f32 (docs/exec.md, "Tensor cores").
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "exec/exec_internal.hpp"
#include "exec/half.hpp"
#include "exec/mma_layout.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Opcode;
using ptx::Type;

void require_full_warp(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const LaneMask full = lanes_mask(32);
  if (im.lanes != 32)
    im.fail(cta, w, 0, pc, fmt::format("warp-level matrix instructions need 32-lane warps"));
  if (m != full)
    im.fail(cta, w, std::countr_zero(m), pc,
            fmt::format("'.sync.aligned' needs all 32 lanes of the warp to execute it together; "
                        "lanes {:#x} do",
                        m));
}

// The address lane l's memory operand names (base register + offset, at the base's width).
std::uint64_t address(Impl& im, Warp& w, const XInst& x, int l) {
  const std::uint64_t base = x.mem_row != kNoRow ? im.row(w, x.mem_row)[l] & x.mem_base_mask : 0;
  return (base + static_cast<std::uint64_t>(x.mem_off)) & x.mem_addr_mask;
}

// 16-bit element e of register value v.
std::uint16_t half_of(std::uint64_t v, int e) {
  return static_cast<std::uint16_t>(v >> (16 * e));
}

void ldmatrix(Impl& im, Cta& cta, Warp& w, std::uint32_t pc) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const int num = ins.vec;
  const bool load = ins.op == Opcode::Ldmatrix;
  const LaneMask rows = lanes_mask(8 * num);  // the lanes that give row addresses
  std::uint8_t* ptr[32];
  LaneMask shared = 0;
  each_lane(rows, [&](int l) {
    ptr[l] = lane_pointer(im, cta, w, pc, l, ins.space, address(im, w, x, l), 16, !load, shared);
  });
  if (shared != rows)
    im.fail(cta, w, std::countr_zero(rows & ~shared), pc,
            "the matrix rows must be in shared memory");
  emit_shared(im, w, cta, pc, load ? Op::Load : Op::Store, rows, 4);
  const bool trans = ins.has(ptx::kTrans);
  const ptx::Operand& regs = ins.ops[load ? 0 : 1];
  for (int i = 0; i < num; ++i) {
    std::uint16_t mat[8][8];  // mat[row][col] of matrix i, rows as the lanes address them
    if (!load) {
      const std::uint64_t* src = im.row(w, regs.vec[std::size_t(i)]);
      for (int t = 0; t < 32; ++t)
        for (int e = 0; e < 2; ++e) {
          const int r = trans ? 2 * (t % 4) + e : t / 4, c = trans ? t / 4 : 2 * (t % 4) + e;
          mat[r][c] = half_of(src[t], e);
        }
      for (int r = 0; r < 8; ++r) std::memcpy(ptr[8 * i + r], mat[r], 16);
      continue;
    }
    for (int r = 0; r < 8; ++r) std::memcpy(mat[r], ptr[8 * i + r], 16);
    std::uint64_t* d = im.row(w, regs.vec[std::size_t(i)]);
    for (int t = 0; t < 32; ++t) {
      // Thread t gets row t/4, columns 2(t%4) and 2(t%4)+1; transposed, the column t/4 of rows
      // 2(t%4) and 2(t%4)+1.
      const int r = t / 4, c = 2 * (t % 4);
      const std::uint16_t lo = trans ? mat[c][r] : mat[r][c];
      const std::uint16_t hi = trans ? mat[c + 1][r] : mat[r][c + 1];
      d[t] = std::uint64_t(lo) | (std::uint64_t(hi) << 16);
    }
  }
}

double element(std::uint64_t reg, int half, Type t) {
  switch (t) {
    case Type::F32:
      return std::bit_cast<float>(static_cast<std::uint32_t>(reg));
    case Type::TF32:
      return small_to_double(static_cast<std::uint32_t>(reg), kTF32);  // the low 13 bits ignored
    case Type::BF16:
      return bf16_value(half_of(reg, half));
    default:
      return f16_value(half_of(reg, half));
  }
}

void store_element(std::uint64_t& reg, int half, Type t, double v) {
  if (t == Type::F32) {
    reg = std::bit_cast<std::uint32_t>(static_cast<float>(v));
    return;
  }
  const std::uint64_t h = double_to_small(v, half_format(t), ptx::Rounding::Rn) & 0xffff;
  reg = (reg & ~(std::uint64_t{0xffff} << (16 * half))) | (h << (16 * half));
}

struct Matrices {
  double a[32][16], b[16][32], c[32][32];
};

// The warp's fragments of matrix `which` gathered into `dst` (rows x cols, row-major), or the
// reverse (scatter) for D.
template <typename Layout>
void gather(Impl& im, Warp& w, const ptx::Operand& v, int which, Type t, Layout layout, double* dst,
            int cols) {
  FragSlots s;
  for (int lane = 0; lane < 32; ++lane) {
    const int n = layout(which, t, lane, s);
    for (int i = 0; i < n; ++i) {
      const FragSlot& e = s[std::size_t(i)];
      dst[e.row * cols + e.col] = element(im.row(w, v.vec[e.reg])[lane], e.half, t);
    }
  }
}

template <typename Layout>
void multiply(Impl& im, Warp& w, const ptx::Instruction& ins, MmaDims d, Layout layout) {
  static thread_local Matrices mx;
  gather(im, w, ins.ops[1], 0, ins.type2, layout, &mx.a[0][0], 16);
  gather(im, w, ins.ops[2], 1, ins.type2, layout, &mx.b[0][0], 32);
  gather(im, w, ins.ops[3], 2, ins.type3, layout, &mx.c[0][0], 32);
  double r[32][32];
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      double s = 0;
      for (int kk = 0; kk < d.k; ++kk) s += mx.a[i][kk] * mx.b[kk][j];
      r[i][j] = s + mx.c[i][j];
    }
  // Scatter D: every register of the D vector written from the lanes' elements (a register holds
  // one f32 or two f16). D may name C's registers: everything was gathered above.
  FragSlots s;
  const ptx::Operand& dv = ins.ops[0];
  for (int i = 0; i < dv.count; ++i) {
    std::uint64_t* reg = im.row(w, dv.vec[std::size_t(i)]);
    for (int lane = 0; lane < 32; ++lane) reg[lane] = 0;
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int n = layout(2, ins.type, lane, s);
    for (int i = 0; i < n; ++i) {
      const FragSlot& e = s[std::size_t(i)];
      store_element(im.row(w, dv.vec[e.reg])[lane], e.half, ins.type, r[e.row][e.col]);
    }
  }
}

// The shared-memory phases of a wmma.load/store. A 16-bit fragment register holds an 8x8 block of
// the matrix: one phase of its eight 16-byte rows (or columns, col-major) in memory, as the
// ldmatrix/stmatrix sm_80 compiles it to. A 32-bit register (tf32, f32) is one element per lane, a
// 32-bit access; two f32 C/D registers of adjacent columns in a row-major layout go together, a
// 64-bit access per lane (LDS.64/STS.64).
void wmma_traffic(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, const ptx::Instruction& ins,
                  const FragSlots* slots, const int* counts, const std::uint64_t* offs,
                  const std::uint64_t* pitch, bool col) {
  const Op op = ins.op == Opcode::WmmaLoad ? Op::Load : Op::Store;
  const int which = std::min<int>(ins.comp, 2);
  const std::uint64_t esize = ins.type == Type::F32 || ins.type == Type::TF32 ? 4 : 2;
  const int regs = wmma_primary_registers(ins.shape, which, ins.type);
  auto offset = [&](int lane, const FragSlot& e) {
    return offs[lane] +
           (col ? e.col * pitch[lane] + e.row * esize : e.row * pitch[lane] + e.col * esize);
  };
  for (int r = 0; r < regs; ++r) {
    if (esize == 2) {
      int r0 = 1 << 20, c0 = 1 << 20;
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < counts[lane]; ++i)
          if (slots[lane][std::size_t(i)].reg == r) {
            r0 = std::min<int>(r0, slots[lane][std::size_t(i)].row);
            c0 = std::min<int>(c0, slots[lane][std::size_t(i)].col);
          }
      for (int i = 0; i < 8; ++i)  // lane i stands for the block's i-th row (column) in memory
        im.addr[std::size_t(i)] = offset(
            0, FragSlot{0, 0, std::uint16_t(col ? r0 : r0 + i), std::uint16_t(col ? c0 + i : c0)});
      emit_shared(im, w, cta, pc, op, lanes_mask(8), 4);
      continue;
    }
    const bool pair = which == 2 && ins.type == Type::F32 && !col && (r & 1) == 0;
    LaneMask lanes = 0;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < counts[lane]; ++i)
        if (slots[lane][std::size_t(i)].reg == r) {
          im.addr[std::size_t(lane)] = offset(lane, slots[lane][std::size_t(i)]);
          lanes |= LaneMask{1} << lane;
        }
    emit_shared(im, w, cta, pc, op, lanes, pair ? 2 : 1);
    if (pair) ++r;
  }
}

void wmma_move(Impl& im, Cta& cta, Warp& w, std::uint32_t pc) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const bool load = ins.op == Opcode::WmmaLoad;
  const int which = std::min<int>(ins.comp, 2);
  const Type t = ins.type;
  const MmaDims d = mma_dims(ins.shape);
  const int rows = which == 0 ? d.m : which == 1 ? d.k : d.m;
  const int cols = which == 0 ? d.k : d.n;
  const bool col = ins.has(ptx::kColA);
  const int esize = t == Type::F32 || t == Type::TF32 ? 4 : 2;
  const ptx::Operand& frag = ins.ops[load ? 0 : 1];
  const std::uint64_t* stride = ins.num_ops == 3 ? im.row(w, x.row[2]) : nullptr;  // in elements
  static thread_local FragSlots slots[32];
  int counts[32];
  std::uint64_t base[32], pitch[32];
  for (int lane = 0; lane < 32; ++lane) {
    counts[lane] = wmma_fragment(ins.shape, which, t, lane, slots[lane]);
    base[lane] = address(im, w, x, lane);
    const std::uint64_t ld =
        stride ? (stride[lane] & 0xffffffffu) : std::uint64_t(col ? rows : cols);
    pitch[lane] = ld * std::uint64_t(esize);
  }
  // Resolve every element first: a bad address leaves no partial effect.
  static thread_local std::uint8_t* ptr[32][16];
  LaneMask shared = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < counts[lane]; ++i) {
      const FragSlot& e = slots[lane][std::size_t(i)];
      const std::uint64_t off = col ? e.col * pitch[lane] + e.row * std::uint64_t(esize)
                                    : e.row * pitch[lane] + e.col * std::uint64_t(esize);
      ptr[lane][i] = lane_pointer(im, cta, w, pc, lane, ins.space, base[lane] + off,
                                  std::uint64_t(esize), !load, shared);
    }
  if (shared) {
    std::uint64_t offs[32];
    for (int lane = 0; lane < 32; ++lane)
      offs[lane] = ins.space == ptx::Space::Generic ? base[lane] & kOffsetMask : base[lane];
    wmma_traffic(im, cta, w, pc, ins, slots, counts, offs, pitch, col);
  }
  const int primary = wmma_primary_registers(ins.shape, which, t);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < counts[lane]; ++i) {
      const FragSlot& e = slots[lane][std::size_t(i)];
      std::uint64_t& reg = im.row(w, frag.vec[e.reg])[lane];
      if (load) {
        std::uint64_t v = 0;
        std::memcpy(&v, ptr[lane][i], std::size_t(esize));
        if (esize == 4)
          reg = v;
        else
          reg = (reg & ~(std::uint64_t{0xffff} << (16 * e.half))) | (v << (16 * e.half));
      } else {
        const std::uint64_t v = esize == 4 ? reg & 0xffffffffu : half_of(reg, e.half);
        std::memcpy(ptr[lane][i], &v, std::size_t(esize));
      }
    }
    if (load)  // registers past the fragment's own repeat them (f16 A and B have 8)
      for (int r = primary; r < frag.count; ++r)
        im.row(w, frag.vec[std::size_t(r)])[lane] =
            im.row(w, frag.vec[std::size_t(r % primary)])[lane];
  }
}

}  // namespace

void exec_matrix(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  require_full_warp(im, cta, w, pc, m);
  switch (ins.op) {
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
      return ldmatrix(im, cta, w, pc);
    case Opcode::WmmaLoad:
    case Opcode::WmmaStore:
      return wmma_move(im, cta, w, pc);
    case Opcode::Mma:
      return multiply(im, w, ins, mma_dims(ins.shape),
                      [&](int which, Type t, int lane, FragSlots& s) {
                        return mma_fragment(ins.shape, which, t, t, lane, s);
                      });
    case Opcode::WmmaMma:
      return multiply(im, w, ins, mma_dims(ins.shape),
                      [&](int which, Type t, int lane, FragSlots& s) {
                        return wmma_fragment(ins.shape, which, t, lane, s);
                      });
    default:
      return;
  }
}

}  // namespace smemsim::exec::detail

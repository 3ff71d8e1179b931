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
// Integer (s8, u8, s4, u4) and single-bit (b1) products are exact, their s32 results wrapped or,
// with .satfinite, clamped; f64 is fused multiply-adds in k order.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/exec_internal.hpp"
#include "exec/half.hpp"
#include "exec/mma_layout.hpp"
#include "util/thread_scratch.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Opcode;
using ptx::Type;

// The rows of a fragment's registers (at most 8), looked up once per instruction, not per element.
using VectorRows = std::array<std::uint64_t*, 8>;
VectorRows vector_rows(Impl& im, Warp& w, const ptx::Operand& v) {
  VectorRows rows{};
  for (std::size_t k = 0; k < rows.size() && k < v.count; ++k)
    if (const std::uint32_t r = im.kernel.vec(v, int(k)); !ptx::is_vec_imm(r))
      rows[k] = im.row(w, im.reg_row(r));
  return rows;
}

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
  const std::uint64_t mask = width_mask(x.mem_bits);
  const std::uint64_t base = x.mem_row != kNoRow ? im.row(w, x.mem_row)[l] & mask : 0;
  return (base + static_cast<std::uint64_t>(std::int64_t{x.mem_off})) & mask;
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
      const std::uint64_t* src = im.row(w, im.reg_row(im.kernel.vec(regs, i)));
      for (int t = 0; t < 32; ++t)
        for (int e = 0; e < 2; ++e) {
          const int r = trans ? 2 * (t % 4) + e : t / 4, c = trans ? t / 4 : 2 * (t % 4) + e;
          mat[r][c] = half_of(src[t], e);
        }
      for (int r = 0; r < 8; ++r) std::memcpy(ptr[8 * i + r], mat[r], 16);
      continue;
    }
    for (int r = 0; r < 8; ++r) std::memcpy(mat[r], ptr[8 * i + r], 16);
    std::uint64_t* d = im.row(w, im.reg_row(im.kernel.vec(regs, i)));
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

}  // namespace

// An 8-bit float (PTX ISA "Alternate Floating Point Data Formats", the OCP FP8 formats): e4m3 has
// 4 exponent bits (bias 7) and 3 of mantissa, no infinities, and NaN only at S.1111.111; e5m2 has
// 5 (bias 15) and 2, with IEEE's infinities and NaNs. Both have subnormals.
double fp8_value(std::uint8_t v, bool e4m3) {
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, emax = e4m3 ? 15 : 31;
  const int e = (v & 0x7f) >> mbits, m = v & ((1 << mbits) - 1);
  double x;
  if (e4m3 && e == emax && m == 7)
    x = std::numeric_limits<double>::quiet_NaN();
  else if (!e4m3 && e == emax)
    x = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    x = std::ldexp(double(m), 1 - bias - mbits);
  else
    x = std::ldexp(double((1 << mbits) + m), e - bias - mbits);
  return v & 0x80 ? -x : x;
}

// Element `sub` of a fragment register of type t (sub-byte and 8-bit elements from the low bits
// up, PTX ISA "Matrix Data-types").
double element(std::uint64_t reg, int sub, Type t) {
  switch (t) {
    case Type::E4M3:
    case Type::E5M2:
      return fp8_value(static_cast<std::uint8_t>(reg >> (8 * sub)), t == Type::E4M3);
    case Type::F64:
      return std::bit_cast<double>(reg);
    case Type::F32:
      return std::bit_cast<float>(static_cast<std::uint32_t>(reg));
    case Type::S32:
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(reg));
    case Type::TF32:
      return small_to_double(static_cast<std::uint32_t>(reg), kTF32);  // the low 13 bits ignored
    case Type::BF16:
      return bf16_value(half_of(reg, sub));
    case Type::F16:
      return f16_value(half_of(reg, sub));
    case Type::S8:
      return static_cast<std::int8_t>(reg >> (8 * sub));
    case Type::U8:
      return static_cast<std::uint8_t>(reg >> (8 * sub));
    case Type::S4:  // sign-extended from bit 3
      return static_cast<std::int8_t>(static_cast<std::uint8_t>(reg >> (4 * sub)) << 4) >> 4;
    case Type::U4:
      return (reg >> (4 * sub)) & 0xf;
    default:  // b1
      return (reg >> sub) & 1;
  }
}

// The result v into element `sub` of D's register: f32/f16/bf16 rounded to nearest (.satfinite:
// an infinity becomes the largest finite value of its sign), s32 wrapped modulo 2^32 or, with
// .satfinite, clamped to its range (PTX ISA "mma").
void store_element(std::uint64_t& reg, int sub, Type t, double v, bool satfinite) {
  switch (t) {
    case Type::F64:
      reg = std::bit_cast<std::uint64_t>(v);
      return;
    case Type::S32: {
      const double lo = -2147483648.0, hi = 2147483647.0;
      if (satfinite) v = std::clamp(v, lo, hi);
      // Exact integers: |v| < 2^53 (256 products of 8-bit integers and an s32 at most).
      reg = static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
      return;
    }
    case Type::F32: {
      float f = static_cast<float>(v);
      if (satfinite && std::isinf(f)) f = std::copysign(std::numeric_limits<float>::max(), f);
      reg = std::bit_cast<std::uint32_t>(f);
      return;
    }
    default: {
      const std::uint64_t h = double_to_small(v, half_format(t), ptx::Rounding::Rn, satfinite);
      reg = (reg & ~(std::uint64_t{0xffff} << (16 * sub))) | ((h & 0xffff) << (16 * sub));
    }
  }
}

namespace {

constexpr int kMaxK = 256;  // b1 m16n8k256
struct Matrices {
  double a[32][kMaxK], b[kMaxK][32], c[32][32];
};

// The warp's fragments of matrix `which` gathered into `dst` (rows x cols, row-major).
template <typename Layout>
void gather(Impl& im, Warp& w, const ptx::Operand& v, int which, Type t, Layout layout, double* dst,
            int cols) {
  FragSlots s;
  const VectorRows rows = vector_rows(im, w, v);
  for (int lane = 0; lane < 32; ++lane) {
    const int n = layout(which, t, lane, s);
    for (int i = 0; i < n; ++i) {
      const FragSlot& e = s[std::size_t(i)];
      dst[e.row * cols + e.col] = element(rows[e.reg][lane], e.sub, t);
    }
  }
}

// D = A B + C. Floating-point products are exact in double (f16, bf16, tf32) and summed in
// double, the result rounded once; f64 is a chain of fused multiply-adds from C in k order (the
// DMMA unit's order is undocumented); integer products and sums are exact, b1's "product" is
// a AND b or a XOR b and its sum the population count.
template <typename Layout>
void multiply(Impl& im, Warp& w, const ptx::Instruction& ins, MmaProduct d, Layout layout) {
  Matrices& mx = util::thread_scratch<Matrices>();
  gather(im, w, ins.ops[1], 0, ins.type2, layout, &mx.a[0][0], kMaxK);
  gather(im, w, ins.ops[2], 1, ins.type4, layout, &mx.b[0][0], 32);
  gather(im, w, ins.ops[3], 2, ins.type3, layout, &mx.c[0][0], 32);
  const bool f64 = ins.type2 == Type::F64, b1 = ins.type2 == Type::B1;
  const bool bit_xor = ins.has(ptx::kXorPopc);
  const int kg = d.k / d.groups, mg = d.m / d.groups;
  double r[32][32];
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      const int k0 = (i / mg) * kg, k1 = k0 + kg;  // one group: the whole of K
      double s = 0;
      if (f64) {
        s = mx.c[i][j];
        for (int kk = k0; kk < k1; ++kk) s = std::fma(mx.a[i][kk], mx.b[kk][j], s);
        r[i][j] = s;
        continue;
      }
      if (b1)
        for (int kk = k0; kk < k1; ++kk)
          s += bit_xor ? double(mx.a[i][kk] != mx.b[kk][j]) : mx.a[i][kk] * mx.b[kk][j];
      else
        for (int kk = k0; kk < k1; ++kk) s += mx.a[i][kk] * mx.b[kk][j];
      r[i][j] = s + mx.c[i][j];
    }
  // Scatter D: every register of the D vector written from the lanes' elements. D may name C's
  // registers: everything was gathered above.
  FragSlots s;
  const ptx::Operand& dv = ins.ops[0];
  const VectorRows drows = vector_rows(im, w, dv);
  for (int i = 0; i < dv.count; ++i)
    for (int lane = 0; lane < 32; ++lane) drows[std::size_t(i)][lane] = 0;
  const bool sat = ins.has(ptx::kSatfinite);
  for (int lane = 0; lane < 32; ++lane) {
    const int n = layout(2, ins.type, lane, s);
    for (int i = 0; i < n; ++i) {
      const FragSlot& e = s[std::size_t(i)];
      store_element(drows[e.reg][lane], e.sub, ins.type, r[e.row][e.col], sat);
    }
  }
}

// The shared-memory phases of a wmma.load/store. A register whose elements lie side by side in
// memory (16-bit elements, or 8-bit and narrower ones along a row-major A or column-major B, the
// layout the PTX ISA requires of sub-byte ones) holds 32 bits of each of eight rows of an 8 x 16
// byte block: one phase of its eight 16-byte rows (or columns), as the ldmatrix/stmatrix sm_80
// compiles it to. 8-bit elements across rows are one byte per lane and element. A 32-bit register
// (tf32, f32, s32) is one element per lane, a 32-bit access; two f32/s32 C/D registers of adjacent
// columns in a row-major layout go together, a 64-bit access per lane (LDS.64/STS.64), as does an
// f64 register.
void wmma_traffic(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, const ptx::Instruction& ins,
                  const FragSlots* slots, const int* counts, const std::uint64_t* offs,
                  const std::uint64_t* ld, bool col) {
  const Op op = ins.op == Opcode::WmmaLoad ? Op::Load : Op::Store;
  const int which = std::min<int>(ins.comp, 2);
  const int bits = ptx::type_bits(ins.type);
  const int regs = wmma_primary_registers(ins.shape, which, ins.type);
  auto offset = [&](int lane, const FragSlot& e) {  // bytes
    const std::uint64_t el = col ? e.col * ld[lane] + e.row : e.row * ld[lane] + e.col;
    return offs[lane] + el * std::uint64_t(bits) / 8;
  };
  // Along a register's elements, memory is contiguous: A's rows (K) in a row-major layout, B's
  // columns (K) in a column-major one.
  const bool contiguous = which == 0 ? !col : which == 1 ? col : false;
  for (int r = 0; r < regs; ++r) {
    if (bits == 16 || (bits < 16 && contiguous)) {
      int r0 = 1 << 20, c0 = 1 << 20;
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < counts[lane]; ++i)
          if (slots[lane][std::size_t(i)].reg == r) {
            r0 = std::min<int>(r0, slots[lane][std::size_t(i)].row);
            c0 = std::min<int>(c0, slots[lane][std::size_t(i)].col);
          }
      // Lane i stands for the block's i-th row (column) in memory: the block's 8 lanes x 4
      // threads are rows (or, K-major, columns) of the matrix.
      const bool down = which == 1 ? !col : col;  // the block's 8 lines run along the matrix's n
      for (int i = 0; i < 8; ++i)
        im.addr[std::size_t(i)] = offset(0, FragSlot{0, 0, std::uint16_t(down ? r0 : r0 + i),
                                                     std::uint16_t(down ? c0 + i : c0)});
      emit_shared(im, w, cta, pc, op, lanes_mask(8), 4);
      continue;
    }
    if (bits == 8) {  // one byte per lane and element
      for (int e = 0; e < 4; ++e) {
        LaneMask lanes = 0;
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < counts[lane]; ++i) {
            const FragSlot& s = slots[lane][std::size_t(i)];
            if (s.reg != r || s.sub != e) continue;
            im.addr[std::size_t(lane)] = offset(lane, s);
            lanes |= LaneMask{1} << lane;
          }
        emit_shared(im, w, cta, pc, op, lanes, 1);
      }
      continue;
    }
    const bool pair = bits == 64 || (which == 2 && !col && (r & 1) == 0 &&
                                     (ins.type == Type::F32 || ins.type == Type::S32));
    LaneMask lanes = 0;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < counts[lane]; ++i)
        if (slots[lane][std::size_t(i)].reg == r) {
          im.addr[std::size_t(lane)] = offset(lane, slots[lane][std::size_t(i)]);
          lanes |= LaneMask{1} << lane;
        }
    emit_shared(im, w, cta, pc, op, lanes, pair ? 2 : 1);
    if (pair && bits == 32) ++r;
  }
}

// Bits of an element of type t at bit `shift` of the bytes at p (1-, 4- and 8-bit elements: one
// byte read; wider ones: their bytes).
std::uint64_t read_element(const std::uint8_t* p, int bits, int shift) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, std::size_t(std::max(bits, 8) / 8));
  return bits >= 8 ? v : (v >> shift) & ((1u << bits) - 1);
}

// A wmma load's or store's per-lane fragment slots and element pointers (per thread, not on the
// stack: 37 KB).
struct FragScratch {
  FragSlots slots[32];
  std::uint8_t* ptr[32][kMaxFragSlots];
  std::uint8_t shift[32][kMaxFragSlots];
};

void wmma_move(Impl& im, Cta& cta, Warp& w, std::uint32_t pc) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const bool load = ins.op == Opcode::WmmaLoad;
  const int which = std::min<int>(ins.comp, 2);
  const Type t = ins.type;
  const ptx::MmaDims d = ptx::mma_shape_dims(ins.shape);
  const int rows = which == 0 ? d.m : which == 1 ? d.k : d.m;
  const int cols = which == 0 ? d.k : d.n;
  const bool col = ins.has(ptx::kColA);
  const int bits = ptx::type_bits(t);
  const std::uint64_t bytes = std::uint64_t(std::max(bits, 8) / 8);
  const ptx::Operand& frag = ins.ops[load ? 0 : 1];
  const std::uint64_t* stride = ins.num_ops == 3 ? im.row(w, x.row[2]) : nullptr;  // in elements
  FragScratch& scratch = util::thread_scratch<FragScratch>();
  auto& slots = scratch.slots;
  int counts[32];
  std::uint64_t base[32], ld[32];
  for (int lane = 0; lane < 32; ++lane) {
    counts[lane] = wmma_fragment(ins.shape, which, t, lane, slots[lane]);
    base[lane] = address(im, w, x, lane);
    ld[lane] = stride ? (stride[lane] & 0xffffffffu) : std::uint64_t(col ? rows : cols);
  }
  // Resolve every element first: a bad address leaves no partial effect.
  auto& ptr = scratch.ptr;
  auto& shift = scratch.shift;
  LaneMask shared = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < counts[lane]; ++i) {
      const FragSlot& e = slots[lane][std::size_t(i)];
      const std::uint64_t el = col ? e.col * ld[lane] + e.row : e.row * ld[lane] + e.col;
      const std::uint64_t bit = el * std::uint64_t(bits);
      shift[lane][i] = std::uint8_t(bit % 8);
      ptr[lane][i] =
          lane_pointer(im, cta, w, pc, lane, ins.space, base[lane] + bit / 8, bytes, !load, shared);
    }
  if (shared) {
    std::uint64_t offs[32];
    for (int lane = 0; lane < 32; ++lane)
      offs[lane] = ins.space == ptx::Space::Generic ? base[lane] & kOffsetMask : base[lane];
    wmma_traffic(im, cta, w, pc, ins, slots, counts, offs, ld, col);
  }
  const int primary = wmma_primary_registers(ins.shape, which, t);
  const int reg_bits = bits == 64 ? 64 : 32;
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const VectorRows frows = vector_rows(im, w, frag);
  for (int lane = 0; lane < 32; ++lane) {
    if (load)  // sub-word elements are merged into their register: start from zero
      for (int r = 0; r < primary; ++r) frows[std::size_t(r)][lane] = 0;
    for (int i = 0; i < counts[lane]; ++i) {
      const FragSlot& e = slots[lane][std::size_t(i)];
      std::uint64_t& reg = frows[e.reg][lane];
      const int at = bits >= reg_bits ? 0 : bits * e.sub;
      if (load) {
        reg |= (read_element(ptr[lane][i], bits, shift[lane][i]) & mask) << at;
      } else {  // D is f16, f32, s32 or f64: whole bytes
        const std::uint64_t v = (reg >> at) & mask;
        std::memcpy(ptr[lane][i], &v, std::size_t(bytes));
      }
    }
    if (load)  // registers past the fragment's own repeat them (f16 A and B have 8)
      for (int r = primary; r < frag.count; ++r)
        frows[std::size_t(r)][lane] = frows[std::size_t(r % primary)][lane];
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
      return multiply(im, w, ins, mma_product(ins.shape, ins.type2),
                      [&](int which, Type t, int lane, FragSlots& s) {
                        const bool col = ins.has(which == 0 ? ptx::kColA : ptx::kColB);
                        return mma_fragment(ins.shape, which, t, which < 2 && col, lane, s);
                      });
    case Opcode::WmmaMma:
      return multiply(im, w, ins, mma_product(ins.shape, ins.type2),
                      [&](int which, Type t, int lane, FragSlots& s) {
                        return wmma_fragment(ins.shape, which, t, lane, s);
                      });
    case Opcode::Wgmma:
      return exec_wgmma(im, cta, w, pc);
    default:
      return;
  }
}

}  // namespace smemsim::exec::detail

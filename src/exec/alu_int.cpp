// Integer intrinsics and carries (issue 15 item 7), defined as in the PTX ISA (8.x, "Integer
// Arithmetic Instructions", "Floating Point Instructions"): add.cc/addc/sub.cc/subc/mad.cc/madc,
// bfind, fns, dp4a, dp2a, mul24, mad24, sad, testp, copysign. The carry flag CC.CF is one hidden
// register row per warp (Impl::cc_row), so it follows each lane like a register.
#include <bit>
#include <cmath>
#include <cstring>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Opcode;
using ptx::Type;
__extension__ using U128 = unsigned __int128;  // GCC/Clang: exact 64-bit carries and products
__extension__ using I128 = __int128;

// a + b + carry_in at `w` bits (32 or 64): the sum and the carry out.
std::uint64_t add_carry(std::uint64_t a, std::uint64_t b, std::uint64_t cin, int w,
                        std::uint64_t& cout) {
  const U128 s = U128(a & width_mask(w)) + (b & width_mask(w)) + cin;
  cout = std::uint64_t(s >> w) & 1;
  return std::uint64_t(s) & width_mask(w);
}

// a - (b + borrow_in) at `w` bits: the difference and the borrow out (1 when a < b + borrow_in).
std::uint64_t sub_borrow(std::uint64_t a, std::uint64_t b, std::uint64_t bin, int w,
                         std::uint64_t& bout) {
  const U128 x = a & width_mask(w), y = U128(b & width_mask(w)) + bin;
  bout = x < y ? 1 : 0;
  return std::uint64_t(x - y) & width_mask(w);
}

// Byte or half-word k of v, zero- or sign-extended.
std::int64_t part(std::uint64_t v, int k, int bits, bool sgn) {
  const std::uint64_t p = (v >> (k * bits)) & width_mask(bits);
  return sgn ? sext(p, bits) : std::int64_t(p);
}

template <typename F>
bool is_class(F v, ptx::TestOp t) {
  switch (t) {
    case ptx::TestOp::Finite:
      return std::isfinite(v);
    case ptx::TestOp::Infinite:
      return std::isinf(v);
    case ptx::TestOp::Number:
      return !std::isnan(v);
    case ptx::TestOp::NotANumber:
      return std::isnan(v);
    case ptx::TestOp::Normal:
      return std::isnormal(v);
    default:  // Subnormal
      return std::fpclassify(v) == FP_SUBNORMAL;
  }
}

}  // namespace

bool exec_int_intrinsic(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x,
                        LaneMask m) {
  const bool carry = ins.has(ptx::kCc) || ins.has(ptx::kCarryIn);
  if (!carry && ins.op < Opcode::Bfind) return false;
  std::uint64_t* d = im.row(w, x.row[0]);
  const std::uint64_t* a = x.row[1] != kNoRow ? im.row(w, x.row[1]) : nullptr;
  const std::uint64_t* b = x.row[2] != kNoRow ? im.row(w, x.row[2]) : nullptr;
  const std::uint64_t* c = x.row[3] != kNoRow ? im.row(w, x.row[3]) : nullptr;
  std::uint64_t* cc = im.row(w, im.cc_row);
  const int bits = x.bits;
  const bool sgn = ptx::is_signed(ins.type);
  if (carry) {
    const bool in = ins.has(ptx::kCarryIn), out = ins.has(ptx::kCc);
    each_lane(m, [&](int l) {
      const std::uint64_t cin = in ? cc[l] & 1 : 0;
      std::uint64_t co = 0, r = 0;
      switch (ins.op) {
        case Opcode::Add:
          r = add_carry(a[l], b[l], cin, bits, co);
          break;
        case Opcode::Sub:
          r = sub_borrow(a[l], b[l], cin, bits, co);
          break;
        default: {  // Mad: the low or high half of a * b, then + c + carry in
          const std::uint64_t wm = width_mask(bits);
          const U128 p =
              sgn ? U128(I128(sext(a[l], bits)) * sext(b[l], bits)) : U128(a[l] & wm) * (b[l] & wm);
          const std::uint64_t half =
              ins.mode == ptx::MulMode::Hi ? std::uint64_t(p >> bits) : std::uint64_t(p);
          r = add_carry(half, c[l], cin, bits, co);
          break;
        }
      }
      d[l] = r;
      if (out) cc[l] = co;
    });
    return true;
  }
  switch (ins.op) {
    case Opcode::Bfind:  // the most significant non-sign bit; .shiftamt: its distance from the top
      each_lane(m, [&](int l) {
        std::uint64_t v = a[l] & width_mask(bits);
        if (sgn && (v >> (bits - 1)) & 1) v = ~v & width_mask(bits);
        if (!v) {
          d[l] = 0xffffffffu;
          return;
        }
        const int pos = std::bit_width(v) - 1;
        d[l] = std::uint64_t(ins.has(ptx::kShfClamp) ? bits - 1 - pos : pos);
      });
      return true;
    case Opcode::Bmsk:  // PTX ISA "bmsk": the mask of b bits from position a (.clamp: each at most
                        // 32; .wrap: each mod 32), bits at or past 32 dropped
      each_lane(m, [&](int l) {
        const bool clamp = ins.has(ptx::kShfClamp);
        const std::uint64_t pos =
            clamp ? std::min<std::uint64_t>(a[l] & 0xffffffffu, 32) : a[l] & 31;
        const std::uint64_t width =
            clamp ? std::min<std::uint64_t>(b[l] & 0xffffffffu, 32) : b[l] & 31;
        const std::uint64_t end = std::min<std::uint64_t>(pos + width, 32);
        d[l] = ((std::uint64_t{1} << end) - 1) & ~((std::uint64_t{1} << pos) - 1) & 0xffffffffu;
      });
      return true;
    case Opcode::Createpolicy:  // an opaque policy (no functional effect): a fixed value
      each_lane(m, [&](int l) { d[l] = 0x0c0de0000000u; });
      return true;
    case Opcode::Fns:  // the offset-th set bit of the mask from base, upward or downward
      each_lane(m, [&](int l) {
        const std::uint32_t mask = std::uint32_t(a[l]);
        const int base = int(b[l] & 31u);
        const std::int32_t offset = std::int32_t(c[l]);
        std::uint64_t r = 0xffffffffu;
        if (offset == 0) {
          if ((mask >> base) & 1) r = std::uint64_t(base);
        } else {
          std::int64_t count = std::abs(std::int64_t(offset)) - 1;
          const int inc = offset > 0 ? 1 : -1;
          for (int pos = base; pos >= 0 && pos < 32; pos += inc) {
            if (!((mask >> pos) & 1)) continue;
            if (count == 0) {
              r = std::uint64_t(pos);
              break;
            }
            --count;
          }
        }
        d[l] = r;
      });
      return true;
    case Opcode::Dp4a:
    case Opcode::Dp2a: {  // c + the products of a's bytes (dp2a: half-words) and b's bytes
      const bool sa = ins.type == Type::S32, sb = ins.type2 == Type::S32;
      const int first = ins.op == Opcode::Dp2a && ins.mode == ptx::MulMode::Hi ? 2 : 0;
      each_lane(m, [&](int l) {
        std::int64_t s = std::int64_t(std::int32_t(c[l]));
        if (ins.op == Opcode::Dp4a)
          for (int k = 0; k < 4; ++k) s += part(a[l], k, 8, sa) * part(b[l], k, 8, sb);
        else
          for (int k = 0; k < 2; ++k) s += part(a[l], k, 16, sa) * part(b[l], first + k, 8, sb);
        d[l] = std::uint64_t(s) & 0xffffffffu;
      });
      return true;
    }
    case Opcode::Mul24:
    case Opcode::Mad24:  // the 48-bit product of the low 24 bits; .lo: bits 0-31, .hi: 16-47
      each_lane(m, [&](int l) {
        const std::int64_t p = sgn ? sext(a[l], 24) * sext(b[l], 24)
                                   : std::int64_t((a[l] & 0xffffffu) * (b[l] & 0xffffffu));
        std::int64_t r = ins.mode == ptx::MulMode::Hi ? (p >> 16) : p;
        if (ins.op == Opcode::Mad24) {
          r = std::int64_t(std::int32_t(std::uint32_t(r))) +
              (sgn ? sext(c[l], 32) : std::int64_t(c[l] & 0xffffffffu));
          if (ins.has(ptx::kSat)) r = std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX);
        }
        d[l] = std::uint64_t(r) & 0xffffffffu;
      });
      return true;
    case Opcode::Sad:  // c + |a - b|
      each_lane(m, [&](int l) {
        std::uint64_t diff;
        if (sgn) {
          const std::int64_t x1 = sext(a[l], bits), y1 = sext(b[l], bits);
          diff = x1 < y1 ? std::uint64_t(y1) - std::uint64_t(x1)
                         : std::uint64_t(x1) - std::uint64_t(y1);
        } else {
          const std::uint64_t x1 = a[l] & width_mask(bits), y1 = b[l] & width_mask(bits);
          diff = x1 < y1 ? y1 - x1 : x1 - y1;
        }
        d[l] = (c[l] + diff) & width_mask(bits);
      });
      return true;
    case Opcode::Testp:
      each_lane(m, [&](int l) {
        if (ins.type == Type::F32) {
          const float f = std::bit_cast<float>(std::uint32_t(a[l]));
          d[l] = is_class(f, ins.test);
        } else {
          d[l] = is_class(std::bit_cast<double>(a[l]), ins.test);
        }
      });
      return true;
    case Opcode::Copysign:  // b's magnitude with a's sign
      each_lane(m, [&](int l) {
        const std::uint64_t sign = ins.type == Type::F32 ? 0x80000000u : 0x8000000000000000u;
        d[l] = ((b[l] & ~sign) | (a[l] & sign)) & width_mask(bits);
      });
      return true;
    default:
      return false;
  }
}

}  // namespace smemsim::exec::detail

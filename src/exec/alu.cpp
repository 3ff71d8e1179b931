// Arithmetic, logic, compare and select instructions over the lanes of a warp (cvt: convert.cpp).
// Register values are 64-bit bit patterns; an instruction reads its operands at its type's width
// (sign-extending signed types) and writes results zero-extended. Floating-point arithmetic uses
// round-to-nearest; .rz/.rm/.rp on add/mul/fma are executed as .rn (docs/exec.md), cvt implements
// every rounding mode. .approx functions use the C library (a few ulp from the GPU's).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/exec_internal.hpp"
#include "exec/float_bits.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::CmpOp;
using ptx::Opcode;
using ptx::Rounding;
using ptx::Type;

struct Ops {
  std::uint64_t* d;
  const std::uint64_t* a;
  const std::uint64_t* b;
  const std::uint64_t* c;
  std::uint64_t na, nb, nc;
};

// Floating-point instruction of type F with `n` sources.
template <typename F, typename Fn>
void float_op(const Ops& o, LaneMask m, bool ftz, bool sat, Fn fn) {
  const bool f = ftz && sizeof(F) == 4;
  each_lane(m, [&](int l) {
    F x = load<F>(o.a[l]);
    F y = o.b ? load<F>(o.b[l]) : F(0);
    F z = o.c ? load<F>(o.c[l]) : F(0);
    if (f) {
      x = flush(x);
      y = flush(y);
      z = flush(z);
    }
    F r = fn(x, y, z);
    if (f) r = flush(r);
    if (sat) r = saturate(r);
    o.d[l] = bits(r);
  });
}

template <typename F>
void float_alu(const ptx::Instruction& ins, const Ops& o, LaneMask m) {
  const bool ftz = ins.has(ptx::kFtz), sat = ins.has(ptx::kSat);
  switch (ins.op) {
    case Opcode::Add:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return x + y; });
    case Opcode::Sub:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return x - y; });
    case Opcode::Mul:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return x * y; });
    case Opcode::Mad:
    case Opcode::Fma:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F z) { return std::fma(x, y, z); });
    case Opcode::Div:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return x / y; });
    case Opcode::Min:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return std::fmin(x, y); });
    case Opcode::Max:
      return float_op<F>(o, m, ftz, sat, [](F x, F y, F) { return std::fmax(x, y); });
    case Opcode::Abs:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::fabs(x); });
    case Opcode::Neg:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return -x; });
    case Opcode::Rcp:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return F(1) / x; });
    case Opcode::Sqrt:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::sqrt(x); });
    case Opcode::Rsqrt:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return F(1) / std::sqrt(x); });
    case Opcode::Sin:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::sin(x); });
    case Opcode::Cos:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::cos(x); });
    case Opcode::Ex2:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::exp2(x); });
    case Opcode::Lg2:
      return float_op<F>(o, m, ftz, sat, [](F x, F, F) { return std::log2(x); });
    default:
      break;
  }
}

// High half of a w-bit product.
inline std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b, int w, bool sgn) {
  if (w == 64) {
    if (sgn)
      return static_cast<std::uint64_t>(
          (static_cast<i128>(static_cast<std::int64_t>(a)) * static_cast<std::int64_t>(b)) >> 64);
    return static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
  }
  if (sgn) return static_cast<std::uint64_t>((sext(a, w) * sext(b, w)) >> w) & width_mask(w);
  return ((a & width_mask(w)) * (b & width_mask(w))) >> w;
}

inline std::uint64_t mul_wide(std::uint64_t a, std::uint64_t b, int w, bool sgn) {
  if (sgn) return static_cast<std::uint64_t>(sext(a, w) * sext(b, w)) & width_mask(2 * w);
  return (a & width_mask(w)) * (b & width_mask(w));
}

void int_alu(const ptx::Instruction& ins, const XInst& x, const Ops& o, LaneMask m) {
  const int w = x.bits;
  const std::uint64_t mask = width_mask(w);
  const bool sgn = ptx::is_signed(ins.type);
  std::uint64_t* d = o.d;
  const std::uint64_t *a = o.a, *b = o.b, *c = o.c;
  switch (ins.op) {
    case Opcode::Mov:
      if (ins.type == Type::Pred)
        each_lane(m, [&](int l) { d[l] = (a[l] ^ o.na) & 1; });
      else
        each_lane(m, [&](int l) { d[l] = a[l] & mask; });
      return;
    case Opcode::Add:
      if (ins.has(ptx::kSat) && sgn) {
        each_lane(m, [&](int l) {
          const std::int64_t r = sext(a[l], 32) + sext(b[l], 32);
          d[l] =
              static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & mask;
        });
      } else {
        each_lane(m, [&](int l) { d[l] = (a[l] + b[l]) & mask; });
      }
      return;
    case Opcode::Sub:
      if (ins.has(ptx::kSat) && sgn) {
        each_lane(m, [&](int l) {
          const std::int64_t r = sext(a[l], 32) - sext(b[l], 32);
          d[l] =
              static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & mask;
        });
      } else {
        each_lane(m, [&](int l) { d[l] = (a[l] - b[l]) & mask; });
      }
      return;
    case Opcode::Mul:
    case Opcode::Mad: {
      const bool mad = ins.op == Opcode::Mad;
      switch (ins.mode) {
        case ptx::MulMode::Hi:
          each_lane(m,
                    [&](int l) { d[l] = (mul_hi(a[l], b[l], w, sgn) + (mad ? c[l] : 0)) & mask; });
          return;
        case ptx::MulMode::Wide: {
          const std::uint64_t m2 = width_mask(2 * w);
          each_lane(m,
                    [&](int l) { d[l] = (mul_wide(a[l], b[l], w, sgn) + (mad ? c[l] : 0)) & m2; });
          return;
        }
        default:
          each_lane(m, [&](int l) { d[l] = (a[l] * b[l] + (mad ? c[l] : 0)) & mask; });
          return;
      }
    }
    case Opcode::Div:
    case Opcode::Rem: {
      const bool div = ins.op == Opcode::Div;
      each_lane(m, [&](int l) {
        if (sgn) {
          const std::int64_t x1 = sext(a[l], w), y1 = sext(b[l], w);
          std::int64_t r;
          if (y1 == 0)
            r = div ? -1 : x1;
          else if (y1 == -1)
            r = div ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(x1)) : 0;
          else
            r = div ? x1 / y1 : x1 % y1;
          d[l] = static_cast<std::uint64_t>(r) & mask;
        } else {
          const std::uint64_t x1 = a[l] & mask, y1 = b[l] & mask;
          d[l] = y1 == 0 ? (div ? mask : x1) : (div ? x1 / y1 : x1 % y1);
        }
      });
      return;
    }
    case Opcode::Min:
    case Opcode::Max: {
      const bool mn = ins.op == Opcode::Min;
      each_lane(m, [&](int l) {
        bool less;
        if (sgn)
          less = sext(a[l], w) < sext(b[l], w);
        else
          less = (a[l] & mask) < (b[l] & mask);
        d[l] = ((less == mn) ? a[l] : b[l]) & mask;
      });
      return;
    }
    case Opcode::Abs:
      each_lane(m, [&](int l) {
        const std::int64_t v = sext(a[l], w);
        d[l] = (v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v)) & mask;
      });
      return;
    case Opcode::Neg:
      each_lane(m, [&](int l) { d[l] = (0 - a[l]) & mask; });
      return;
    case Opcode::And:
      each_lane(m, [&](int l) { d[l] = ((a[l] ^ o.na) & (b[l] ^ o.nb)) & mask; });
      return;
    case Opcode::Or:
      each_lane(m, [&](int l) { d[l] = ((a[l] ^ o.na) | (b[l] ^ o.nb)) & mask; });
      return;
    case Opcode::Xor:
      each_lane(m, [&](int l) { d[l] = ((a[l] ^ o.na) ^ (b[l] ^ o.nb)) & mask; });
      return;
    case Opcode::Not:
      each_lane(m, [&](int l) { d[l] = ~(a[l] ^ o.na) & mask; });
      return;
    case Opcode::Shl:
      each_lane(m, [&](int l) {
        const std::uint64_t s = b[l] & 0xffffffffu;
        d[l] = s >= std::uint64_t(w) ? 0 : (a[l] << s) & mask;
      });
      return;
    case Opcode::Shr:
      each_lane(m, [&](int l) {
        const std::uint64_t s = b[l] & 0xffffffffu;
        if (sgn) {
          const std::int64_t v = sext(a[l], w);
          d[l] = static_cast<std::uint64_t>(v >> (s >= std::uint64_t(w) ? w - 1 : s)) & mask;
        } else {
          d[l] = s >= std::uint64_t(w) ? 0 : (a[l] & mask) >> s;
        }
      });
      return;
    case Opcode::Shf: {
      const bool left = ins.has(ptx::kShfLeft), clamp = ins.has(ptx::kShfClamp);
      each_lane(m, [&](int l) {
        const std::uint64_t cc = c[l] & 0xffffffffu;
        const std::uint64_t n = clamp ? std::min<std::uint64_t>(cc, 32) : (cc & 31);
        const std::uint64_t v = ((b[l] & 0xffffffffu) << 32) | (a[l] & 0xffffffffu);
        d[l] = left ? (n == 64 ? 0 : ((v << n) >> 32) & 0xffffffffu) : (v >> n) & 0xffffffffu;
      });
      return;
    }
    case Opcode::Popc:
      each_lane(m, [&](int l) { d[l] = static_cast<std::uint64_t>(std::popcount(a[l] & mask)); });
      return;
    case Opcode::Clz:
      each_lane(m, [&](int l) {
        d[l] = static_cast<std::uint64_t>(w - static_cast<int>(std::bit_width(a[l] & mask)));
      });
      return;
    case Opcode::Brev:
      each_lane(m, [&](int l) {
        std::uint64_t v = a[l], r = 0;
        for (int i = 0; i < w; ++i, v >>= 1) r = (r << 1) | (v & 1);
        d[l] = r;
      });
      return;
    case Opcode::Bfe:  // PTX ISA: bits pos .. pos + len - 1 of a; signed types extend the top one
      each_lane(m, [&](int l) {
        const std::uint64_t pos = b[l] & 0xff, len = c[l] & 0xff;
        const std::uint64_t msb = std::uint64_t(w - 1);
        const std::uint64_t top = std::min(pos + len - 1, msb);
        const std::uint64_t sbit = sgn && len ? (a[l] >> top) & 1 : 0;
        std::uint64_t r = 0;
        for (std::uint64_t i = 0; i <= msb; ++i) {
          const std::uint64_t bit = (i < len && pos + i <= msb) ? (a[l] >> (pos + i)) & 1 : sbit;
          r |= bit << i;
        }
        d[l] = r & mask;
      });
      return;
    case Opcode::Prmt:  // bytes 0..7 of {b, a}; PTX ISA "prmt"
      each_lane(m, [&](int l) {
        const std::uint64_t t = ((b[l] & 0xffffffffu) << 32) | (a[l] & 0xffffffffu);
        const std::uint64_t ctl = c[l] & 3;  // the modes read c's two low bits
        std::uint64_t r = 0;
        for (std::uint64_t n = 0; n < 4; ++n) {
          // Default mode: byte n of d is byte (c >> 4n) & 7, bit 3 replicating its sign. The modes'
          // table rows, in closed form: f4e ctl + n, b4e ctl - n (mod 8), rc8 ctl, ecl max(n, ctl),
          // ecr min(n, ctl), rc16 half ctl & 1.
          std::uint64_t sel = 0;
          switch (ins.comp) {
            case 0:
              sel = (c[l] >> (4 * n)) & 0xf;
              break;
            case 1:
              sel = (ctl + n) & 7;
              break;
            case 2:
              sel = (ctl - n) & 7;
              break;
            case 3:
              sel = ctl;
              break;
            case 4:
              sel = std::max(n, ctl);
              break;
            case 5:
              sel = std::min(n, ctl);
              break;
            default:
              sel = (ctl & 1) * 2 + (n & 1);
              break;
          }
          std::uint64_t byte = (t >> (8 * (sel & 7))) & 0xff;
          if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * n);
        }
        d[l] = r;
      });
      return;
    default:
      return;
  }
}

// Comparison of two operands read with type t.
template <typename T>
inline bool cmp_ordered(CmpOp op, T x, T y) {
  switch (op) {
    case CmpOp::Eq:
      return x == y;
    case CmpOp::Ne:
      return x != y;
    case CmpOp::Lt:
    case CmpOp::Lo:
      return x < y;
    case CmpOp::Le:
    case CmpOp::Ls:
      return x <= y;
    case CmpOp::Gt:
    case CmpOp::Hi:
      return x > y;
    case CmpOp::Ge:
    case CmpOp::Hs:
      return x >= y;
    default:
      return false;
  }
}

inline bool compare(CmpOp op, Type t, int w, std::uint64_t a, std::uint64_t b) {
  if (t == Type::F32 || t == Type::F64) {
    const double x = t == Type::F32 ? double(f32(a)) : f64(a);
    const double y = t == Type::F32 ? double(f32(b)) : f64(b);
    return float_compare(op, x, y);
  }
  const bool unsigned_op = op == CmpOp::Lo || op == CmpOp::Ls || op == CmpOp::Hi || op == CmpOp::Hs;
  if (ptx::is_signed(t) && !unsigned_op) return cmp_ordered(op, sext(a, w), sext(b, w));
  const std::uint64_t mask = width_mask(w);
  return cmp_ordered(op, a & mask, b & mask);
}

}  // namespace

bool float_compare(CmpOp op, double x, double y) {
  const bool nan = std::isnan(x) || std::isnan(y);
  switch (op) {
    case CmpOp::Num:
      return !nan;
    case CmpOp::Nan:
      return nan;
    case CmpOp::Equ:
      return nan || x == y;
    case CmpOp::Neu:
      return nan || x != y;
    case CmpOp::Ltu:
      return nan || x < y;
    case CmpOp::Leu:
      return nan || x <= y;
    case CmpOp::Gtu:
      return nan || x > y;
    case CmpOp::Geu:
      return nan || x >= y;
    default:
      return !nan && cmp_ordered(op, x, y);
  }
}

namespace {

inline bool combine(ptx::BoolOp op, bool r, bool c) {
  switch (op) {
    case ptx::BoolOp::And:
      return r && c;
    case ptx::BoolOp::Or:
      return r || c;
    case ptx::BoolOp::Xor:
      return r != c;
    default:
      return r;
  }
}

}  // namespace

void exec_alu(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  if (exec_int_intrinsic(im, w, ins, x, m)) return;
  if (exec_half(im, w, ins, x, m)) return;
  Ops o{im.row(w, x.row[0]),
        x.row[1] != kNoRow ? im.row(w, x.row[1]) : nullptr,
        x.row[2] != kNoRow ? im.row(w, x.row[2]) : nullptr,
        x.row[3] != kNoRow ? im.row(w, x.row[3]) : nullptr,
        x.negated(1),
        x.negated(2),
        x.negated(3)};
  switch (ins.op) {
    case Opcode::Setp: {
      std::uint64_t* q = x.row[4] != kNoRow ? im.row(w, x.row[4]) : nullptr;
      each_lane(m, [&](int l) {
        const bool r = compare(ins.cmp, ins.type, x.bits, o.a[l], o.b[l]);
        const bool c = o.c ? ((o.c[l] ^ o.nc) & 1) : false;
        o.d[l] = combine(ins.bool_op, r, c);
        if (q) q[l] = combine(ins.bool_op, !r, c);
      });
      return;
    }
    case Opcode::Set: {
      const bool float_dst = ptx::is_float(ins.type);
      const std::uint64_t one = float_dst ? bits(1.0f) : width_mask(x.bits);
      const int bits2 = ptx::type_bits(ins.type2);
      each_lane(m, [&](int l) {
        const bool r = compare(ins.cmp, ins.type2, bits2, o.a[l], o.b[l]);
        const bool c = o.c ? ((o.c[l] ^ o.nc) & 1) : false;
        o.d[l] = combine(ins.bool_op, r, c) ? one : 0;
      });
      return;
    }
    case Opcode::Selp: {
      const std::uint64_t mask = width_mask(x.bits);
      each_lane(m, [&](int l) { o.d[l] = (((o.c[l] ^ o.nc) & 1) ? o.a[l] : o.b[l]) & mask; });
      return;
    }
    case Opcode::Cvt: {
      const std::uint64_t mask = width_mask(x.dst_bits);
      each_lane(m, [&](int l) { o.d[l] = convert(o.a[l], ins) & mask; });
      return;
    }
    case Opcode::Bfi: {  // PTX ISA: b with bits pos .. pos + len - 1 replaced by a's low bits
      const std::uint64_t* len = im.row(w, x.row[4]);
      const std::uint64_t msb = std::uint64_t(x.bits - 1);
      each_lane(m, [&](int l) {
        const std::uint64_t pos = o.c[l] & 0xff, n = len[l] & 0xff;
        std::uint64_t r = o.b[l];
        for (std::uint64_t i = 0; i < n && pos + i <= msb; ++i)
          r = (r & ~(std::uint64_t{1} << (pos + i))) | (((o.a[l] >> i) & 1) << (pos + i));
        o.d[l] = r & width_mask(x.bits);
      });
      return;
    }
    default:
      break;
  }
  if (ins.type == Type::F32 && ins.op != Opcode::Mov) return float_alu<float>(ins, o, m);
  if (ins.type == Type::F64 && ins.op != Opcode::Mov) return float_alu<double>(ins, o, m);
  int_alu(ins, x, o, m);
}

}  // namespace smemsim::exec::detail

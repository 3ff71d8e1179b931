// Half precision in the executor (issue 16, PTX ISA "Half Precision Floating-Point Instructions"):
// add/sub/mul/fma/min/max/neg/abs on .f16, .bf16 and the pairs .f16x2/.bf16x2 (each half on its
// own, the lower half first), setp on halves, cvt to a pair from two f32, and mov's packing of
// registers into a wider one and back. Arithmetic is carried out in double and rounded once to the
// half format with the instruction's rounding (.rn by default): exact for f16 add, sub and mul,
// whose results fit a double, and for fma and bf16 within double's 53 bits before that rounding.
#include <bit>
#include <cmath>
#include <limits>

#include "exec/exec_internal.hpp"
#include "exec/half.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Opcode;
using ptx::Rounding;
using ptx::Type;

struct HalfOp {
  SmallFloat fmt;
  Rounding r;
  bool ftz, sat, relu, nan_prop;
};

// .ftz: a subnormal becomes a zero of its sign.
double flush_small(double v, SmallFloat f) {
  const double min_normal = std::ldexp(1.0, 2 - (1 << (f.exp_bits - 1)));
  return v != 0 && std::isfinite(v) && std::fabs(v) < min_normal ? std::copysign(0.0, v) : v;
}

std::uint32_t encode(double v, const HalfOp& h) {
  if (h.ftz) v = flush_small(v, h.fmt);
  if (h.sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
  if (h.relu && !std::isnan(v) && v < 0) v = 0.0;
  const std::uint32_t b = double_to_small(v, h.fmt, h.r == Rounding::None ? Rounding::Rn : h.r);
  if (!h.ftz) return b;
  // A result that rounded to a subnormal is flushed too.
  const double r = small_to_double(b, h.fmt);
  return r == flush_small(r, h.fmt) ? b : b & (1u << (h.fmt.exp_bits + h.fmt.man_bits));
}

double decode(std::uint32_t b, const HalfOp& h) {
  const double v = small_to_double(b & 0xffff, h.fmt);
  return h.ftz ? flush_small(v, h.fmt) : v;
}

// max/min: a NaN operand yields the other (both NaN: NaN); .NaN: any NaN yields NaN. -0 < +0.
double minmax(double x, double y, bool max, bool nan_prop) {
  const bool nx = std::isnan(x), ny = std::isnan(y);
  if (nx || ny) {
    if (nan_prop || (nx && ny)) return std::numeric_limits<double>::quiet_NaN();
    return nx ? y : x;
  }
  if (x == y) return (std::signbit(x) != max) ? x : y;  // max(-0, +0) = +0, min = -0
  return (x > y) == max ? x : y;
}

// One half of a half instruction: its result pattern from the operands' 16-bit patterns.
std::uint32_t half_result(const ptx::Instruction& ins, const HalfOp& h, std::uint32_t a,
                          std::uint32_t b, std::uint32_t c) {
  const std::uint32_t sign = 1u << 15;
  switch (ins.op) {
    case Opcode::Neg:
      return (a ^ sign) & 0xffff;
    case Opcode::Abs:
      return a & ~sign & 0xffff;
    default:
      break;
  }
  const double x = decode(a, h), y = decode(b, h), z = decode(c, h);
  double v = 0;
  switch (ins.op) {
    case Opcode::Add:
      v = x + y;
      break;
    case Opcode::Sub:
      v = x - y;
      break;
    case Opcode::Mul:
      v = x * y;
      break;
    case Opcode::Fma:
    case Opcode::Mad:
      v = std::fma(x, y, z);
      break;
    case Opcode::Min:
    case Opcode::Max:
      v = minmax(x, y, ins.op == Opcode::Max, h.nan_prop);  // a NaN result: the canonical NaN
      break;
    default:
      break;
  }
  return encode(v, h) & 0xffff;
}

}  // namespace

bool half_arithmetic(Opcode op) {
  switch (op) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Fma:
    case Opcode::Mad:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Neg:
    case Opcode::Abs:
      return true;
    default:
      return false;
  }
}

namespace {

// mov d, {a, b, ...}: the elements side by side, the first lowest; mov {d, e, ...}, a: the reverse.
void pack_unpack(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  const ptx::Operand& v = ins.ops[ins.ops[0].kind == ptx::OperandKind::Vector ? 0 : 1];
  const int n = v.count;
  const int ew = ptx::type_bits(ins.type) / n;
  const std::uint64_t emask = width_mask(ew);
  if (&v == &ins.ops[1]) {  // pack
    std::uint64_t* d = im.row(w, x.row[0]);
    each_lane(m, [&](int l) {
      std::uint64_t r = 0;
      for (int k = 0; k < n; ++k)
        r |= (im.row(w, im.reg_row(im.vector_row(v, k, ins)))[l] & emask) << (k * ew);
      d[l] = r;
    });
    return;
  }
  const std::uint64_t* a = im.row(w, x.row[1]);
  each_lane(m, [&](int l) {
    const std::uint64_t s = a[l];  // read before writing: a destination may be the source
    for (int k = 0; k < n; ++k)
      im.row(w, im.reg_row(im.kernel.vec(v, k)))[l] = (s >> (k * ew)) & emask;
  });
}

}  // namespace

bool exec_half(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  if (ins.op == Opcode::Mov && (ins.ops[0].kind == ptx::OperandKind::Vector ||
                                ins.ops[1].kind == ptx::OperandKind::Vector)) {
    pack_unpack(im, w, ins, x, m);
    return true;
  }
  const bool pair = ins.type == Type::F16X2 || ins.type == Type::BF16X2;
  if (ins.op == Opcode::Cvt && pair) {  // cvt.rn.f16x2.f32 d, a, b: d = {cvt(b) low, cvt(a) high}
    const HalfOp h{half_format(ins.type), ins.rounding,        false,
                   ins.has(ptx::kSat),    ins.has(ptx::kRelu), false};
    std::uint64_t* d = im.row(w, x.row[0]);
    const std::uint64_t* a = im.row(w, x.row[1]);
    const std::uint64_t* b = im.row(w, x.row[2]);
    each_lane(m, [&](int l) {
      const double hi = std::bit_cast<float>(static_cast<std::uint32_t>(a[l]));
      const double lo = std::bit_cast<float>(static_cast<std::uint32_t>(b[l]));
      d[l] = (std::uint64_t(encode(hi, h) & 0xffff) << 16) | (encode(lo, h) & 0xffff);
    });
    return true;
  }
  if (!ptx::is_half(ins.type)) return false;
  const HalfOp h{half_format(ins.type), ins.rounding,        ins.has(ptx::kFtz),
                 ins.has(ptx::kSat),    ins.has(ptx::kRelu), ins.has(ptx::kNaN)};
  const int halves = pair ? 2 : 1;
  auto rowp = [&](std::size_t i) { return x.row[i] != kNoRow ? im.row(w, x.row[i]) : nullptr; };
  if (ins.op == Opcode::Setp) {  // setp.f16x2 p|q: p compares the lower halves, q the upper
    std::uint64_t* p = im.row(w, x.row[0]);
    std::uint64_t* q = rowp(4);
    const std::uint64_t *a = rowp(1), *b = rowp(2), *c = rowp(3);
    each_lane(m, [&](int l) {
      for (int k = 0; k < halves; ++k) {
        const double xa = decode(std::uint32_t(a[l] >> (16 * k)), h);
        const double xb = decode(std::uint32_t(b[l] >> (16 * k)), h);
        bool r = float_compare(ins.cmp, xa, xb);
        if (c) {
          const bool cv = ((c[l] ^ x.negated(3)) & 1) != 0;
          r = ins.bool_op == ptx::BoolOp::And   ? r && cv
              : ins.bool_op == ptx::BoolOp::Or  ? r || cv
              : ins.bool_op == ptx::BoolOp::Xor ? r != cv
                                                : r;
        }
        if (k == 0) p[l] = r;
        if (k == 1 && q) q[l] = r;
      }
    });
    return true;
  }
  if (!half_arithmetic(ins.op)) return false;
  std::uint64_t* d = im.row(w, x.row[0]);
  const std::uint64_t *a = rowp(1), *b = rowp(2), *c = rowp(3);
  each_lane(m, [&](int l) {
    std::uint64_t r = 0;
    for (int k = 0; k < halves; ++k) {
      const auto half = [&](const std::uint64_t* v) {
        return v ? static_cast<std::uint32_t>((v[l] >> (16 * k)) & 0xffff) : 0u;
      };
      r |= std::uint64_t(half_result(ins, h, half(a), half(b), half(c))) << (16 * k);
    }
    d[l] = r;
  });
  return true;
}

}  // namespace smemsim::exec::detail

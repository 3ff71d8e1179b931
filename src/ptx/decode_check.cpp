// The operand layouts and modifier combinations each opcode must have (ptx.hpp's table above
// struct Instruction); a violation is an error naming the PTX line.
#include <fmt/format.h>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {

void Decoder::check_modifiers() {
  switch (ins_.op) {
    case Opcode::Ld:
    case Opcode::St:
      if (ins_.space == Space::None) ins_.space = Space::Generic;
      if (ins_.op == Opcode::St && (ins_.space == Space::Const))
        malformed("st cannot write the .const space");
      if (ins_.has(kNc) && ins_.space != Space::Global) malformed("ld.nc needs the .global space");
      break;
    case Opcode::Atom:
    case Opcode::Red:
      if (ins_.space == Space::None) ins_.space = Space::Generic;
      if (ins_.space != Space::Generic && ins_.space != Space::Global &&
          ins_.space != Space::Shared)
        malformed(fmt::format("'{}' needs the .global or .shared space", m_.text));
      if (ins_.atom == AtomOp::None)
        malformed(fmt::format("'{}' needs an operation (.add, .cas, ...)", m_.text));
      if (ins_.op == Opcode::Red && ins_.atom == AtomOp::Cas) unsupported();
      break;
    case Opcode::Cvta:
      if (ins_.space == Space::None || ins_.space == Space::Generic)
        malformed(fmt::format("'{}' needs a state space", m_.text));
      if (ins_.type != Type::U32 && ins_.type != Type::U64) malformed("cvta needs .u32 or .u64");
      break;
    case Opcode::Setp:
    case Opcode::Set:
      if (ins_.cmp == CmpOp::None) malformed(fmt::format("'{}' needs a comparison", m_.text));
      break;
    case Opcode::Bar:
      if (!seen_sync_ && m_.text.substr(0, 7) == "barrier")
        malformed("barrier needs .sync, .arrive or .red");
      if (ins_.has(kBarRed)) {
        const AtomOp o = ins_.atom;
        if (o != AtomOp::Add && o != AtomOp::And && o != AtomOp::Or)
          malformed(fmt::format("'{}' needs .popc, .and or .or", m_.text));
        if (ins_.type != (o == AtomOp::Add ? Type::U32 : Type::Pred))
          malformed(
              fmt::format("'{}' needs the type {}", m_.text, o == AtomOp::Add ? ".u32" : ".pred"));
      }
      break;
    case Opcode::Mul:
      if (!is_float(ins_.type) && ins_.mode == MulMode::None)
        malformed(fmt::format("integer '{}' needs .lo, .hi or .wide", m_.text));
      break;
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mad:
      if ((ins_.has(kCc) || ins_.has(kCarryIn)) &&
          (is_float(ins_.type) || type_bits(ins_.type) < 32 || ins_.has(kSat)))
        malformed(
            fmt::format("'{}': carries need a 32- or 64-bit integer type, without .sat", m_.text));
      if (ins_.op == Opcode::Mad && !is_float(ins_.type) && ins_.mode == MulMode::None)
        malformed(fmt::format("integer '{}' needs .lo, .hi or .wide", m_.text));
      if ((ins_.has(kCc) || ins_.has(kCarryIn)) && ins_.mode == MulMode::Wide)
        malformed(fmt::format("'{}': carries go with .lo or .hi", m_.text));
      break;
    case Opcode::Bfind:
      if (ins_.type != Type::U32 && ins_.type != Type::S32 && ins_.type != Type::U64 &&
          ins_.type != Type::S64)
        malformed(fmt::format("'{}' needs .u32, .s32, .u64 or .s64", m_.text));
      break;
    case Opcode::Fns:
      if (ins_.type != Type::B32) malformed(fmt::format("'{}' needs the type .b32", m_.text));
      break;
    case Opcode::Dp4a:
    case Opcode::Dp2a:
      for (const Type t : {ins_.type, ins_.type2})
        if (t != Type::U32 && t != Type::S32)
          malformed(fmt::format("'{}' needs two types, each .u32 or .s32", m_.text));
      if (ins_.op == Opcode::Dp2a && ins_.mode != MulMode::Lo && ins_.mode != MulMode::Hi)
        malformed(fmt::format("'{}' needs .lo or .hi", m_.text));
      break;
    case Opcode::Mul24:
    case Opcode::Mad24:
      if (ins_.mode != MulMode::Lo && ins_.mode != MulMode::Hi)
        malformed(fmt::format("'{}' needs .lo or .hi", m_.text));
      if (ins_.type != Type::U32 && ins_.type != Type::S32)
        malformed(fmt::format("'{}' needs .u32 or .s32", m_.text));
      if (ins_.has(kSat) && (ins_.mode != MulMode::Hi || ins_.type != Type::S32))
        malformed(fmt::format("'{}': .sat goes with .hi.s32 only", m_.text));
      break;
    case Opcode::Sad:
      if (is_float(ins_.type) || type_bits(ins_.type) < 16)
        malformed(fmt::format("'{}' needs a 16-, 32- or 64-bit integer type", m_.text));
      break;
    case Opcode::Testp:
      if (ins_.test == TestOp::None)
        malformed(
            fmt::format("'{}' needs a test: .finite, .infinite, .number, .notanumber, "
                        ".normal or .subnormal",
                        m_.text));
      [[fallthrough]];
    case Opcode::Copysign:
      if (ins_.type != Type::F32 && ins_.type != Type::F64)
        malformed(fmt::format("'{}' needs .f32 or .f64", m_.text));
      break;
    case Opcode::Shf:
      if (!seen_dir_ || !seen_mode_) malformed("shf needs .l or .r and .wrap or .clamp");
      break;
    case Opcode::Bmsk:
      if (seen_dir_ || !seen_mode_ || ins_.type != Type::B32)
        malformed(fmt::format("'{}': bmsk needs .clamp or .wrap and the type .b32", m_.text));
      break;
    case Opcode::Createpolicy:
      if (ins_.type != Type::B64)
        malformed(fmt::format("'{}': createpolicy needs the type .b64", m_.text));
      break;
    case Opcode::Shfl:
      if (ins_.warp == WarpMode::None)
        malformed(fmt::format("'{}' needs a mode: .up, .down, .bfly or .idx", m_.text));
      if (ins_.type != Type::B32) malformed(fmt::format("'{}' needs the type .b32", m_.text));
      break;
    case Opcode::Vote:
      if (ins_.warp == WarpMode::None)
        malformed(fmt::format("'{}' needs a mode: .all, .any, .uni or .ballot", m_.text));
      if (ins_.type != (ins_.warp == WarpMode::Ballot ? Type::B32 : Type::Pred))
        malformed(fmt::format("'{}' needs the type {}", m_.text,
                              ins_.warp == WarpMode::Ballot ? ".b32" : ".pred"));
      break;
    case Opcode::Match:
      if (!ins_.has(kSync) || ins_.warp == WarpMode::None)
        malformed(fmt::format("'{}' needs .sync and .any or .all", m_.text));
      if (ins_.type != Type::B32 && ins_.type != Type::B64)
        malformed(fmt::format("'{}' needs the type .b32 or .b64", m_.text));
      break;
    case Opcode::Redux: {
      if (!ins_.has(kSync)) malformed(fmt::format("'{}' needs .sync", m_.text));
      const AtomOp o = ins_.atom;
      const bool arith = o == AtomOp::Add || o == AtomOp::Min || o == AtomOp::Max;
      const bool logic = o == AtomOp::And || o == AtomOp::Or || o == AtomOp::Xor;
      if (!arith && !logic)
        malformed(fmt::format("'{}' needs .add, .min, .max, .and, .or or .xor", m_.text));
      if (arith ? ins_.type != Type::U32 && ins_.type != Type::S32 : ins_.type != Type::B32)
        malformed(fmt::format("'{}' needs the type {}", m_.text, arith ? ".u32 or .s32" : ".b32"));
      break;
    }
    case Opcode::Activemask:
      if (ins_.type != Type::B32) malformed("activemask needs the type .b32");
      break;
    default:
      break;
  }
}

void Decoder::warp_operands() {
  const std::size_t n = ins_.num_ops;
  const bool sync = ins_.has(kSync);
  const std::size_t want = ins_.op == Opcode::Shfl         ? (sync ? 5 : 4)
                           : ins_.op == Opcode::Vote       ? (sync ? 3 : 2)
                           : ins_.op == Opcode::Activemask ? 1
                           : ins_.op == Opcode::BarWarp    ? 1
                                                           : 3;
  if (n != want)
    malformed(
        fmt::format("'{}' needs {} operand{}, got {}", m_.text, want, want == 1 ? "" : "s", n));
  if (ins_.op == Opcode::BarWarp) {
    need(0, is_value(0) && ins_.ops[0].kind != OperandKind::Symbol,
         "a register or integer member mask");
    if (ins_.ops[0].kind == OperandKind::Reg &&
        type_bits(kb_.kernel.regs[ins_.ops[0].reg].type) != 32)
      malformed(fmt::format("the member mask of '{}' must be a 32-bit register or an immediate",
                            m_.text));
    return;
  }
  const bool pred_dst = ins_.op == Opcode::Vote && ins_.warp != WarpMode::Ballot;
  need(0, is_reg(0) && is_pred(0) == pred_dst,
       pred_dst ? "a predicate register" : "a non-predicate register");
  if (ins_.has(kPredOut)) {
    if (ins_.op == Opcode::Match && ins_.warp != WarpMode::All)
      malformed("only match.all has a predicate destination (d|p)");
    need(5, is_reg(5) && is_pred(5), "a predicate register");
  }
  // The member mask (the last operand of a .sync form) is a 32-bit value: one bit per lane.
  if (sync && ins_.ops[n - 1].kind == OperandKind::Reg &&
      type_bits(kb_.kernel.regs[ins_.ops[n - 1].reg].type) != 32)
    malformed(
        fmt::format("the member mask of '{}' must be a 32-bit register or an immediate, "
                    "'{}' is {}-bit",
                    m_.text, kb_.kernel.regs[ins_.ops[n - 1].reg].name,
                    type_bits(kb_.kernel.regs[ins_.ops[n - 1].reg].type)));
  for (std::size_t i = 1; i < n; ++i) {
    const bool pred_src = ins_.op == Opcode::Vote && i == 1;
    if (pred_src) {
      need(i, is_pred(i), "a predicate");
      continue;
    }
    need(i, is_value(i) && ins_.ops[i].kind != OperandKind::Symbol && !ins_.ops[i].negate,
         "a register or immediate");
  }
}

void Decoder::mov_vector_operands() {
  const bool pack = ins_.ops[1].kind == OperandKind::Vector;
  const Operand& v = ins_.ops[pack ? 1 : 0];
  if (ins_.ops[pack ? 0 : 1].kind == OperandKind::Vector)
    malformed(fmt::format("'{}' moves between a register and a vector", m_.text));
  if ((v.count != 2 && v.count != 4) || type_bits(ins_.type) < 16 || ins_.type == Type::Pred)
    malformed(fmt::format("'{}' packs 2 or 4 elements into a 16-, 32- or 64-bit value", m_.text));
  if (pack)
    need(0, is_reg(0), "a register");
  else
    need(1, is_value(1) && ins_.ops[1].kind != OperandKind::Symbol, "a register or immediate");
  for (int k = 0; k < v.count; ++k)
    if (!pack && is_vec_imm(kb_.kernel.vec(v, k)))
      malformed(fmt::format("'{}': unpacking needs registers", m_.text));
}

void Decoder::check_operands() {
  const std::size_t n = ins_.num_ops;
  if (ins_.op == Opcode::Mov &&
      (ins_.ops[0].kind == OperandKind::Vector || ins_.ops[1].kind == OperandKind::Vector))
    return mov_vector_operands();
  if (ins_.op == Opcode::Cvt && (n == 3) != (ins_.type == Type::F16X2 || ins_.type == Type::BF16X2))
    malformed(
        fmt::format("'{}': two sources go with a pair destination (.f16x2, .bf16x2)", m_.text));
  const bool mem0 = ins_.op == Opcode::St || ins_.op == Opcode::Red;
  const bool mem1 = ins_.op == Opcode::Ld || ins_.op == Opcode::Atom;
  if (mem0 || mem1)
    need(mem0 ? 0 : 1, ins_.ops[mem0 ? 0 : 1].kind == OperandKind::Memory, "an address [..]");
  switch (ins_.op) {
    case Opcode::Ld:
      need(0,
           ins_.vec == 1 ? is_reg(0)
                         : ins_.ops[0].kind == OperandKind::Vector && ins_.ops[0].count == ins_.vec,
           ins_.vec == 1 ? "a register" : "a vector of matching width");
      return;
    case Opcode::St:
      need(1,
           ins_.vec == 1 ? is_value(1) && ins_.ops[1].kind != OperandKind::Symbol
                         : ins_.ops[1].kind == OperandKind::Vector && ins_.ops[1].count == ins_.vec,
           ins_.vec == 1 ? "a register or immediate" : "a vector of matching width");
      return;
    case Opcode::Atom:
      need(0, is_reg(0), "a register");
      for (std::size_t i = 2; i < n; ++i) need(i, is_value(i), "a register or immediate");
      if ((ins_.atom == AtomOp::Cas) != (n == 4))
        malformed(fmt::format("'{}' needs {} operands", m_.text, ins_.atom == AtomOp::Cas ? 4 : 3));
      return;
    case Opcode::Red:
      need(1, is_value(1), "a register or immediate");
      return;
    case Opcode::Bra:
      return;
    case Opcode::Bar:
      if (ins_.has(kBarRed)) {  // d, a {, b}, {!}c
        need(0, is_reg(0) && is_pred(0) == (ins_.type == Type::Pred),
             ins_.type == Type::Pred ? "a predicate register" : "a 32-bit register");
        need(n - 1, is_pred(n - 1), "a predicate");
        for (std::size_t i = 1; i + 1 < n; ++i)
          need(i, is_reg(i) || ins_.ops[i].kind == OperandKind::ImmInt, "a register or integer");
        return;
      }
      if (ins_.has(kArrive) && n != 2)
        malformed(fmt::format("'{}' needs a barrier and a thread count", m_.text));
      for (std::size_t i = 0; i < n; ++i)
        need(i, is_reg(i) || ins_.ops[i].kind == OperandKind::ImmInt, "a register or integer");
      return;
    case Opcode::Setp:
      need(0, is_pred(0) && is_reg(0), "a predicate register");
      if (ins_.has(kSetpQ)) need(4, is_pred(4) && is_reg(4), "a predicate register");
      if ((n == 4) != (ins_.bool_op != BoolOp::None))
        malformed(fmt::format("'{}': a combining predicate goes with .and/.or/.xor", m_.text));
      if (n == 4) need(3, is_pred(3), "a predicate");
      for (std::size_t i = 1; i < 3; ++i) need(i, is_value(i), "a register or immediate");
      return;
    case Opcode::Set:
      need(0, is_reg(0), "a register");
      if ((n == 4) != (ins_.bool_op != BoolOp::None))
        malformed(fmt::format("'{}': a combining predicate goes with .and/.or/.xor", m_.text));
      if (n == 4) need(3, is_pred(3), "a predicate");
      for (std::size_t i = 1; i < 3; ++i) need(i, is_value(i), "a register or immediate");
      return;
    case Opcode::Shfl:
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
    case Opcode::Activemask:
    case Opcode::BarWarp:
      warp_operands();
      return;
    case Opcode::Prefetch:
      need(0, ins_.ops[0].kind == OperandKind::Memory, "an address [..]");
      return;
    case Opcode::Createpolicy:  // the fraction, range or property: no functional effect
      need(0, is_reg(0), "a register");
      return;
    case Opcode::Selp:
      need(0, is_reg(0), "a register");
      need(3, is_pred(3), "a predicate");
      for (std::size_t i = 1; i < 3; ++i) need(i, is_value(i), "a register or immediate");
      return;
    default:
      if (n > 0) need(0, is_reg(0), "a register");
      for (std::size_t i = 1; i < n; ++i) {
        need(i, is_value(i), "a register or immediate");
        if (ins_.ops[i].negate && ins_.type != Type::Pred)
          malformed("'!' only applies to predicates");
      }
      if (ins_.op != Opcode::Mov && ins_.op != Opcode::Cvta)
        for (std::size_t i = 1; i < n; ++i)
          if (ins_.ops[i].kind == OperandKind::Symbol) need(i, false, "a register or immediate");
      return;
  }
}

std::vector<std::string_view> Decoder::split_modifiers(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t d = text.find('.');
    out.push_back(text.substr(0, d));
    text = d == std::string_view::npos ? std::string_view() : text.substr(d + 1);
  }
  return out;
}

void Decoder::refuse(const std::string& why) {
  throw UnsupportedInstruction{m_.line,
                               fmt::format("unsupported PTX instruction '{}' ({})", m_.text, why)};
}

void Decoder::read_list(std::initializer_list<std::size_t> memory_at, std::size_t sink_at) {
  std::size_t n = 0;
  while (!cur_.peek().is(';') && !cur_.at_end()) {
    if (n == ins_.ops.size()) malformed(fmt::format("'{}' has too many operands", m_.text));
    if (n > 0) cur_.expect(',', fmt::format("between operands of '{}'", m_.text));
    if (n == sink_at && cur_.peek().kind == TokKind::Word && cur_.peek().text == "_") {
      cur_.next();
      ins_.ops[n].kind = OperandKind::None;
    } else {
      bool mem = false;
      for (std::size_t m : memory_at) mem |= m == n;
      ins_.ops[n] = operand(mem, false);
    }
    ++n;
  }
  cur_.expect(';', fmt::format("after the operands of '{}'", m_.text));
  ins_.num_ops = static_cast<std::uint8_t>(n);
}

void Decoder::expect_count(std::size_t lo, std::size_t hi) {
  if (ins_.num_ops >= lo && ins_.num_ops <= hi) return;
  malformed(fmt::format("'{}' needs {} operand{}, got {}", m_.text,
                        lo == hi ? fmt::format("{}", lo) : fmt::format("{} or {}", lo, hi),
                        hi == 1 ? "" : "s", ins_.num_ops));
}

void Decoder::expect_vector(std::size_t i, int regs, const char* what) {
  const Operand& v = ins_.ops[i];
  if (v.kind != OperandKind::Vector || v.count != regs)
    malformed(fmt::format("'{}' needs {} registers in its {}", m_.text, regs, what));
  for (int k = 0; k < v.count; ++k)
    if (is_vec_imm(kb_.kernel.vec(v, k)))
      malformed(fmt::format("'{}': the {} holds registers only", m_.text, what));
}

}  // namespace smemsim::ptx::decoding

// The atomic fixes written into the kernel's PTX (src/fix/fix_apply.hpp): replication with its
// merge, and warp aggregation with its match and leader.
#include <fmt/format.h>

#include <bit>

#include "fix/fix_apply.hpp"

namespace smemsim::fix::detail {

using ptx::AtomOp;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

namespace {

bool word(Type t) {
  return t == Type::B32 || t == Type::U32 || t == Type::S32 || t == Type::F32;
}

bool combines(AtomOp op) {
  return op == AtomOp::Add || op == AtomOp::Min || op == AtomOp::Max || op == AtomOp::And ||
         op == AtomOp::Or || op == AtomOp::Xor;
}

std::string_view noncombining_name(AtomOp op) {
  return op == AtomOp::Inc    ? "inc"
         : op == AtomOp::Dec  ? "dec"
         : op == AtomOp::Exch ? "exch"
                              : "cas";
}

bool updates(const Instruction& in) {
  return in.op == Opcode::Atom || in.op == Opcode::Red;
}

// The index of an atomic's value operand (atom: d, [a], b; red: [a], b).
int value_operand(const Instruction& in) {
  return in.op == Opcode::Atom ? 2 : 1;
}

// Why an atomic of the array cannot be rewritten because its old value is used, or "".
std::string old_value_used(const Instruction& in, const RegisterFlow& flow) {
  if (in.op != Opcode::Atom || in.ops[0].kind != OperandKind::Reg) return "";
  const std::uint32_t d = in.ops[0].reg;
  if (d < flow.uses.size() && !flow.uses[d].empty())
    return fmt::format("PTX line {}: the atomic's old value is used", in.ptx_line);
  return "";
}

Operand special_op(ptx::Special s) {
  Operand o;
  o.kind = OperandKind::Special;
  o.special = s;
  return o;
}

Instruction guarded_as(Instruction in, const Instruction& access) {
  in.guard = access.guard;
  in.guard_negated = access.guard_negated;
  return in;
}

// The combining instruction of a replicated load: d = d op t.
Instruction combine(AtomOp op, Type t, std::uint32_t d, std::uint32_t x, const Instruction& at) {
  const Opcode code = op == AtomOp::Add   ? Opcode::Add
                      : op == AtomOp::Min ? Opcode::Min
                      : op == AtomOp::Max ? Opcode::Max
                      : op == AtomOp::And ? Opcode::And
                      : op == AtomOp::Or  ? Opcode::Or
                                          : Opcode::Xor;
  const bool bits = code == Opcode::And || code == Opcode::Or || code == Opcode::Xor;
  Instruction in = make(code, bits ? Type::B32 : (t == Type::B32 ? Type::U32 : t),
                        {reg_op(d), reg_op(d), reg_op(x)}, at);
  if (code == Opcode::Add && t == Type::F32) in.rounding = ptx::Rounding::Rn;
  return in;
}

// Checks every access of the array for replication; the atomics' operation and type.
std::string replicable(const ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                       const RegisterFlow& flow, AtomOp& op, Type& type) {
  op = AtomOp::None;
  for (const std::uint32_t i : acc) {
    const Instruction& in = k.code[i];
    if (in.op != Opcode::Ld && in.op != Opcode::St && !updates(in))
      return fmt::format(
          "PTX line {}: {} moves whole rows; only ld, st, atom and red are replicated", in.ptx_line,
          ptx::opcode_name(in.op));
    if (in.vec != 1 || !word(in.type))
      return fmt::format("PTX line {}: an access of other than one 4-byte word", in.ptx_line);
    const Operand& m = in.ops[std::size_t(memory_operand(in))];
    if (m.reg != kNone && m.sym != kNone)
      return fmt::format("PTX line {}: an address of both a register and a symbol", in.ptx_line);
    if (m.reg == kNone && in.space == ptx::Space::Generic)
      return fmt::format("PTX line {}: a constant generic address", in.ptx_line);
    if (!updates(in)) continue;
    if (!combines(in.atom))
      return fmt::format(
          "PTX line {}: {}.{} does not combine over copies (add, min, max, and, or and xor do)",
          in.ptx_line, ptx::opcode_name(in.op), noncombining_name(in.atom));
    if (op != AtomOp::None && (in.atom != op || in.type != type))
      return fmt::format("PTX line {}: a second kind of atomic on the array", in.ptx_line);
    if (std::string used = old_value_used(in, flow); !used.empty())
      return used + " (a copy's old value is not the array's)";
    op = in.atom;
    type = in.type;
  }
  if (op == AtomOp::None) return "no atomic updates the array";
  return "";
}

}  // namespace

Applied apply_replication(const ptx::Module& module, const std::string& kernel,
                          const exec::SharedLayout::Array& array,
                          const std::vector<std::uint32_t>& lines, std::uint32_t copies) {
  Applied out;
  out.module = module;
  std::uint32_t sym = kNone;
  ptx::Kernel* kp = kernel_to_rewrite(out, kernel, array, sym, true);
  if (!kp) return out;
  ptx::Kernel& k = *kp;
  if (copies < 2 || !std::has_single_bit(copies)) {
    out.refused = "copies must be a power of two above 1";
    return out;
  }
  if (!k.calls.empty()) {
    out.refused = "the kernel calls functions: its code is not rewritten";
    return out;
  }
  std::vector<std::uint32_t> acc;
  if (out.refused = accesses(k, lines, acc); !out.refused.empty()) return out;
  const RegisterFlow flow = register_flow(k);
  AtomOp op = AtomOp::None;
  Type type = Type::None;
  if (out.refused = replicable(k, acc, flow, op, type); !out.refused.empty()) return out;
  const std::int64_t R = copies;
  // The head: the lane's copy c = %laneid % R, as a byte offset c4 = 4 c.
  std::vector<Instruction> head;
  const Instruction& first = k.code.front();
  const std::uint32_t c4 = new_reg(k, Type::B32);
  head.push_back(
      make(Opcode::Mov, Type::U32, {reg_op(c4), special_op(ptx::Special::LaneId)}, first));
  head.push_back(make(Opcode::And, Type::B32, {reg_op(c4), reg_op(c4), imm_op(R - 1)}, first));
  head.push_back(make(Opcode::Shl, Type::B32, {reg_op(c4), reg_op(c4), imm_op(2)}, first));
  Bases bases(k, sym, head, c4);
  const std::uint32_t zero = new_reg(k, Type::B32);
  head.push_back(make(Opcode::Mov, Type::B32, {reg_op(zero), imm_op(0)}, first));
  const bool idempotent = op == AtomOp::Min || op == AtomOp::Max || op == AtomOp::And;
  Insertions before, after;
  std::uint32_t n_atomic = 0, n_store = 0, n_load = 0;
  for (const std::uint32_t i : acc) {
    Instruction& in = k.code[i];
    Operand& m = in.ops[std::size_t(memory_operand(in))];
    const bool w = m.reg != kNone && wide(k.regs[m.reg].type);
    const bool generic = in.space == ptx::Space::Generic;
    const Type s = w ? Type::S64 : Type::S32;
    // The copy that the access itself reaches: the lane's for atomics and loads, copy 0 for
    // stores (the others are written after it).
    const bool lane_first = in.op != Opcode::St;
    const std::uint32_t to = lane_first ? bases.lane_base(w, generic) : bases.base(w, generic);
    std::vector<Instruction>& pre = before[i];
    std::uint32_t row0 = kNone;  // the word's copy 0 (loads and stores)
    if (m.reg == kNone) {        // [array + imm]: a constant word
      m.sym = kNone;
      m.reg = to;
      row0 = bases.base(w, generic);
    } else {
      const std::uint32_t off = new_reg(k, w ? Type::B64 : Type::B32);
      pre.push_back(
          make(Opcode::Sub, s, {reg_op(off), reg_op(m.reg), reg_op(bases.base(w, generic))}, in));
      const std::uint32_t a = new_reg(k, w ? Type::B64 : Type::B32);
      Instruction mad = make(Opcode::Mad, s, {reg_op(a), reg_op(off), imm_op(R), reg_op(to)}, in);
      mad.mode = ptx::MulMode::Lo;
      pre.push_back(mad);
      m.reg = a;
      if (in.op == Opcode::Ld) {
        row0 = new_reg(k, w ? Type::B64 : Type::B32);
        pre.push_back(
            make(Opcode::Sub, s, {reg_op(row0), reg_op(a), reg_op(bases.copy_offset(w))}, in));
      } else {
        row0 = a;
      }
    }
    m.set_imm(m.imm() * R);
    std::vector<Instruction>& post = after[i];
    if (updates(in)) {
      ++n_atomic;
    } else if (in.op == Opcode::St) {
      ++n_store;
      // The other copies get the operation's identity (0 for add, or, xor), or the value itself
      // where combining it with itself gives it back (min, max, and).
      const Operand v = idempotent ? in.ops[1] : reg_op(zero);
      for (std::int64_t c = 1; c < R; ++c) {
        Instruction st = in;
        st.ops[0].reg = row0;
        st.ops[0].set_imm(m.imm() + 4 * c);
        st.ops[1] = v;
        post.push_back(st);
      }
    } else {  // a load: the other copies, from the lane's next one round
      ++n_load;
      const std::uint32_t d = in.ops[0].reg;
      for (std::int64_t c = 1; c < R; ++c) {
        const std::uint32_t t = new_reg(k, Type::B32), x = new_reg(k, k.regs[d].type);
        post.push_back(guarded_as(
            make(Opcode::Add, Type::S32, {reg_op(t), reg_op(c4), imm_op(4 * c)}, in), in));
        post.push_back(guarded_as(
            make(Opcode::And, Type::B32, {reg_op(t), reg_op(t), imm_op(4 * R - 1)}, in), in));
        std::uint32_t tw = t;
        if (w) {
          tw = new_reg(k, Type::B64);
          Instruction cv = make(Opcode::Cvt, Type::U64, {reg_op(tw), reg_op(t)}, in);
          cv.type2 = Type::U32;
          post.push_back(guarded_as(cv, in));
        }
        const std::uint32_t ak = new_reg(k, w ? Type::B64 : Type::B32);
        post.push_back(
            guarded_as(make(Opcode::Add, s, {reg_op(ak), reg_op(row0), reg_op(tw)}, in), in));
        Instruction ld = in;
        ld.ops[0].reg = x;
        ld.ops[1].reg = ak;
        ld.ops[1].sym = kNone;
        ld.ops[1].set_imm(m.imm());
        post.push_back(ld);
        post.push_back(guarded_as(combine(op, type, d, x, in), in));
      }
    }
  }
  splice(k, std::move(head), before, after);
  out.form = fmt::format(
      "{} copies interleaved by lane: {} atomic{} on the lane's copy, {} store{} to every copy, "
      "{} load{} summing the copies",
      copies, n_atomic, n_atomic == 1 ? "" : "s", n_store, n_store == 1 ? "" : "s", n_load,
      n_load == 1 ? "" : "s");
  if (array.dynamic)  // the launch gives the extern array R times its bytes
    out.dynamic_growth = array.bytes * (copies - 1);
  else
    out.refused = grow_symbol(k, sym, array.bytes * copies);
  return out;
}

Applied apply_aggregation(const ptx::Module& module, const std::string& kernel,
                          const exec::SharedLayout::Array& array,
                          const std::vector<std::uint32_t>& lines) {
  Applied out;
  out.module = module;
  std::uint32_t sym = kNone;
  ptx::Kernel* kp = kernel_to_rewrite(out, kernel, array, sym, true);
  if (!kp) return out;
  ptx::Kernel& k = *kp;
  std::vector<std::uint32_t> acc;
  if (out.refused = accesses(k, lines, acc); !out.refused.empty()) return out;
  const RegisterFlow flow = register_flow(k);
  Insertions before;
  std::uint32_t n = 0;
  for (const std::uint32_t i : acc) {
    Instruction& in = k.code[i];
    if (!updates(in)) continue;
    const auto refuse = [&](std::string why) {
      out.refused = fmt::format("PTX line {}: {}", in.ptx_line, why);
      return out;
    };
    if (in.atom != AtomOp::Add || (in.type != Type::U32 && in.type != Type::S32))
      return refuse("only a 32-bit integer add is aggregated (redux.sync adds integers)");
    if (in.guard != kNone) return refuse("a guarded atomic is not aggregated");
    if (std::string used = old_value_used(in, flow); !used.empty()) {
      out.refused = used + " (the leader's is not every lane's)";
      return out;
    }
    const Operand& m = in.ops[std::size_t(memory_operand(in))];
    Operand& v = in.ops[std::size_t(value_operand(in))];
    if (v.kind != OperandKind::ImmInt && v.kind != OperandKind::Reg)
      return refuse("the added value is neither a register nor a constant");
    std::vector<Instruction>& pre = before[i];
    const std::uint32_t mask = new_reg(k, Type::B32), peers = new_reg(k, Type::B32);
    pre.push_back(make(Opcode::Activemask, Type::B32, {reg_op(mask)}, in));
    if (m.reg == kNone) {  // one word for every lane: the peers are the active lanes
      pre.push_back(make(Opcode::Mov, Type::B32, {reg_op(peers), reg_op(mask)}, in));
    } else {
      Instruction match = make(Opcode::Match, wide(k.regs[m.reg].type) ? Type::B64 : Type::B32,
                               {reg_op(peers), reg_op(m.reg), reg_op(mask)}, in);
      match.warp = ptx::WarpMode::Any;
      match.flags |= ptx::kSync;
      pre.push_back(match);
    }
    const std::uint32_t lower = new_reg(k, Type::B32), lead = new_reg(k, Type::Pred);
    pre.push_back(
        make(Opcode::Mov, Type::U32, {reg_op(lower), special_op(ptx::Special::LanemaskLt)}, in));
    pre.push_back(make(Opcode::And, Type::B32, {reg_op(lower), reg_op(lower), reg_op(peers)}, in));
    // The others branch over the atomic, as nvcc compiles `if (leader) atomicAdd(...)`.
    Instruction setp = make(Opcode::Setp, Type::U32, {reg_op(lead), reg_op(lower), imm_op(0)}, in);
    setp.cmp = ptx::CmpOp::Ne;
    pre.push_back(setp);
    const std::uint32_t sum = new_reg(k, Type::B32);
    if (v.kind == OperandKind::ImmInt) {
      pre.push_back(make(Opcode::Popc, Type::B32, {reg_op(sum), reg_op(peers)}, in));
      if (v.imm() != 1) {
        Instruction mul =
            make(Opcode::Mul, Type::U32, {reg_op(sum), reg_op(sum), imm_op(v.imm())}, in);
        mul.mode = ptx::MulMode::Lo;
        pre.push_back(mul);
      }
    } else {
      Instruction red =
          make(Opcode::Redux, in.type, {reg_op(sum), reg_op(v.reg), reg_op(peers)}, in);
      red.atom = AtomOp::Add;
      red.flags |= ptx::kSync;
      pre.push_back(red);
    }
    Operand past;
    past.kind = OperandKind::Label;
    past.target = i + 1;  // the old index: splice moves it
    Instruction skip = make(Opcode::Bra, Type::None, {past}, in);
    skip.guard = lead;
    pre.push_back(skip);
    v = reg_op(sum);
    ++n;
  }
  if (!n) {
    out.refused = "no atomic updates the array";
    return out;
  }
  splice(k, {}, before, {});
  out.form = fmt::format("{} atomic{} aggregated: match.any, the lowest peer adds for the others",
                         n, n == 1 ? "" : "s");
  return out;
}

}  // namespace smemsim::fix::detail

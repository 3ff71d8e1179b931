// The loops ptxas unrolls and their overhead (unroll.hpp).
#include "lower/unroll.hpp"

#include <algorithm>

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

bool writes(const RegUse& u, std::uint32_t r) {
  return std::find(u.writes.begin(), u.writes.end(), r) != u.writes.end();
}
bool reads(const RegUse& u, std::uint32_t r) {
  return std::find(u.reads.begin(), u.reads.end(), r) != u.reads.end();
}

// `add r, r, imm` / `sub r, r, imm` on an integer, unguarded, no carry: a counter's step.
bool steps_itself(const ptx::Instruction& c) {
  return (c.op == Opcode::Add || c.op == Opcode::Sub) && c.guard == ptx::kNone &&
         c.type != ptx::Type::Pred && !ptx::is_float(c.type) && !c.has(ptx::kCc) &&
         !c.has(ptx::kCarryIn) && c.num_ops == 3 && c.ops[0].kind == OperandKind::Reg &&
         c.ops[1].kind == OperandKind::Reg && c.ops[1].reg == c.ops[0].reg &&
         c.ops[2].kind == OperandKind::ImmInt;
}

// An atomic ptxas does not unroll a loop round (unroll.hpp): its result read anywhere, a generic
// address, or a shared float add (a compare-and-swap loop on sm_90).
bool blocks_unroll(const ptx::Kernel& k, const std::vector<RegUse>& uses, std::size_t i) {
  const ptx::Instruction& c = k.code[i];
  if (c.op != Opcode::Atom) return false;
  if (c.space != ptx::Space::Global && c.space != ptx::Space::Shared) return true;
  if (c.space == ptx::Space::Shared && c.atom == ptx::AtomOp::Add && ptx::is_float(c.type))
    return true;
  for (const std::uint32_t r : uses[i].writes)
    for (const RegUse& u : uses)
      if (reads(u, r)) return true;
  return false;
}

// The loop [h, b] closed by the backward branch b, when ptxas unrolls it: the overhead marked in
// `out` (b's index), else nothing.
void mark_loop(const ptx::Kernel& k, const std::vector<RegUse>& uses, std::uint32_t h,
               std::uint32_t b, std::vector<std::uint32_t>& out) {
  const ptx::Instruction& br = k.code[b];
  if (b - h + 1 > kUnrollMaxInstructions) return;
  for (const std::uint32_t at : k.nounroll)
    if (at >= h && at <= b) return;
  // Innermost, entered at its head, left only by b's fall-through: no call, return or exit, no
  // branch from inside to outside or back, none from outside into it.
  for (std::uint32_t j = h; j < b; ++j) {
    const ptx::Instruction& c = k.code[j];
    if (c.op == Opcode::Call || c.op == Opcode::Ret || c.op == Opcode::Exit) return;
    if (blocks_unroll(k, uses, j)) return;
    const std::uint32_t t = branch_target(c);
    if (c.op == Opcode::Bra && (t == ptx::kNone || t <= j || t > b)) return;
  }
  // Nor a second latch: a later branch back to its head.
  for (std::size_t j = 0; j < k.code.size(); ++j) {
    if (j >= h && j <= b) continue;
    const std::uint32_t t = branch_target(k.code[j]);
    if (t != ptx::kNone && t <= b && (t > h || (t == h && j > b))) return;
  }
  for (const ptx::LinkedFunction& fn : k.functions)
    if (fn.entry <= b && fn.end > h) return;
  // The branch's predicate: one setp in the loop writes it.
  const std::uint32_t p = br.guard;
  std::uint32_t s = ptx::kNone;
  for (std::uint32_t j = h; j < b; ++j)
    if (writes(uses[j], p)) {
      if (s != ptx::kNone || k.code[j].op != Opcode::Setp || k.code[j].guard != ptx::kNone) return;
      s = j;
    }
  if (s == ptx::kNone) return;
  const ptx::Instruction& cmp = k.code[s];
  if (cmp.num_ops < 3 || cmp.has(ptx::kSetpQ)) return;
  // It compares a counter (a register the loop writes only by stepping it by a constant) with a
  // constant or a register the loop does not write.
  auto written_in_loop = [&](std::uint32_t r) {
    std::uint32_t n = 0, last = ptx::kNone;
    for (std::uint32_t j = h; j <= b; ++j)
      if (writes(uses[j], r)) ++n, last = j;
    return std::pair{n, last};
  };
  std::uint32_t counter = ptx::kNone;
  bool bound_imm = false;
  for (int side = 0; side < 2; ++side) {
    const ptx::Operand& a = cmp.ops[1 + side];
    const ptx::Operand& other = cmp.ops[2 - side];
    if (a.kind != OperandKind::Reg) continue;
    const auto [n, at] = written_in_loop(a.reg);
    if (n != 1 || !steps_itself(k.code[at])) continue;
    if (other.kind == OperandKind::Reg) {
      if (written_in_loop(other.reg).first) continue;
    } else if (other.kind != OperandKind::ImmInt) {
      continue;
    }
    counter = a.reg;
    bound_imm = other.kind == OperandKind::ImmInt;
    break;
  }
  if (counter == ptx::kNone) return;
  // A trip count known when compiling (the counter starts from constants, the bound is one) is
  // unrolled by varying factors, or not (unroll.hpp): left as written.
  if (bound_imm) {
    bool only_constants = true, any = false;
    for (std::size_t j = 0; j < k.code.size(); ++j) {
      if ((j >= h && j <= b) || !writes(uses[j], counter)) continue;
      any = true;
      const ptx::Instruction& c = k.code[j];
      only_constants &=
          c.op == Opcode::Mov && c.num_ops == 2 && c.ops[1].kind == OperandKind::ImmInt;
    }
    if (any && only_constants) return;
  }
  out.resize(k.code.size(), ptx::kNone);
  out[b] = b;
  bool pred_only_branch = true;
  for (std::uint32_t j = h; j < b; ++j) pred_only_branch &= !reads(uses[j], p);
  if (pred_only_branch) out[s] = b;
  // Every counter the loop steps by a constant: the unrolled copies take it as an offset.
  for (std::uint32_t j = h; j < b; ++j)
    if (steps_itself(k.code[j]) && written_in_loop(k.code[j].ops[0].reg).first == 1) out[j] = b;
}

}  // namespace

std::vector<std::uint32_t> unrolled_overhead(const ptx::Kernel& k,
                                             const std::vector<RegUse>& uses) {
  std::vector<std::uint32_t> out;
  if (k.nounroll_all) return out;
  for (std::uint32_t b = 0; b < k.code.size(); ++b) {
    const ptx::Instruction& c = k.code[b];
    if (c.op != Opcode::Bra || c.guard == ptx::kNone) continue;
    const std::uint32_t h = branch_target(c);
    if (h == ptx::kNone || h > b) continue;
    mark_loop(k, uses, h, b, out);
  }
  return out;
}

}  // namespace smemsim::lower

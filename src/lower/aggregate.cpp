// The atomics ptxas aggregates (aggregate.hpp).
#include "lower/aggregate.hpp"

#include <algorithm>

#include "lower/converge.hpp"

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

bool integer_type(ptx::Type t) {
  return t != ptx::Type::None && t != ptx::Type::Pred && !ptx::is_float(t);
}

}  // namespace

std::vector<std::uint8_t> aggregated_atomics(const ptx::Kernel& k,
                                             const std::vector<RegUse>& uses) {
  const std::uint32_t n = std::uint32_t(std::min(k.code.size(), uses.size()));
  std::vector<std::uint8_t> out(k.code.size(), 0);
  bool any = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction& c = k.code[i];
    any |= (c.op == Opcode::Atom || c.op == Opcode::Red) &&
           (c.space == ptx::Space::Shared || c.space == ptx::Space::Global);
  }
  if (!any) return out;
  const std::vector<std::uint8_t> varying = varying_registers(k, uses);
  const std::size_t nregs = k.regs.size();
  std::vector<std::uint32_t> nread(nregs, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    for (const std::uint32_t r : uses[i].reads)
      if (r < nregs) ++nread[r];
  const auto uniform = [&](const ptx::Operand& o) {
    if (o.kind == OperandKind::ImmInt || o.kind == OperandKind::Symbol) return true;
    const bool reg = o.kind == OperandKind::Reg || o.kind == OperandKind::Memory;
    if (reg && o.reg == ptx::kNone) return o.kind == OperandKind::Memory;  // [symbol+imm], [imm]
    return reg && o.reg < nregs && !varying[o.reg];
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction& c = k.code[i];
    if ((c.op != Opcode::Atom && c.op != Opcode::Red) ||
        (c.space != ptx::Space::Shared && c.space != ptx::Space::Global) || !integer_type(c.type))
      continue;
    // atom d, [a], b; red [a], b.
    const bool atom = c.op == Opcode::Atom;
    const ptx::Operand& addr = c.ops[atom ? 1 : 0];
    const ptx::Operand& value = c.ops[atom ? 2 : 1];
    if (addr.kind != OperandKind::Memory) continue;
    const bool used =
        atom && c.ops[0].kind == OperandKind::Reg && c.ops[0].reg < nregs && nread[c.ops[0].reg];
    bool agg = false;
    switch (c.atom) {
      case ptx::AtomOp::Add:
        agg = (!used && value.kind == OperandKind::ImmInt && value.imm() == 0) ||
              (uniform(addr) && uniform(value));
        break;
      case ptx::AtomOp::And:
      case ptx::AtomOp::Or:
      case ptx::AtomOp::Xor:
        agg = !used && uniform(addr);
        break;
      default:
        break;
    }
    out[i] = agg;
  }
  return out;
}

}  // namespace smemsim::lower

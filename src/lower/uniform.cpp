// Warp-uniform registers and the atomics ptxas aggregates (uniform.hpp).
#include "lower/uniform.hpp"

#include <algorithm>

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;
using ptx::Special;

// The special registers that hold one value for every lane of a warp: the launch's and the
// CTA's (not %tid, %laneid, the lane masks, the clocks, %warpid or %smid).
bool uniform_special(Special s) {
  switch (s) {
    case Special::NtidX:
    case Special::NtidY:
    case Special::NtidZ:
    case Special::CtaidX:
    case Special::CtaidY:
    case Special::CtaidZ:
    case Special::NctaidX:
    case Special::NctaidY:
    case Special::NctaidZ:
    case Special::NsmId:
    case Special::GridId:
    case Special::IsExplicitCluster:
    case Special::ClusterIdX:
    case Special::ClusterIdY:
    case Special::ClusterIdZ:
    case Special::NclusterIdX:
    case Special::NclusterIdY:
    case Special::NclusterIdZ:
    case Special::ClusterCtaidX:
    case Special::ClusterCtaidY:
    case Special::ClusterCtaidZ:
    case Special::ClusterNctaidX:
    case Special::ClusterNctaidY:
    case Special::ClusterNctaidZ:
    case Special::ClusterCtarank:
    case Special::ClusterNctarank:
    case Special::DynamicSmemSize:
    case Special::TotalSmemSize:
    case Special::AggrSmemSize:
      return true;
    default:
      return false;
  }
}

// An instruction whose results are the same on every lane when its inputs are. A parameter load
// only from the kernel's own parameters: a call's (the value a function returns, or an argument
// a linked function reads) is a lane's.
bool keeps_uniform(const ptx::Kernel& k, const ptx::Instruction& c) {
  switch (c.op) {
    case Opcode::Ld:
      if (c.space == ptx::Space::Const) return true;
      if (c.space != ptx::Space::Param || c.num_ops < 2 || c.ops[1].kind != OperandKind::Memory ||
          c.ops[1].reg != ptx::kNone)
        return false;
      return std::find(k.params.begin(), k.params.end(), c.ops[1].sym) != k.params.end();
    case Opcode::Cvta:
    case Opcode::Mov:
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Mad:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Not:
    case Opcode::Shl:
    case Opcode::Shr:
    case Opcode::Shf:
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Brev:
    case Opcode::Bfe:
    case Opcode::Bfi:
    case Opcode::Prmt:
    case Opcode::Setp:
    case Opcode::Selp:
    case Opcode::Set:
    case Opcode::Cvt:
    case Opcode::Fma:
    case Opcode::Bfind:
    case Opcode::Mul24:
    case Opcode::Mad24:
      return true;
    default:
      return false;
  }
}

bool integer_type(ptx::Type t) {
  return t != ptx::Type::None && t != ptx::Type::Pred && !ptx::is_float(t);
}

}  // namespace

std::vector<std::uint8_t> uniform_registers(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  const std::size_t nregs = k.regs.size();
  const std::uint32_t n = std::uint32_t(std::min(k.code.size(), uses.size()));
  std::vector<std::uint32_t> nwrite(nregs, 0);
  // Each register's readers, register r's at of[at[r] .. at[r + 1]).
  std::vector<std::uint32_t> at(nregs + 1, 0), of;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (const std::uint32_t r : uses[i].writes)
      if (r < nregs) ++nwrite[r];
    for (const std::uint32_t r : uses[i].reads)
      if (r < nregs) ++at[r + 1];
  }
  for (std::size_t r = 0; r < nregs; ++r) at[r + 1] += at[r];
  of.resize(at[nregs]);
  {
    std::vector<std::uint32_t> put(at.begin(), at.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
      for (const std::uint32_t r : uses[i].reads)
        if (r < nregs) of[put[r]++] = i;
  }
  // Uniform until shown otherwise: a register written once. The others, and the results of an
  // instruction that makes lanes differ, are not; then neither is anything computed from them.
  std::vector<std::uint8_t> uni(nregs, 0);
  std::vector<std::uint32_t> work;
  for (std::size_t r = 0; r < nregs; ++r) {
    uni[r] = nwrite[r] == 1;
    if (!uni[r]) work.push_back(std::uint32_t(r));
  }
  const auto spoil = [&](std::uint32_t i) {
    for (const std::uint32_t w : uses[i].writes)
      if (w < nregs && uni[w]) {
        uni[w] = 0;
        work.push_back(w);
      }
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction& c = k.code[i];
    bool ok = c.guard == ptx::kNone && keeps_uniform(k, c);
    for (std::size_t j = 0; ok && j < c.num_ops; ++j)
      if (c.ops[j].kind == OperandKind::Special && !uniform_special(c.ops[j].special)) ok = false;
    if (!ok) spoil(i);
  }
  while (!work.empty()) {
    const std::uint32_t r = work.back();
    work.pop_back();
    for (std::uint32_t p = at[r]; p < at[r + 1]; ++p) spoil(of[p]);
  }
  return uni;
}

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
  const std::vector<std::uint8_t> uni = uniform_registers(k, uses);
  const std::size_t nregs = k.regs.size();
  std::vector<std::uint32_t> nread(nregs, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    for (const std::uint32_t r : uses[i].reads)
      if (r < nregs) ++nread[r];
  const auto uniform = [&](const ptx::Operand& o) {
    if (o.kind == OperandKind::ImmInt || o.kind == OperandKind::Symbol) return true;
    const bool reg = o.kind == OperandKind::Reg || o.kind == OperandKind::Memory;
    if (reg && o.reg == ptx::kNone) return o.kind == OperandKind::Memory;  // [symbol+imm], [imm]
    return reg && o.reg < nregs && uni[o.reg] != 0;
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

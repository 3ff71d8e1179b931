// Convergence barriers (converge.hpp).
#include "lower/converge.hpp"

#include <algorithm>

#include "exec/cfg.hpp"

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

bool varying_special(ptx::Special s) {
  switch (s) {
    case ptx::Special::TidX:
    case ptx::Special::TidY:
    case ptx::Special::TidZ:
    case ptx::Special::LaneId:
    case ptx::Special::LanemaskEq:
    case ptx::Special::LanemaskLe:
    case ptx::Special::LanemaskLt:
    case ptx::Special::LanemaskGe:
    case ptx::Special::LanemaskGt:
      return true;
    default:
      return false;
  }
}

// What the instruction's results are whatever it reads: 1 varying, 0 uniform (a vote, a
// reduction, the active mask), -1 as its inputs make them.
int own_variance(const ptx::Kernel& kernel, const ptx::Instruction& ins) {
  switch (ins.op) {
    case Opcode::Atom:
    case Opcode::Shfl:
    case Opcode::Match:
    case Opcode::Mma:
    case Opcode::WmmaLoad:
    case Opcode::WmmaMma:
    case Opcode::Ldmatrix:
    case Opcode::Call:
    case Opcode::Tex:
    case Opcode::Tld4:
      return 1;
    case Opcode::Vote:
    case Opcode::Redux:
    case Opcode::Activemask:
      return 0;
    case Opcode::Ld:  // a thread's own local memory differs from the others' at one address
      if (ins.space == ptx::Space::Local) return 1;
      // A call's parameter (a function's argument, the value it returns) is a lane's; only the
      // kernel's own parameters are the launch's.
      if (ins.space == ptx::Space::Param && ins.num_ops >= 2 &&
          (ins.ops[1].kind != OperandKind::Memory || ins.ops[1].reg != ptx::kNone ||
           std::find(kernel.params.begin(), kernel.params.end(), ins.ops[1].sym) ==
               kernel.params.end()))
        return 1;
      break;
    default:
      break;
  }
  for (std::size_t k = 0; k < ins.num_ops; ++k)
    if (ins.ops[k].kind == OperandKind::Special && varying_special(ins.ops[k].special)) return 1;
  return -1;
}

bool conditional_branch(const ptx::Instruction& ins) {
  return ins.op == Opcode::Bra && ins.guard != ptx::kNone;
}

}  // namespace

std::vector<std::uint8_t> varying_registers(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  const std::size_t nregs = k.regs.size();
  const std::uint32_t n = std::uint32_t(std::min(k.code.size(), uses.size()));
  std::vector<std::uint8_t> varying(nregs, 0);
  const std::vector<exec::Reconvergence> rec = exec::reconvergence_points(k);
  // Rounds until nothing changes: a round can only add varying registers, so at most as many
  // rounds as registers (in practice a few).
  for (bool changed = true; changed;) {
    changed = false;
    // Divergent regions of this round's varying branches, as a difference array.
    std::vector<std::int32_t> region(n + 1, 0);
    for (const exec::Reconvergence& r : rec) {
      if (r.pc >= n || !conditional_branch(k.code[r.pc]) || k.code[r.pc].guard >= nregs ||
          !varying[k.code[r.pc].guard])
        continue;
      // Lanes that leave for the kernel's end are gone: the others' values agree (`if (i < n)
      // { body }` keeps its body uniform).
      if (r.rpc >= n || k.code[r.rpc].op == Opcode::Ret || k.code[r.rpc].op == Opcode::Exit)
        continue;
      const std::uint32_t target = branch_target(k.code[r.pc]);
      std::uint32_t from = r.pc + 1, to = std::min(r.rpc, n);  // [from, to)
      if (target <= r.pc) from = std::min(from, target);       // a loop's body too
      if (from < to) ++region[from], --region[to];
    }
    std::int32_t inside = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      inside += region[i];
      const ptx::Instruction& ins = k.code[i];
      const int own = own_variance(k, ins);
      bool v = own == 1 || inside > 0;
      if (own == -1)
        for (std::uint32_t r : uses[i].reads) v = v || (r < nregs && varying[r]);
      if (own == 0 && ins.guard != ptx::kNone && ins.guard < nregs) v = v || varying[ins.guard];
      if (!v) continue;
      for (std::uint32_t r : uses[i].writes)
        if (r < nregs && !varying[r]) varying[r] = 1, changed = true;
    }
  }
  return varying;
}

Convergence convergence_barriers(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  Convergence c;
  const std::vector<std::uint8_t> varying = varying_registers(k, uses);
  const std::uint32_t n = std::uint32_t(std::min(k.code.size(), uses.size()));
  for (const exec::Reconvergence& r : exec::reconvergence_points(k)) {
    if (r.pc >= n || r.rpc >= n || !conditional_branch(k.code[r.pc])) continue;
    const ptx::Instruction& br = k.code[r.pc];
    if (br.guard >= varying.size() || !varying[br.guard] || branch_target(br) <= r.pc) continue;
    const Opcode at = k.code[r.rpc].op;
    if (at == Opcode::Ret || at == Opcode::Exit) continue;
    c.bssy.push_back(r.pc);
    c.bsync.push_back(r.rpc);
  }
  std::sort(c.bsync.begin(), c.bsync.end());
  c.bsync.erase(std::unique(c.bsync.begin(), c.bsync.end()), c.bsync.end());
  return c;
}

}  // namespace smemsim::lower

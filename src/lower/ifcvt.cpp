// If-conversion (ifcvt.hpp).
#include "lower/ifcvt.hpp"

namespace smemsim::lower {

std::vector<std::uint32_t> if_conversions(const ptx::Kernel& k, const std::vector<RegUse>& uses,
                                          const std::vector<std::uint32_t>& cost,
                                          std::uint32_t slots) {
  const std::uint32_t n = std::uint32_t(k.code.size());
  std::vector<std::uint32_t> out;
  if (uses.size() < n) return out;
  auto writes = [&](std::uint32_t j, std::uint32_t r) {
    for (std::uint32_t w : uses[j].writes)
      if (w == r) return true;
    return false;
  };
  // Branch targets and function bounds: a body must hold none of them.
  std::vector<std::uint32_t> targeted(n + 1, 0);
  for (const ptx::Instruction& ins : k.code)
    for (std::size_t o = 0; o < ins.num_ops; ++o)
      if (ins.ops[o].kind == ptx::OperandKind::Label && ins.ops[o].target <= n)
        ++targeted[ins.ops[o].target];
  std::vector<std::uint8_t> bound(n + 1, 0);
  for (const ptx::LinkedFunction& fn : k.functions) {
    if (fn.entry <= n) bound[fn.entry] = 1;
    if (fn.end <= n) bound[fn.end] = 1;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction& br = k.code[i];
    if (br.op != ptx::Opcode::Bra || br.guard == ptx::kNone || br.num_ops < 1 ||
        br.ops[0].kind != ptx::OperandKind::Label)
      continue;
    const std::uint32_t t = br.ops[0].target;
    if (t <= i + 1 || t > n) continue;
    bool ok = true;
    std::uint64_t body = 0;
    for (std::uint32_t j = i + 1; j < t && ok; ++j) {
      const ptx::Instruction& b = k.code[j];
      body += j < cost.size() ? cost[j] : 1;
      ok = body <= slots && b.guard == ptx::kNone && !ends_block(b.op) && !bound[j] &&
           !targeted[j] && !writes(j, br.guard);
    }
    if (!ok) continue;
    --targeted[t];  // the label may now join the blocks round it
    out.push_back(i);
  }
  return out;
}

void if_convert(ptx::Kernel& k, const std::vector<std::uint32_t>& branches) {
  for (std::uint32_t i : branches) {
    ptx::Instruction& br = k.code[i];
    const std::uint32_t p = br.guard, t = br.ops[0].target;
    for (std::uint32_t j = i + 1; j < t; ++j) {
      k.code[j].guard = p;
      k.code[j].guard_negated = !br.guard_negated;
    }
    ptx::Instruction mov;
    mov.op = ptx::Opcode::Mov;
    mov.type = ptx::Type::Pred;
    mov.num_ops = 2;
    mov.ops[0].kind = mov.ops[1].kind = ptx::OperandKind::Reg;
    mov.ops[0].reg = mov.ops[1].reg = p;
    mov.flags = ptx::kIfConverted;
    mov.ptx_line = br.ptx_line;
    mov.site = br.site;
    br = mov;
  }
}

}  // namespace smemsim::lower

// Basic blocks and the instructions nothing moves across (lower.hpp): what the lowering rules,
// the list scheduler and the vector rule share.
#include "lower/lower.hpp"

namespace smemsim::lower {

bool ends_block(ptx::Opcode op) {
  switch (op) {
    case ptx::Opcode::Bra:
    case ptx::Opcode::Ret:
    case ptx::Opcode::Exit:
    case ptx::Opcode::Call:
    case ptx::Opcode::TxBegin:
    case ptx::Opcode::TxCommit:
    case ptx::Opcode::Bar:
    case ptx::Opcode::BarCluster:
    case ptx::Opcode::BarWarp:
    case ptx::Opcode::Membar:
    case ptx::Opcode::Mbarrier:
    case ptx::Opcode::CpAsyncWait:
    case ptx::Opcode::CpBulk:
    case ptx::Opcode::Wgmma:  // its fence, groups and shared reads order what is around them
      return true;
    default:
      return false;
  }
}

bool ends_block(const ptx::Instruction& ins) {
  if (ins.op == ptx::Opcode::Wgmma)
    return ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask) != ptx::WgmmaOp::Mma;
  return ends_block(ins.op);
}

bool reads_clock(const ptx::Instruction& ins) {
  for (std::size_t k = 0; k < ins.num_ops; ++k) {
    const ptx::Operand& o = ins.ops[k];
    if (o.kind != ptx::OperandKind::Special) continue;
    switch (o.special) {
      case ptx::Special::Clock:
      case ptx::Special::Clock64:
      case ptx::Special::ClockHi:
      case ptx::Special::GlobalTimer:
      case ptx::Special::GlobalTimerLo:
      case ptx::Special::GlobalTimerHi:
        return true;
      default:
        break;
    }
  }
  return false;
}

std::uint32_t branch_target(const ptx::Instruction& ins) {
  for (std::size_t o = 0; o < ins.num_ops; ++o)
    if (ins.ops[o].kind == ptx::OperandKind::Label) return ins.ops[o].target;
  return ptx::kNone;
}

std::vector<std::uint32_t> blocks(const ptx::Kernel& k) {
  const std::size_t n = k.code.size();
  std::vector<std::uint8_t> leader(n + 1, 0);
  leader[0] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const ptx::Instruction& ins = k.code[i];
    for (std::size_t o = 0; o < ins.num_ops; ++o)
      if (ins.ops[o].kind == ptx::OperandKind::Label && ins.ops[o].target < n)
        leader[ins.ops[o].target] = 1;
    if (ends_block(ins)) leader[i + 1] = 1;
  }
  for (const ptx::LinkedFunction& fn : k.functions) {
    if (fn.entry < n) leader[fn.entry] = 1;
    if (fn.end <= n) leader[fn.end] = 1;
  }
  std::vector<std::uint32_t> block(n);
  std::uint32_t b = 0;
  for (std::size_t i = 0; i < n; ++i) block[i] = b += leader[i] && i ? 1 : 0;
  return block;
}

}  // namespace smemsim::lower

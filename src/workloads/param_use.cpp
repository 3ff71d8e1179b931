#include "workloads/param_use.hpp"

#include <cstdint>

namespace smemsim::exec {
namespace {

// What a register's value derives from: a bit per parameter (the first 64), and thread or block
// indices.
struct Taint {
  std::uint64_t params = 0;
  bool index = false;
  bool operator==(const Taint&) const = default;
};

bool is_index(ptx::Special s) {
  using S = ptx::Special;
  return s == S::TidX || s == S::TidY || s == S::TidZ || s == S::CtaidX || s == S::CtaidY ||
         s == S::CtaidZ;
}

bool global_like(ptx::Space s) {
  return s == ptx::Space::Global || s == ptx::Space::None;  // None: a generic address
}

}  // namespace

KernelUse param_uses(const ptx::Kernel& k) {
  KernelUse out;
  out.params.resize(k.params.size());
  std::vector<int> param_of(k.symbols.size(), -1);
  for (std::size_t i = 0; i < k.params.size() && i < 64; ++i)
    if (k.params[i] < param_of.size()) param_of[k.params[i]] = static_cast<int>(i);
  std::vector<Taint> reg(k.regs.size());
  const auto of = [&](const ptx::Operand& o) {
    Taint t;
    switch (o.kind) {
      case ptx::OperandKind::Reg:
      case ptx::OperandKind::Memory:
        if (o.reg < reg.size()) t = reg[o.reg];
        break;
      case ptx::OperandKind::Special:
        t.index = is_index(o.special);
        break;
      case ptx::OperandKind::Vector:
        for (int i = 0; i < o.count; ++i)
          if (const std::uint32_t r = k.vec(o, i); r < reg.size()) {
            t.params |= reg[r].params;
            t.index |= reg[r].index;
          }
        break;
      default:
        break;
    }
    return t;
  };
  const auto set_dst = [&](const ptx::Operand& d, const Taint& t, bool& changed) {
    const auto put = [&](std::uint32_t r) {
      if (r >= reg.size()) return;
      Taint n{reg[r].params | t.params, reg[r].index || t.index};
      changed |= !(n == reg[r]);
      reg[r] = n;
    };
    if (d.kind == ptx::OperandKind::Reg) put(d.reg);
    if (d.kind == ptx::OperandKind::Vector)
      for (int i = 0; i < d.count; ++i) put(k.vec(d, i));
  };
  // To a fixed point: taints only grow, so at most one pass per register and a last one.
  for (std::size_t pass = 0; pass <= reg.size() + 1; ++pass) {
    bool changed = false;
    for (const ptx::Instruction& ins : k.code) {
      if (ins.num_ops == 0) continue;
      const ptx::Operand& d = ins.ops[0];
      if (d.kind != ptx::OperandKind::Reg && d.kind != ptx::OperandKind::Vector) continue;
      Taint t;
      if (ins.op == ptx::Opcode::Ld) {
        // A parameter's value; a loaded datum derives from nothing the pass follows.
        const ptx::Operand& a = ins.ops[1];
        if (ins.space == ptx::Space::Param && a.sym < param_of.size() && param_of[a.sym] >= 0)
          t.params = std::uint64_t{1} << param_of[a.sym];
      } else {
        for (std::uint8_t i = 1; i < ins.num_ops; ++i) {
          const Taint s = of(ins.ops[i]);
          t.params |= s.params;
          t.index |= s.index;
        }
      }
      set_dst(d, t, changed);
    }
    if (!changed) break;
  }
  const auto mark = [&](std::uint64_t params, auto field) {
    for (std::size_t i = 0; i < out.params.size() && i < 64; ++i)
      if (params >> i & 1) out.params[i].*field = true;
  };
  for (const ptx::Instruction& ins : k.code) {
    for (std::uint8_t i = 0; i < ins.num_ops; ++i)
      if (ins.ops[i].kind == ptx::OperandKind::Special &&
          (ins.ops[i].special == ptx::Special::TidY || ins.ops[i].special == ptx::Special::CtaidY))
        out.two_dimensional = true;
    switch (ins.op) {
      case ptx::Opcode::Ld:
        if (global_like(ins.space)) mark(of(ins.ops[1]).params, &ParamUse::loaded);
        break;
      case ptx::Opcode::CpAsync:
        mark(of(ins.ops[1]).params, &ParamUse::loaded);
        break;
      case ptx::Opcode::St:
      case ptx::Opcode::Red:
        if (global_like(ins.space)) mark(of(ins.ops[0]).params, &ParamUse::stored);
        break;
      case ptx::Opcode::Atom:
        if (global_like(ins.space)) mark(of(ins.ops[1]).params, &ParamUse::stored);
        break;
      case ptx::Opcode::Setp:
      case ptx::Opcode::Mul:
      case ptx::Opcode::Mad:
      case ptx::Opcode::Mul24:
      case ptx::Opcode::Mad24: {
        const Taint a = of(ins.ops[1]), b = of(ins.ops[2]);
        auto field = ins.op == ptx::Opcode::Setp ? &ParamUse::bound : &ParamUse::stride;
        if (a.index) mark(b.params, field);
        if (b.index) mark(a.params, field);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

}  // namespace smemsim::exec

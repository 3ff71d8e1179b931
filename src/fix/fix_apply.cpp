// A fix candidate written into the kernel's PTX (src/fix/fix_apply.hpp).
#include "fix/fix_apply.hpp"

#include "timing/inst_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <tuple>

namespace smemsim::fix::detail {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

bool wide(Type t) {
  return t == Type::B64 || t == Type::U64 || t == Type::S64;
}

// The operand index of an instruction's memory operand, -1 when it has none.
int memory_operand(const Instruction& in) {
  for (int k = 0; k < in.num_ops; ++k)
    if (in.ops[std::size_t(k)].kind == OperandKind::Memory) return k;
  return -1;
}

RegisterFlow register_flow(const ptx::Kernel& k) {
  RegisterFlow f;
  f.ndef.assign(k.regs.size(), 0);
  f.def.assign(k.regs.size(), kNone);
  f.uses.resize(k.regs.size());
  f.defs.resize(k.regs.size());
  const std::vector<lower::RegUse> ru = timing::reg_uses(timing::decode_kernel(k));
  for (std::uint32_t i = 0; i < ru.size(); ++i) {
    for (const std::uint32_t r : ru[i].writes) {
      if (r >= f.ndef.size()) continue;
      f.ndef[r] += k.code[i].guard != kNone ? 2 : 1;  // a guarded write may keep the old value
      f.def[r] = i;
      f.defs[r].push_back(i);
    }
    for (const std::uint32_t r : ru[i].reads)
      if (r < f.uses.size()) f.uses[r].push_back(i);
  }
  return f;
}

Operand imm_op(std::int64_t v) {
  Operand o;
  o.kind = OperandKind::ImmInt;
  o.set_imm(v);
  return o;
}

Operand reg_op(std::uint32_t r) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.reg = r;
  return o;
}
Instruction make(Opcode op, Type t, std::initializer_list<Operand> ops, const Instruction& at) {
  Instruction in;
  in.op = op;
  in.type = t;
  in.num_ops = std::uint8_t(ops.size());
  std::size_t j = 0;
  for (const Operand& o : ops) in.ops[j++] = o;
  in.ptx_line = at.ptx_line;
  in.site = at.site;
  return in;
}

// The accesses of the array: instruction indices on its lines with a memory operand.
std::string accesses(const ptx::Kernel& k, const std::vector<std::uint32_t>& lines,
                     std::vector<std::uint32_t>& out) {
  const std::set<std::uint32_t> on(lines.begin(), lines.end());
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    const Instruction& in = k.code[i];
    if (!on.count(in.ptx_line) || memory_operand(in) < 0) continue;
    // cp.async's first memory operand is its shared destination; ldmatrix and stmatrix take a
    // row's address per lane, which the layout moves like any other.
    const bool lane_rows = in.op == Opcode::Ldmatrix || in.op == Opcode::Stmatrix;
    if (in.op != Opcode::CpAsync && !lane_rows && in.space != ptx::Space::Shared &&
        in.space != ptx::Space::Generic)
      continue;
    if (in.op != Opcode::Ld && in.op != Opcode::St && in.op != Opcode::Atom &&
        in.op != Opcode::Red && in.op != Opcode::CpAsync && !lane_rows)
      return fmt::format(
          "PTX line {}: {} addresses are not rewritten (ld, st, atom, red, cp.async, ldmatrix and "
          "stmatrix are)",
          in.ptx_line, ptx::opcode_name(in.op));
    out.push_back(i);
  }
  if (out.empty()) return "no load, store or atomic of the array was found on its lines";
  return "";
}

namespace {

// The inserted form: the emitted CUDA's index function before each access.
std::string insert_index_function(ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                                  const exec::SharedLayout::Array& a, const exec::SharedRemap& r,
                                  std::uint32_t sym, Applied& out) {
  if (!k.calls.empty()) return "the kernel calls functions: its code is not rewritten";
  const int lg = std::countr_zero(r.grain);
  const std::uint64_t row = std::uint64_t(r.row) * r.grain, pad = std::uint64_t(r.pad) * r.grain;
  if (r.row && !std::has_single_bit(row)) return "a row width that is not a power of two";
  auto fresh = [&](bool w) { return new_reg(k, w ? Type::B64 : Type::B32); };
  // The array's base, once at the kernel's start, per address width and space.
  std::vector<Instruction> head;
  Bases bases(k, sym, head);
  auto base_reg = [&](bool w, bool generic) { return bases.base(w, generic); };
  // The index function goes where the compiler computes it: once after the address's definition
  // when the register has one (a loop-invariant address is not recomputed in the loop, as nvcc
  // hoists it), else just before the access. Accesses of one address and offset share it.
  const RegisterFlow flow = register_flow(k);
  const std::vector<std::uint32_t>&ndef = flow.ndef, &def = flow.def;
  Insertions before, after;
  std::map<std::pair<std::uint32_t, std::int64_t>, std::pair<std::uint32_t, std::int64_t>> done;
  std::uint32_t per = 0;
  for (const std::uint32_t i : acc) {
    Instruction& in = k.code[i];
    Operand& m = in.ops[std::size_t(memory_operand(in))];
    if (m.reg == kNone) {  // a constant address: the new one is a constant too
      if (m.sym != sym) return "an access of the array through another symbol";
      m.set_imm(std::int64_t(r.map(std::uint64_t(a.offset) + std::uint64_t(m.imm())) - a.offset));
      continue;
    }
    if (m.sym != kNone) return "an address of both a register and a symbol";
    const auto key = std::pair(m.reg, std::int64_t(m.imm()));
    if (const auto it = done.find(key); it != done.end()) {
      m.reg = it->second.first;
      m.set_imm(it->second.second);
      continue;
    }
    const bool hoist = ndef[m.reg] == 1 && def[m.reg] != i;
    const bool w = wide(k.regs[m.reg].type);
    const bool generic = in.space == ptx::Space::Generic;
    const Type u = w ? Type::U64 : Type::U32, s = w ? Type::S64 : Type::S32,
               b = w ? Type::B64 : Type::B32;
    std::vector<Instruction> code;
    const std::uint32_t off = fresh(w), addr = fresh(w);
    // A swizzle whose bits lie below the base's alignment works on the address itself: the
    // base's bits pass through the XOR unchanged (the emitted CUDA's index function, without
    // the subtraction the compiler folds into the array's address).
    const bool direct = !r.row && !generic &&
                        a.offset % (std::uint64_t{1} << (r.xor_shift + std::uint32_t(lg) +
                                                         std::bit_width(r.xor_mask))) ==
                            0;
    std::uint32_t from = m.reg;
    if (!direct) {
      code.push_back(
          make(Opcode::Sub, s, {reg_op(off), reg_op(from), reg_op(base_reg(w, generic))}, in));
      from = off;
    }
    if (m.imm()) {
      code.push_back(make(Opcode::Add, s, {reg_op(off), reg_op(from), imm_op(m.imm())}, in));
      from = off;
    }
    if (r.row) {
      const std::uint32_t q = fresh(w);
      code.push_back(
          make(Opcode::Shr, u, {reg_op(q), reg_op(from), imm_op(std::countr_zero(row))}, in));
      Instruction mad = make(
          Opcode::Mad, s, {reg_op(addr), reg_op(q), imm_op(std::int64_t(pad)), reg_op(m.reg)}, in);
      mad.mode = ptx::MulMode::Lo;
      code.push_back(mad);
    } else {
      const std::uint32_t t = fresh(w);
      code.push_back(make(Opcode::Shr, u, {reg_op(t), reg_op(from), imm_op(r.xor_shift)}, in));
      code.push_back(
          make(Opcode::And, b, {reg_op(t), reg_op(t), imm_op(std::int64_t(r.xor_mask) << lg)}, in));
      if (direct) {
        code.push_back(make(Opcode::Xor, b, {reg_op(addr), reg_op(from), reg_op(t)}, in));
      } else {
        code.push_back(make(Opcode::Xor, b, {reg_op(off), reg_op(from), reg_op(t)}, in));
        code.push_back(
            make(Opcode::Add, s, {reg_op(addr), reg_op(off), reg_op(base_reg(w, generic))}, in));
      }
      m.set_imm(0);
    }
    m.reg = addr;
    per = std::max<std::uint32_t>(per, std::uint32_t(code.size()));
    auto& at = hoist ? after[def[key.first]] : before[i];
    at.insert(at.end(), code.begin(), code.end());
    if (hoist) done[key] = {m.reg, std::int64_t(m.imm())};
  }
  splice(k, std::move(head), before, after);
  out.form = r.row ? fmt::format("i + (i / {}) * {} inserted for each address ({} instructions)",
                                 r.row, r.pad, per)
                   : fmt::format("the swizzle inserted for each address ({} instructions)", per);
  if (r.row) return grow_symbol(k, sym, a.bytes + r.added_bytes());
  return "";
}

}  // namespace

void splice(ptx::Kernel& k, std::vector<Instruction> head, const Insertions& before,
            const Insertions& after) {
  std::vector<Instruction> code = std::move(head);
  std::vector<std::uint32_t> place(k.code.size() + 1);
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    place[i] = std::uint32_t(code.size());
    if (const auto it = before.find(i); it != before.end())
      code.insert(code.end(), it->second.begin(), it->second.end());
    code.push_back(k.code[i]);
    if (const auto it = after.find(i); it != after.end())
      code.insert(code.end(), it->second.begin(), it->second.end());
  }
  place[k.code.size()] = std::uint32_t(code.size());
  // A branch to the kernel's first instruction still runs the head's set-up: it is idempotent.
  place[0] = 0;
  for (Instruction& in : code)
    for (int j = 0; j < in.num_ops; ++j) {
      Operand& o = in.ops[std::size_t(j)];
      if (o.kind == OperandKind::Label && o.target != kNone && o.target < place.size())
        o.target = place[o.target];
    }
  k.code = std::move(code);
}

std::uint32_t Bases::base(bool w, bool generic) {
  std::uint32_t& b = base_[w][generic];
  if (b != kNone) return b;
  b = new_reg(k_, w ? Type::B64 : Type::B32);
  Operand s;
  s.kind = OperandKind::Symbol;
  s.sym = sym_;
  head_.push_back(make(Opcode::Mov, w ? Type::U64 : Type::U32, {reg_op(b), s}, first()));
  if (generic) {
    Instruction c = make(Opcode::Cvta, Type::U64, {reg_op(b), reg_op(b)}, first());
    c.space = ptx::Space::Shared;
    head_.push_back(c);
  }
  return b;
}

std::uint32_t Bases::copy_offset(bool w) {
  if (!w) return c4_;
  if (c64_ == kNone) {
    c64_ = new_reg(k_, Type::B64);
    Instruction c = make(Opcode::Cvt, Type::U64, {reg_op(c64_), reg_op(c4_)}, first());
    c.type2 = Type::U32;
    head_.push_back(c);
  }
  return c64_;
}

std::uint32_t Bases::lane_base(bool w, bool generic) {
  std::uint32_t& b = lane_[w][generic];
  if (b != kNone) return b;
  const std::uint32_t from = base(w, generic), off = copy_offset(w);
  b = new_reg(k_, w ? Type::B64 : Type::B32);
  head_.push_back(make(Opcode::Add, w ? Type::S64 : Type::S32,
                       {reg_op(b), reg_op(from), reg_op(off)}, first()));
  return b;
}

std::uint32_t new_reg(ptx::Kernel& k, Type t) {
  k.regs.push_back({fmt::format("%smemsim_fix{}", k.regs.size()), t});
  return std::uint32_t(k.regs.size() - 1);
}

std::string grow_symbol(ptx::Kernel& k, std::uint32_t sym, std::uint32_t bytes) {
  ptx::Symbol& s = k.symbols[sym];
  const std::uint64_t elem = s.elements ? s.size_bytes() / s.elements : 0;
  if (!elem || bytes % elem) return "the array's element size does not divide its padded size";
  s.elements = bytes / elem;
  return "";
}

ptx::Kernel* kernel_to_rewrite(Applied& out, const std::string& kernel,
                               const exec::SharedLayout::Array& array, std::uint32_t& sym,
                               bool dynamic_ok) {
  ptx::Kernel* k = nullptr;
  for (ptx::Kernel& c : out.module.kernels)
    if (c.name == kernel) k = &c;
  if (!k || k->code.empty()) {
    out.refused = "the kernel has no code to rewrite";
    return nullptr;
  }
  if (array.dynamic && !dynamic_ok) {
    out.refused = "a dynamic (extern) array: its size is the launch's, not the code's";
    return nullptr;
  }
  sym = k->find_symbol(array.name);
  if (sym == kNone || k->symbols[sym].space != ptx::Space::Shared) {
    out.refused = fmt::format("'{}' is not a shared variable of the kernel", array.name);
    return nullptr;
  }
  return k;
}

Applied apply_remap(const ptx::Module& module, const std::string& kernel,
                    const exec::SharedLayout::Array& array, const std::vector<std::uint32_t>& lines,
                    const exec::SharedRemap& remap) {
  Applied out;
  out.module = module;
  std::uint32_t sym = kNone;
  ptx::Kernel* k = kernel_to_rewrite(out, kernel, array, sym);
  if (!k) return out;
  std::vector<std::uint32_t> acc;
  if (out.refused = accesses(*k, lines, acc); !out.refused.empty()) return out;
  if (remap.row) {
    ptx::Kernel stride = *k;
    Applied tried;
    const std::string why = pad_by_stride(stride, acc, array, remap, sym, tried);
    if (why.empty()) {
      *k = std::move(stride);
      out.form = tried.form;
      out.changed = tried.changed;
      return out;
    }
    out.refused = insert_index_function(*k, acc, array, remap, sym, out);
    out.form += " (no row stride to change: " + why + ")";
    return out;
  }
  out.refused = insert_index_function(*k, acc, array, remap, sym, out);
  return out;
}

}  // namespace smemsim::fix::detail

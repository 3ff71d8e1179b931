// A fix candidate written into the kernel's PTX (src/fix/fix_apply.hpp).
#include "fix/fix_apply.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>

namespace smemsim::fix::detail {
namespace {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

constexpr std::uint32_t kNone = ptx::kNone;

bool wide(Type t) {
  return t == Type::B64 || t == Type::U64 || t == Type::S64;
}

// The operand index of an instruction's memory operand, -1 when it has none.
int memory_operand(const Instruction& in) {
  for (int k = 0; k < in.num_ops; ++k)
    if (in.ops[std::size_t(k)].kind == OperandKind::Memory) return k;
  return -1;
}

// Definitions per register; a guarded definition counts twice (its value may come from before).
std::vector<std::uint32_t> count_defs(const ptx::Kernel& k, std::vector<std::uint32_t>& def) {
  std::vector<std::uint32_t> n(k.regs.size(), 0);
  def.assign(k.regs.size(), kNone);
  auto add = [&](std::uint32_t r, std::uint32_t i, bool guarded) {
    if (r == kNone || r >= n.size()) return;
    n[r] += guarded ? 2 : 1;
    def[r] = i;
  };
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    const Instruction& in = k.code[i];
    const bool g = in.guard != kNone;
    const Operand& d = in.ops[0];
    if (d.kind == OperandKind::Reg) add(d.reg, i, g);
    if (d.kind == OperandKind::Vector)
      for (int e = 0; e < d.count; ++e) add(d.vec[std::size_t(e)], i, g);
    for (const int extra : {4, 5})
      if (in.num_ops > extra && in.ops[std::size_t(extra)].kind == OperandKind::Reg &&
          (in.op == Opcode::Setp || in.op == Opcode::Shfl))
        add(in.ops[std::size_t(extra)].reg, i, g);
  }
  return n;
}

// The linear form of a shared address: sum of terms, a symbol and a constant.
struct Walk {
  Walk(const ptx::Kernel& kernel, const std::vector<std::uint32_t>& n,
       const std::vector<std::uint32_t>& d)
      : k(kernel), ndef(n), def(d) {}
  const ptx::Kernel& k;
  const std::vector<std::uint32_t>& ndef;
  const std::vector<std::uint32_t>& def;
  std::uint64_t row_bytes = 0;
  std::uint32_t sym = kNone;  // the array's symbol
  // Results of one access's walk.
  std::int64_t constant = 0;
  int symbols = 0;  // times the array's symbol was found (must be 1, with coefficient 1)
  std::string bad;
  std::set<std::uint32_t> nodes;                   // instructions of the address tree
  std::map<std::uint32_t, std::uint64_t> rows;     // row-term instruction -> its coefficient
  std::map<std::uint32_t, std::uint64_t> descend;  // instructions walked through with a scale

  static bool imm(const Operand& o) { return o.kind == OperandKind::ImmInt; }

  void operand(const Operand& o, std::uint64_t scale, int depth) {
    if (!bad.empty()) return;
    switch (o.kind) {
      case OperandKind::ImmInt:
        constant += o.imm * std::int64_t(scale);
        return;
      case OperandKind::Symbol:
        if (o.sym != sym) {
          bad = fmt::format("an address of the array also names '{}'", k.symbols[o.sym].name);
          return;
        }
        if (scale != 1) bad = "the array's address is scaled";
        ++symbols;
        constant += o.imm;
        return;
      case OperandKind::Reg:
        return reg(o.reg, scale, depth);
      case OperandKind::Special:  // %tid.x and the like: an index
        return leaf(scale);
      default:
        bad = "an address operand of another kind";
    }
  }

  void leaf(std::uint64_t scale) {
    if (scale >= row_bytes)
      bad = fmt::format(
          "a term of the address whose coefficient is {} bytes is not a constant "
          "multiply",
          scale);
  }

  // A multiply by constant c of instruction i's operand `src` (shl, mul, mad's product).
  void product(std::uint32_t i, const Operand& src, std::uint64_t c, std::uint64_t scale,
               int depth) {
    const std::uint64_t coef = c * scale;
    if (coef % row_bytes == 0) {
      rows[i] = coef;  // a row term: the stride changes here
      return;
    }
    descend[i] = scale;
    operand(src, coef, depth + 1);
  }

  void reg(std::uint32_t r, std::uint64_t scale, int depth) {
    if (depth > 24 || r >= ndef.size() || ndef[r] != 1) return leaf(scale);
    const std::uint32_t i = def[r];
    const Instruction& in = k.code[i];
    if (in.guard != kNone) return leaf(scale);
    nodes.insert(i);
    const Operand* o = in.ops.data();
    switch (in.op) {
      case Opcode::Mov:
      case Opcode::Cvta:
        descend[i] = scale;
        return operand(o[1], scale, depth + 1);
      case Opcode::Cvt:
        if (in.rounding != ptx::Rounding::None || ptx::is_float(in.type) || ptx::is_float(in.type2))
          return leaf(scale);
        descend[i] = scale;
        return operand(o[1], scale, depth + 1);
      case Opcode::Add:
        if (ptx::is_float(in.type)) return leaf(scale);
        descend[i] = scale;
        operand(o[1], scale, depth + 1);
        return operand(o[2], scale, depth + 1);
      case Opcode::Sub:
        if (ptx::is_float(in.type) || !imm(o[2])) return leaf(scale);
        descend[i] = scale;
        constant -= o[2].imm * std::int64_t(scale);
        return operand(o[1], scale, depth + 1);
      case Opcode::Shl:
        if (!imm(o[2]) || o[2].imm < 0 || o[2].imm > 31) return leaf(scale);
        return product(i, o[1], std::uint64_t{1} << o[2].imm, scale, depth);
      case Opcode::Mul:
        if (ptx::is_float(in.type) || in.mode == ptx::MulMode::Hi) return leaf(scale);
        if (imm(o[2]) && o[2].imm > 0)
          return product(i, o[1], std::uint64_t(o[2].imm), scale, depth);
        if (imm(o[1]) && o[1].imm > 0)
          return product(i, o[2], std::uint64_t(o[1].imm), scale, depth);
        return leaf(scale);
      case Opcode::Mad:
        if (ptx::is_float(in.type) || in.mode == ptx::MulMode::Hi || !imm(o[2]) || o[2].imm <= 0)
          return leaf(scale);
        // mad d, a, c, b: a * c, then b.
        if ((std::uint64_t(o[2].imm) * scale) % row_bytes == 0) {
          rows[i] = std::uint64_t(o[2].imm) * scale;
        } else {
          descend[i] = scale;
          operand(o[1], std::uint64_t(o[2].imm) * scale, depth + 1);
        }
        return operand(o[3], scale, depth + 1);
      default:
        return leaf(scale);
    }
  }
};

// Uses of each register (instruction indices), sources only.
std::vector<std::vector<std::uint32_t>> uses_of(const ptx::Kernel& k) {
  std::vector<std::vector<std::uint32_t>> u(k.regs.size());
  auto add = [&](std::uint32_t r, std::uint32_t i) {
    if (r != kNone && r < u.size()) u[r].push_back(i);
  };
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    const Instruction& in = k.code[i];
    add(in.guard, i);
    for (int j = 0; j < in.num_ops; ++j) {
      const Operand& o = in.ops[std::size_t(j)];
      const bool dest = j == 0 && (o.kind == OperandKind::Reg || o.kind == OperandKind::Vector) &&
                        in.op != Opcode::St && in.op != Opcode::Red;
      if (o.kind == OperandKind::Memory) add(o.reg, i);
      if (dest) continue;
      if (o.kind == OperandKind::Reg) add(o.reg, i);
      if (o.kind == OperandKind::Vector)
        for (int e = 0; e < o.count; ++e) add(o.vec[std::size_t(e)], i);
    }
  }
  return u;
}

Operand reg_op(std::uint32_t r) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.reg = r;
  return o;
}
Operand imm_op(std::int64_t v) {
  Operand o;
  o.kind = OperandKind::ImmInt;
  o.imm = v;
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
  in.loc = at.loc;
  in.inlined_at = at.inlined_at;
  in.call_site = at.call_site;
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

std::string grow_symbol(ptx::Kernel& k, std::uint32_t sym, std::uint32_t bytes) {
  ptx::Symbol& s = k.symbols[sym];
  const std::uint64_t elem = s.elements ? s.size_bytes() / s.elements : 0;
  if (!elem || bytes % elem) return "the array's element size does not divide its padded size";
  s.elements = bytes / elem;
  return "";
}

// The stride form of a padding (src/fix/fix_apply.hpp).
std::string pad_by_stride(ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                          const exec::SharedLayout::Array& a, const exec::SharedRemap& r,
                          std::uint32_t sym, Applied& out) {
  std::vector<std::uint32_t> def;
  const std::vector<std::uint32_t> ndef = count_defs(k, def);
  const std::uint64_t row = std::uint64_t(r.row) * r.grain, pad = std::uint64_t(r.pad) * r.grain;
  std::map<std::uint32_t, std::uint64_t> rows, descend;
  std::set<std::uint32_t> nodes(acc.begin(), acc.end());
  std::map<std::uint32_t, std::int64_t> delta;  // access -> immediate change
  for (const std::uint32_t i : acc) {
    Walk w(k, ndef, def);
    w.row_bytes = row;
    w.sym = sym;
    const Operand& m = k.code[i].ops[std::size_t(memory_operand(k.code[i]))];
    w.constant = m.imm;
    if (m.sym != kNone) {
      Operand named;
      named.kind = OperandKind::Symbol;
      named.sym = m.sym;
      w.operand(named, 1, 0);
    }
    if (m.reg != kNone) w.reg(m.reg, 1, 0);
    if (!w.bad.empty()) return w.bad;
    if (w.symbols != 1) return "an address of the array is not its symbol plus an offset";
    if (w.constant < 0) return "an address of the array has a negative constant offset";
    const auto c = std::uint64_t(w.constant);
    delta[i] = std::int64_t(c / row * pad);
    for (const auto& [n, coef] : w.rows) {
      if (descend.count(n) || (rows.count(n) && rows[n] != coef))
        return "one instruction is a row term of one address and not of another";
      rows[n] = coef;
    }
    for (const auto& [n, s] : w.descend) {
      if (rows.count(n) || (descend.count(n) && descend[n] != s))
        return "one instruction is a row term of one address and not of another";
      descend[n] = s;
    }
    nodes.insert(w.nodes.begin(), w.nodes.end());
  }
  // What a changed multiply computes reaches the array's addresses only: its value, and every
  // value computed from it, is used by instructions of the address trees alone.
  const auto uses = uses_of(k);
  std::vector<std::uint32_t> work;
  for (const auto& [n, coef] : rows) work.push_back(n);
  std::set<std::uint32_t> seen;
  while (!work.empty()) {
    const std::uint32_t n = work.back();
    work.pop_back();
    if (!seen.insert(n).second) continue;
    const Operand& d = k.code[n].ops[0];
    if (d.kind != OperandKind::Reg) continue;
    for (const std::uint32_t u : uses[d.reg]) {
      if (!nodes.count(u))
        return fmt::format("PTX line {}: the row's multiply also feeds line {}", k.code[n].ptx_line,
                           k.code[u].ptx_line);
      if (std::find(acc.begin(), acc.end(), u) == acc.end()) work.push_back(u);
    }
  }
  for (const auto& [n, coef] : rows) {
    Instruction& in = k.code[n];
    const std::uint64_t c = in.op == Opcode::Shl ? std::uint64_t{1} << in.ops[2].imm
                            : in.op == Opcode::Mad || ptx::is_float(in.type) ? in.ops[2].imm
                            : in.ops[2].kind == OperandKind::ImmInt          ? in.ops[2].imm
                                                                             : in.ops[1].imm;
    const std::uint64_t scale = coef / c;
    const std::uint64_t want = coef / row * (row + pad);
    if (want % scale) return "a row multiplier cannot take the padded stride exactly";
    const std::int64_t c2 = std::int64_t(want / scale);
    if (in.op == Opcode::Shl) {
      in.op = Opcode::Mul;
      in.mode = ptx::MulMode::Lo;
      in.type = wide(in.type) ? Type::U64 : Type::U32;
      in.ops[2] = imm_op(c2);
    } else if (in.op == Opcode::Mad || in.ops[2].kind == OperandKind::ImmInt) {
      in.ops[2].imm = c2;
    } else {
      in.ops[1].imm = c2;
    }
    ++out.changed;
  }
  for (const auto& [i, d] : delta) {
    Instruction& in = k.code[i];
    in.ops[std::size_t(memory_operand(in))].imm += d;
  }
  out.form = fmt::format(
      "row stride {} bytes: {} multiplier{} changed, the declaration {} -> {} "
      "bytes",
      row + pad, out.changed, out.changed == 1 ? "" : "s", a.bytes, a.bytes + r.added_bytes());
  return grow_symbol(k, sym, a.bytes + r.added_bytes());
}

// The inserted form: the emitted CUDA's index function before each access.
std::string insert_index_function(ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                                  const exec::SharedLayout::Array& a, const exec::SharedRemap& r,
                                  std::uint32_t sym, Applied& out) {
  if (!k.calls.empty()) return "the kernel calls functions: its code is not rewritten";
  const int lg = std::countr_zero(r.grain);
  const std::uint64_t row = std::uint64_t(r.row) * r.grain, pad = std::uint64_t(r.pad) * r.grain;
  if (r.row && !std::has_single_bit(row)) return "a row width that is not a power of two";
  auto new_reg = [&](bool w) {
    k.regs.push_back({fmt::format("%smemsim_fix{}", k.regs.size()), w ? Type::B64 : Type::B32});
    return std::uint32_t(k.regs.size() - 1);
  };
  // The array's base, once at the kernel's start, per address width and space.
  std::map<std::pair<bool, bool>, std::uint32_t> base;  // (wide, generic) -> register
  std::vector<Instruction> head;
  const Instruction& first = k.code.front();
  auto base_reg = [&](bool w, bool generic) {
    const auto key = std::pair(w, generic);
    if (const auto it = base.find(key); it != base.end()) return it->second;
    const std::uint32_t b = new_reg(w);
    Operand s;
    s.kind = OperandKind::Symbol;
    s.sym = sym;
    head.push_back(make(Opcode::Mov, w ? Type::U64 : Type::U32, {reg_op(b), s}, first));
    if (generic) {
      Instruction c = make(Opcode::Cvta, Type::U64, {reg_op(b), reg_op(b)}, first);
      c.space = ptx::Space::Shared;
      head.push_back(c);
    }
    return base[key] = b;
  };
  std::map<std::uint32_t, std::vector<Instruction>> before;
  std::uint32_t per = 0;
  for (const std::uint32_t i : acc) {
    Instruction& in = k.code[i];
    Operand& m = in.ops[std::size_t(memory_operand(in))];
    if (m.reg == kNone) {  // a constant address: the new one is a constant too
      if (m.sym != sym) return "an access of the array through another symbol";
      m.imm = std::int64_t(r.map(std::uint64_t(a.offset) + std::uint64_t(m.imm)) - a.offset);
      continue;
    }
    if (m.sym != kNone) return "an address of both a register and a symbol";
    const bool w = wide(k.regs[m.reg].type);
    const bool generic = in.space == ptx::Space::Generic;
    const Type u = w ? Type::U64 : Type::U32, s = w ? Type::S64 : Type::S32,
               b = w ? Type::B64 : Type::B32;
    std::vector<Instruction> code;
    const std::uint32_t off = new_reg(w), addr = new_reg(w);
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
    if (m.imm) {
      code.push_back(make(Opcode::Add, s, {reg_op(off), reg_op(from), imm_op(m.imm)}, in));
      from = off;
    }
    if (r.row) {
      const std::uint32_t q = new_reg(w);
      code.push_back(
          make(Opcode::Shr, u, {reg_op(q), reg_op(from), imm_op(std::countr_zero(row))}, in));
      Instruction mad = make(
          Opcode::Mad, s, {reg_op(addr), reg_op(q), imm_op(std::int64_t(pad)), reg_op(m.reg)}, in);
      mad.mode = ptx::MulMode::Lo;
      code.push_back(mad);
    } else {
      const std::uint32_t t = new_reg(w);
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
      m.imm = 0;
    }
    m.reg = addr;
    per = std::max<std::uint32_t>(per, std::uint32_t(code.size()));
    out.inserted += std::uint32_t(code.size());
    before[i] = std::move(code);
  }
  // The new code and each old index's new place (a branch to an access runs its prefix).
  std::vector<Instruction> code = head;
  std::vector<std::uint32_t> place(k.code.size() + 1);
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    place[i] = std::uint32_t(code.size());
    if (const auto it = before.find(i); it != before.end())
      code.insert(code.end(), it->second.begin(), it->second.end());
    code.push_back(k.code[i]);
  }
  place[k.code.size()] = std::uint32_t(code.size());
  // A branch to the kernel's first instruction still runs the base's set-up: it is idempotent.
  place[0] = 0;
  for (Instruction& in : code)
    for (int j = 0; j < in.num_ops; ++j) {
      Operand& o = in.ops[std::size_t(j)];
      if (o.kind == OperandKind::Label && o.target != kNone && o.target < place.size())
        o.target = place[o.target];
    }
  out.inserted += std::uint32_t(head.size());
  k.code = std::move(code);
  out.form = r.row ? fmt::format("i + (i / {}) * {} inserted before each access ({} instructions)",
                                 r.row, r.pad, per)
                   : fmt::format("the swizzle inserted before each access ({} instructions)", per);
  if (r.row) return grow_symbol(k, sym, a.bytes + r.added_bytes());
  return "";
}

}  // namespace

Applied apply_remap(const ptx::Module& module, const std::string& kernel,
                    const exec::SharedLayout::Array& array, const std::vector<std::uint32_t>& lines,
                    const exec::SharedRemap& remap) {
  Applied out;
  out.module = module;
  ptx::Kernel* k = nullptr;
  for (ptx::Kernel& c : out.module.kernels)
    if (c.name == kernel) k = &c;
  if (!k || k->code.empty()) {
    out.refused = "the kernel has no code to rewrite";
    return out;
  }
  if (array.dynamic) {
    out.refused = "a dynamic (extern) array: its size is the launch's, not the code's";
    return out;
  }
  const std::uint32_t sym = k->find_symbol(array.name);
  if (sym == kNone || k->symbols[sym].space != ptx::Space::Shared) {
    out.refused = fmt::format("'{}' is not a shared variable of the kernel", array.name);
    return out;
  }
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

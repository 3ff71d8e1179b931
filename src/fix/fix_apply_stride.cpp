// The stride form of a padding (src/fix/fix_apply.hpp): the row multiplies of the array's addresses
// take the padded stride.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "fix/fix_apply.hpp"

namespace smemsim::fix::detail {
namespace {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

// The linear form of a shared address: sum of terms, a symbol and a constant.
struct Walk {
  Walk(const ptx::Kernel& kernel, const RegisterFlow& f)
      : k(kernel), ndef(f.ndef), def(f.def), defs(f.defs) {}
  const ptx::Kernel& k;
  const std::vector<std::uint32_t>& ndef;
  const std::vector<std::uint32_t>& def;
  const std::vector<std::vector<std::uint32_t>>& defs;
  std::uint64_t row_bytes = 0;
  std::uint32_t sym = ptx::kNone;  // the array's symbol
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
        constant += o.imm() * std::int64_t(scale);
        return;
      case OperandKind::Symbol:
        if (o.sym != sym) {
          bad = fmt::format("an address of the array also names '{}'", k.symbols[o.sym].name);
          return;
        }
        if (scale != 1) bad = "the array's address is scaled";
        ++symbols;
        constant += o.imm();
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
    if (depth > 24 || r >= ndef.size()) return leaf(scale);
    if (ndef[r] == 2 && defs[r].size() == 2) return induction(r, scale, depth);
    if (ndef[r] != 1) return leaf(scale);
    walk_def(def[r], scale, depth);
  }

  // A pointer stepped in a loop (r = init; ...; r = r + step): a step smaller than a row is a
  // column's and stays; one of whole rows (a loop over every 8th row: + 8 x 128 bytes) is a row
  // term, its immediate taking the padded stride; the initial value is walked.
  void induction(std::uint32_t r, std::uint64_t scale, int depth) {
    for (int j = 0; j < 2; ++j) {
      const std::uint32_t step = defs[r][std::size_t(j)], init = defs[r][std::size_t(1 - j)];
      const Instruction& in = k.code[step];
      if (in.op != Opcode::Add || ptx::is_float(in.type) || in.guard != ptx::kNone ||
          k.code[init].guard != ptx::kNone || in.ops[1].kind != OperandKind::Reg ||
          in.ops[1].reg != r || !imm(in.ops[2]))
        continue;
      const std::int64_t by = in.ops[2].imm() * std::int64_t(scale);
      if (by > 0 && std::uint64_t(by) % row_bytes == 0) {
        nodes.insert(step);
        rows[step] = std::uint64_t(by);
        return walk_def(init, scale, depth);
      }
      if (by >= std::int64_t(row_bytes) || -by >= std::int64_t(row_bytes)) continue;
      nodes.insert(step);
      descend[step] = scale;
      return walk_def(init, scale, depth);
    }
    leaf(scale);
  }

  void walk_def(std::uint32_t i, std::uint64_t scale, int depth) {
    const Instruction& in = k.code[i];
    if (in.guard != ptx::kNone) return leaf(scale);
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
        constant -= o[2].imm() * std::int64_t(scale);
        return operand(o[1], scale, depth + 1);
      case Opcode::Shl:
        if (!imm(o[2]) || o[2].imm() < 0 || o[2].imm() > 31) return leaf(scale);
        return product(i, o[1], std::uint64_t{1} << o[2].imm(), scale, depth);
      case Opcode::Mul:
        if (ptx::is_float(in.type) || in.mode == ptx::MulMode::Hi) return leaf(scale);
        if (imm(o[2]) && o[2].imm() > 0)
          return product(i, o[1], std::uint64_t(o[2].imm()), scale, depth);
        if (imm(o[1]) && o[1].imm() > 0)
          return product(i, o[2], std::uint64_t(o[1].imm()), scale, depth);
        return leaf(scale);
      case Opcode::Mad:
        if (ptx::is_float(in.type) || in.mode == ptx::MulMode::Hi || !imm(o[2]) || o[2].imm() <= 0)
          return leaf(scale);
        // mad d, a, c, b: a * c, then b.
        if ((std::uint64_t(o[2].imm()) * scale) % row_bytes == 0) {
          rows[i] = std::uint64_t(o[2].imm()) * scale;
        } else {
          descend[i] = scale;
          operand(o[1], std::uint64_t(o[2].imm()) * scale, depth + 1);
        }
        return operand(o[3], scale, depth + 1);
      default:
        return leaf(scale);
    }
  }
};

}  // namespace

// The stride form of a padding (src/fix/fix_apply.hpp).
std::string pad_by_stride(ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                          const exec::SharedLayout::Array& a, const exec::SharedRemap& r,
                          std::uint32_t sym, Applied& out) {
  const RegisterFlow flow = register_flow(k);
  const std::uint64_t row = std::uint64_t(r.row) * r.grain, pad = std::uint64_t(r.pad) * r.grain;
  std::map<std::uint32_t, std::uint64_t> rows, descend;
  std::set<std::uint32_t> nodes(acc.begin(), acc.end());
  std::map<std::uint32_t, std::int64_t> delta;  // access -> immediate change
  for (const std::uint32_t i : acc) {
    Walk w(k, flow);
    w.row_bytes = row;
    w.sym = sym;
    const Operand& m = k.code[i].ops[std::size_t(memory_operand(k.code[i]))];
    w.constant = m.imm();
    if (m.sym != ptx::kNone) {
      Operand named;
      named.kind = OperandKind::Symbol;
      named.sym = m.sym;
      w.operand(named, 1, 0);
    }
    if (m.reg != ptx::kNone) w.reg(m.reg, 1, 0);
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
  // Where a value on the way from a row term to the array's addresses also feeds other code (the
  // index of another array, a global address), that part of the tree is computed twice, as the
  // compiler does for a declaration with another stride: a copy takes the padded stride, the
  // original keeps serving the rest. Impure: a tree instruction with a user outside the array's
  // address trees, or an impure one; tainted: one whose value depends on a row term.
  const std::set<std::uint32_t> accs(acc.begin(), acc.end());
  auto dest = [&](std::uint32_t n) {
    const Operand& d = k.code[n].ops[0];
    return d.kind == OperandKind::Reg ? d.reg : ptx::kNone;
  };
  std::set<std::uint32_t> impure;
  for (bool more = true; more;) {
    more = false;
    for (const std::uint32_t n : nodes) {
      const std::uint32_t d = dest(n);
      if (accs.count(n) || impure.count(n) || d == ptx::kNone) continue;
      for (const std::uint32_t u : flow.uses[d])
        if (!accs.count(u) && (!nodes.count(u) || impure.count(u))) {
          impure.insert(n);
          more = true;
          break;
        }
    }
  }
  std::set<std::uint32_t> tainted;
  std::vector<std::uint32_t> work;
  for (const auto& [n, coef] : rows) work.push_back(n);
  while (!work.empty()) {
    const std::uint32_t n = work.back();
    work.pop_back();
    if (!tainted.insert(n).second || dest(n) == ptx::kNone) continue;
    for (const std::uint32_t u : flow.uses[dest(n)])
      if (nodes.count(u) && !accs.count(u)) work.push_back(u);
  }
  std::map<std::uint32_t, std::uint32_t> copy_of;  // instruction -> its copy's index in `copies`
  std::map<std::uint32_t, std::uint32_t> renamed;  // register -> the copy's register
  std::vector<Instruction> copies;
  for (const std::uint32_t n : tainted) {
    if (!impure.count(n)) continue;
    const std::uint32_t d = dest(n);
    if (d == ptx::kNone || flow.ndef[d] != 1)
      return fmt::format("PTX line {}: a loop's pointer into the array also feeds other code",
                         k.code[n].ptx_line);
    copy_of[n] = std::uint32_t(copies.size());
    copies.push_back(k.code[n]);
    renamed[d] = new_reg(k, k.regs[d].type);
    copies.back().ops[0].reg = renamed[d];
  }
  // The copies, the array's pure tree instructions and its accesses read the copies' registers.
  auto rename = [&](Instruction& in, bool access) {
    for (int j = access ? 0 : 1; j < in.num_ops; ++j) {
      Operand& o = in.ops[std::size_t(j)];
      if (access && o.kind != OperandKind::Memory) continue;
      if ((o.kind == OperandKind::Reg || o.kind == OperandKind::Memory) && renamed.count(o.reg))
        o.reg = renamed[o.reg];
    }
  };
  for (Instruction& c : copies) rename(c, false);
  for (const std::uint32_t n : nodes)
    if (!impure.count(n) && !accs.count(n)) rename(k.code[n], false);
  for (const std::uint32_t i : acc) rename(k.code[i], true);
  for (const auto& [n, coef] : rows) {
    Instruction& in = copy_of.count(n) ? copies[copy_of[n]] : k.code[n];
    const std::int64_t imm2 = in.ops[2].imm(), imm1 = in.ops[1].imm();
    const std::uint64_t c = in.op == Opcode::Shl ? std::uint64_t{1} << imm2
                            : in.op == Opcode::Mad || ptx::is_float(in.type) ? imm2
                            : in.ops[2].kind == OperandKind::ImmInt          ? imm2
                                                                             : imm1;
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
      in.ops[2].set_imm(c2);
    } else {
      in.ops[1].set_imm(c2);
    }
    ++out.changed;
  }
  for (const auto& [i, d] : delta) {
    Instruction& in = k.code[i];
    in.ops[std::size_t(memory_operand(in))].set_imm(in.ops[std::size_t(memory_operand(in))].imm() +
                                                    d);
  }
  Insertions after;
  for (const auto& [n, c] : copy_of) after[n].push_back(copies[c]);
  splice(k, {}, {}, after);
  out.form = fmt::format(
      "row stride {} bytes: {} multiplier{} changed{}, the declaration {} -> {} bytes", row + pad,
      out.changed, out.changed == 1 ? "" : "s",
      copies.empty() ? ""
                     : fmt::format(" ({} instruction{} computed twice: other code uses the "
                                   "unpadded value)",
                                   copies.size(), copies.size() == 1 ? "" : "s"),
      a.bytes, a.bytes + r.added_bytes());
  return grow_symbol(k, sym, a.bytes + r.added_bytes());
}

}  // namespace smemsim::fix::detail

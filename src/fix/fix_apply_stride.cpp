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
  Walk(const ptx::Kernel& kernel, const RegisterFlow& f) : k(kernel), ndef(f.ndef), def(f.def) {}
  const ptx::Kernel& k;
  const std::vector<std::uint32_t>& ndef;
  const std::vector<std::uint32_t>& def;
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
    w.constant = m.imm;
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
  // What a changed multiply computes reaches the array's addresses only: its value, and every
  // value computed from it, is used by instructions of the address trees alone.
  const auto& uses = flow.uses;
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

}  // namespace smemsim::fix::detail

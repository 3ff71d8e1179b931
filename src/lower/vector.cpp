// Wide shared loads (vector.hpp).
#include "lower/vector.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

std::uint32_t low_bit(std::int64_t v) {
  if (v == 0) return kAlignCap;
  const auto b = std::uint64_t{1} << std::countr_zero(std::uint64_t(v));
  return std::uint32_t(std::min<std::uint64_t>(b, kAlignCap));
}

std::uint32_t product(std::uint32_t a, std::uint32_t b) {
  return std::uint32_t(std::min<std::uint64_t>(std::uint64_t(a) * b, kAlignCap));
}

// The memory operand of a load (ops[1]) or a store (ops[0]).
const ptx::Operand& address_of(const ptx::Instruction& ins) {
  return ins.ops[ins.op == Opcode::St ? 0 : 1];
}

// A load's or store's bytes when it can be a member of a group, 0 otherwise.
std::uint32_t member_bytes(const ptx::Kernel& k, const ptx::Instruction& ins) {
  if ((ins.op != Opcode::Ld && ins.op != Opcode::St) || ins.space != ptx::Space::Shared ||
      ins.guard != ptx::kNone || (ins.flags & (ptx::kVolatile | ptx::kStrong)) || ins.num_ops < 2 ||
      address_of(ins).kind != OperandKind::Memory)
    return 0;
  const ptx::Operand& m = address_of(ins);
  if (m.reg == ptx::kNone && (m.sym == ptx::kNone || m.sym >= k.symbols.size() ||
                              k.symbols[m.sym].space != ptx::Space::Shared))
    return 0;
  // Scalars of 4 or 8 bytes (two doubles make an LDS.128: lavamd's, the H200's counts). The
  // merged access is built from the members' words, word k of every lane (the timing model asks
  // the executor for an 8-byte member's words that way: Executor::set_word_rows).
  if (ins.vec != 1) return 0;
  const int bits = ptx::type_bits(ins.type);
  return bits == 32 ? 4 : bits == 64 ? 8 : 0;
}

// May no shared load move above the instruction? It may change shared memory's contents, or
// orders the loads after it (an atomic, a strong or volatile access, a barrier), or reads a clock.
bool load_barrier(const ptx::Instruction& ins) {
  switch (ins.op) {
    case Opcode::St:
      return (ins.flags & (ptx::kVolatile | ptx::kStrong)) ||
             (ins.space != ptx::Space::Global && ins.space != ptx::Space::Local &&
              ins.space != ptx::Space::Param);
    case Opcode::Atom:  // any space: an acquire orders the loads after it
    case Opcode::Red:
      return true;
    case Opcode::Ld:
    case Opcode::Ldmatrix:
      return ins.flags & (ptx::kVolatile | ptx::kStrong);  // ordered: nothing passes them
    case Opcode::Stmatrix:
    case Opcode::WmmaStore:
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::Nanosleep:
      return true;
    default:
      return ends_block(ins.op) || reads_clock(ins);
  }
}

// May no shared store move below the instruction? Whatever no load passes (a store, an atomic,
// a fence, a barrier, a clock), and every access that reads shared (or generic) memory: it may
// read the store's word.
bool store_barrier(const ptx::Instruction& ins) {
  if (load_barrier(ins)) return true;
  switch (ins.op) {
    case Opcode::Ld:
      return ins.space != ptx::Space::Global && ins.space != ptx::Space::Local &&
             ins.space != ptx::Space::Param && ins.space != ptx::Space::Const;
    case Opcode::Ldmatrix:
    case Opcode::WmmaLoad:
      return true;
    default:
      return false;
  }
}

struct Load {  // a load or a store of a list
  std::uint32_t at = 0, bytes = 0;
  std::int64_t offset = 0;
  bool used = false;
};

}  // namespace

std::vector<std::uint32_t> known_alignment(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  const std::size_t nregs = k.regs.size();
  std::vector<std::uint32_t> align(nregs, 1);
  for (const RegUse& u : uses)
    for (std::uint32_t r : u.writes)
      if (r < nregs) align[r] = kAlignCap;
  auto of = [&](const ptx::Operand& o) -> std::uint32_t {
    switch (o.kind) {
      case OperandKind::Reg:
        return o.reg < nregs ? align[o.reg] : 1;
      case OperandKind::ImmInt:
        return low_bit(o.imm());
      case OperandKind::Symbol:
        if (o.sym < k.symbols.size() && k.symbols[o.sym].space == ptx::Space::Shared)
          return std::min(kAlignCap, std::max(kSharedVarAlign, k.symbols[o.sym].align));
        return 1;
      default:
        return 1;
    }
  };
  // What instruction i writes into register r, given the alignments so far.
  auto eval = [&](const ptx::Instruction& ins, std::uint32_t r) -> std::uint32_t {
    if (ins.num_ops == 0 || ins.ops[0].kind != OperandKind::Reg || ins.ops[0].reg != r) return 1;
    const bool integer = ins.type != ptx::Type::Pred && !ptx::is_float(ins.type);
    if (!integer) return 1;
    const ptx::Operand* o = ins.ops.data();
    switch (ins.op) {
      case Opcode::Mov:
      case Opcode::Cvt:
        return ins.op == Opcode::Cvt && ptx::is_float(ins.type2) ? 1 : of(o[1]);
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Or:
        return ins.has(ptx::kCarryIn) ? 1 : std::min(of(o[1]), of(o[2]));
      case Opcode::And:
        return std::max(of(o[1]), of(o[2]));
      case Opcode::Shl:
        return o[2].kind == OperandKind::ImmInt && o[2].imm() >= 0 && o[2].imm() < 32
                   ? product(of(o[1]), std::uint32_t(1) << o[2].imm())
                   : 1;
      case Opcode::Mul:
        return ins.mode == ptx::MulMode::Lo || ins.mode == ptx::MulMode::Wide
                   ? product(of(o[1]), of(o[2]))
                   : 1;
      case Opcode::Mad:
        return !ins.has(ptx::kCarryIn) &&
                       (ins.mode == ptx::MulMode::Lo || ins.mode == ptx::MulMode::Wide)
                   ? std::min(product(of(o[1]), of(o[2])), of(o[3]))
                   : 1;
      default:
        return 1;
    }
  };
  // From the top down to the greatest fixed point: each round can only lower a value, by at
  // least one power of two, so it ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < k.code.size() && i < uses.size(); ++i)
      for (std::uint32_t r : uses[i].writes) {
        if (r >= nregs) continue;
        const std::uint32_t v = eval(k.code[i], r);
        if (v < align[r]) align[r] = v, changed = true;
      }
  }
  return align;
}

std::vector<std::vector<std::uint32_t>> vector_groups(const ptx::Kernel& k,
                                                      const std::vector<RegUse>& uses) {
  std::vector<std::vector<std::uint32_t>> groups;
  const std::uint32_t n = std::uint32_t(std::min(k.code.size(), uses.size()));
  // GPU-LocalTM kernels keep their loads: a transactional access's work is per PTX instruction.
  for (const ptx::Instruction& ins : k.code)
    if (ins.op == Opcode::TxBegin) return groups;
  if (n == 0) return groups;
  const std::vector<std::uint32_t> align = known_alignment(k, uses);
  const std::vector<std::uint32_t> block = blocks(k);
  // Does any instruction in (from, to), other than the group's, read or write load m's registers?
  auto clear_between = [&](std::uint32_t from, std::uint32_t to,
                           const std::vector<std::uint32_t>& group, std::uint32_t m) {
    for (std::uint32_t x = from + 1; x < to; ++x) {
      if (std::find(group.begin(), group.end(), x) != group.end()) continue;
      for (std::uint32_t r : uses[m].writes) {
        for (std::uint32_t y : uses[x].reads)
          if (y == r) return false;
        for (std::uint32_t y : uses[x].writes)
          if (y == r) return false;
      }
    }
    return true;
  };
  // A store moves down to the group's last: does any instruction in (from, to), other than the
  // group's, write a register store m reads (its value)?
  auto unchanged_between = [&](std::uint32_t from, std::uint32_t to,
                               const std::vector<std::uint32_t>& group, std::uint32_t m) {
    for (std::uint32_t x = from + 1; x < to; ++x) {
      if (std::find(group.begin(), group.end(), x) != group.end()) continue;
      for (std::uint32_t r : uses[m].reads)
        for (std::uint32_t y : uses[x].writes)
          if (y == r) return false;
    }
    return true;
  };
  // The loads of one base since it was last written, in program order: grouped when closed.
  auto close = [&](std::vector<Load>& loads, std::uint32_t base_align) {
    for (const std::uint32_t width : {16u, 8u}) {
      if (base_align < width) continue;
      for (std::size_t a = 0; a < loads.size(); ++a) {
        const Load& first = loads[a];
        if (first.used || first.offset % width != 0 || first.bytes >= width) continue;
        std::vector<std::uint32_t> group;
        std::vector<std::size_t> picked;
        for (std::uint32_t w = 0; w < width; w += first.bytes) {
          std::size_t found = w == 0 ? a : loads.size();
          for (std::size_t b = 0; b < loads.size() && found == loads.size(); ++b)
            if (!loads[b].used && loads[b].bytes == first.bytes &&
                loads[b].offset == first.offset + w)
              found = b;
          if (found == loads.size()) break;
          picked.push_back(found);
          group.push_back(loads[found].at);
        }
        if (group.size() != width / first.bytes) continue;
        std::sort(group.begin(), group.end());
        bool legal = true;
        if (k.code[group[0]].op == Opcode::St) {
          // Stores: each earlier one moves down to the last, its value unchanged on the way.
          for (std::size_t j = 0; j + 1 < group.size() && legal; ++j)
            legal = unchanged_between(group[j], group.back(), group, group[j]);
        } else {
          // Loads: distinct registers, none the base (the base is not among a load's writes: it
          // was checked when the load was listed); each later one moves up to the first.
          std::vector<std::uint32_t> regs;
          for (std::uint32_t m : group)
            regs.insert(regs.end(), uses[m].writes.begin(), uses[m].writes.end());
          std::sort(regs.begin(), regs.end());
          legal = std::adjacent_find(regs.begin(), regs.end()) == regs.end();
          for (std::size_t j = 1; j < group.size() && legal; ++j)
            legal = clear_between(group[0], group[j], group, group[j]);
        }
        if (!legal) continue;
        for (std::size_t p : picked) loads[p].used = true;
        groups.push_back(std::move(group));
      }
    }
    loads.clear();
  };
  // Open lists, loads' [0] and stores' [1]: per base register, and per shared variable used as a
  // base.
  std::map<std::uint32_t, std::vector<Load>> by_reg[2], by_sym[2];
  auto sym_align = [&](std::uint32_t sym) {
    return std::min(kAlignCap, std::max(kSharedVarAlign, k.symbols[sym].align));
  };
  auto close_kind = [&](int kind) {
    for (auto& [r, list] : by_reg[kind]) close(list, align[r]);
    for (auto& [sym, list] : by_sym[kind]) close(list, sym_align(sym));
    by_reg[kind].clear();
    by_sym[kind].clear();
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i && block[i] != block[i - 1]) close_kind(0), close_kind(1);
    const ptx::Instruction& ins = k.code[i];
    const std::uint32_t bytes = member_bytes(k, ins);
    const bool store = bytes && ins.op == Opcode::St;
    if (load_barrier(ins)) close_kind(0);
    // A store of a list passes only the stores of its own list (other words of one base).
    if (store_barrier(ins)) {
      const ptx::Operand& m = address_of(ins);
      for (int s2 = 0; s2 < 2; ++s2)
        for (auto& [base, list] : s2 ? by_sym[1] : by_reg[1]) {
          const bool mine = store && (s2 ? m.reg == ptx::kNone && m.sym == base
                                         : m.reg != ptx::kNone && m.reg == base);
          bool overlaps = false;  // one of its words again: the later store must stay later
          for (const Load& l : list)
            overlaps |= l.offset < m.imm() + std::int64_t(bytes) &&
                        m.imm() < l.offset + std::int64_t(l.bytes);
          if (!mine || overlaps) close(list, s2 ? sym_align(base) : align[base]);
        }
    }
    if (load_barrier(ins) && !store) continue;
    // A written register ends the lists based on it (before this instruction's own access joins
    // a list: a load that overwrites its base is no member).
    for (std::uint32_t r : uses[i].writes)
      for (int kind = 0; kind < 2; ++kind) {
        const auto it = by_reg[kind].find(r);
        if (it == by_reg[kind].end()) continue;
        close(it->second, align[r]);
        by_reg[kind].erase(it);
      }
    if (!bytes) continue;
    const ptx::Operand& m = address_of(ins);
    bool self_based = false;
    for (std::uint32_t r : uses[i].writes) self_based |= r == m.reg;
    if (self_based) continue;
    Load load{i, bytes, m.imm(), false};
    if (m.reg != ptx::kNone)
      by_reg[store][m.reg].push_back(load);
    else
      by_sym[store][m.sym].push_back(load);
  }
  close_kind(0);
  close_kind(1);
  std::sort(groups.begin(), groups.end());
  return groups;
}

std::vector<std::uint32_t> vector_order(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  const std::vector<std::vector<std::uint32_t>> groups = vector_groups(k, uses);
  const std::uint32_t n = std::uint32_t(k.code.size());
  // Per instruction: the group it leads (index + 1), or that it follows another member (moved).
  std::vector<std::uint32_t> leads(n, 0);
  std::vector<std::uint8_t> moved(n, 0);
  bool any = false;
  // A load group gathers at its first member (the later ones move up), a store group at its last
  // (the earlier ones move down: their values are ready there).
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<std::uint32_t>& m = groups[g];
    const bool store = k.code[m[0]].op == Opcode::St;
    const std::size_t lead = store ? m.size() - 1 : 0;
    leads[m[lead]] = std::uint32_t(g + 1);
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (j == lead) continue;
      moved[m[j]] = 1;
      any |= store ? m[j] + (m.size() - 1 - j) != m.back() : m[j] != m[0] + j;
    }
  }
  if (!any) return {};
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (moved[i]) continue;
    if (!leads[i]) {
      order.push_back(i);
      continue;
    }
    const std::vector<std::uint32_t>& m = groups[leads[i] - 1];
    if (k.code[m[0]].op == Opcode::St) {
      order.insert(order.end(), m.begin(), m.end());  // the earlier stores, then i (the last)
    } else {
      order.push_back(i);
      order.insert(order.end(), m.begin() + 1, m.end());
    }
  }
  return order;
}

}  // namespace smemsim::lower

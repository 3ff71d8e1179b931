// The lowering pass (lower.hpp): which PTX instructions the GPU's instruction set makes free.
#include "lower/lower.hpp"

#include "lower/vector.hpp"

namespace smemsim::lower {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

bool is_int(ptx::Type t) {
  return t != ptx::Type::None && t != ptx::Type::Pred && !ptx::is_float(t);
}

bool has_memory_base(const ptx::Instruction& c, std::uint32_t reg) {
  switch (c.op) {
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red:
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
      break;
    default:
      return false;
  }
  for (std::size_t k = 0; k < c.num_ops; ++k)
    if (c.ops[k].kind == OperandKind::Memory && c.ops[k].reg == reg) return true;
  return false;
}

// A signed 24-bit immediate: the offset field of LDS/LDG/STS/STG/ATOM[S|G] on Volta and later.
bool fits_offset(std::int64_t v) {
  return v >= -(1 << 23) && v < (1 << 23);
}

struct Facts {
  const ptx::Kernel& k;
  const std::vector<RegUse>& uses;
  std::vector<std::uint32_t> block;                  // block id per instruction
  std::vector<std::uint32_t> nwrite, nread, writer;  // per register
  std::vector<std::uint32_t> reader;                 // the last reader of each register

  bool unguarded(std::uint32_t i) const { return k.code[i].guard == ptx::kNone; }
  // Instruction i's only written register, if it writes exactly one (ptx::kNone otherwise).
  std::uint32_t only_dst(std::uint32_t i) const {
    return uses[i].writes.size() == 1 ? uses[i].writes[0] : ptx::kNone;
  }
  // The one reader of t, written only by i, in i's block after it; ptx::kNone otherwise.
  std::uint32_t single_reader(std::uint32_t i, std::uint32_t t) const {
    if (t == ptx::kNone || nwrite[t] != 1 || nread[t] != 1) return ptx::kNone;
    const std::uint32_t c = reader[t];
    return c > i && block[c] == block[i] ? c : ptx::kNone;
  }
  // The one reader of the value instruction i writes to t (its only result), also where t is
  // written again (compiled PTX reuses a sum's register: `add %r104, %r85, %r104`): the first
  // reader after i in its block that no other reads, where t is written again, unguarded, by
  // that reader or right after it, within kLocal instructions (so that the value dies in the
  // block); else single_reader's.
  static constexpr std::uint32_t kLocal = 64;
  std::uint32_t sole_reader(std::uint32_t i, std::uint32_t t) const {
    if (t == ptx::kNone) return ptx::kNone;
    std::uint32_t found = ptx::kNone;
    const std::uint32_t end = std::min<std::uint32_t>(std::uint32_t(k.code.size()), i + kLocal);
    for (std::uint32_t j = i + 1; j < end && block[j] == block[i]; ++j) {
      bool reads = false, writes = false;
      for (std::uint32_t r : uses[j].reads) reads |= r == t;
      for (std::uint32_t r : uses[j].writes) writes |= r == t;
      if (reads) {
        if (found != ptx::kNone) return ptx::kNone;
        found = j;
      }
      if (writes) return unguarded(j) && found != ptx::kNone ? found : ptx::kNone;
    }
    return single_reader(i, t);
  }
  // An operand that is the same value on every lane for the whole kernel: an immediate, a
  // symbol's address, or a register written once, by a mov of either.
  bool constant(const ptx::Operand& o) const {
    if (o.kind == OperandKind::ImmInt || o.kind == OperandKind::Symbol) return true;
    if (o.kind != OperandKind::Reg || nwrite[o.reg] != 1) return false;
    const ptx::Instruction& w = k.code[writer[o.reg]];
    return w.op == Opcode::Mov && w.guard == ptx::kNone &&
           (w.ops[1].kind == OperandKind::Symbol || w.ops[1].kind == OperandKind::ImmInt);
  }
};

Facts facts_of(const ptx::Kernel& k, const std::vector<RegUse>& uses) {
  Facts f{k, uses, {}, {}, {}, {}, {}};
  f.block = blocks(k);
  const std::size_t n = k.code.size();
  const std::size_t nregs = k.regs.size();
  f.nwrite.assign(nregs, 0);
  f.nread.assign(nregs, 0);
  f.writer.assign(nregs, ptx::kNone);
  f.reader.assign(nregs, ptx::kNone);
  for (std::uint32_t i = 0; i < n && i < uses.size(); ++i) {
    for (std::uint32_t r : uses[i].writes)
      if (r < nregs) ++f.nwrite[r], f.writer[r] = i;
    for (std::uint32_t r : uses[i].reads)
      if (r < nregs) ++f.nread[r], f.reader[r] = i;
  }
  return f;
}

// The readers of each register a mov of a constant writes, and of no other: register t's are
// of[at[t] .. at[t + 1]) (instruction indices, in order).
struct Readers {
  std::vector<std::uint32_t> at, of;
};
Readers constants_readers(const Facts& f) {
  const std::size_t nregs = f.nwrite.size();
  Readers r;
  r.at.assign(nregs + 1, 0);
  std::vector<std::uint8_t> listed(nregs, 0);
  for (std::uint32_t p = 0; p < f.uses.size() && p < f.k.code.size(); ++p)
    if (const std::uint32_t t = f.only_dst(p); f.k.code[p].op == Opcode::Mov &&
                                               f.k.code[p].ops[1].kind != OperandKind::Reg &&
                                               t < nregs && f.nwrite[t] == 1)
      listed[t] = 1;
  for (const RegUse& u : f.uses)
    for (std::uint32_t t : u.reads)
      if (t < nregs && listed[t]) ++r.at[t + 1];
  for (std::size_t t = 0; t < nregs; ++t) r.at[t + 1] += r.at[t];
  r.of.resize(r.at[nregs]);
  std::vector<std::uint32_t> next(r.at.begin(), r.at.end() - 1);
  for (std::uint32_t j = 0; j < f.uses.size(); ++j)
    for (std::uint32_t t : f.uses[j].reads)
      if (t < nregs && listed[t]) r.of[next[t]++] = j;
  return r;
}

// imm: instruction p is a mov of a constant that ptxas puts in its readers' operands instead of
// a register: an immediate or a symbol's address (a shared variable's is an offset in the shared
// window, a global one's a constant-bank word) into a register nothing else writes. Zero is RZ,
// which any operand may be. Any other value must fit a 32-bit operand field, and each reader must
// be an instruction with an immediate operand to spare: not a memory access (SASS stores, atomics
// and their data take registers; a constant address is [imm]), not a call, no vector operand
// (mma fragments, ld/st.v), and no other constant among its operands (one immediate a SASS
// instruction). A constant that fails stays a MOV (ptxas hoists it out of a loop; the model does
// not yet).
bool immediate_in_readers(const Facts& f, const Readers& readers, std::uint32_t p) {
  const ptx::Instruction& mov = f.k.code[p];
  const ptx::Operand& v = mov.ops[1];
  const std::uint32_t t = f.only_dst(p);
  if (t == ptx::kNone || t + 1 >= readers.at.size() || f.nwrite[t] != 1 ||
      mov.type == ptx::Type::Pred || mov.type == ptx::Type::None)
    return false;
  if (v.kind != OperandKind::ImmInt && v.kind != OperandKind::ImmFloat &&
      v.kind != OperandKind::Symbol)
    return false;
  if (v.kind != OperandKind::Symbol && v.imm() == 0) return true;  // RZ
  if (ptx::type_bits(mov.type) > 32) return false;
  for (std::uint32_t r = readers.at[t]; r < readers.at[t + 1]; ++r) {
    const ptx::Instruction& c = f.k.code[readers.of[r]];
    if (c.op == Opcode::Call) return false;
    bool memory = false;
    for (std::size_t o = 0; o < c.num_ops; ++o) memory |= c.ops[o].kind == OperandKind::Memory;
    for (std::size_t o = 0; o < c.num_ops; ++o) {
      const ptx::Operand& x = c.ops[o];
      if (x.kind == OperandKind::Vector) {
        for (int e = 0; e < x.count; ++e)
          if (f.k.vec(x, e) == t) return false;
      } else if (x.kind == OperandKind::Reg && x.reg == t) {
        if (memory) return false;  // data, not the address
      } else if (x.kind == OperandKind::ImmInt || x.kind == OperandKind::ImmFloat ||
                 x.kind == OperandKind::Symbol || (x.kind == OperandKind::Reg && f.constant(x))) {
        return false;
      }
    }
  }
  return true;
}

// A candidate: instruction i would be absorbed by `rule` into `into` (its consumer), or into any
// reader of its result (into == kNone: cvt, mov).
struct Candidate {
  Rule rule = Rule::None;
  std::uint32_t into = ptx::kNone;
};

}  // namespace

std::vector<Lowered> lower(const ptx::Kernel& kernel, const std::vector<RegUse>& uses,
                           const Rules& rules) {
  const std::uint32_t n = std::uint32_t(kernel.code.size());
  std::vector<Lowered> out(n);
  if (!rules.any() || uses.size() < n) return out;
  const Facts f = facts_of(kernel, uses);
  const auto& code = kernel.code;
  std::vector<Candidate> cand(n);
  std::vector<std::uint8_t> products(n, 0);  // multiplies or shifts a consumer has taken in

  // Addresses: the consumer is a memory instruction whose base register t one add computes.
  for (std::uint32_t c = 0; c < n; ++c) {
    for (std::size_t o = 0; o < code[c].num_ops; ++o) {
      const ptx::Operand& m = code[c].ops[o];
      if (m.kind != OperandKind::Memory || m.reg == ptx::kNone || m.reg >= f.nwrite.size())
        continue;
      if (!has_memory_base(code[c], m.reg) || f.nwrite[m.reg] != 1) continue;
      const std::uint32_t a = f.writer[m.reg];
      if (f.single_reader(a, m.reg) != c || !f.unguarded(a)) continue;
      const ptx::Instruction& add = code[a];
      if (add.op != Opcode::Add || !is_int(add.type) || add.has(ptx::kCc) || add.has(ptx::kCarryIn))
        continue;
      if (rules.scaled && code[c].space == ptx::Space::Shared && a > 0) {
        // shl (a - 1) + add (a) of a constant: [R.Xk + base]
        const std::uint32_t s = a - 1;
        const ptx::Instruction& shl = code[s];
        for (int side = 1; side <= 2; ++side) {
          const ptx::Operand& idx = add.ops[std::size_t(side)];
          const ptx::Operand& base = add.ops[std::size_t(3 - side)];
          if (idx.kind != OperandKind::Reg || f.nwrite[idx.reg] != 1 || f.writer[idx.reg] != s)
            continue;
          if (shl.op != Opcode::Shl || !f.unguarded(s) || shl.ops[1].kind != OperandKind::Reg ||
              shl.ops[2].kind != OperandKind::ImmInt || shl.ops[2].imm() < 2 ||
              shl.ops[2].imm() > 4)
            continue;
          if (f.single_reader(s, idx.reg) != a || !f.constant(base)) continue;
          cand[s] = {Rule::Scaled, a};
          cand[a] = {Rule::Scaled, c};
          break;
        }
        if (cand[a].rule != Rule::None) continue;
      }
      if (rules.addr) {
        // An immediate; for a shared address also a symbol's address (the shared window's
        // offsets are immediates in SASS: LDS R, [R+0x...]).
        const bool shared = code[c].space == ptx::Space::Shared;
        auto folds = [&](const ptx::Operand& o) {
          return o.kind == OperandKind::ImmInt ? fits_offset(o.imm()) : shared && f.constant(o);
        };
        if (folds(add.ops[1]) != folds(add.ops[2])) cand[a] = {Rule::Addr, c};
      }
    }
  }
  // An integer add that takes a product in (IMAD, IMAD.WIDE): no .cc, no carry in.
  auto plain_add = [&](const ptx::Instruction& a) {
    return a.op == Opcode::Add && is_int(a.type) && !a.has(ptx::kCc) && !a.has(ptx::kCarryIn);
  };
  // The other readers of a product several adds read (imad): each is an IMAD of its own.
  std::vector<std::vector<std::uint32_t>> also(n);
  // Products: a multiply or shift whose only reader is an add (one per add).
  for (std::uint32_t p = 0; p < n; ++p) {
    if (cand[p].rule != Rule::None || !f.unguarded(p)) continue;
    const ptx::Instruction& mul = code[p];
    std::uint32_t c = f.single_reader(p, f.only_dst(p));
    const std::uint32_t t = f.only_dst(p);
    if (c == ptx::kNone && rules.imad && t != ptx::kNone && f.nwrite[t] == 1 && f.nread[t] > 1 &&
        mul.op == Opcode::Mul && is_int(mul.type) &&
        (mul.mode == ptx::MulMode::Lo || mul.mode == ptx::MulMode::Wide)) {
      // A product several adds read (an index the kernel offsets two arrays by, before and after
      // a barrier): ptxas multiplies again in each, one IMAD.WIDE a reader, so the multiply is
      // free. The first reader is in its block (it issues with it).
      std::vector<std::uint32_t> readers;
      for (std::uint32_t j = p + 1; j < n; ++j)
        for (std::uint32_t r : uses[j].reads)
          if (r == t) readers.push_back(j);
      bool all = !readers.empty() && readers.size() == f.nread[t] &&
                 f.block[readers.front()] == f.block[p];
      for (std::uint32_t j : readers)
        all = all && plain_add(code[j]) && cand[j].rule == Rule::None && !products[j];
      if (all) {
        c = readers.front();
        also[p].assign(readers.begin() + 1, readers.end());
      }
    }
    if (c == ptx::kNone || cand[c].rule != Rule::None || products[c]) continue;
    const ptx::Instruction& add = code[c];
    Rule rule = Rule::None;
    if (rules.fma && mul.op == Opcode::Mul && ptx::is_float(mul.type) &&
        mul.type != ptx::Type::TF32 && mul.rounding == ptx::Rounding::None &&
        (add.op == Opcode::Add || add.op == Opcode::Sub) && add.type == mul.type &&
        add.rounding == ptx::Rounding::None)
      rule = Rule::Fma;
    else if (rules.imad && mul.op == Opcode::Mul && is_int(mul.type) &&
             (mul.mode == ptx::MulMode::Lo || mul.mode == ptx::MulMode::Wide) &&
             add.op == Opcode::Add && is_int(add.type) && !add.has(ptx::kCc) &&
             !add.has(ptx::kCarryIn))
      rule = Rule::Imad;
    else if (rules.lea && mul.op == Opcode::Shl && mul.ops[2].kind == OperandKind::ImmInt &&
             add.op == Opcode::Add && is_int(add.type) && !add.has(ptx::kCc) &&
             !add.has(ptx::kCarryIn))
      rule = Rule::Lea;
    if (rule != Rule::Imad) also[p].clear();
    if (rule == Rule::None) continue;
    cand[p] = {rule, c};
    products[c] = 1;
    for (std::uint32_t j : also[p]) products[j] = 1;
  }
  // Logic: a bitwise and/or/xor/not whose only reader is an and/or/xor of the same width, which
  // has not taken one in already: LOP3.LUT computes any function of three registers, so the two
  // are one instruction; an instruction that took one in is not itself taken in (four inputs).
  if (rules.lop3) {
    auto logic = [](const ptx::Instruction& x) {
      return (x.op == Opcode::And || x.op == Opcode::Or || x.op == Opcode::Xor) &&
             x.type != ptx::Type::Pred;
    };
    for (std::uint32_t p = 0; p < n; ++p) {
      if (cand[p].rule != Rule::None || products[p] || !f.unguarded(p)) continue;
      const ptx::Instruction& in = code[p];
      if (!logic(in) && !(in.op == Opcode::Not && in.type != ptx::Type::Pred)) continue;
      const std::uint32_t c = f.single_reader(p, f.only_dst(p));
      if (c == ptx::kNone || cand[c].rule != Rule::None || products[c] || !logic(code[c]) ||
          ptx::type_bits(code[c].type) != ptx::type_bits(in.type))
        continue;
      cand[p] = {Rule::Lop3, c};
      products[c] = 1;
    }
  }
  // Sums: an integer add or sub of 32 bits at most whose only reader is an add or sub of the same
  // width, which has not taken one in already: IADD3 adds three values (any of them negated), so
  // the two are one instruction, if at most one of the three is a constant (one immediate
  // field); one that took one in is not itself taken in (four inputs).
  if (rules.iadd3) {
    auto sum = [](const ptx::Instruction& x) {
      return (x.op == Opcode::Add || x.op == Opcode::Sub) && is_int(x.type) &&
             ptx::type_bits(x.type) <= 32 && !x.has(ptx::kCc) && !x.has(ptx::kCarryIn) &&
             !x.has(ptx::kSat);
    };
    auto constants = [&](const ptx::Instruction& x, std::uint32_t skip) {
      int k = 0;
      for (std::size_t o = 1; o <= 2; ++o)
        k += !(x.ops[o].kind == OperandKind::Reg && x.ops[o].reg == skip) && f.constant(x.ops[o]);
      return k;
    };
    for (std::uint32_t p = 0; p < n; ++p) {
      if (cand[p].rule != Rule::None || products[p] || !f.unguarded(p) || !sum(code[p])) continue;
      const std::uint32_t t = f.only_dst(p);
      const std::uint32_t c = f.sole_reader(p, t);
      if (c == ptx::kNone || cand[c].rule != Rule::None || products[c] || !sum(code[c]) ||
          ptx::type_bits(code[c].type) != ptx::type_bits(code[p].type) ||
          constants(code[p], ptx::kNone) + constants(code[c], t) > 1)
        continue;
      // t + t would be four inputs (a + b + a + b).
      if (code[c].ops[1].kind == OperandKind::Reg && code[c].ops[2].kind == OperandKind::Reg &&
          code[c].ops[1].reg == t && code[c].ops[2].reg == t)
        continue;
      cand[p] = {Rule::Iadd3, c};
      products[c] = 1;
    }
  }
  // Wide loads (vector.hpp): a group brought together, all but its last member issue with it.
  if (rules.vector)
    for (const std::vector<std::uint32_t>& g : vector_groups(kernel, uses)) {
      bool together = true;
      for (std::size_t j = 1; j < g.size(); ++j) together &= g[j] == g[0] + j;
      for (std::size_t j = 0; together && j + 1 < g.size(); ++j)
        if (cand[g[j]].rule == Rule::None) cand[g[j]] = {Rule::Vector, g.back()};
    }
  // Free moves: integer truncation and register copies, whatever reads them; constants their
  // readers take as operands (each constant register's readers listed once).
  Readers readers;
  if (rules.imm) readers = constants_readers(f);
  for (std::uint32_t p = 0; p < n; ++p) {
    if (cand[p].rule != Rule::None || !f.unguarded(p) || f.only_dst(p) == ptx::kNone) continue;
    const ptx::Instruction& ins = code[p];
    if (rules.imm && ins.op == Opcode::Mov && immediate_in_readers(f, readers, p)) {
      cand[p] = {Rule::Imm, ptx::kNone};
      continue;
    }
    if (ins.ops[1].kind != OperandKind::Reg) continue;
    if (rules.cvt && ins.op == Opcode::Cvt && is_int(ins.type) && is_int(ins.type2) &&
        ptx::type_bits(ins.type) <= ptx::type_bits(ins.type2) && !ins.has(ptx::kSat))
      cand[p] = {Rule::Cvt, ptx::kNone};
    else if (rules.mov && ins.op == Opcode::Mov && ins.type != ptx::Type::Pred &&
             ins.type != ptx::Type::None && f.nwrite[ins.ops[1].reg] > 0 &&
             ptx::type_bits(f.k.regs[ins.ops[1].reg].type) == ptx::type_bits(ins.type))
      cand[p] = {Rule::Mov, ptx::kNone};
  }

  // A branch if-conversion made a no-op (ifcvt.hpp): it issues with the first instruction it
  // guarded, which reads its predicate.
  if (rules.ifcvt)
    for (std::uint32_t p = 0; p < n; ++p)
      if (code[p].has(ptx::kIfConverted)) cand[p] = {Rule::Ifcvt, ptx::kNone};

  // Keep a candidate only when the instruction it would issue with is the one that consumes it
  // (so that the consumer's wait for its registers is the wait the absorbed instruction adds).
  // Backwards: the instructions after i are decided first.
  std::vector<std::uint32_t> next_real(n + 1, n);
  auto eff = [&](std::uint32_t c) { return out[c].absorbed != Rule::None ? out[c].issue_with : c; };
  for (std::uint32_t i = n; i-- > 0;) {
    const std::uint32_t q = i + 1 < n ? next_real[i + 1] : n;
    const Candidate& cd = cand[i];
    bool keep = false;
    if (cd.rule != Rule::None && q < n && f.block[q] == f.block[i]) {
      if (cd.rule == Rule::Imm) {
        keep = true;  // it reads no register and no reader waits for it: any slot will do
      } else if (cd.into != ptx::kNone) {
        keep = eff(cd.into) == q;
      } else {
        const std::uint32_t t = f.only_dst(i);
        for (std::uint32_t r : uses[q].reads) keep |= r == t;
        // ... or an absorbed instruction between them reads it on q's behalf
        for (std::uint32_t j = i + 1; j < q && !keep; ++j)
          for (std::uint32_t r : uses[j].reads) keep |= r == t;
      }
    }
    if (keep) {
      out[i].absorbed = cd.rule;
      out[i].issue_with = q;
      if (cd.rule == Rule::Imad) {
        out[cd.into].imad = true;
        for (std::uint32_t j : also[i]) out[j].imad = true;
      }
      next_real[i] = q;
    } else {
      next_real[i] = i;
    }
  }
  return out;
}

}  // namespace smemsim::lower

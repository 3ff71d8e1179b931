// The lowering pass's result applied to the timing's decoded instructions (inst_info.hpp):
// expansions, absorbed groups, wide 64-bit ops and convergence barriers.
#include "lower/aggregate.hpp"
#include "lower/converge.hpp"
#include "timing/expand.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::timing {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

// The expansion sm.lower gives `ins` (expand.hpp): sin/cos.approx with sincos; ex2.approx.f32
// without .ftz with ex2; with divide,
// div/rem.u32/s32 by a register (by an immediate ptxas multiplies by its inverse: a few
// instructions, left as one) and div.rn.f32 by a register / sqrt.rn.f32 (div.f32 without a rounding
// is div.rn's; .approx and .full are one MUFU and an FMUL or two, left as one).
Expand expansion_of(const ptx::Instruction& ins, const lower::Rules& rules) {
  if (rules.sincos && (ins.op == Opcode::Sin || ins.op == Opcode::Cos)) return Expand::SinCos;
  if (rules.ex2 && ins.op == Opcode::Ex2 && ins.type == ptx::Type::F32 && !ins.has(ptx::kFtz))
    return Expand::Ex2;
  if (!rules.divide) return Expand::None;
  if ((ins.op == Opcode::Div || ins.op == Opcode::Rem) && ins.num_ops >= 3 &&
      ins.ops[2].kind == OperandKind::Reg) {
    const bool div = ins.op == Opcode::Div;
    if (ins.type == ptx::Type::U32) return div ? Expand::DivU32 : Expand::RemU32;
    if (ins.type == ptx::Type::S32) return div ? Expand::DivS32 : Expand::RemS32;
  }
  const bool ieee = !ins.has(ptx::kApprox) && !ins.has(ptx::kFull);
  if (ins.type == ptx::Type::F32 && ieee) {
    if (ins.op == Opcode::Div && ins.num_ops >= 3 && ins.ops[2].kind == OperandKind::Reg)
      return Expand::DivF32;
    if (ins.op == Opcode::Sqrt) return Expand::SqrtF32;
  }
  return Expand::None;
}

// With wide: a 64-bit integer op that issues as two SASS instructions (rules.hpp). An absorbed
// one issues nothing; one that absorbed a multiply (imad) is one IMAD.WIDE; one already expanded
// keeps its sequence. `low` empty: no absorbing rule ran.
void mark_wide(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
               const std::vector<lower::Lowered>& low) {
  for (std::size_t i = 0; i < info.size(); ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    if (ins.type != ptx::Type::U64 && ins.type != ptx::Type::S64 && ins.type != ptx::Type::B64)
      continue;
    switch (ins.op) {
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Shl:
      case Opcode::Shr:
      case Opcode::Setp:
      case Opcode::Min:
      case Opcode::Max:
      case Opcode::Neg:
      case Opcode::Abs:
      case Opcode::And:
      case Opcode::Or:
      case Opcode::Xor:
      case Opcode::Not:
      case Opcode::Selp:
        break;
      default:
        continue;
    }
    if (!low.empty() && (low[i].absorbed != lower::Rule::None || low[i].imad)) continue;
    if (info[i].expand != Expand::None) continue;
    info[i].expand = Expand::Wide;
    info[i].unit = expansion(Expand::Wide).last;
  }
}

// With bssy: BSSY before each branch that may split a warp, BSYNC before the instruction where
// its lanes meet (src/lower/converge.hpp), where the instruction has no expansion of its own.
void mark_convergence(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
                      const std::vector<lower::RegUse>& uses) {
  const lower::Convergence c = lower::convergence_barriers(kernel, uses);
  for (const std::uint32_t b : c.bssy)
    if (b < info.size() && info[b].expand == Expand::None) info[b].expand = Expand::Bssy;
  for (const std::uint32_t j : c.bsync)
    if (j < info.size() && info[j].expand == Expand::None) info[j].expand = Expand::Bsync;
}

}  // namespace

std::vector<lower::RegUse> reg_uses(const std::vector<InstInfo>& info) {
  std::vector<lower::RegUse> uses(info.size());
  for (std::size_t i = 0; i < info.size(); ++i) {
    uses[i].reads.assign(info[i].src.begin(), info[i].src.begin() + info[i].nsrc);
    uses[i].writes.assign(info[i].dst.begin(), info[i].dst.begin() + info[i].ndst);
  }
  return uses;
}

std::vector<std::uint32_t> apply_lowering(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
                                          const lower::Rules& rules) {
  for (std::size_t i = 0; i < info.size(); ++i) {
    const Expand e = expansion_of(kernel.code[i], rules);
    if (e == Expand::None) continue;
    info[i].expand = e;
    info[i].unit = expansion(e).last;
  }
  const std::vector<lower::RegUse> uses = reg_uses(info);  // each instruction's own
  if (rules.aggregate) {
    const std::vector<std::uint8_t> agg = lower::aggregated_atomics(kernel, uses);
    for (std::size_t i = 0; i < info.size() && i < agg.size(); ++i) info[i].aggregated = agg[i];
  }
  if (!rules.any()) {
    if (rules.wide) mark_wide(kernel, info, {});
    if (rules.bssy) mark_convergence(kernel, info, uses);
    return {};
  }
  const std::size_t n = info.size();
  std::vector<std::uint32_t> with(n, ptx::kNone);
  const std::vector<lower::Lowered> low = lower::lower(kernel, uses, rules);
  for (std::size_t i = 0; i < n; ++i)
    if (low[i].imad && info[i].unit == Unit::Alu) {  // an IMAD (.WIDE): at IMAD's rate
      info[i].unit = Unit::Imad;
      info[i].int_mul = true;
    }
  if (rules.wide) mark_wide(kernel, info, low);
  // Backwards, so that a group's later members are merged before its first.
  std::uint32_t next = std::uint32_t(n);  // the next instruction that issues
  for (std::size_t i = n; i-- > 0;) {
    if (low[i].absorbed == lower::Rule::None || next >= n) {
      next = std::uint32_t(i);
      continue;
    }
    const InstInfo& q = info[i + 1];  // the group from i + 1 on (itself when it issues)
    if (low[i].absorbed == lower::Rule::Ifcvt) {
      // A converted branch's mov.pred p, p changes nothing: the group is the next one's alone
      // (its p is no result the group's later readers would wait for).
      info[i] = q;
      with[i] = next;
      continue;
    }
    InstInfo g = q;
    bool fits = true;
    auto add = [&](auto& set, std::uint8_t& count, std::uint32_t r) {
      for (std::uint8_t k = 0; k < count; ++k)
        if (set[k] == r) return;
      if (count < set.size())
        set[count++] = r;
      else
        fits = false;
    };
    for (std::uint8_t k = 0; k < info[i].nsrc; ++k) add(g.src, g.nsrc, info[i].src[k]);
    for (std::uint8_t k = 0; k < info[i].ndst; ++k) add(g.dst, g.ndst, info[i].dst[k]);
    g.writes_pred |= info[i].writes_pred;
    if (low[i].absorbed == lower::Rule::Vector && fits) {
      // A merged load writes every member's register when it completes (the issuing one's
      // InstInfo is what marks its results pending).
      InstInfo& lead = info[next];
      lead.merged_words = g.merged_words = true;
      for (std::uint8_t k = 0; k < info[i].ndst; ++k) add(lead.dst, lead.ndst, info[i].dst[k]);
    }
    if (!fits) {
      next = std::uint32_t(i);
      continue;
    }
    info[i] = g;
    with[i] = next;
  }
  // After the groups are made: a group that starts where lanes meet issues the BSYNC first.
  if (rules.bssy) mark_convergence(kernel, info, uses);
  return with;
}

}  // namespace smemsim::timing

// Rows of the SM's per-register tables (reg_rows.hpp).
#include "timing/reg_rows.hpp"

#include <algorithm>
#include <bit>
#include <queue>

#include "exec/cfg.hpp"
#include "exec/regalloc.hpp"

namespace smemsim::timing {

namespace {

constexpr std::uint32_t kNoPc = ~0u;

using Span = exec::detail::RowRange;

std::uint32_t label_of(const ptx::Instruction& ins) {
  for (const ptx::Operand& o : ins.ops)
    if (o.kind == ptx::OperandKind::Label) return o.target;
  return kNoPc;
}

// The instructions a warp may issue after instruction i (the executor's control flow; a retry goes
// from TX.Commit back to a TX.Begin).
void successors_of(const ptx::Kernel& k, std::uint32_t i, const std::vector<std::uint32_t>& begins,
                   std::vector<std::uint32_t>& out) {
  const auto n = static_cast<std::uint32_t>(k.code.size());
  const ptx::Instruction& ins = k.code[i];
  const bool guarded = ins.guard != ptx::kNone;
  out.clear();
  bool next = true;
  if (ins.op == ptx::Opcode::Bra) {
    if (const std::uint32_t t = label_of(ins); t < n) out.push_back(t);
    next = guarded;
  } else if (ins.op == ptx::Opcode::Ret || ins.op == ptx::Opcode::Exit) {
    next = guarded;
  } else if (ins.op == ptx::Opcode::TxCommit) {
    out.insert(out.end(), begins.begin(), begins.end());
  }
  if (next && i + 1 < n) out.push_back(i + 1);
}

}  // namespace

TimingRows one_row_each(std::uint32_t nregs) {
  TimingRows t;
  t.row.resize(nregs);
  for (std::uint32_t r = 0; r < nregs; ++r) t.row[r] = r;
  t.rows = nregs;
  t.private_regs = nregs;
  return t;
}

TimingRows share_timing_rows(const ptx::Kernel& kernel, const std::vector<InstInfo>& info,
                             std::uint32_t nregs, const std::vector<std::uint32_t>* unroll) {
  const auto n = static_cast<std::uint32_t>(kernel.code.size());
  const std::size_t words = (std::size_t(nregs) + 63) / 64;
  // Calls jump where the code does not show; a kernel too large for the analysis' bit sets (two
  // words per 64 registers per instruction, 16 MiB at most: 1 M words each) keeps a row per
  // register.
  if (!kernel.calls.empty() || nregs == 0 || info.size() != n ||
      std::size_t(n) * words > (std::size_t{1} << 20))
    return one_row_each(nregs);

  std::vector<std::uint32_t> begins;
  for (std::uint32_t i = 0; i < n; ++i)
    if (kernel.code[i].op == ptx::Opcode::TxBegin) begins.push_back(i);
  std::vector<std::vector<std::uint32_t>> succ(n);
  for (std::uint32_t i = 0; i < n; ++i) successors_of(kernel, i, begins, succ[i]);

  // Loops, the transactions' span and divergent regions: spans a range that meets takes whole.
  std::vector<Span> spans;
  for (std::uint32_t i = 0; i < n; ++i)
    if (kernel.code[i].op == ptx::Opcode::Bra)
      if (const std::uint32_t t = label_of(kernel.code[i]); t <= i) spans.push_back({t, i});
  if (!begins.empty()) {
    std::uint32_t last_commit = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      if (kernel.code[i].op == ptx::Opcode::TxCommit) last_commit = i;
    if (begins.front() <= last_commit) spans.push_back({begins.front(), last_commit});
  }
  // A divergent region: what a guarded branch's lanes may run before they reconverge, found by a
  // walk that stops at the reconvergence point. The executor then runs the other path from its
  // start: its lanes' IN state (below) flows from the point back to both paths' first instructions.
  struct Switch {
    std::uint32_t at, to;  // from reaching `at` (a reconvergence point) to a path's start
  };
  std::vector<Switch> switches;
  std::vector<std::uint32_t> seen(n, kNoPc), stack;
  std::size_t walked = 0;
  const std::size_t budget = 64 * std::size_t(n) + 4096;
  for (const exec::Reconvergence& rc : exec::reconvergence_points(kernel)) {
    const ptx::Instruction& b = kernel.code[rc.pc];
    if (b.op != ptx::Opcode::Bra || b.guard == ptx::kNone) continue;
    Span region{rc.pc, rc.pc};
    stack = succ[rc.pc];
    for (const std::uint32_t s : succ[rc.pc])
      if (rc.rpc < n && s != rc.rpc) switches.push_back({rc.rpc, s});
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      if (i == rc.rpc || seen[i] == rc.pc) continue;
      seen[i] = rc.pc;
      if (++walked > budget) return one_row_each(nregs);
      region.first = std::min(region.first, i);
      region.last = std::max(region.last, i);
      stack.insert(stack.end(), succ[i].begin(), succ[i].end());
    }
    spans.push_back(region);
  }
  // Each register's range: its mentions, widened to the spans it meets.
  const auto each_mention = [&](std::uint32_t i, auto&& f) {
    const InstInfo& in = info[i];
    for (std::uint8_t k = 0; k < in.nsrc; ++k) f(in.src[k]);
    for (std::uint8_t k = 0; k < in.ndst; ++k) f(in.dst[k]);
    if (in.guard != ptx::kNone) f(in.guard);
  };
  std::vector<Span> range(nregs);
  for (std::uint32_t i = 0; i < n; ++i)
    each_mention(i, [&](std::uint32_t r) {
      if (r >= nregs) return;
      range[r].first = std::min(range[r].first, i);
      range[r].last = std::max(range[r].last, i);
    });
  exec::detail::widen_ranges(range, std::move(spans));

  // Writes that may be in flight (not yet waited for by a mention of their register) where each
  // instruction is reached: IN, a bit per register.
  std::vector<std::uint64_t> in(std::size_t(n) * words, 0), out(in.size(), 0);
  std::vector<std::vector<std::uint32_t>> switch_to(n);
  for (const Switch& s : switches) switch_to[s.at].push_back(s.to);
  std::vector<std::uint8_t> queued(n, 1);
  std::queue<std::uint32_t> work;
  for (std::uint32_t i = 0; i < n; ++i) work.push(i);
  std::vector<std::uint64_t> next(words);
  const auto merge = [&](const std::uint64_t* from, std::uint32_t to) {
    bool changed = false;
    std::uint64_t* dst = &in[std::size_t(to) * words];
    for (std::size_t w = 0; w < words; ++w) {
      const std::uint64_t v = dst[w] | from[w];
      changed |= v != dst[w];
      dst[w] = v;
    }
    if (changed && !queued[to]) {
      queued[to] = 1;
      work.push(to);
    }
  };
  const auto clear_bit = [&](std::uint32_t r) {
    if (r < nregs) next[r / 64] &= ~(std::uint64_t{1} << (r % 64));
  };
  while (!work.empty()) {
    const std::uint32_t i = work.front();
    work.pop();
    queued[i] = 0;
    const std::uint64_t* at = &in[std::size_t(i) * words];
    for (const std::uint32_t t : switch_to[i]) merge(at, t);
    std::copy(at, at + words, next.begin());
    // sm.lower's unroll: the loop's overhead issues in one trip of four only.
    if (!unroll || i >= unroll->size() || (*unroll)[i] == ptx::kNone) each_mention(i, clear_bit);
    for (std::uint8_t k = 0; k < info[i].ndst; ++k)
      if (const std::uint32_t r = info[i].dst[k]; r < nregs)
        next[r / 64] |= std::uint64_t{1} << (r % 64);
    std::uint64_t* o = &out[std::size_t(i) * words];
    if (std::equal(next.begin(), next.end(), o)) continue;
    std::copy(next.begin(), next.end(), o);
    for (const std::uint32_t s : succ[i]) merge(o, s);
  }

  // A register whose write may cross an edge out of its range keeps a row to itself.
  std::vector<std::uint8_t> alone(nregs, 0);
  const auto leaving = [&](const std::uint64_t* bits, std::uint32_t from, std::uint32_t to) {
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t b = bits[w]; b; b &= b - 1) {
        const std::uint32_t r = std::uint32_t(w * 64) + std::uint32_t(std::countr_zero(b));
        const Span& s = range[r];
        if (from >= s.first && from <= s.last && (to < s.first || to > s.last)) alone[r] = 1;
      }
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    for (const std::uint32_t s : succ[i]) leaving(&out[std::size_t(i) * words], i, s);
    for (const std::uint32_t t : switch_to[i]) leaving(&in[std::size_t(i) * words], i, t);
  }

  // The expansions' register is coloured apart, after the others (it is in no instruction).
  range[nregs - 1] = Span{};
  TimingRows t;
  t.rows = exec::detail::colour_ranges(range, &alone, t.row);
  for (std::uint32_t r = 0; r + 1 < nregs; ++r)
    t.private_regs += range[r].first != kNoPc && alone[r];
  t.row[nregs - 1] = t.rows++;
  ++t.private_regs;
  return t;
}

}  // namespace smemsim::timing

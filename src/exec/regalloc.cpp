// Register rows shared by registers whose ranges never meet (regalloc.hpp).
#include "exec/regalloc.hpp"

#include <algorithm>
#include <functional>
#include <queue>

namespace smemsim::exec::detail {

namespace {

// f(register) for every register `ins` mentions: its guard, register operands, memory bases and
// vector elements.
template <typename F>
void each_register_of(const ptx::Kernel& kernel, const ptx::Instruction& ins, F&& f) {
  if (ins.guard != ptx::kNone) f(ins.guard);
  for (const ptx::Operand& o : ins.ops) {
    switch (o.kind) {
      case ptx::OperandKind::Reg:
      case ptx::OperandKind::Memory:
        if (o.reg != ptx::kNone) f(o.reg);
        break;
      case ptx::OperandKind::Vector:
        for (int k = 0; k < o.count; ++k)
          if (const std::uint32_t r = kernel.vec(o, k); !ptx::is_vec_imm(r)) f(r);
        break;
      default:
        break;
    }
  }
}

}  // namespace

RegisterRows share_register_rows(const ptx::Kernel& kernel) {
  const std::size_t nregs = kernel.regs.size();
  const auto n = static_cast<std::uint32_t>(kernel.code.size());
  std::vector<RowRange> span(nregs);
  std::vector<RowRange> loops;
  for (std::uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    each_register_of(kernel, ins, [&](std::uint32_t r) {
      if (r >= nregs) return;
      span[r].first = std::min(span[r].first, i);
      span[r].last = std::max(span[r].last, i);
    });
    for (const ptx::Operand& o : ins.ops)
      if (o.kind == ptx::OperandKind::Label && o.target <= i) loops.push_back({o.target, i});
  }
  // GPU-LocalTM: a TX.Commit whose transaction conflicted sends the lanes back to the outermost
  // TX.Begin (003 §3), an edge the code does not show. Every transaction lies inside the span from
  // the first TX.Begin to the last TX.Commit, which is taken as one more loop.
  std::uint32_t tx_first = ~0u, tx_last = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (kernel.code[i].op == ptx::Opcode::TxBegin) tx_first = std::min(tx_first, i);
    if (kernel.code[i].op == ptx::Opcode::TxCommit) tx_last = std::max(tx_last, i);
  }
  if (tx_first <= tx_last) loops.push_back({tx_first, tx_last});
  widen_ranges(span, std::move(loops));
  RegisterRows out;
  out.rows = colour_ranges(span, nullptr, out.row);
  out.rows = std::max<std::uint32_t>(out.rows, nregs ? 1 : 0);
  return out;
}

void widen_ranges(std::vector<RowRange>& range, std::vector<RowRange> spans) {
  // Spans that overlap widen a range together: merge them into disjoint, sorted spans.
  std::sort(spans.begin(), spans.end(),
            [](const RowRange& a, const RowRange& b) { return a.first < b.first; });
  std::vector<RowRange> merged;
  for (const RowRange& l : spans) {
    if (!merged.empty() && l.first <= merged.back().last)
      merged.back().last = std::max(merged.back().last, l.last);
    else
      merged.push_back(l);
  }
  // A range takes in every merged span it meets; those lie side by side, and none beyond them can
  // meet the widened range (merged spans are disjoint).
  for (RowRange& s : range) {
    if (s.first == ~0u) continue;
    auto it = std::lower_bound(merged.begin(), merged.end(), s.first,
                               [](const RowRange& m, std::uint32_t at) { return m.last < at; });
    for (; it != merged.end() && it->first <= s.last; ++it) {
      s.first = std::min(s.first, it->first);
      s.last = std::max(s.last, it->last);
    }
  }
}

std::uint32_t colour_ranges(const std::vector<RowRange>& range,
                            const std::vector<std::uint8_t>* keep,
                            std::vector<std::uint32_t>& row) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t r = 0; r < range.size(); ++r)
    if (range[r].first != ~0u) order.push_back(r);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return range[a].first < range[b].first;
  });
  row.assign(range.size(), 0);
  std::uint32_t rows = 0;
  using Busy = std::pair<std::uint32_t, std::uint32_t>;  // (last, row)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free_rows;
  for (const std::uint32_t r : order) {
    while (!busy.empty() && busy.top().first < range[r].first) {
      free_rows.push(busy.top().second);
      busy.pop();
    }
    if (!free_rows.empty()) {
      row[r] = free_rows.top();
      free_rows.pop();
    } else {
      row[r] = rows++;
    }
    if (!keep || !(*keep)[r]) busy.push({range[r].last, row[r]});
  }
  return rows;
}

}  // namespace smemsim::exec::detail

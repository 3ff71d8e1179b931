#include "exec/cfg.hpp"

#include <algorithm>

namespace smemsim::exec {
namespace {

using ptx::Opcode;

bool ends_block(const ptx::Instruction& ins) {
  return ins.op == Opcode::Bra || ins.op == Opcode::Ret || ins.op == Opcode::Exit;
}

}  // namespace

std::vector<Reconvergence> reconvergence_points(const ptx::Kernel& kernel) {
  const auto& code = kernel.code;
  const std::uint32_t n = static_cast<std::uint32_t>(code.size());
  if (n == 0) return {};
  // Leaders: the first instruction, branch targets, and instructions after a block end.
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (code[i].op == Opcode::Bra && code[i].ops[0].target <= n)
      leader[code[i].ops[0].target] = true;
    if (ends_block(code[i])) leader[i + 1] = true;
  }
  std::vector<std::uint32_t> start, block_of(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (leader[i]) start.push_back(i);
    block_of[i] = static_cast<std::uint32_t>(start.size() - 1);
  }
  const std::size_t blocks = start.size();
  const std::size_t exit_node = blocks;  // virtual exit
  block_of[n] = static_cast<std::uint32_t>(exit_node);
  std::vector<std::vector<std::size_t>> succ(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::uint32_t end = b + 1 < blocks ? start[b + 1] : n;
    const ptx::Instruction& last = code[end - 1];
    const bool guarded = last.guard != ptx::kNone;
    const std::size_t fall = block_of[end];
    if (last.op == Opcode::Bra) {
      succ[b].push_back(block_of[std::min(last.ops[0].target, n)]);
      if (guarded) succ[b].push_back(fall);
    } else if (last.op == Opcode::Ret || last.op == Opcode::Exit) {
      succ[b].push_back(exit_node);
      if (guarded) succ[b].push_back(fall);
    } else {
      succ[b].push_back(fall);
    }
  }
  // Immediate post-dominators by Cooper, Harvey and Kennedy's iteration ("A Simple, Fast Dominance
  // Algorithm", 2001) on the reversed graph, rooted at the exit: linear memory (issue 48: a set of
  // post-dominators per block took blocks^2 bits, 215 MB for 20,000 branches). A block that cannot
  // reach the exit (a loop with no way out) has none and reconverges at the exit, as before.
  const std::size_t nodes = blocks + 1;
  std::vector<std::vector<std::uint32_t>> pred(nodes);  // the reversed graph's successors
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t s : succ[b]) pred[s].push_back(static_cast<std::uint32_t>(b));
  // Postorder of the reversed graph from the exit (an explicit stack: a kernel may have a million
  // blocks).
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  std::vector<std::uint32_t> po(nodes, kUnseen), order;
  order.reserve(nodes);
  {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{
        {static_cast<std::uint32_t>(exit_node), 0}};
    po[exit_node] = 0;  // seen (numbered when finished)
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < pred[v].size()) {
        const std::uint32_t u = pred[v][next++];
        if (po[u] == kUnseen) {
          po[u] = 0;
          stack.push_back({u, 0});
        }
      } else {
        po[v] = static_cast<std::uint32_t>(order.size());
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<std::uint32_t> ipdom(nodes, kUnseen);
  ipdom[exit_node] = static_cast<std::uint32_t>(exit_node);
  const auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (po[a] < po[b]) a = ipdom[a];
      while (po[b] < po[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = order.size() - 1; k-- > 0;) {  // reverse postorder, the exit excluded
      const std::uint32_t b = order[k];
      std::uint32_t d = kUnseen;
      for (std::size_t s : succ[b]) {
        if (ipdom[s] == kUnseen) continue;
        d = d == kUnseen ? static_cast<std::uint32_t>(s)
                         : intersect(static_cast<std::uint32_t>(s), d);
      }
      if (d != ipdom[b]) {
        ipdom[b] = d;
        changed = true;
      }
    }
  }
  std::vector<std::uint32_t> rpc_of_block(blocks, n);
  for (std::size_t b = 0; b < blocks; ++b)
    if (ipdom[b] != kUnseen && ipdom[b] != exit_node) rpc_of_block[b] = start[ipdom[b]];
  std::vector<Reconvergence> out;
  for (std::uint32_t i = 0; i < n; ++i)
    if (code[i].op == Opcode::Bra) out.push_back({i, rpc_of_block[block_of[i]]});
  return out;
}

}  // namespace smemsim::exec

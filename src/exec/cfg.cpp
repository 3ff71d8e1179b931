#include "exec/cfg.hpp"

#include <algorithm>

namespace smemsim::exec {
namespace {

using ptx::Opcode;

// A dense bit set over blocks.
struct Bits {
  std::vector<std::uint64_t> w;
  explicit Bits(std::size_t n = 0, bool all = false) : w((n + 63) / 64, all ? ~0ull : 0ull) {
    if (all && n % 64) w.back() = (1ull << (n % 64)) - 1;
  }
  void set(std::size_t i) { w[i / 64] |= 1ull << (i % 64); }
  bool test(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
  std::size_t count() const {
    std::size_t c = 0;
    for (auto x : w) c += static_cast<std::size_t>(__builtin_popcountll(x));
    return c;
  }
  bool operator==(const Bits&) const = default;
};

bool ends_block(const ptx::Instruction& ins) {
  return ins.op == Opcode::Bra || ins.op == Opcode::Ret || ins.op == Opcode::Exit;
}

}  // namespace

std::vector<std::uint32_t> reconvergence_points(const ptx::Kernel& kernel) {
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
  // Post-dominator sets by iteration to a fixed point (blocks in reverse order converge fast).
  std::vector<Bits> pdom(blocks + 1, Bits(blocks + 1, true));
  pdom[exit_node] = Bits(blocks + 1);
  pdom[exit_node].set(exit_node);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t bi = blocks; bi-- > 0;) {
      Bits meet(blocks + 1, true);
      for (std::size_t s : succ[bi])
        for (std::size_t k = 0; k < meet.w.size(); ++k) meet.w[k] &= pdom[s].w[k];
      meet.set(bi);
      if (!(meet == pdom[bi])) {
        pdom[bi] = std::move(meet);
        changed = true;
      }
    }
  }
  // Immediate post-dominator: the strict post-dominator whose own set equals the strict set.
  std::vector<std::uint32_t> rpc_of_block(blocks, n);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t strict = pdom[b].count() - 1;
    for (std::size_t d = 0; d <= blocks; ++d) {
      if (d == b || !pdom[b].test(d)) continue;
      if (pdom[d].count() == strict) {
        rpc_of_block[b] = d == exit_node ? n : start[d];
        break;
      }
    }
  }
  std::vector<std::uint32_t> out(n);
  for (std::uint32_t i = 0; i < n; ++i) out[i] = rpc_of_block[block_of[i]];
  return out;
}

}  // namespace smemsim::exec

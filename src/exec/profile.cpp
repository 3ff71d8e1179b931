#include "smemsim/profile.hpp"

#include <algorithm>
#include <optional>

namespace smemsim::exec {

using ptx::Opcode;
using ptx::Space;

namespace {

// The access an instruction makes to shared memory, if it may make one: loads and stores (shared or
// generic), atomics, and the tensor-core instructions (issue 16): ldmatrix and wmma.load read it,
// stmatrix and wmma.store write it, cp.async writes it (its source is global), wgmma.mma_async
// reads it.
std::optional<Op> shared_op(const ptx::Instruction& ins) {
  const bool shared = ins.space == Space::Shared || ins.space == Space::Generic;
  switch (ins.op) {
    case Opcode::Ld:
      return shared ? std::optional(Op::Load) : std::nullopt;
    case Opcode::St:
      return shared ? std::optional(Op::Store) : std::nullopt;
    case Opcode::Atom:
    case Opcode::Red:
      return shared ? std::optional(Op::Atomic) : std::nullopt;
    case Opcode::Ldmatrix:
      return Op::Load;
    case Opcode::Stmatrix:
    case Opcode::CpAsync:
      return Op::Store;
    case Opcode::WmmaLoad:
      return shared ? std::optional(Op::Load) : std::nullopt;
    case Opcode::WmmaStore:
      return shared ? std::optional(Op::Store) : std::nullopt;
    case Opcode::Wgmma:  // mma_async reads A and B through its descriptors (issue 46)
      return ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask) == ptx::WgmmaOp::Mma
                 ? std::optional(Op::Load)
                 : std::nullopt;
    case Opcode::Mbarrier:  // the object: a wait reads it, the rest update it
      if (ptx::MbarOp(ins.comp) == ptx::MbarOp::PendingCount) return std::nullopt;
      return ptx::MbarOp(ins.comp) == ptx::MbarOp::TestWait ||
                     ptx::MbarOp(ins.comp) == ptx::MbarOp::TryWait
                 ? Op::Load
                 : Op::Atomic;
    default:
      return std::nullopt;
  }
}

}  // namespace

Profiler::Profiler(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch)
    : eval_(arch) {
  std::uint32_t max_line = 0;
  for (const ptx::Instruction& ins : kernel.code) max_line = std::max(max_line, ins.ptx_line);
  row_of_line_.assign(std::size_t(max_line) + 1, 0);
  for (std::size_t i = 0; i < kernel.code.size(); ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    const std::optional<Op> op = shared_op(ins);
    if (!op) continue;
    ProfileRow r;
    r.index = static_cast<std::uint32_t>(i);
    r.ptx_line = ins.ptx_line;
    r.cuda = cuda_location(module, ins);
    r.text = ptx::to_string(kernel, ins);
    r.op = *op;
    rows_.push_back(std::move(r));
    row_of_line_[ins.ptx_line] = static_cast<std::uint32_t>(rows_.size());
  }
  worst_.assign(rows_.size(), 0);
}

void Profiler::on_access(const WarpAccess& wa) {
  const AccessResult r = eval_.evaluate(wa);
  all_.add(r);
  if (wa.pc >= row_of_line_.size() || row_of_line_[wa.pc] == 0) return;
  ProfileRow& row = rows_[row_of_line_[wa.pc] - 1];
  row.totals.add(r);
  row.max_position_degree = std::max<std::int64_t>(row.max_position_degree, r.degrees.position);
  std::int64_t& worst = worst_[row_of_line_[wa.pc] - 1];
  if (r.degrees.bank > worst) {
    worst = r.degrees.bank;
    row.worst = wa;
  }
  row.active_lanes += static_cast<std::uint64_t>(wa.active_count());
}

std::optional<PaddingHint> padding_hint(const WarpAccess& wa, const Arch& arch) {
  int first = -1, second = -1;
  for (int l = 0; l < wa.lanes && second < 0; ++l)
    if (wa.is_active(l)) (first < 0 ? first : second) = l;
  if (second < 0) return std::nullopt;
  const WordAddr a0 = wa.addr[std::size_t(first)], a1 = wa.addr[std::size_t(second)];
  if (a1 <= a0 || a1 - a0 < 2) return std::nullopt;
  const std::uint32_t s = static_cast<std::uint32_t>(a1 - a0);
  AccessEvaluator ev(arch);
  PaddingHint best{s, 0, ev.evaluate(wa).degrees.bank, 0};
  best.after = best.before;
  for (std::uint32_t pad = 1; pad <= arch.banks; ++pad) {
    WarpAccess w = wa;
    bool fits = true;
    for (int l = 0; l < wa.lanes; ++l) {
      if (!wa.is_active(l)) continue;
      const WordAddr x = wa.addr[std::size_t(l)];
      const WordAddr y = (x / s) * (s + pad) + x % s;  // the same element in padded rows
      fits &= y < arch.memory_words();
      w.addr[std::size_t(l)] = y;
    }
    if (!fits) break;
    const std::int64_t d = ev.evaluate(w).degrees.bank;
    if (d < best.after) best.after = d, best.pad = pad;
  }
  if (best.pad == 0) return std::nullopt;
  return best;
}

std::vector<ProfileRow> Profiler::rows() const {
  std::vector<ProfileRow> out;
  for (const ProfileRow& r : rows_) {
    // Generic instructions appear only when some of their lanes reached shared memory.
    if (r.totals.accesses == 0 && r.text.find(".shared") == std::string::npos) continue;
    out.push_back(r);
  }
  return out;
}

}  // namespace smemsim::exec

#include "smemsim/profile.hpp"

#include <algorithm>

namespace smemsim::exec {

using ptx::Opcode;
using ptx::Space;

Profiler::Profiler(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch)
    : eval_(arch) {
  std::uint32_t max_line = 0;
  for (const ptx::Instruction& ins : kernel.code) max_line = std::max(max_line, ins.ptx_line);
  row_of_line_.assign(std::size_t(max_line) + 1, 0);
  for (std::size_t i = 0; i < kernel.code.size(); ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    const bool mem = ins.op == Opcode::Ld || ins.op == Opcode::St || ins.op == Opcode::Atom ||
                     ins.op == Opcode::Red;
    if (!mem || (ins.space != Space::Shared && ins.space != Space::Generic)) continue;
    ProfileRow r;
    r.index = static_cast<std::uint32_t>(i);
    r.ptx_line = ins.ptx_line;
    r.cuda = cuda_location(module, ins);
    r.text = ptx::to_string(kernel, ins);
    r.op = ins.op == Opcode::Ld ? Op::Load : (ins.op == Opcode::St ? Op::Store : Op::Atomic);
    rows_.push_back(std::move(r));
    row_of_line_[ins.ptx_line] = static_cast<std::uint32_t>(rows_.size());
  }
}

void Profiler::on_access(const WarpAccess& wa) {
  const AccessResult r = eval_.evaluate(wa);
  all_.add(r);
  if (wa.pc >= row_of_line_.size() || row_of_line_[wa.pc] == 0) return;
  ProfileRow& row = rows_[row_of_line_[wa.pc] - 1];
  row.totals.add(r);
  row.max_position_degree = std::max<std::int64_t>(row.max_position_degree, r.degrees.position);
  row.active_lanes += static_cast<std::uint64_t>(wa.active_count());
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

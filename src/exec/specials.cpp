// Special registers the executor does not keep in each warp's register file (issue 27): the lane
// masks (constant rows that differ by lane), the global timer (the clock's rows), the launch's
// constants and the cluster aliases, and the ones it refuses (docs/exec.md "Registers").
#include <fmt/format.h>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec::detail {

namespace {

// The stored special whose row a special register reads: itself, or the one it is an alias of
// (%globaltimer is the clock at an assumed 1 GHz, docs/exec.md), or a per-CTA cluster special
// (issue 46); -1 for the others.
int stored_special(ptx::Special sp) {
  using S = ptx::Special;
  const auto n = static_cast<std::uint32_t>(sp);
  if (n < ptx::kStoredSpecials) return int(n);
  switch (sp) {
    // Per CTA (issue 46): its place in its cluster and its cluster's (set at start_cta).
    case S::ClusterCtaidX:
    case S::ClusterCtaidY:
    case S::ClusterCtaidZ:
    case S::ClusterCtarank:
    case S::ClusterIdX:
    case S::ClusterIdY:
    case S::ClusterIdZ:
      return int(n);
    case S::GlobalTimer:
      return int(S::Clock64);
    case S::GlobalTimerLo:
      return int(S::Clock);
    case S::GlobalTimerHi:
      return int(S::ClockHi);
    default:
      return -1;
  }
}

}  // namespace

// Rows for the stored specials the kernel reads, after its registers, then the carry flag's row.
void Impl::place_specials() {
  special_at.fill(kNoRow);
  for (const ptx::Instruction& ins : kernel.code)
    for (const ptx::Operand& o : ins.ops)
      if (o.kind == ptx::OperandKind::Special)
        if (const int s = stored_special(o.special); s >= 0) special_at[std::size_t(s)] = 0;
  std::uint32_t row = nregs;
  for (std::uint32_t& at : special_at)
    if (at == 0) at = row++;
  cc_row = row;
  local_rows = cc_row + 1;
}

// The row a special register reads (issue 27): a stored one's warp row (place_specials); a launch
// constant's constant row; a special smemsim does not model refuses the launch, naming it.
std::uint32_t Impl::special_row(ptx::Special sp, const ptx::Instruction& ins) {
  using S = ptx::Special;
  if (const int s = stored_special(sp); s >= 0) return special_at[std::size_t(s)];
  switch (sp) {
    case S::LanemaskEq:
    case S::LanemaskLe:
    case S::LanemaskLt:
    case S::LanemaskGe:
    case S::LanemaskGt:
      return lane_row([sp](std::uint32_t l) -> std::uint64_t {
        const std::uint64_t eq = std::uint64_t{1} << l, lt = eq - 1;
        switch (sp) {
          case S::LanemaskEq:
            return eq;
          case S::LanemaskLe:
            return lt | eq;
          case S::LanemaskLt:
            return lt;
          case S::LanemaskGe:
            return ~lt & 0xffffffffu;
          default:  // LanemaskGt
            return ~(lt | eq) & 0xffffffffu;
        }
      });
    case S::NsmId:
      return const_row(arch.sm.count);
    case S::GridId:  // the launch's grid number: one grid per executor
      return const_row(1);
    case S::IsExplicitCluster:  // __cluster_dims__: an explicit cluster
      return const_row(kernel.explicit_cluster ? 1 : 0);
    case S::CurrentGraphExec:  // not launched from a CUDA graph
      return const_row(0);
    case S::ClusterNctaidX:
      return const_row(cluster.x);
    case S::ClusterNctaidY:
      return const_row(cluster.y);
    case S::ClusterNctaidZ:
      return const_row(cluster.z);
    case S::ClusterNctarank:
      return const_row(cluster.count());
    case S::NclusterIdX:
      return const_row(launch.grid.x / cluster.x);
    case S::NclusterIdY:
      return const_row(launch.grid.y / cluster.y);
    case S::NclusterIdZ:
      return const_row(launch.grid.z / cluster.z);
    case S::DynamicSmemSize:
      return const_row(launch.dynamic_shared_bytes);
    // The reserved shared memory (prepare.cpp), 1 KiB: its begin, end and size; where its users
    // start (_0 at the beginning, _1 half-way: cooperative groups' block_tile_memory needs 288
    // bytes from %reserved_smem_offset_1; the split inside the region is not documented: assumed).
    case S::ReservedSmemOffsetBegin:
    case S::ReservedSmemOffset0:
      return const_row(reserved_smem);
    case S::ReservedSmemOffsetEnd:
      return const_row(reserved_smem + kReservedSmemBytes);
    case S::ReservedSmemOffsetCap:
      return const_row(kReservedSmemBytes);
    case S::ReservedSmemOffset1:
      return const_row(reserved_smem + kReservedSmemBytes / 2);
    case S::TotalSmemSize:
    case S::AggrSmemSize:  // no reserved region: the block's shared memory
      return const_row(shared.total_bytes);
    default:
      break;
  }
  const char* what =
      sp <= S::Pm7_64 ? "a performance-monitor counter" : "a driver-defined environment register";
  throw InputError(located(module.filename, ins.ptx_line,
                           fmt::format("the executor does not model {} ({}) in '{}'",
                                       ptx::special_name(sp), what, ptx::to_string(kernel, ins))));
}

// A constant row whose value differs by lane (the lane masks): the same for every warp, so it is
// a constant, not a row of each warp's file; never shared with a uniform constant.
std::uint32_t Impl::lane_row(const std::function<std::uint64_t(std::uint32_t)>& value) {
  const auto r = static_cast<std::uint32_t>(consts.size() / lanes);
  for (std::uint32_t l = 0; l < lanes; ++l) consts.push_back(value(l));
  return local_rows + r;
}

}  // namespace smemsim::exec::detail

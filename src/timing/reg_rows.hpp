// Rows of the SM's per-register tables shared by registers whose uses never interleave in a
// warp's issue order (issue 49; docs/timing.md "Rows of the scoreboard").
//
// The SM keeps, per warp slot and register, the writes in flight (the scoreboard) and the cycles
// the operand, guard and cross-pipe delays end. Indexed by PTX register, a warp's part of those
// tables runs to kilobytes (AES names 340 registers), and 80 SMs' warps miss the host's caches on
// most accesses. Two registers may share a row when sharing changes no answer the tables give:
// - Their ranges, widened so that a warp's issue order follows code order outside them, do not
//   meet. A range is a register's first to last mention (by the instruction's own registers and
//   those of the issue group it starts, InstInfo), widened to every loop it meets (a backward
//   branch's span; GPU-LocalTM's span from the first TX.Begin to the last TX.Commit) and to every
//   divergent region it meets (from a guarded branch, every instruction reachable before its
//   reconvergence point: the executor runs one path, then the other, out of code order).
// - No write of the earlier register is in flight once the warp leaves its range: a forward
//   analysis finds whether a write may reach an edge out of the range without an instruction that
//   mentions the register in between (every mention waits for the register's writes in flight).
//   A register that may leave a write in flight keeps its row to itself.
// The delay tables' entries carry the register that wrote them (Sm::owner_): a register reads an
// entry another register left as no delay, which is what its own row held.
// A kernel with device-function calls keeps a row per register.
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/ptx.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::timing {

struct TimingRows {
  std::vector<std::uint32_t> row;  // per register (and the extra last one): its row
  std::uint32_t rows = 0;
  std::uint32_t private_regs = 0;  // registers that keep a row to themselves (statistics, tests)
};

// `nregs`: the kernel's registers and one more (SimContext::nregs), which gets a row of its own.
// `unroll`: sm.lower's unroll (SimContext::unroll), or nullptr: the overhead instructions it
// skips in three trips of four check nothing there, so they end no write's flight.
// A row per register (TimingOptions::share_rows false, and where the analysis does not apply).
TimingRows one_row_each(std::uint32_t nregs);

TimingRows share_timing_rows(const ptx::Kernel& kernel, const std::vector<InstInfo>& info,
                             std::uint32_t nregs, const std::vector<std::uint32_t>* unroll);

}  // namespace smemsim::timing

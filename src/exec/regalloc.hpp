// Register rows shared by registers whose live ranges never meet (issue 49). A PTX kernel names
// each value anew (nvcc's output is close to single assignment: AES has 336 registers where ptxas
// keeps about 40), and the executor keeps a 32-lane row of every register for every warp: a CTA's
// file runs to megabytes, and a cycle-level run of 80 SMs misses the host's caches on nearly
// every register access. Packing the rows as a register allocator would (ptxas does the same)
// makes the file a fraction of that; the results are the same, since every lane reads only
// registers its own path wrote.
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/ptx.hpp"

namespace smemsim::exec::detail {

// Row of each register of `kernel` (indexed like Kernel::regs) and the rows used. A register's
// range is its first to last mention in code order, widened to every loop (backward branch's span)
// it meets, and again while it meets more: a value that crosses a backward branch lives through
// the whole loop. No two registers whose ranges overlap share a row; registers never mentioned
// share row 0. The ranges need no def/use distinction: any path from a write to a read stays inside
// the widened range (forward steps cannot pass its end and come back without a backward branch
// that the range already covers).
struct RegisterRows {
  std::vector<std::uint32_t> row;
  std::uint32_t rows = 0;
};
RegisterRows share_register_rows(const ptx::Kernel& kernel);

// A register's range in instruction indices; first == ~0u: never mentioned.
struct RowRange {
  std::uint32_t first = ~0u, last = 0;
};
// Widens every mentioned range to each span (a loop, a region) it meets, and again while the
// widened range meets more: overlapping spans are merged first.
void widen_ranges(std::vector<RowRange>& range, std::vector<RowRange> spans);
// Interval colouring in order of start: each mentioned range takes the lowest row whose last range
// ended before it starts (deterministic, and as few rows as the most ranges alive at once); a range
// whose `keep` entry is set never gives its row back. Unmentioned ranges get row 0. Fills `row`
// (one per range) and returns the rows used.
std::uint32_t colour_ranges(const std::vector<RowRange>& range,
                            const std::vector<std::uint8_t>* keep, std::vector<std::uint32_t>& row);

}  // namespace smemsim::exec::detail

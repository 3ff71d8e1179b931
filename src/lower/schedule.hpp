// The list scheduler of the lowering pass (issue 42, sm.lower rule `schedule`): ptxas moves
// independent instructions into the shadow of long latencies within a basic block (a chain's
// loop counter costs the GPU nothing); the PTX as written puts them where the source did. The
// scheduler reorders each block's instructions, keeping every dependence, so that the executor can
// run the reordered kernel with the same results.
//
// Kept in place: a block's last instruction when it ends the block (branch, barrier, fence,
// call, ...), and instructions that read the clock (nothing moves across them: a kernel timing
// itself sees the code it timed). Kept in order: registers (read after write, write after read,
// write after write), memory and warp-level instructions among themselves (loads, stores,
// atomics, shuffles, votes, the carry flag), and an absorbed instruction with the one it issues
// with (lower.hpp). With `spaces` (sm.lower rule `spaces`) the memory order kept is the one that
// can change a result: a store against every earlier or later access to a state space that may
// alias its own (the same space, or a generic address), so two loads pass each other and a
// global load passes a shared store, as ptxas hoists a tile's global loads above the shared
// stores of the loads before them (sm_90 SASS of kernels/convolution.cu); atomics, volatile and
// strong accesses, asynchronous copies and nanosleep stay in order with all of them, shuffles
// and votes among themselves, the carry flag among its users.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// The new order of kernel.code (order[new position] = old index), or an empty vector when the
// scheduler changed nothing. `latency[i]`: cycles from instruction i's issue until a dependent
// instruction may issue. `with[i]`: what an absorbed instruction issues with (kNone: it issues;
// may be empty: nothing absorbed). `spaces`: keep only the memory order that may alias (above).
// `budget` (sm.sched_regs; 0: none): the 32-bit register words of values defined in a run and
// still to be read that the scheduler keeps to where it can. While the next pick would exceed it,
// the ready instruction that adds the fewest live words goes first, so a chain is finished before
// the next starts, as ptxas's register-aware scheduler does (lavamd's four unrolled iterations in
// its sm_90 SASS: each iteration's DFMA chain issued whole, not interleaved with the next).
// `guard_latency[i]` (may be empty: `latency`): cycles from instruction i's issue until an
// instruction it guards (@p, its predicate) may issue (sm.guard_delay); a block's last instruction
// counts too, so that the setp a branch reads is issued early enough for it.
std::vector<std::uint32_t> schedule(const ptx::Kernel& kernel, const std::vector<RegUse>& uses,
                                    const std::vector<std::uint32_t>& latency,
                                    const std::vector<std::uint32_t>& with, bool spaces = false,
                                    std::uint32_t budget = 0,
                                    const std::vector<std::uint32_t>& guard_latency = {});

// kernel with its code in `order` (schedule's result); labels, calls and functions unchanged
// (each block keeps its first and last positions).
ptx::Kernel reordered(const ptx::Kernel& kernel, const std::vector<std::uint32_t>& order);

}  // namespace smemsim::lower

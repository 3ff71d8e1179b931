// Convergence barriers, the timing's view (sm.lower rule `bssy`, issue 42): from Volta on, ptxas
// brackets a branch that may split a warp with BSSY (before the branch: where the lanes will
// meet) and BSYNC (at the meeting point: wait for them), two instructions each that issue like any
// other. A branch every lane takes the same way (a loop over a uniform count, a test of the
// block's index) gets neither. The H200's Nsight opcode counts of the suite show them: grid3d
// 67,506 BSSY and 69,476 BSYNC of its 886,738 instructions, kmeans 11 %, nw 9 %, matmul none
// (calibration/runs/h100-2026-11-27/ncu_opcodes_h200.csv).
//
// Which branches: a conditional forward branch whose predicate may differ between the lanes of
// a warp (varying_registers), whose reconvergence point (exec/cfg.hpp: the immediate
// post-dominator) is neither the kernel's end nor a `ret`/`exit` (ptxas makes such a branch a
// predicated EXIT). Backward branches (a loop whose lanes leave at different trips: ptxas puts
// the BSSY before the loop, once) are left out: an instruction's expansion issues every time it
// does, so there is no place to put it yet.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// Per register of k: 1 when its value may differ between the lanes of a warp. A value varies when
// it is a thread index, a lane index or mask, the result of an atomic, shuffle, match, matrix or
// call (a call's parameter loaded: a function's argument, its return value), computed from a
// varying value (a load from a varying address included), guarded by a varying predicate, or
// written between a varying branch and the point its lanes meet again (or inside a loop a varying
// branch closes). Everything else is uniform: immediates, the kernel's parameters, block and grid
// indices and sizes, votes, reductions and loads from uniform addresses.
std::vector<std::uint8_t> varying_registers(const ptx::Kernel& k, const std::vector<RegUse>& uses);

// Where the barriers go: the branches that issue a BSSY before them and the instructions that
// issue a BSYNC before them (each once, in index order).
struct Convergence {
  std::vector<std::uint32_t> bssy, bsync;
};
Convergence convergence_barriers(const ptx::Kernel& k, const std::vector<RegUse>& uses);

}  // namespace smemsim::lower

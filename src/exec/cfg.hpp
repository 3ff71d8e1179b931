// Reconvergence points of a kernel's branches: the immediate post-dominator of the branch's basic
// block (docs/exec.md "Reconvergence").
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/ptx.hpp"

namespace smemsim::exec {

// For every instruction index i: the instruction index where lanes that diverge at a branch i
// reconverge (the first instruction of the immediate post-dominator of i's block), or
// kernel.code.size() when that is the kernel's exit. Meaningful for branches; other entries hold
// the value of their block.
std::vector<std::uint32_t> reconvergence_points(const ptx::Kernel& kernel);

}  // namespace smemsim::exec

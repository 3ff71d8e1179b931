// Reconvergence points of a kernel's branches: the immediate post-dominator of the branch's basic
// block (docs/exec.md "Reconvergence").
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/ptx.hpp"

namespace smemsim::exec {

// A branch (instruction `pc`) and the instruction index where lanes that diverge at it reconverge
// (`rpc`: the first instruction of the immediate post-dominator of its block), or
// kernel.code.size() when that is the kernel's exit.
struct Reconvergence {
  std::uint32_t pc, rpc;
};
// Every branch of the kernel, in order (issue 48: only the branches, not a word per instruction).
std::vector<Reconvergence> reconvergence_points(const ptx::Kernel& kernel);

}  // namespace smemsim::exec

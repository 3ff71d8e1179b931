// A candidate layout applied to the kernel as code (issue 43): the PTX rewritten the way the CUDA
// that `fix --emit cuda` prints compiles, so that the candidate's cycles include its own index
// arithmetic. The remap of exec::SharedRemap (the executor relaying out addresses) only estimates
// them.
//
// Padding by a row stride: where every address of the array is base + (row terms) + (column terms)
// + constant, and each row term is a multiply (shl, mul, mad) by a constant whose coefficient is a
// multiple of the row's bytes, the constant becomes the padded row's (a declaration T a[R][W + P]
// compiles to exactly that: the same instructions, another stride), the immediate offsets move by
// whole rows and the array's declaration grows. Otherwise, and for a swizzle, the index function
// of the emitted CUDA is inserted before each access: the offset from the array's base, then
// i + (i / row) * pad, or i ^ ((i >> shift) & mask), on the grain index.
#pragma once

#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::fix::detail {

struct Applied {
  std::string refused;  // why the candidate could not be written as code ("" when it was)
  std::string form;    // "row stride 132 bytes (2 multipliers changed)", "3 instructions an access"
  ptx::Module module;  // the module with the kernel rewritten
  std::uint32_t changed = 0;   // instructions whose constant changed
  std::uint32_t inserted = 0;  // instructions added
};

// `lines`: the PTX lines of the shared instructions that accessed the array in the baseline run.
// `offset`: the array's byte offset in the kernel's shared layout (exec::SharedLayout).
Applied apply_remap(const ptx::Module& module, const std::string& kernel,
                    const exec::SharedLayout::Array& array, const std::vector<std::uint32_t>& lines,
                    const exec::SharedRemap& remap);

}  // namespace smemsim::fix::detail

// Whole-kernel runs for the studies' `cycle` backend (docs/studies.md): a kernel of the suite
// (kernels/*.cu, PTX compiled by nvcc at build time) simulated on the cycle-level GPU model.
#pragma once

#include <cstdint>
#include <string>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::study {

// kernels/<file>.cu's PTX from $SMEMSIM_PTX_DIR or the build's kernel directory; InputError naming
// the file when it is missing (nvcc was not found at build time).
ptx::Module load_suite_module(const std::string& file);

// Whole-kernel cycles of one launch (timing::GpuSim with the default options). The memory holds
// the kernel's buffers; the caller checks the result.
std::uint64_t kernel_cycles(const ptx::Module& module, const std::string& kernel, const Arch& arch,
                            const exec::Launch& launch, exec::GlobalMemory& memory);

}  // namespace smemsim::study

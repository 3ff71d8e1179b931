// Whole-kernel runs for the studies' `cycle` backend (docs/studies.md): a kernel of the suite
// (kernels/*.cu, PTX compiled by nvcc at build time) simulated on the cycle-level GPU model.
#pragma once

#include <cstdint>
#include <string>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/study.hpp"

namespace smemsim::study {

// The kernel suite's PTX directory (exec::suite_ptx_dir: $SMEMSIM_PTX_DIR, else kernels/ptx).
std::string suite_ptx_dir();

// kernels/<file>.cu's PTX from suite_ptx_dir(); InputError naming the file when it is missing.
ptx::Module load_suite_module(const std::string& file);

// Whole-kernel cycles of one launch (timing::GpuSim with the default options). The memory holds
// the kernel's buffers; the caller checks the result.
std::uint64_t kernel_cycles(const ptx::Module& module, const std::string& kernel, const Arch& arch,
                            const exec::Launch& launch, exec::GlobalMemory& memory);

// Adds buffer `name` of `bytes` bytes, copied from `data` (zeros when null); returns its index.
std::uint32_t add_buffer(exec::GlobalMemory& memory, const std::string& name, exec::ElemType type,
                         const void* data, std::size_t bytes);

// The study parameter 'blocks' (thread blocks of a kernel run, 1..65535).
std::uint32_t blocks_param(const StudyConfig& cfg);

}  // namespace smemsim::study

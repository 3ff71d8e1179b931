#include "kernel_runs.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"

#ifndef SMEMSIM_PTX_DIR
#define SMEMSIM_PTX_DIR ""
#endif

namespace smemsim::study {

ptx::Module load_suite_module(const std::string& file) {
  const char* env = std::getenv("SMEMSIM_PTX_DIR");
  const std::string dir = env && *env ? env : SMEMSIM_PTX_DIR;
  const std::string path = dir + "/" + file + ".ptx";
  if (dir.empty() || !std::filesystem::exists(path))
    throw InputError(fmt::format(
        "backend 'cycle' runs kernels/{}.cu, but its PTX '{}' is missing (nvcc was not found at "
        "build time; set SMEMSIM_PTX_DIR to a directory with the suite's PTX)",
        file, path));
  return ptx::parse_file(path);
}

std::uint64_t kernel_cycles(const ptx::Module& module, const std::string& kernel, const Arch& arch,
                            const exec::Launch& launch, exec::GlobalMemory& memory) {
  const ptx::Kernel* k = module.find_kernel(kernel);
  if (!k) throw InputError(fmt::format("{}: no kernel '{}'", module.filename, kernel));
  timing::GpuSim sim(module, *k, arch, launch, memory, {});
  return sim.run().cycles;
}

}  // namespace smemsim::study

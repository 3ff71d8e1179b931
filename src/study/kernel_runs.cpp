#include "kernel_runs.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"

#ifndef SMEMSIM_PTX_DIR
#define SMEMSIM_PTX_DIR ""
#endif

namespace smemsim::study {

std::string suite_ptx_dir() {
  const char* env = std::getenv("SMEMSIM_PTX_DIR");
  return env && *env ? env : SMEMSIM_PTX_DIR;
}

ptx::Module load_suite_module(const std::string& file) {
  const std::string dir = suite_ptx_dir();
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

std::uint32_t add_buffer(exec::GlobalMemory& memory, const std::string& name, exec::ElemType type,
                         const void* data, std::size_t bytes) {
  exec::Buffer b{name, type, std::vector<std::uint8_t>(bytes)};
  if (data && bytes) std::memcpy(b.bytes.data(), data, bytes);
  return memory.add(std::move(b));
}

std::uint32_t blocks_param(const StudyConfig& cfg) {
  const std::int64_t b = cfg.integer("blocks");
  if (b < 1 || b > 65535) throw InputError("study parameter 'blocks' must be in 1..65535");
  return static_cast<std::uint32_t>(b);
}

}  // namespace smemsim::study

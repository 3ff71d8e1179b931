#include "kernel_runs.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::study {

std::string suite_ptx_dir() {
  return exec::suite_ptx_dir();
}

ptx::Module load_suite_module(const std::string& file) {
  return exec::load_suite_ptx(suite_ptx_dir(), file, "backend 'cycle'");
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

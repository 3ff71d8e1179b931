// `run --export-gpu DIR` (gpu_export.cpp): a launch as a package scripts/gpu-replay runs on a GPU.
#pragma once

#include <string>

#include "smemsim/workloads.hpp"

namespace smemsim::cli {

class GpuExport {
 public:
  // Before the run: checks the launch is replayable, writes the PTX and each buffer's bytes.
  // InputError (one line) otherwise.
  GpuExport(std::string dir, const exec::Workload& w);
  // After the run: each buffer's bytes as the executor left them, then the manifest (last, so a
  // package with a manifest is complete).
  void finish(const exec::Workload& w);

 private:
  std::string dir_;
  std::string manifest_;
};

}  // namespace smemsim::cli

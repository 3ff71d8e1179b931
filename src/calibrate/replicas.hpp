// Replica microbenchmarks (issue 42): one per measured figure a measurement file may cite,
// written by us from the source's described method (the same per-step instruction sequence, the
// same clock, block, grid and iterations) in kernels/ubench_replicas.cu, whose PTX ships in
// kernels/ptx/ubench_replicas.ptx. Running a replica in the cycle model gives the figure the
// model predicts, in the figure's unit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"

namespace smemsim::calibrate {

struct Replica {
  std::string_view name;    // what a measurement file's `benchmark` names
  std::string_view kernel;  // in ubench_replicas.ptx
  std::string_view unit;
  std::string_view what;  // one line: the step and the figure
  // The arch keys the figure constrains, first the one calibrate solves from it; a figure whose
  // first key is "" has no key of its own (it checks the others, or names a missing mechanism).
  std::vector<std::string_view> keys;
  // A mechanism the model lacks that decides this figure ("" when none): the figure is reported,
  // never fitted.
  std::string_view missing;
};

const std::vector<Replica>& replicas();
const Replica* find_replica(std::string_view name);  // nullptr when none

// The figure the cycle model gives for `r` on `arch`, in r.unit. `ptx_dir`: where
// ubench_replicas.ptx is (exec::suite_ptx_dir() when empty).
double run_replica(const Replica& r, const Arch& arch, const std::string& ptx_dir = "");

}  // namespace smemsim::calibrate

// The JSON forms of what `run`, `profile` and `sim` report (docs/json.md): source locations, the
// executor's counts, a workload's launch and reference check, and the profile's rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/json.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {

// What one run of a workload gives (run, profile, sim): the executor's counts (summed over the
// launches of a pipeline), the shared-memory layout, the wall time and the reference check.
struct RunSummary {
  ExecStats stats;  // summed over the launches of a pipeline
  SharedLayout shared;
  double seconds = 0;
  std::string mismatch;  // "" when the result matches (or there is no reference)
  bool checked = false;
  // One per launch of a pipeline ([[launch]]); empty for a single launch.
  struct Step {
    std::string kernel;
    Launch launch;
    ExecStats stats;
    SharedLayout shared;
  };
  std::vector<Step> steps;
  // The kernels' printf output (issue 45), and the calls lost to the printf buffer's size.
  std::string printf_output;
  std::uint64_t printf_dropped = 0;
  // `run --racecheck` / `racecheck`: whether it ran, and the shared-memory hazards it found.
  bool racecheck = false;
  std::vector<RaceHazard> hazards;
};

}  // namespace smemsim::exec

namespace smemsim::json {

// {"file": the PTX file, "line": the instruction's PTX line}.
Json ptx_location(const ptx::Module& module, const ptx::Instruction& ins);
// {"file": the CUDA file as the PTX's .file table names it, "line": ...}; null without line
// information (PTX compiled without -lineinfo).
Json cuda_location(const ptx::Module& module, const ptx::Instruction& ins);
Json cuda_location(const ptx::Module& module, const ptx::SourceSite& site);

// The executor's counts: ctas, warp/thread instructions, shared accesses (and "tm" when the kernel
// ran transactions).
Json to_json(const exec::ExecStats& s);
// The run's description: workload, kernel, grid and block, shared bytes, counts, the launches of a
// pipeline, the kernel's own report, the reference check and the buffers written.
Json run_json(const exec::Workload& w, const exec::RunSummary& s);

// A padding that lowers a line's conflict (exec::padding_hint).
Json to_json(const exec::PaddingHint& h);
// One profile row: the instruction's locations, op and text, its Totals, the lanes it ran with.
Json to_json(const exec::ProfileRow& r, const ptx::Module& module, const ptx::Kernel& kernel);
// Per transaction site (its outermost TX.Begin) of GPU-LocalTM: location and counts.
Json tm_sites_json(const exec::ExecStats& s, const ptx::Module& module, const ptx::Kernel& kernel);

}  // namespace smemsim::json

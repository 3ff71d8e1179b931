// Two cycle-model runs that must agree (thread counts, run-ahead): cycles, counts, stall reasons,
// unit counts, per-SM and per-instruction statistics.
#pragma once

#include <gtest/gtest.h>

#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::test {

inline void expect_same_stats(const timing::TimingStats& a, const timing::TimingStats& b) {
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.thread_instructions, b.thread_instructions);
  EXPECT_EQ(a.absorbed, b.absorbed);
  EXPECT_EQ(a.expanded, b.expanded);
  EXPECT_EQ(a.issue.cycles, b.issue.cycles);
  EXPECT_EQ(a.units.smem_passes, b.units.smem_passes);
  EXPECT_EQ(a.units.lock_iterations, b.units.lock_iterations);
  EXPECT_EQ(a.units.lock_failures, b.units.lock_failures);
  EXPECT_EQ(a.units.global_requests, b.units.global_requests);
  EXPECT_EQ(a.units.l1_hit_sectors, b.units.l1_hit_sectors);
  EXPECT_EQ(a.units.l2_hit_sectors, b.units.l2_hit_sectors);
  EXPECT_EQ(a.units.writeback_conflicts, b.units.writeback_conflicts);
  ASSERT_EQ(a.sms.size(), b.sms.size());
  for (std::size_t i = 0; i < a.sms.size(); ++i) {
    EXPECT_EQ(a.sms[i].issue.cycles, b.sms[i].issue.cycles) << "SM " << i;
    EXPECT_EQ(a.sms[i].busy_cycles, b.sms[i].busy_cycles) << "SM " << i;
    EXPECT_EQ(a.sms[i].ctas, b.sms[i].ctas) << "SM " << i;
    EXPECT_EQ(a.sms[i].warp_instructions, b.sms[i].warp_instructions) << "SM " << i;
  }
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (std::size_t i = 0; i < a.instructions.size(); ++i) {
    const timing::InstrStats &x = a.instructions[i], &y = b.instructions[i];
    EXPECT_EQ(x.issued, y.issued) << i;
    EXPECT_EQ(x.latency, y.latency) << i;
    EXPECT_EQ(x.bank_conflict_passes, y.bank_conflict_passes) << i;
    EXPECT_EQ(x.lock_iterations, y.lock_iterations) << i;
    EXPECT_EQ(x.warp_states.cycles, y.warp_states.cycles) << i;
  }
}

// A suite kernel's launches (a pipeline's steps in order) on `arch` with `o`: each launch's
// statistics and the buffers afterwards; the kernel's own check must pass.
struct SuiteRun {
  std::vector<timing::TimingStats> stats;
  std::vector<exec::ExecStats> exec;  // per launch: the executors' counts
  std::vector<std::vector<std::uint8_t>> buffers;
};
inline SuiteRun run_suite_kernel(const std::string& name, const Arch& arch,
                                 const timing::TimingOptions& o) {
  exec::Workload w = exec::make_builtin(name, {}, SMEMSIM_PTX_DIR);
  std::vector<std::pair<std::string, exec::Launch>> steps;
  for (const exec::Workload::Step& s : w.pipeline) steps.emplace_back(s.kernel, s.launch);
  if (steps.empty()) steps.emplace_back(w.kernel, w.launch);
  SuiteRun r;
  for (const auto& [kernel, launch] : steps) {
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, kernel), arch, launch, w.memory, o);
    r.stats.push_back(sim.run());
    r.exec.push_back(sim.exec_stats());
  }
  for (const exec::Buffer& b : w.memory.buffers) r.buffers.push_back(b.bytes);
  if (w.check) EXPECT_EQ(w.check(w.memory), "") << name;
  return r;
}

}  // namespace smemsim::test

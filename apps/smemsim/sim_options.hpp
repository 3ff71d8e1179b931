// Options and the run shared by the commands that use the cycle-level model (`sim`, `profile
// --timing`): pipeline, scheduler and barrel overrides, the cycle limit, registers per thread,
// and the timeline and pipeline views.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::cli {

struct SimOptions {
  std::string pipeline, scheduler, barrel;  // empty: the arch's sm.* keys
  std::uint64_t max_cycles = timing::TimingOptions{}.max_cycles;
  std::uint32_t regs = 0;
  std::string timeline;
  std::uint64_t timeline_events = 2'000'000;
  std::string timeline_window;  // --timeline-window A:B (cycles), "" for all
  std::string timeline_sms;     // --timeline-sms 0,4-7, "" for all
  std::uint64_t pipeview = 0;
  std::uint32_t pipeview_sm = 0;
  // --pipeview-from: its first cycle (-1: sm.launch_cycles, the first a CTA can run in).
  std::int64_t pipeview_from = -1;
  std::uint32_t sample_ctas = 0;  // --sample-ctas K (sim only; 0: off)
  std::uint32_t threads = 0;      // --threads N (0: not given: the machine's cores)
  bool warm_l2 = false;           // --warm-l2 (TimingOptions::warm_l2)
};
// The threads --threads asks for, or the machine's cores.
std::uint32_t sim_threads(const SimOptions& o);

// --pipeline, --scheduler, --barrel, --max-cycles, --regs, --threads, --warm-l2.
void add_sim_options(CLI::App* cmd, SimOptions& o);
// The arch with the --pipeline/--scheduler/--barrel overrides, checked against the registries.
Arch resolve_sim_arch(const ArchOptions& arch, const SimOptions& sim);
// --timeline-window A:B as [A, B) ({0, ~0} when empty); a malformed one is an InputError.
std::pair<std::uint64_t, std::uint64_t> timeline_window(const std::string& spec);
// --timeline-sms "0,4-7" as the SMs, ascending (empty when `spec` is); a malformed list, or an SM
// at or past `sm_count` (0: not checked), is an InputError.
std::vector<std::uint32_t> timeline_sms(const std::string& spec, std::uint32_t sm_count = 0);

struct SimRun {
  RunSummary summary;  // executor statistics, wall time, reference check
  timing::TimingStats stats;
  std::string pipeview;          // the rendered table (when --pipeview)
  nlohmann::json timeline_json;  // {"path", "events", "truncated"}
  std::string timeline_note;     // one line for the human output
};
// Runs the workload on the cycle-level model; `consumer` also receives every shared access.
SimRun simulate(exec::Workload& w, const ptx::Kernel& kernel, const Arch& arch, const SimOptions& o,
                exec::AccessConsumer* consumer, bool per_instruction);
// A [[launch]] pipeline on the cycle model (issue 27 item 5): the launches in order on one GPU
// state. The buffers carry over, and a launch starts when the one before it has ended, as on one
// CUDA stream (launch overhead is not modelled): the total's cycles are the launches' sum.
struct SimPipeline {
  RunSummary summary;                      // the launches' executor statistics (summary.steps)
  std::vector<timing::TimingStats> steps;  // per launch
  timing::TimingStats total;               // summed (no per-SM rows)
};
SimPipeline simulate_pipeline(exec::Workload& w, const Arch& arch, const SimOptions& o);
// "simulated N cycles in T s: X cycles/s, Y M thread-instructions/s" on stderr.
void print_sim_speed(const timing::TimingStats& s);

}  // namespace smemsim::cli

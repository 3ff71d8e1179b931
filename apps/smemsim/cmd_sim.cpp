// smemsim sim: runs a kernel on the cycle-level GPU model (issue 9, docs/timing.md) and reports
// whole-kernel cycles, IPC, the issue-slot stall breakdown and the shared-memory unit's counts;
// optionally a Chrome-trace timeline and a stage-by-cycle pipeline view.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "sim_options.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing_views.hpp"

namespace smemsim::cli {
namespace {

// The issue slots' reasons as shares of the ACTIVE slots (an SM with a resident warp): a grid of 4
// blocks on 40 SMs would otherwise read "idle 90 %, bank_conflict 7.7 %" where bank conflicts
// take 77 % of the time the kernel has (issue 26). Idle slots are given apart, as a share of all.
// With sub-cores every scheduler has a slot per cycle.
void print_stalls(const timing::TimingStats& s, std::uint32_t sms, std::uint32_t subcores) {
  const std::uint64_t slots = s.cycles * sms * subcores;
  const std::uint64_t idle = s.issue[timing::Stall::Idle];
  const std::uint64_t active = slots - std::min(idle, slots);
  const std::string per = subcores > 1 ? fmt::format(" x {} sub-cores", subcores) : "";
  fmt::print("issue slots ({} SMs{} x {} cycles; {:.1f}% active, with a resident warp):", sms, per,
             s.cycles, slots ? 100.0 * double(active) / double(slots) : 0.0);
  // Largest first, by Nsight Compute's names (issue 47).
  std::vector<timing::Stall> order;
  for (std::size_t k = 0; k < timing::kStallKinds; ++k) {
    const auto why = static_cast<timing::Stall>(k);
    if (why != timing::Stall::NotSelected && why != timing::Stall::Idle && s.issue[why])
      order.push_back(why);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](timing::Stall a, timing::Stall b) { return s.issue[a] > s.issue[b]; });
  for (const timing::Stall why : order)
    fmt::print(" {} {:.1f}%", timing::stall_name(why),
               100.0 * double(s.issue[why]) / double(active));
  fmt::print(" of the active slots\n");
}

// Seed 004 Fig. 8's groups, and what the elastic pipeline and bank-aware scheduling add.
void print_elastic(const timing::TimingStats& s, const Arch& arch) {
  const timing::StallGroups g = timing::group_stalls(s.issue);
  fmt::print(
      "pipeline stalls (004 Fig. 8): {} = {} warp scheduling fails + {} bank conflicts + {} "
      "other\n",
      g.total(), g.scheduling, g.bank_conflict, g.other);
  const bool elastic = arch.sm.pipeline == "elastic";
  const bool aware = arch.sm.scheduler.starts_with("bank-aware");
  if (!elastic && !aware) return;
  const timing::ElasticCost c = timing::elastic_cost(arch);
  if (elastic)
    fmt::print(
        "elastic pipeline (004 Table 1, per SM): NONMEM queue {} + PREMEM queue {} entries = {} "
        "latch lanes; a {}-to-1 writeback and a {}-to-1 MEM0 multiplexer\n",
        c.nonmem_entries, c.premem_entries, c.latch_lanes, c.wb_mux_inputs, c.mem0_mux_inputs);
  if (aware) {
    const timing::UnitCounts& u = s.units;
    fmt::print(
        "bank-aware scheduling (004 Table 2, per SM): history cache {} x {} entries of {} + {} "
        "bits = {} bytes; predictions {} correct, {} too low, {} too high; {} hits, {} misses\n",
        arch.sm.bkconf_sets, arch.sm.bkconf_ways, c.tag_bits, c.value_bits, c.cache_bytes,
        u.predictions_correct, u.predictions_low, u.predictions_high, u.history_hits,
        u.history_misses);
  }
}

// Where atomics are native, the lock loop's micro-ops run only the compare-and-swap loop of a
// shared float add (atomics.shared_float = cas): its rounds are named as such.
void print_units(const timing::UnitCounts& u, const Arch& arch) {
  const bool cas =
      (arch.atomic_model == "native" || arch.locks == 0) && arch.shared_float_atomics == "cas";
  fmt::print(
      "shared memory: {} accesses, {} bank passes ({} for bank conflicts); {}: {} {}, {} lanes "
      "found their {}\n",
      u.smem_accesses, u.smem_passes, u.bank_conflict_passes,
      cas ? "compare-and-swap loop of shared float adds" : "lock loop", u.lock_iterations,
      cas ? "rounds" : "iterations", u.lock_failures,
      cas ? "word changed and retried" : "lock taken");
  fmt::print("writeback conflicts: {}; global memory: {} requests, {} sectors of 32 bytes",
             u.writeback_conflicts, u.global_requests, u.global_sectors);
  if (u.l1_hit_sectors || u.l2_hit_sectors)
    fmt::print(" ({} from the L1, {} from the L2)", u.l1_hit_sectors, u.l2_hit_sectors);
  fmt::print("\n");
  if (u.dsm_requests)
    fmt::print(
        "distributed shared memory: {} accesses to other SMs' shared memory, {} segments of "
        "32 bytes over the SM-to-SM network\n",
        u.dsm_requests, u.dsm_segments);
}

// The report for people: the run, cycles and IPC, stalls, units, TM and elastic counts, views.
void print_sim(const exec::Workload& w, const SimRun& run, const Arch& arch, const SimOptions& o) {
  fmt::print("{}\n", arch_summary(arch));
  print_run_header(w, run.summary);
  print_verdict(w, run.summary);
  const timing::TimingStats& s = run.stats;
  fmt::print(
      "cycles: {} ({} pipeline, {} scheduler, {} barrel); IPC {:.3f} warp-instructions per "
      "cycle on {} SMs{}\n",
      s.cycles, arch.sm.pipeline, arch.sm.scheduler, arch.sm.barrel, s.ipc(), arch.sm.count,
      arch.sm.subcores > 1 ? fmt::format(" of {} sub-cores", arch.sm.subcores) : "");
  if (s.sampling.on) {
    const timing::SamplingStats& p = s.sampling;
    if (p.ctas_timed < p.ctas_total)
      fmt::print(
          "sampled (--sample-ctas): {} of {} CTAs timed, to cycle {}; the other {} ran "
          "functionally ({} with a timed CTA's instruction count, {} scaled by cycles per "
          "instruction); estimate {} cycles, range {} to {} (every untimed CTA at the steady CTAs' "
          "10th and 90th percentile); timed CTAs took {:.0f} cycles each on average (min {:.0f}, "
          "max "
          "{:.0f}, std dev {:.0f}); stalls and units below count the timed CTAs only\n",
          p.ctas_timed, p.ctas_total, p.cycles_timed, p.ctas_total - p.ctas_timed, p.matched,
          p.scaled, p.cycles_estimate, p.cycles_low, p.cycles_high, p.cta_cycles_mean,
          p.cta_cycles_min, p.cta_cycles_max, p.cta_cycles_stddev);
    else
      fmt::print(
          "sampled (--sample-ctas): all {} CTAs fit in the timed part (the first {} per SM, and "
          "at least two residencies of the GPU's {} slots); the cycles are measured, not "
          "estimated\n",
          p.ctas_total, o.sample_ctas, p.slots);
  }
  print_stalls(s, arch.sm.count, arch.sm.subcores);
  print_units(s.units, arch);
  if (s.uses_tm)
    fmt::print(
        "GPU-LocalTM breakdown (warp-cycles): non-TX code {}, TX code {}, memory overheads {}, "
        "TX.Begin/Commit overheads {} (tm.timing = {}, tm.detector = {})\n",
        s.tm.non_tx, s.tm.tx_code(), s.tm.mem_overhead, s.tm.begin_commit_overhead, arch.tm.timing,
        arch.tm.detector);
  print_elastic(s, arch);
  if (!run.pipeview.empty()) fmt::print("\n{}", run.pipeview);
  if (!o.timeline.empty()) fmt::print("{}\n", run.timeline_note);
}

struct Options {
  LaunchOptions launch;
  ArchOptions arch;
  SimOptions sim;
};

// A [[launch]] pipeline (or a multi-launch builtin), timed launch by launch on one GPU state.
void sim_pipeline(exec::Workload& w, const Arch& arch, const Options& o) {
  if (o.sim.pipeview || !o.sim.timeline.empty())
    throw InputError(fmt::format(
        "--pipeview and --timeline show one launch; {} has {} launches (sim times them all)",
        o.launch.launch.empty() ? o.launch.target : o.launch.launch, w.pipeline.size()));
  SimPipeline p = simulate_pipeline(w, arch, o.sim);
  print_arch_choice(o.launch);
  const ptx::Kernel& first = exec::find_kernel(w.module, w.pipeline.front().kernel);
  if (o.launch.json) {
    nlohmann::json j = json::document("sim");
    j.update(json::run_json(w, p.summary));
    j["arch"] = json::to_json(arch);
    j["timing"] = timing::to_json(p.total, w.module, first);
    for (std::size_t i = 0; i < p.steps.size(); ++i)
      j["launches"][i]["timing"] =
          timing::to_json(p.steps[i], w.module, exec::find_kernel(w.module, w.pipeline[i].kernel));
    print_json(j);
  } else {
    fmt::print("{}\n", arch_summary(arch));
    print_run_header(w, p.summary);
    print_verdict(w, p.summary);
    for (std::size_t i = 0; i < p.steps.size(); ++i) {
      const timing::SamplingStats& sp = p.steps[i].sampling;
      const bool estimated = sp.on && sp.ctas_timed < sp.ctas_total;
      fmt::print("launch {} of {} ({}): {} cycles{}, IPC {:.3f}\n", i + 1, p.steps.size(),
                 ptx::demangle(w.pipeline[i].kernel), p.steps[i].cycles,
                 estimated
                     ? fmt::format(" (estimated: {} of {} CTAs timed, range {} to {})",
                                   sp.ctas_timed, sp.ctas_total, sp.cycles_low, sp.cycles_high)
                     : "",
                 p.steps[i].ipc());
    }
    const timing::TimingStats& s = p.total;
    fmt::print(
        "cycles: {} in all, the {} launches one after the other on one GPU ({} pipeline, {} "
        "scheduler); IPC {:.3f} warp-instructions per cycle on {} SMs{}\n",
        s.cycles, p.steps.size(), arch.sm.pipeline, arch.sm.scheduler, s.ipc(), arch.sm.count,
        arch.sm.subcores > 1 ? fmt::format(" of {} sub-cores", arch.sm.subcores) : "");
    print_stalls(s, arch.sm.count, arch.sm.subcores);
    print_units(s.units, arch);
  }
  if (o.launch.stats) print_sim_speed(p.total);
  fail_on_mismatch(p.summary);
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "sim", "run a kernel on the cycle-level GPU model: whole-kernel cycles and stall reasons");
  add_launch_options(cmd, o->launch);
  add_arch_options(cmd, o->arch);
  add_sim_options(cmd, o->sim);
  cmd->add_option("--timeline", o->sim.timeline,
                  "write a Chrome trace-event file (open in Perfetto / chrome://tracing): warps, "
                  "instructions and issue-slot stalls")
      ->check(non_empty_path());
  cmd->add_option("--timeline-window", o->sim.timeline_window,
                  "only the cycles A to B (A:B, B not included) in the timeline: the spans that "
                  "overlap them and the issue slots' stalls in them");
  cmd->add_option("--timeline-sms", o->sim.timeline_sms, "only these SMs in the timeline (0,4-7)");
  cmd->add_option("--timeline-events", o->sim.timeline_events,
                  "stop the timeline after this many spans (at most 10,000,000; the tracks' "
                  "names come with their first span)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000}))
      ->capture_default_str();
  cmd->add_option("--pipeview", o->sim.pipeview,
                  "print the first N cycles (at most 100,000) of one SM as a stage-by-cycle table "
                  "(seed 004 Fig. 4)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000}));
  cmd->add_option("--pipeview-from", o->sim.pipeview_from,
                  "the first cycle --pipeview shows (default: sm.launch_cycles, the first cycle a "
                  "CTA can run in; 0 on every preset but hopper-h100)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
  cmd->add_option("--pipeview-sm", o->sim.pipeview_sm, "the SM --pipeview shows")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--sample-ctas", o->sim.sample_ctas,
                  "time only the first K CTAs per SM (at least a full residency) cycle by cycle, "
                  "run the rest functionally and estimate their cycles from the timed CTAs "
                  "(with a range); off by default")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1'000'000}));
  cmd->footer(
      "Examples:\n"
      "  smemsim sim builtin:histogram --bins 64 --replication 16        # GTX 580, lock loop\n"
      "  smemsim sim builtin:histogram --bins 64 --replication 16 --model loadstore\n"
      "  smemsim sim builtin:atomic_bench --conflicts 8 --stride 32 --json\n"
      "  smemsim sim builtin:conv --arch h100 --warm-l2   # its inputs in the L2 when it starts\n"
      "  smemsim sim builtin:transpose --arch cf11 --pipeline split --pipeview 40\n"
      "  smemsim sim builtin:transpose --arch cf11 --pipeline elastic --scheduler bank-aware\n"
      "  smemsim sim builtin:reduction --stats --timeline red.json\n"
      "  smemsim sim builtin:histogram --arch h100 --timeline h.json --timeline-window 4050:4300\n"
      "  smemsim sim builtin:reduction --arch a100 --timeline r.json --timeline-sms 0-1\n"
      "  smemsim sim builtin:histogram --arch h100 --pipeview 20   # from sm.launch_cycles, 4050\n"
      "  smemsim sim builtin:reduction --size 1048576 --arch volta-v100 --sample-ctas 2\n"
      "  smemsim sim builtin:reduction --size 1048576 --arch hopper-h100 --threads 2 --stats\n"
      "  smemsim sim builtin:lud     # a multi-launch builtin: each launch in order, and the sum\n"
      "  smemsim sim builtin:gemm --arch ampere-a100 --set sm.mio_queue=0   # no MIO queues\n"
      "  smemsim sim builtin:tm_hashtable --buckets 2 --arch southern-islands --set "
      "tm.timing=perfect\n"
      "  smemsim sim k.ptx --kernel k --grid 64 --block 256 --launch k.toml --scheduler lrr\n"
      "Cycles are SM clock cycles; every latency and limit is an arch key (smemsim arch show).");
  cmd->callback([o, cmd] {
    if (cmd->count("--pipeview-from") && !o->sim.pipeview)
      throw InputError("--pipeview-from chooses where --pipeview N starts: give --pipeview too");
    if (cmd->count("--pipeview-sm") && !o->sim.pipeview)
      throw InputError("--pipeview-sm chooses the SM of --pipeview N: give --pipeview too");
    if (cmd->count("--timeline-window") && o->sim.timeline.empty())
      throw InputError(
          "--timeline-window chooses the cycles of --timeline FILE: give --timeline too");
    if (cmd->count("--timeline-window") && o->sim.timeline_window.empty())
      throw InputError("--timeline-window: empty (give the first and the end cycle as A:B)");
    (void)timeline_window(o->sim.timeline_window);  // a malformed window: before any work
    if (cmd->count("--timeline-sms") && o->sim.timeline.empty())
      throw InputError("--timeline-sms chooses the SMs of --timeline FILE: give --timeline too");
    if (cmd->count("--timeline-sms") && o->sim.timeline_sms.empty())
      throw InputError("--timeline-sms: empty (give SMs as 0,4-7)");
    (void)timeline_sms(o->sim.timeline_sms);  // a malformed list: before any work
    if (cmd->count("--timeline-events") && o->sim.timeline.empty())
      throw InputError("--timeline-events caps --timeline FILE: give --timeline too");
    if (o->sim.sample_ctas && (!o->sim.timeline.empty() || o->sim.pipeview))
      throw InputError(
          "--sample-ctas times only some CTAs: drop it for --timeline or --pipeview, which show "
          "every cycle");
    exec::Workload w = prepare_workload(o->launch);
    check_outputs({{"--timeline", o->sim.timeline}}, &w, &o->launch);
    ArchOptions ao = o->arch;
    arch_from_target(ao, o->launch, w);
    const Arch arch = resolve_sim_arch(ao, o->sim);
    const TargetWarning warn_target(o->launch, w, arch);
    if (!w.pipeline.empty()) return sim_pipeline(w, arch, *o);
    const ptx::Kernel& kernel = exec::find_kernel(w.module, w.kernel);
    SimRun run = simulate(w, kernel, arch, o->sim, nullptr, false);
    print_arch_choice(o->launch);
    if (o->launch.json) {
      nlohmann::json j = json::document("sim");
      j.update(json::run_json(w, run.summary));
      j["arch"] = json::to_json(arch);
      j["timing"] = timing::to_json(run.stats, w.module, kernel);
      if (!o->sim.timeline.empty()) j["timeline"] = run.timeline_json;
      print_json(j);
    } else {
      print_sim(w, run, arch, o->sim);
    }
    if (o->launch.stats) print_sim_speed(run.stats);
    fail_on_mismatch(run.summary);
  });
}

}  // namespace smemsim::cli

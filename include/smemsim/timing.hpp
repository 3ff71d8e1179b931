// Cycle-level GPU timing model (issue 9, docs/timing.md): SMs of stages with latches, warp
// schedulers, a shared-memory unit with banks, lock bits and the lock-loop atomic of seed 000 §III,
// and a simple global memory. It drives the functional executor one warp-instruction at a time
// ("execute at issue", exec.hpp): values, control flow and addresses come from the real kernel; the
// timing model only decides when each instruction issues and completes. Stalls are latches that
// could not advance: nothing is timed by a formula where the seeds describe a mechanism.
//
//   timing::GpuSim sim(module, kernel, arch, launch, memory, {});
//   const timing::TimingStats& s = sim.run();   // s.cycles, s.issue (stall breakdown), ...
//
// Pipelines, warp schedulers and shared-memory atomic units are chosen by name from registries
// (pipelines(), schedulers(); arch keys sm.pipeline, sm.scheduler, atomics.model).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::timing {

// Why an issue slot (or a warp) did not issue in a cycle. The first two are not stalls. Each is
// named as Nsight Compute names the warp state it is (stall_name; docs/timing.md "Stall reasons"):
// the model's own reasons, which Nsight Compute has no state for, keep the model's names.
enum class Stall : std::uint8_t {
  Issued,        // "selected": the SM issued (a warp instruction or one of its subwarps)
  Idle,          // no resident warp: waiting for a CTA, or the SM has finished
  Wait,          // "wait": the next instruction reads or writes a register a fixed-latency pipe
                 // (ALU, FMA, FP64, tensor, branch) is still writing, or an operand delay
  Memory,        // "long_scoreboard": ... a register a global/local load or atomic has not
                 // returned yet (the L1TEX path), or a cp.async group still in flight
  Barrier,       // at bar.sync until every warp of the CTA has arrived and drained its bar
  Control,       // "branch_resolving": a branch, ret or exit of the warp is in flight
  Atomic,        // in a lock-loop atomic (seed 000 Fig. 1), first iteration
  LockRetry,     // in a lock-loop atomic, an iteration after a lost lock
  Barrel,        // strict barrel processing: the warp's previous instruction is in flight
  SafeDistance,  // a memory warp masked by bank-conflict-aware scheduling (004 §4, Fig. 7)
  NotSelected,   // eligible, but the scheduler issued another warp (per-warp only)
  BankConflict,  // the pipeline is stalled behind a shared access's extra bank pass
  Writeback,     // the pipeline is stalled behind a lost writeback arbitration
  FrontEnd,      // the pipeline is stalled by another structural hazard (unit, path, phases)
  // GPU-LocalTM (seed 003, docs/tm.md):
  TxWait,      // at TX.Begin while another warp's transaction runs work-group serialized (§3.1)
  TmOverhead,  // the pipeline is stalled behind transactional version management at MEM0 (§4.2)
  // Sub-cores (sm.subcores > 1, docs/timing.md "Sub-cores"), named after Nsight Compute's states:
  MioThrottle,       // the sub-core's memory op waits for the SM's shared-memory port, or its MIO
                     // queue has no room for the next shared access (sm.mio_queue)
  MathPipeThrottle,  // the next instruction's unit is still busy with an earlier op (its interval)
  Dispatch,  // "dispatch_stall": the next instruction's unit was taken this cycle by another
             // sub-core (unit_scope sm)
  // Issue 47 (Nsight Compute's states; the old `scoreboard` was Wait and ShortScoreboard,
  // `front_end` also LgThrottle):
  ShortScoreboard,  // "short_scoreboard": ... a register an MIO op (shared load or atomic, SFU,
                    // ld.param/ld.const) is still writing
  LgThrottle,       // "lg_throttle": a global/local request waits for room in the SM's memory queue
  // The SM's instruction and constant caches (sm.icache_miss_cycles, sm.const_miss_cycles):
  NoInstruction,  // "no_instruction": the next instruction's line is not in the instruction cache,
                  // or a taken branch's target is not fetched yet (sm.taken_branch_fetch)
  ImcMiss,        // "imc_miss": the next instruction reads a constant whose line is not in the
                  // SM's constant cache (a kernel parameter, ld.const at a constant address)
  Drain,          // "drain": the warp has issued its exit and waits for its instructions still in
                  // flight (its last stores leaving the SM's memory queue, the exit itself)
};
inline constexpr std::size_t kStallKinds = 24;
std::string_view stall_name(Stall s);  // "selected", "idle", "wait", ..., "imc_miss", "drain"

// smemsim's names before issue 47, kept in the JSON as aliases for one schema version: each old
// name and the reasons whose sum it is ("scoreboard": wait + short_scoreboard).
struct StallAlias {
  std::string_view name;
  std::array<Stall, 2> of;
  std::uint8_t n;
};
inline constexpr std::array<StallAlias, 5> kStallAliases{{
    {"issued", {Stall::Issued, Stall::Issued}, 1},
    {"scoreboard", {Stall::Wait, Stall::ShortScoreboard}, 2},
    {"memory", {Stall::Memory, Stall::Memory}, 1},
    {"control", {Stall::Control, Stall::Control}, 1},
    {"dispatch", {Stall::Dispatch, Stall::Dispatch}, 1},
}};
bool is_stall_alias(std::string_view name);  // one of kStallAliases' names

struct StallCounts {
  std::array<std::uint64_t, kStallKinds> cycles{};
  std::uint64_t& operator[](Stall s) { return cycles[static_cast<std::size_t>(s)]; }
  std::uint64_t operator[](Stall s) const { return cycles[static_cast<std::size_t>(s)]; }
  void add(const StallCounts& o) {
    for (std::size_t i = 0; i < kStallKinds; ++i) cycles[i] += o.cycles[i];
  }
};

// The issue-slot stalls in the three groups of seed 004 Fig. 8: warp scheduling fails (no warp
// could issue: scoreboard, memory, barrier, control, atomic, lock_retry, barrel, safe_distance),
// shared memory bank conflicts, and other (writeback conflicts and other structural hazards). Idle
// cycles (no resident warp) are not pipeline stalls.
struct StallGroups {
  std::uint64_t scheduling = 0, bank_conflict = 0, other = 0;
  std::uint64_t total() const { return scheduling + bank_conflict + other; }
};
StallGroups group_stalls(const StallCounts& c);

// Shared-memory and pipeline events, counted by the structures that see them.
struct UnitCounts {
  std::uint64_t smem_accesses = 0;         // subwarp accesses served at MEM0 (ld/st/atom micro-ops)
  std::uint64_t smem_passes = 0;           // bank passes (one per ⌈degree / ports⌉ level)
  std::uint64_t bank_conflict_passes = 0;  // passes beyond the first of each access
  std::uint64_t lock_iterations = 0;       // lock-loop iterations (Read-Update-Write-Branch)
  std::uint64_t lock_failures = 0;         // lanes that found their lock taken and retried
  std::uint64_t writeback_conflicts = 0;   // cycles with more candidates than the writeback port
  std::uint64_t global_requests = 0;
  std::uint64_t global_sectors = 0;
  // Of the global loads' sectors, those found in the L1 and in the L2 (issue 44; 0 without them).
  std::uint64_t l1_hit_sectors = 0;
  std::uint64_t l2_hit_sectors = 0;
  // Distributed shared memory (issue 46): accesses to another SM's shared memory (subwarp ops)
  // and the 32-byte segments they moved over the SM-to-SM network.
  std::uint64_t dsm_requests = 0;
  std::uint64_t dsm_segments = 0;
  // Bank-conflict-aware scheduling (004 §4.2): shared warp instructions whose conflict was
  // predicted right, too low or too high by the history cache, and its hits and misses.
  std::uint64_t predictions_correct = 0;
  std::uint64_t predictions_low = 0;
  std::uint64_t predictions_high = 0;
  std::uint64_t history_hits = 0;
  std::uint64_t history_misses = 0;
  void add(const UnitCounts& o);
};

// GPU-LocalTM's execution breakdown (seed 003 Figs. 3b-5b), in warp-cycles of resident warps:
// outside transactions, inside them (TX.Begin to the final TX.Commit, retries included), and of the
// latter the cycles transactional accesses (conflict detection, version management) and TX.Begin /
// TX.Commit added (003 §4.2).
struct TmCycles {
  std::uint64_t non_tx = 0, tx = 0, mem_overhead = 0, begin_commit_overhead = 0;
  // Inside transactions, less the overheads: 003's "TX Code".
  std::uint64_t tx_code() const {
    const std::uint64_t o = mem_overhead + begin_commit_overhead;
    return tx > o ? tx - o : 0;
  }
  void add(const TmCycles& o) {
    non_tx += o.non_tx;
    tx += o.tx;
    mem_overhead += o.mem_overhead;
    begin_commit_overhead += o.begin_commit_overhead;
  }
};

struct SmStats {
  std::uint64_t ctas = 0;
  std::uint64_t warp_instructions = 0;    // PTX instructions issued (not micro-ops, not subwarps)
  std::uint64_t thread_instructions = 0;  // their active lanes
  // ... of them, absorbed by the lowering pass (sm.lower): free, issued with the next one
  std::uint64_t absorbed = 0;
  // ... and the ones it added (sm.lower's sincos: the range reduction before each sin/cos)
  std::uint64_t expanded = 0;
  std::uint64_t busy_cycles = 0;  // cycles with a resident warp
  StallCounts issue;              // one reason per cycle: the issue slot's
  UnitCounts units;
  TmCycles tm;
};

// Per PTX instruction (TimingOptions::per_instruction): Nsight-style warp states attributed to the
// instruction each warp was about to issue.
struct InstrStats {
  std::uint64_t issued = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t latency = 0;  // summed issue-to-completion cycles
  std::uint64_t bank_conflict_passes = 0;
  std::uint64_t lock_iterations = 0;
  // Global/local memory (issue 44): the 32-byte sectors its requests moved, and of a load's, those
  // the L1 and the L2 held (the rest came from DRAM).
  std::uint64_t global_sectors = 0, l1_hit_sectors = 0, l2_hit_sectors = 0;
  // Issues that moved global/local sectors: Nsight Compute's requests (one per warp instruction).
  std::uint64_t global_requests = 0;
  std::uint64_t dsm_segments = 0;  // of other SMs' shared memory (issue 46)
  StallCounts warp_states;  // warp-cycles by reason while this was the warp's next instruction
  void add(const InstrStats& o);
  // Sectors neither cache held: a load's from DRAM, a store's or an atomic's moved at the DRAM's
  // rate (docs/timing.md "Caches").
  std::uint64_t dram_sectors() const { return global_sectors - l1_hit_sectors - l2_hit_sectors; }
};

// A CTA the cycle model timed: its grid index, the cycles of its dispatch and of its last warp's
// retirement, and its warp instructions.
struct CtaRecord {
  std::uint64_t cta = 0, start = 0, end = 0, warp_instructions = 0;
  std::uint64_t cycles() const { return end - start + 1; }
};

// What --sample-ctas measured and estimated (src/timing/sampling.cpp). `cycles_estimate` is
// TimingStats::cycles; the range takes every untimed CTA at the steady CTAs' 10th and 90th
// percentile cycles.
struct SamplingStats {
  bool on = false;
  std::uint64_t ctas_timed = 0, ctas_total = 0;
  std::uint64_t cycles_timed = 0;  // when the last timed CTA retired
  // The steady CTAs: timed CTAs dispatched once the first had retired (into a full GPU); their
  // mean cycles and 10th/90th percentiles, and the untimed CTAs in equivalents of them (their warp
  // instructions over the steady CTAs' mean).
  std::uint64_t steady_ctas = 0;
  double steady_cycles = 0, steady_p10 = 0, steady_p90 = 0, equivalents = 0;
  std::uint64_t cycles_estimate = 0, cycles_low = 0, cycles_high = 0;
  std::uint64_t slots = 0;  // CTAs resident at once over the GPU (sm.count x CTAs per SM)
  // The dispatcher's cycles a CTA (sm.dispatch_cycles / dispatch_ctas; 0: no limit): the untimed
  // CTAs cannot start faster than that, whatever their slots allow.
  double dispatch_interval = 0;
  // Untimed CTAs with the warp-instruction count of a timed one (estimated by those CTAs' cycles)
  // and without (estimated by the timed CTAs' cycles per warp instruction).
  std::uint64_t matched = 0, scaled = 0;
  double cta_cycles_mean = 0, cta_cycles_min = 0, cta_cycles_max = 0, cta_cycles_stddev = 0;
  std::vector<CtaRecord> timed;  // in retirement order
};

struct TimingStats {
  std::uint64_t cycles = 0;
  std::uint64_t warp_instructions = 0;
  // The lowering pass (sm.lower): its rules and the warp instructions it made free; the lowered
  // count the cycle model issued is warp_instructions - absorbed + expanded.
  std::string lower = "none";
  bool warm_l2 = false;  // TimingOptions::warm_l2: the launch began with its buffers in the L2
  std::uint64_t absorbed = 0, expanded = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t ctas = 0;
  StallCounts issue;  // summed over SMs
  UnitCounts units;
  // GPU-LocalTM, for kernels with transactions: the breakdown and the executor's counts.
  bool uses_tm = false;
  TmCycles tm;
  tm::TmStats tm_counts;
  std::vector<SmStats> sms;
  std::vector<InstrStats> instructions;  // one per Kernel::code entry when per_instruction
  SamplingStats sampling;                // --sample-ctas
  double seconds = 0;                    // wall time of run()
  std::uint32_t threads = 1;  // the SMs ticked on (stderr only: results do not depend on it)
  // SM-cycles ticked ahead of the other SMs (TimingOptions::run_ahead; results do not depend on
  // it, so it is not in the JSON).
  std::uint64_t ahead_ticks = 0;
  // Warp instructions per cycle of the whole GPU.
  double ipc() const { return cycles ? double(warp_instructions) / double(cycles) : 0.0; }
};

// Global and local memory per CUDA line (issue 44, Nsight Compute's memory table): the summed
// InstrStats of the line's instructions that moved sectors, in the order of their first
// instruction. `cuda` is exec::cuda_location ("" without line information: one row per PTX line).
struct GlobalLine {
  std::string cuda;
  std::uint32_t first = 0;               // its first instruction (Kernel::code index)
  std::vector<std::uint32_t> ptx_lines;  // its instructions' PTX lines, the first first
  InstrStats stats;
};
std::vector<GlobalLine> global_lines(const TimingStats& s, const ptx::Module& module,
                                     const ptx::Kernel& kernel);

// One JSON form for the stats (the CLI prints it; docs/timing.md lists the fields).
nlohmann::json to_json(const TimingStats& s, const ptx::Module& module, const ptx::Kernel& kernel);
// The "tm" object of that form (docs/tm.md): the transactional counts (json::to_json of
// tm::TmStats, their one writer) and the breakdown.
nlohmann::json tm_json(const tm::TmStats& t, const TmCycles& c);
// One line for people: "transactions: 4 (4 attempts, 0 serialized); lanes: 256 committed, 0
// aborted (commit ratio 100.0%); conflicts: 0 true, 0 false".
std::string tm_summary(const tm::TmStats& t);

// What a pipeline stage holds in a cycle, for --pipeview and --timeline.
struct StageCell {
  std::int32_t warp = -1;   // SM warp slot; -1 = empty
  std::uint8_t sub = 0;     // subwarp
  std::uint32_t index = 0;  // instruction index (micro-ops: the atom's)
  std::uint8_t micro = 0;   // 0: a PTX instruction; 1..4: lock-loop Read/Update/Write/Branch
  // An MIO queue's cell (sm.mio_queue): the entries waiting behind it, and whether it passed the
  // banks in this cycle.
  std::uint8_t behind = 0;
  bool pass = false;
};

// Receives events as the simulation runs (the timeline and the pipeline view implement it).
class Observer {
 public:
  virtual ~Observer() = default;
  // A warp issued instruction `index` (micro: 0, or the lock-loop step 1..4) on SM `sm`.
  virtual void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                        std::uint8_t micro, std::uint64_t cycle) = 0;
  // The instruction issued at `issued` completed (its last subwarp wrote back).
  virtual void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                           std::uint8_t micro, std::uint64_t issued, std::uint64_t cycle) = 0;
  // The issue slot of SM `sm` did not issue in `cycle`, for `why` (with sub-cores: no sub-core
  // issued, `why` the first one's reason in that cycle's order).
  virtual void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) = 0;
  // With sub-cores (sm.subcores > 1), also each sub-core's slot that did not issue (warp slot w
  // issues on sub-core w % sm.subcores).
  virtual void on_subcore_stall(std::uint32_t /*sm*/, std::uint32_t /*sub*/, Stall /*why*/,
                                std::uint64_t /*cycle*/) {}
  // Warp slot `warp` of SM `sm` now holds warp `warp_in_cta` of CTA `cta` (its linear index in
  // the grid, x fastest), from `cycle` on: the timeline's spans carry both (issue 47).
  virtual void on_warp_start(std::uint32_t /*sm*/, std::uint32_t /*warp*/, std::uint64_t /*cta*/,
                             std::uint32_t /*warp_in_cta*/, std::uint64_t /*cycle*/) {}
  // After each cycle of SM `sm` (only when wants_stages()): its stages' contents.
  virtual bool wants_stages(std::uint32_t /*sm*/) const { return false; }
  virtual void on_stages(std::uint32_t /*sm*/, std::uint64_t /*cycle*/,
                         const std::vector<StageCell>& /*cells*/) {}
};

struct TimingOptions {
  // The run stops with an InputError naming the unfinished warps after this many cycles.
  std::uint64_t max_cycles = 100'000'000;
  // Registers per thread for the residency limit sm.registers (0: registers do not limit).
  std::uint32_t regs_per_thread = 0;
  bool per_instruction = false;  // fill TimingStats::instructions (costs a warp scan per cycle)
  // The launch's buffers start in the L2 (`sim --warm-l2`), as a copy from the host just before
  // the launch leaves them: in their order, while they fit in sm.l2_bytes, a load's sector of one
  // of them that the SM's share of the L2 misses is an L2 hit. Off: every line starts in DRAM, as
  // under Nsight Compute's default --cache-control all (docs/timing.md "Caches").
  bool warm_l2 = false;
  // The launch is one of this many alike that run on the GPU's other SMs at the same time: a
  // shared L2 (sm.l2_slices) gives it 1 / l2_share of each slice's lines and rate and of each
  // DRAM channel's rate (`smemsim calibrate` runs a figure measured with a CTA on every SM so,
  // on one SM).
  std::uint32_t l2_share = 1;
  // Jump over cycles in which nothing can happen (same results; off only to check that claim).
  bool skip_idle = true;
  Observer* observer = nullptr;
  exec::AccessConsumer* consumer = nullptr;  // also receives every shared-memory WarpAccess
  exec::SharedRemap remap;  // relays out one shared array (`smemsim fix`; off by default)
  // Called every 65,536 cycles with (CTAs dispatched, CTAs in the grid): a progress display.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // Sampling (`sim --sample-ctas K`, off with 0): only the first K CTAs per SM (at least two
  // residencies' worth) are simulated cycle by cycle; the others run functionally (outputs and
  // instruction counts stay exact) and their cycles are estimated from the timed CTAs
  // (TimingStats::sampling, src/timing/sampling.cpp).
  std::uint32_t sample_ctas = 0;
  // Threads the SMs tick on (`sim --threads`, 1..kMaxThreads; at most the SMs and the cores this
  // process may use are used). Cycles, statistics, outputs and observer events are the same for
  // every count: global writes reach memory at the end of each cycle, in SM order (docs/timing.md
  // "Parallel SMs").
  std::uint32_t threads = 1;
  // Fewer awake SMs than this tick on the calling thread (handing a cycle of a few SMs to the
  // workers costs about what ticking them does); the tests set 1 to run every cycle in parallel.
  std::uint32_t parallel_min_sms = 16;
  // On one thread, an SM that touches nothing another SM sees (no global or local access issuing
  // or on its way to memory, no room for a CTA still to start) ticks up to this many cycles before
  // the next SM ticks: its state stays in the host's caches (issue 49). Results are the same for
  // every value; 1 turns it off. Off with an observer, a consumer, per-instruction statistics,
  // --sample-ctas and clusters (docs/timing.md "Running an SM ahead").
  std::uint32_t run_ahead = 32;
  // Registers share rows of the SMs' per-register tables (scoreboard, operand and guard delays)
  // where no answer of those tables changes (src/timing/reg_rows.hpp, issue 49): a warp's part of
  // them stays small enough for the host's caches. Results are the same either way; false gives
  // every register a row of its own (for checks).
  bool share_rows = true;
};
inline constexpr std::uint32_t kMaxThreads = 1024;

// Hardware added per SM by the elastic pipeline (seed 004 Table 1) and by bank-conflict-aware
// scheduling (Table 2), from the arch's keys.
struct ElasticCost {
  std::uint32_t nonmem_entries = 0;   // M = sm.mem_stages (Eq. 2)
  std::uint32_t premem_entries = 0;   // N = ceil(warp.size / simd_width) - 1 (Eq. 3), or 0
  std::uint32_t latch_lanes = 0;      // (M + N) latches of simd_width lanes each
  std::uint32_t wb_mux_inputs = 0;    // the (M+3)-to-1 writeback multiplexer
  std::uint32_t mem0_mux_inputs = 0;  // the (N+1)-to-1 multiplexer before MEM0
  std::uint32_t cache_entries = 0;    // sets x ways
  std::uint32_t tag_bits = 0;         // pc_bits - log2(sets)
  std::uint32_t value_bits = 0;       // log2(warp.size): warp_bkconf_degree
  std::uint64_t cache_bytes = 0;      // entries x (tag + value) / 8: 704 for 2 x 256, 14-bit PCs
  std::uint32_t gates = 0;            // AND/NAND: 2 per warp context
  std::uint32_t counter_bits = 0;     // accumulator, counter and comparator width: log2(warp.size)
};
ElasticCost elastic_cost(const Arch& arch);

struct RegistryEntry {
  std::string name;
  std::string description;
  std::string source;
};
const std::vector<RegistryEntry>& pipelines();   // unified, split, elastic
const std::vector<RegistryEntry>& schedulers();  // lrr, gto, bank-aware, bank-aware-fill

class GpuSim {
 public:
  // Checks the arch's SM keys, the launch against the residency limits and the pipeline and
  // scheduler names (InputError naming the key). `module` and `memory` must outlive the simulator.
  GpuSim(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch,
         const exec::Launch& launch, exec::GlobalMemory& memory, const TimingOptions& options);
  ~GpuSim();
  GpuSim(const GpuSim&) = delete;
  GpuSim& operator=(const GpuSim&) = delete;

  // Runs the kernel to completion. Throws InputError when it does not finish (a barrier no warp
  // can pass, or max_cycles), naming the stuck warps and their PTX and CUDA lines.
  const TimingStats& run();
  const exec::ExecStats& exec_stats() const;
  const exec::SharedLayout& shared_layout() const;
  // Names of the stages of SM pipelines, in the order of Observer::on_stages' cells.
  std::vector<std::string> stage_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace smemsim::timing

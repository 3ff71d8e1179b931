// One SM of the cycle-level model: resident CTAs and warps, the warp scheduler, the pipeline, the
// shared-memory unit with its lock bits, the lock-loop sequencer and the global memory unit.
//
// Each cycle (tick): the pipeline advances (writeback first); the issue slot puts one op into the
// first front-end stage (the next subwarp of the instruction being issued, or the next
// instruction of the warp the scheduler picks, executed by the functional executor at that
// moment); then the ops that wrote back this cycle release their registers, so a dependent
// instruction issues one cycle after its producer's writeback; last, the global memory unit moves
// this cycle's bytes.
//
// With sm.mio_queue > 0 a shared access takes an entry of its sub-core's MIO queue at issue and
// leaves the pipeline at MEM0 into the queue, whose scheduler makes the bank passes (mio.hpp).
//
// With sm.subcores = K > 1 the SM is K processing blocks (Subcore): each has its own scheduler,
// issue slot, pipeline (front end, EXE and unit stages, MEM0 latch, writeback port) and units,
// over the warp slots w with w % K == its index. They share the shared-memory port: one bank
// pass per cycle for the whole SM (port_take; an access's back-to-back passes keep it), and the
// global memory unit. A unit accepts `lanes` threads per cycle (unit_take): an op of simd_width
// threads on a 16-lane unit holds it two cycles. The pipelines advance, and the sub-cores issue,
// in an order that rotates every cycle.
//
// A warp may issue when it is not at a barrier, has no branch in flight, is not waiting for its
// lock-loop step, has no instruction in flight under strict barrel processing, and its next
// instruction's registers are not being written (scoreboard). Eligibility changes only at events
// (issue, writeback, barrier release, CTA start), where it is recomputed for the warps concerned.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "smemsim/timing.hpp"
#include "timing/bank_aware.hpp"
#include "timing/expand.hpp"
#include "timing/fetch.hpp"
#include "timing/global_mem.hpp"
#include "timing/mio.hpp"
#include "timing/outbox.hpp"
#include "timing/pipeline.hpp"
#include "timing/scheduler.hpp"
#include "timing/smem_unit.hpp"
#include "util/zeroed.hpp"

namespace smemsim::timing {

// The longest a suspended mbarrier.try_wait holds its threads before it returns false and its loop
// tries again. The PTX ISA leaves the limit to the system (and to try_wait's suspendTimeHint,
// which is accepted and not modelled); 4,096 cycles is assumed: longer than any copy or arrival
// the suite waits for, short enough that a phase nothing will complete is still polled between
// two of the spin checks (every 65,536 cycles), which then name it.
inline constexpr std::uint64_t kTryWaitSuspend = 4096;

// How shared atomics are timed: the lock loop of seed 000 Fig. 1 (lock-bit GPUs), a native atomic
// unit (locks = 0 or atomics.model = native), or as loads (atomics.model = loadstore: GPGPU-Sim's
// original behaviour, seed 000 Fig. 4).
enum class AtomicMode : std::uint8_t { LockLoop, Native, LoadStore };

// Receives the WarpAccesses of the instruction being issued.
class AccessCollector final : public exec::AccessConsumer {
 public:
  void on_access(const WarpAccess& wa) override {
    if (forward) forward->on_access(wa);
    if (n < AccessRecord::kMaxWords) {
      rec.active = wa.active;
      rec.row_active[n] = wa.active;
      rec.addr[std::size_t(n)] = wa.addr;
    }
    ++n;
  }
  AccessRecord rec;
  int n = 0;
  exec::AccessConsumer* forward = nullptr;
};

// What every SM shares (owned by GpuSim).
struct SimContext {
  const ptx::Module* module = nullptr;
  const ptx::Kernel* kernel = nullptr;
  const Arch* arch = nullptr;
  const std::vector<InstInfo>* info = nullptr;
  // Per instruction, the one an instruction the lowering pass absorbed issues with (ptx::kNone:
  // it issues itself); nullptr or empty: no lowering.
  const std::vector<std::uint32_t>* absorbed = nullptr;
  // sm.lower's unroll (src/lower/unroll.hpp): per instruction, its loop's branch when it is the
  // overhead of a loop ptxas unrolls (ptx::kNone otherwise); nullptr: none.
  const std::vector<std::uint32_t>* unroll = nullptr;
  // sm.const_miss_cycles (fetch.hpp): per instruction, the constant-cache line it reads
  // (ptx::kNone: none), and how many lines there are; nullptr: no constant-cache misses.
  const std::vector<std::uint32_t>* const_line = nullptr;
  std::uint32_t const_lines = 0;
  const TimingOptions* options = nullptr;
  std::vector<InstrStats>* instr = nullptr;  // per-instruction stats, or nullptr
  AtomicMode atomics = AtomicMode::LockLoop;
  std::array<std::uint32_t, kUnits> latency{};  // issue-to-dependent-issue cycles per unit
  std::uint32_t warps_per_cta = 0, threads_per_cta = 0;
  std::uint64_t regs_per_cta = 0, shared_per_cta = 0;
  // PTX registers of the kernel and one more, the last (scoreboard size): the register sm.lower's
  // sincos writes its range reduction to.
  std::uint32_t nregs = 0;
  // The rows of the SM's per-register tables (reg_rows.hpp): trow[register] of trows a warp.
  const std::uint32_t* trow = nullptr;
  std::uint32_t trows = 0;
  std::uint32_t ctas_per_sm = 1;  // resident CTAs an SM can hold (executor slots per SM)
  std::uint64_t l1_bytes = 0;     // the L1 the launch's shared-memory carve-out leaves per SM
  // TimingOptions::warm_l2: the buffers' sectors (byte address / 32) [first, second) that start
  // in the L2.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> l2_resident;
  // The L2 every SM shares (sm.l2_slices), or nullptr: each SM models its share. SMs read its
  // slices' backlogs while they tick; only resolve_l2, in GpuSim's commit, changes it.
  SharedL2* l2 = nullptr;
  // GpuSim's run-ahead (gpu_ahead.cpp), or nullptr: per instruction index (and one past the
  // end), whether its issue group may touch global or local memory.
  const std::vector<std::uint8_t>* unsafe = nullptr;
  bool uses_tm = false;  // the kernel has GPU-LocalTM transactions
  exec::Dim3 grid;
  std::vector<CtaRecord>* cta_log = nullptr;  // --sample-ctas: every retired CTA, in SM order
};

class Sm final : public SchedulerView {
 public:
  Sm(std::uint32_t id, const SimContext& ctx);

  // The SM's own executor (a sibling of GpuSim's, issue 31), and where what it hands to the shared
  // consumers goes: straight to them (`out` null: one thread ticks the SMs), or to its outbox.
  // Before the first start_cta.
  void attach(exec::Executor* ex, Outbox* out);
  bool attached() const { return ex_ != nullptr; }
  exec::Executor* executor() const { return ex_; }

  // Whether one more CTA fits (threads, warps, CTAs, registers, shared memory).
  bool can_take() const;
  // `now`: the dispatch cycle (a timed CTA's start under --sample-ctas).
  void start_cta(std::uint64_t cta, std::uint64_t age_base, std::uint64_t now = 0);
  // One cycle. Returns false when the SM issued nothing and has nothing in flight (nothing it
  // holds can change any more).
  bool tick(std::uint64_t now);
  // Whether the next tick touches nothing another SM sees or changes (GpuSim's run-ahead,
  // gpu_ahead.cpp): resident, no global op on its way to the global memory unit, nothing there
  // but data waiting to return at a time already known, and no warp whose next issue group may
  // touch global memory (SimContext::unsafe).
  bool quiet() const {
    return ctas_used_ && !global_unsent_ && !unsafe_warps_ && gmem_.only_returns();
  }
  bool idle() const { return ctas_used_ == 0; }
  std::uint32_t resident_ctas() const { return ctas_used_; }
  bool issued() const { return issued_; }          // in the last tick
  bool progressed() const { return progressed_; }  // what the last tick returned
  // Nothing resident and nothing in flight: a tick only counts its sub-cores' slots as idle
  // (issue 31: GpuSim skips such SMs and counts their idle slots in one go).
  bool asleep() const { return ctas_used_ == 0 && !busy(); }
  // The idle slots of `cycles` cycles not ticked, and the cycle of the last tick GpuSim made (the
  // clock a CTA started before the next tick reads).
  void add_idle(std::uint64_t cycles, std::uint64_t last_tick) {
    stats_.issue[Stall::Idle] += cycles * nsc_;
    now_ = last_tick;
    issued_ = false;
  }
  // Whether anything can still change without an issue (ops in flight, memory pending).
  bool busy() const;
  // The end of cycle `now` (GpuSim's commit, in SM order): the shared L2 serves the requests that
  // left this SM's queue in it.
  void resolve_l2(std::uint64_t now);
  // The first cycle after `now` in which this SM could do anything (~0: never by itself).
  std::uint64_t next_event(std::uint64_t now) const;
  // Cycles now + 1 .. now + n pass with nothing happening: count them as the issue slot would.
  void skip(std::uint64_t now, std::uint64_t n);
  // The statistics, with the bank-aware scheduler's counters.
  const SmStats& stats();
  // "warp 3 of block (1,0,0) at k.ptx:42 (k.cu:17) `bar.sync 0;` waiting at a barrier" lines.
  void describe_warps(std::vector<std::string>& out) const;
  std::vector<std::string> stage_names() const;

  // What a sub-core's pipeline asks of the SM (Host forwards PipelineHost here).
  Op& op(std::uint32_t id) { return ops_[id]; }
  std::uint32_t exe_stages(Unit u) const;
  void mem0_plan(std::uint32_t id, std::uint64_t now);
  void mem0_done(std::uint32_t id, std::uint64_t now);
  bool global_send(std::uint32_t id, std::uint64_t now, std::uint32_t sub);
  bool mio_send(std::uint32_t id, std::uint64_t now, std::uint32_t sub);
  void writeback(std::uint32_t id, std::uint64_t now);
  bool port_take(std::uint32_t sub, std::uint64_t now);
  void port_hold(std::uint32_t sub, bool hold) { port_owner_ = hold ? std::int32_t(sub) : -1; }

  // SchedulerView
  std::uint32_t warp_slots() const override { return std::uint32_t(warps_.size()); }
  std::uint64_t age(std::uint32_t w) const override { return warps_[w].age; }
  NextClass next_class(std::uint32_t w) const override;

 private:
  // One sub-core's view of the SM, as its pipeline's host.
  class Host final : public PipelineHost {
   public:
    Host(Sm& sm, std::uint32_t sub) : sm_(sm), sub_(sub) {}
    Op& op(std::uint32_t id) override { return sm_.ops_[id]; }
    std::vector<Op>& ops() override { return sm_.ops_; }
    std::uint32_t exe_stages(Unit u) const override { return sm_.exe_stages(u); }
    void mem0_plan(std::uint32_t id, std::uint64_t now) override { sm_.mem0_plan(id, now); }
    void mem0_done(std::uint32_t id, std::uint64_t now) override { sm_.mem0_done(id, now); }
    bool global_send(std::uint32_t id, std::uint64_t now) override {
      return sm_.global_send(id, now, sub_);
    }
    bool mio_send(std::uint32_t id, std::uint64_t now) override {
      return sm_.mio_send(id, now, sub_);
    }
    bool global_return_ready(std::uint64_t now) const override {
      return sm_.gmem_.return_ready(now, sub_) || sm_.mio_.return_ready(now, sub_);
    }
    std::uint32_t global_return_pop() override {
      return sm_.gmem_.return_ready(sm_.now_, sub_) ? sm_.gmem_.pop_return(sm_.now_, sub_)
                                                    : sm_.mio_.pop_return(sub_);
    }
    void writeback(std::uint32_t id, std::uint64_t now) override { sm_.writeback(id, now); }
    void writeback_conflict() override { ++sm_.stats_.units.writeback_conflicts; }
    bool port_take(std::uint64_t now) override { return sm_.port_take(sub_, now); }
    void port_hold(bool hold) override { sm_.port_hold(sub_, hold); }

   private:
    Sm& sm_;
    std::uint32_t sub_;
  };
  // A processing block: its scheduler, pipeline and issue state, and why its warps wait.
  struct Subcore {
    std::unique_ptr<Host> host;
    std::unique_ptr<Pipeline> pipe;
    std::unique_ptr<Scheduler> sched;
    WarpMask slots;  // the warp slots bound to it
    // The instruction being issued subwarp by subwarp (-1: none).
    std::int64_t issuing = -1;
    std::uint8_t issuing_sub = 0;
    std::vector<std::uint32_t> issuing_ops;
    // Its waiting warps by reason (ShortScoreboard counted as Wait: set_reason), the kinds whose
    // count is not zero, and the ShortScoreboard ones.
    std::array<std::uint32_t, kStallKinds> reason_count{};
    std::uint32_t reason_bits = 0;
    std::uint32_t short_waits = 0;
    // waiting_reason's answer while the counts above stand (-1: to be computed; set_reason
    // clears it): a sub-core with nothing to issue asks every cycle.
    mutable std::int8_t wait_cache = -1;
    WarpMask throttled;  // eligible warps whose unit was busy this cycle
    // ... of them, those whose unit is busy with their own previous op: the stall count ptxas
    // puts after it, which Nsight Compute reports as `wait`, not `math_pipe_throttle`.
    WarpMask throttled_own;
    WarpMask mio_held;  // eligible warps whose shared access found the MIO queue full
    Stall throttle = Stall::MathPipeThrottle;
  };
  // A unit's occupancy: lane-cycles (cycle x lanes) up to which it is taken, and who took it
  // last in which cycle (Stall::Dispatch when another sub-core took a shared unit this cycle).
  struct UnitUse {
    std::uint64_t until = 0;
    std::uint64_t at = ~std::uint64_t{0};
    std::uint32_t by = 0;
    std::uint32_t warp = ~0u;  // the warp slot of the op that took it last
  };

  struct Inflight {
    std::uint16_t warp = 0;
    std::uint8_t micro = 0;  // 0: PTX instruction; 1..4: lock-loop Read/Update/Write/Branch
    std::uint8_t subs_left = 0;
    std::uint32_t index = 0;  // instruction index
    bool control = false, barrier = false, global_load = false;
    bool short_result = false;  // written by an MIO op (shared load/atomic, SFU, ld.param/const)
    // A step of an expanded instruction's sequence (sm.lower; expand.hpp): 1 + its unit; 0: none.
    std::uint8_t pre = 0;
    bool suspended = false;     // a try_wait whose threads wait for its phase (below)
    bool cluster_wait = false;  // a barrier.cluster.wait that found its phase open (issue 46)
    bool sets_guard = false;    // writes predicates that guard sm.guard_delay late
    std::uint8_t ndst = 0;
    std::array<std::uint32_t, 8> dst{};  // an mma's D fragment has up to 8 registers
    std::uint64_t issued = 0;
    // Bank-aware scheduling: the prediction made when it was scheduled (-1: none), its history
    // key, the MEM0 passes of its subwarps so far and the subwarps still to pass MEM0.
    std::int32_t pred = -1;
    std::uint32_t hkey = 0;
    std::uint32_t passes = 0;
    std::uint8_t unresolved = 0;
    bool held = false;  // sm.relaxed_commit = in-order: its warp issues nothing until it completes
    std::uint32_t tm_cycles = 0;    // GPU-LocalTM work the instruction adds at MEM0 (003 §4.2)
    std::int32_t async_group = -1;  // a cp.async or wgmma: its warp's group (Warp::groups)
    std::uint8_t async_kind = 0;    // 0 cp.async, 1 wgmma (then its tensor work follows)
    std::uint32_t bulk = 0;  // a bulk copy into shared memory: it lands at completion (issue 46)
    // An mbarrier.try_wait that found a phase incomplete (`suspended`, beside the flags above):
    // its threads are suspended (it does not complete) until every lane of `wait_lanes` has its
    // phase complete or until `resume_by` (kTryWaitSuspend).
    LaneMask wait_lanes = 0;
    std::uint64_t resume_by = 0;
  };
  // A warp's groups of one kind (PTX ISA cp.async / wgmma commit_group, wait_group):
  // commit_groups issued (the open group's id), the ops not yet done per group from `first` on,
  // and the groups a wait_group needs done (ids below `until`).
  struct AsyncGroups {
    std::uint32_t commits = 0, first = 0, until = 0;
    std::vector<std::uint32_t> left;  // small: a vector, not a deque (no allocation)
    std::uint32_t join();             // an op joins the open group: its id
    void done(std::uint32_t group);
    void drop();
    // A wait_group whose groups still have ops in flight (the front group is committed and not
    // done, or done() would have dropped it).
    bool holds() const { return !left.empty() && first < until; }
  };
  struct Warp {
    bool used = false;
    bool finished = false;         // the executor has it Done
    std::uint32_t exit_index = 0;  // when finished: the instruction it ended at (its drain's)
    bool eligible = false;
    std::uint32_t exec_slot = 0, exec_warp = 0, cta = 0;
    std::uint64_t age = 0;
    std::uint8_t sub = 0;         // its sub-core: slot % sm.subcores
    std::uint32_t in_flight = 0;  // inflight records
    bool control = false;         // a branch/ret/exit in flight
    bool at_bar = false;          // issued bar.sync, not yet released
    // Its barrier.cluster.wait is suspended (issue 46): no destination holds the warp, this does.
    bool cluster_wait = false;
    std::uint8_t pre_step = 0;   // the steps of its next instruction's expansion issued
    std::uint64_t start_at = 0;  // the cycle it may first issue in (sm.warp_start_cycles)
    // After a taken branch: the first cycle its target may issue in (sm.taken_branch_fetch).
    std::uint64_t fetch_at = 0;
    // GPU-LocalTM: stalled at TX.Begin by a work-group serialization; inside a transaction since
    // cycle tx_since (or outside it since then), for the execution breakdown (TmCycles).
    // The warp's asynchronous groups (sm_waits.cpp): [0] cp.async's, [1] wgmma's; and the
    // wgmma products whose tensor work ends later (cycle, group).
    AsyncGroups groups[2];
    std::vector<std::pair<std::uint64_t, std::uint32_t>> wg_pending;
    bool tx_wait = false, in_tx = false;
    std::uint64_t tx_since = 0;
    std::uint32_t held = 0;      // in-flight shared instructions predicted to conflict (§6)
    Stall reason = Stall::Idle;  // why it may not issue (when !eligible)
    std::uint32_t next = 0;      // next instruction index (the atom's while in the lock loop)
    // The executor's next instruction for the warp (IssueResult::next; Executor::next_index
    // without its walk through the executor's CTA, warp and stack at every recompute).
    std::uint32_t exec_next = 0;
    bool unsafe_next = false;  // exec_next's issue group may touch global memory (note_next)
    // Lock loop (seed 000 Fig. 1): step 1..4 is the next micro-op; 0 when not in the loop.
    std::uint8_t step = 0;
    bool step_busy = false;
    // The loop is a float add's compare-and-swap loop (atomics.shared_float = cas): its locks
    // are words (cas_locked_), its Read and Write ordinary bank accesses.
    bool cas = false;
    std::uint32_t iteration = 0;
    LaneMask pending = 0, won = 0;
    std::uint8_t loop_ndst = 0;
    std::array<std::uint32_t, 4> loop_dst{};
    std::uint64_t loop_issued = 0;
    // sm.lower's unroll: the branch of the unrolled loop the warp is in (ptx::kNone: none) and its
    // trips through it so far (taken branches).
    std::uint32_t unroll_loop = ptx::kNone, trips = 0;
    // Its next instruction is an f32 division that takes the slow path (Executor::fdiv_slow),
    // decided before its first step issues.
    bool slow_div = false;
  };
  struct LoopLanes {
    std::array<std::uint64_t, kMaxLanes> key{};  // SharedMemoryUnit::key_of the lane's word
    std::array<std::uint32_t, kMaxLanes> lock{};
  };
  struct Cta {
    bool used = false;
    std::uint64_t linear = 0;  // the CTA's index in the grid
    std::uint32_t exec_slot = 0;
    std::uint32_t live = 0;  // warps not yet finished and drained
    std::uint32_t bars_in_flight = 0;
    std::vector<std::uint32_t> warps;
    std::uint64_t started = 0, instructions = 0;  // dispatch cycle, warp instructions issued
  };

  template <typename T>
  struct Pool {
    std::vector<T> items;
    std::vector<std::uint32_t> free;
    // A free item, reset to T{} unless `reset` is false (the caller fills what it uses).
    std::uint32_t get(bool reset = true) {
      if (!free.empty()) {
        const std::uint32_t i = free.back();
        free.pop_back();
        if (reset) items[i] = T{};
        return i;
      }
      items.emplace_back();
      return std::uint32_t(items.size() - 1);
    }
    void put(std::uint32_t i) { free.push_back(i); }
  };

  Stall issue(std::uint32_t k, std::uint64_t now);
  Unit unit_of_next(std::uint32_t w) const;
  std::uint64_t unit_cost(Unit u, std::uint32_t index) const;
  bool unit_free(std::uint32_t k, Unit u, std::uint32_t index, std::uint64_t now) const;
  void unit_take(std::uint32_t k, Unit u, std::uint32_t index, std::uint32_t warp,
                 std::uint64_t now);
  void throttle(std::uint32_t k, WarpMask& pool, std::uint64_t now);
  void mio_throttle(std::uint32_t k, WarpMask& pool);
  void mio_tick(std::uint64_t now);
  void issue_warp(std::uint32_t w, std::uint64_t now);
  void account_tm(std::uint32_t w, const exec::IssueResult& r, std::uint64_t now);
  void count_issue(Warp& wp, const exec::IssueResult& r);  // a warp instruction executed
  // sm.lower's unroll: a trip through an unrolled loop counted at its branch (note_trip); after an
  // issue, the loop overhead that trip does not issue, executed in the same slot (skip_unrolled).
  void note_trip(Warp& wp, const exec::IssueResult& r);
  bool skip_unrolled(Warp& wp);  // true: an instruction moved other warps (TM)
  void async_issue(Warp& wp, Inflight& in, const InstInfo& info);
  // A wgmma's shared reads are done at `now`: its tensor work on the warp's sub-core follows
  // (sm.wgmma_fmas, sm.lat_wgmma), and then its group's count.
  void wgmma_done(std::uint32_t w, const Inflight& in, std::uint64_t now);
  // The wgmma products of warp w done by now.
  void wgmma_land(Warp& wp, std::uint64_t now);
  std::vector<std::uint64_t> wg_free_;  // per sub-core: when its tensor core takes a wgmma
  void issue_micro(std::uint32_t w, std::uint64_t now);
  void issue_pre(std::uint32_t w, std::uint64_t now);
  std::uint32_t new_inflight(std::uint32_t w, std::uint32_t index, std::uint64_t now);
  void push_ops(std::uint32_t inflight, Unit unit, MemWork mem, bool memory, std::uint32_t sectors,
                std::uint64_t now, GlobalMemoryUnit::Split found = {});
  void push_next_sub(Subcore& sc, std::uint64_t now);
  void complete(std::uint32_t inflight, std::uint64_t now);
  void finish_step(std::uint32_t w, std::uint64_t now);
  void recompute(std::uint32_t w);
  void recompute_cta(std::uint32_t cta);
  void set_reason(Warp& w, bool eligible, Stall reason);
  void retire_warp(std::uint32_t w);
  Stall dominant_reason(std::uint32_t k) const;
  // The expansion the warp's next instruction `in` issues as (DivF32Slow for a slow division).
  static const Expansion& expansion_of(const Warp& wp, const InstInfo& in) {
    return expansion(in.expand == Expand::DivF32 && wp.slow_div ? Expand::DivF32Slow : in.expand);
  }
  void attribute_warp_states(std::uint32_t k, int issued_warp, Stall blocked,
                             std::uint64_t weight = 1);
  Stall waiting_reason(std::uint32_t k) const;
  LaneMask sub_lanes(std::uint8_t sub) const;
  std::uint32_t history_key(std::uint32_t w) const;
  std::uint32_t pc_line(std::uint32_t index) const;

  std::uint32_t id_;
  const SimContext& ctx_;
  LineFetch icache_, ccache_;  // the instruction and constant caches (fetch.hpp)
  exec::Executor* ex_ = nullptr;
  exec::AccessConsumer* forward_ = nullptr;    // where the collector hands the accesses on
  Observer* obs_ = nullptr;                    // the caller's observer, its buffer, or none
  std::vector<InstrStats>* instr_ = nullptr;   // per-instruction statistics, or nullptr
  std::vector<CtaRecord>* cta_log_ = nullptr;  // --sample-ctas
  const Arch& arch_;
  std::uint32_t f_, m_;
  std::uint32_t nsub_;
  bool strict_;  // sm.barrel = strict
  bool phased_;  // the executor emits wide accesses as phases (memory.wide_access phases, pairs)
  bool pairs_;  // wide loads whose lanes pair up take twice the lanes a phase (wide_access = pairs)
  std::uint32_t nsc_;  // sub-cores
  std::vector<Subcore> sub_;
  // Units: the slot in units_ a unit uses, per unit its lanes (threads per cycle; tensor: FP16
  // multiply-adds per cycle) and what one op of it costs, per sub-core (unit_scope = subcore) or
  // one set for the SM (sm).
  std::array<std::uint8_t, kUnits> unit_map_{};  // the unit whose latency an op takes
  std::array<std::uint8_t, kUnits> pipe_map_{};  // the unit whose lanes it holds
  std::array<std::uint64_t, kUnits> lanes_{};
  std::vector<std::array<UnitUse, kUnits>> units_;
  std::vector<std::uint64_t> units_busy_;  // per units_ set: the largest `until` (skip when idle)
  bool shared_units_ = false;
  // Whether a unit can ever refuse an op: a unit with fewer lanes than an op has threads, a
  // tensor unit, or units two schedulers share. Without, the unit bookkeeping is skipped.
  bool units_on_ = false;
  // The shared-memory port: the cycle of its last pass and the sub-core holding it for an
  // access's back-to-back passes (-1: none).
  std::uint64_t port_cycle_ = ~std::uint64_t{0};
  std::int32_t port_owner_ = -1;
  std::unique_ptr<BankAwareReady> ready_;  // bank-aware scheduling (004 Fig. 7), or none
  bool hold_ = false;                      // sm.relaxed_commit = in-order (004 §6)
  std::int32_t next_pred_ = -1;            // the prediction for the instruction being issued
  std::uint32_t next_key_ = 0;
  SharedMemoryUnit smu_;
  GlobalMemoryUnit gmem_;
  MioUnit mio_;  // sm.mio_queue > 0: the sub-cores' MIO queues and the scheduler serving them
  // Per unit, the cycles an MIO op spends after its last pass before writeback: the memory stages
  // and, for the shared units, the EXE stages it does not spend in the sub-core (exe_stages).
  std::array<std::uint32_t, kUnits> mio_tail_{};
  std::vector<Op> ops_;
  std::vector<std::uint32_t> free_ops_;
  // With a shared L2: each op's sectors bound for it (by op id), and the issuing instruction's.
  std::vector<std::vector<std::uint64_t>> op_l2_;
  // And the fill each op starts in the L1, or waits for (GlobalMemoryUnit::Split).
  struct OpFill {
    std::uint32_t own = 0, wait = 0;
    std::uint64_t ready = 0;
  };
  std::vector<OpFill> op_fill_;
  std::vector<std::uint64_t> to_l2_;
  Pool<Inflight> inflight_;
  // A shared access's record while its instruction issues, and each subwarp's bank passes planned
  // from it there (push_ops gives them to the ops; MEM0 reads them): the plan needs nothing MEM0
  // knows, and a record kept until MEM0 (2 KiB) was a cache miss there on a GPU of 80 SMs.
  AccessRecord rec_;
  std::vector<PassPlan> plans_;
  std::vector<Warp> warps_;
  std::vector<LoopLanes> loop_lanes_;
  bool cas_float_ = false;                // atomics.shared_float = cas
  std::vector<std::uint8_t> cas_locked_;  // per resident CTA and shared word: a CAS lane holds it
  std::uint64_t cas_words_ = 1;           // shared words per CTA (cas_locked_'s stride)
  std::vector<Cta> ctas_;
  // Warps x rows (SimContext::trow: registers whose uses never interleave share one).
  util::Zeroed<std::uint8_t> pending_;         // writes in flight
  util::Zeroed<std::uint8_t> pending_global_;  // ... of them, global loads
  util::Zeroed<std::uint8_t> pending_short_;   // ... of them, MIO ops (Nsight's short scoreboard)
  // The operand delay (sm.mio_delay_alu / _fma; empty when both are 0): warps x rows, the
  // first cycle an MIO instruction may read the register. And the warps waiting for a cycle (such
  // a register's, or their start under sm.warp_start_cycles) as (cycle, warp slot), recomputed
  // then: a timed wake-up, since no other event would.
  util::Zeroed<std::uint64_t> mio_ready_;
  // The guard delay (sm.guard_delay; empty when 0): warps x rows, the first cycle an instruction
  // may issue guarded by the predicate register a fixed-latency pipe wrote.
  util::Zeroed<std::uint64_t> guard_ready_;
  // The cross-pipe delay (sm.xpipe_delay; empty when 0): warps x rows, the first cycle the
  // other fixed-latency pipe may read the register << 2 | the pipe that wrote it (xpipe_of; 0:
  // neither), one load a source.
  util::Zeroed<std::uint64_t> xpipe_;
  // With any of the three delay tables: the register whose completion wrote a row's delay entries
  // (registers share rows, reg_rows.hpp). Another register reads them as no delay, as its own row
  // would have held; its completion clears them before it writes its own (claim).
  util::Zeroed<std::uint32_t> owner_;
  // The first of warp slot w's rows, and register r's row from there.
  std::size_t rows_of(std::uint32_t w) const { return std::size_t(w) * ctx_.trows; }
  std::size_t row_at(std::size_t base, std::uint32_t r) const { return base + ctx_.trow[r]; }
  // A delay entry of register r at row `at`: r's own, or none.
  std::uint64_t own(const util::Zeroed<std::uint64_t>& t, std::size_t at, std::uint32_t r) const {
    return owner_[at] == r ? t[at] : 0;
  }
  void claim(std::size_t at, std::uint32_t r);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> wakes_;
  std::uint64_t next_wake_ = ~std::uint64_t{0};
  std::vector<std::uint32_t> due_;     // wake_due's scratch
  std::uint64_t next_warp_start_ = 0;  // sm.warp_start_cycles: the cycle the next warp may start
  void wake_due(std::uint64_t now);
  // Warp slot w is recomputed at cycle `at` (wake_due).
  void wake_at(std::uint64_t at, std::uint32_t w) {
    wakes_.emplace_back(at, w);
    next_wake_ = std::min(next_wake_, at);
  }
  WarpMask eligible_;
  std::uint32_t threads_used_ = 0, warps_used_ = 0, ctas_used_ = 0;
  std::uint64_t regs_used_ = 0, shared_used_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t now_ = 0;
  std::vector<std::uint32_t> completed_;
  std::uint32_t global_unsent_ = 0;  // global ops issued, not yet taken by the memory unit
  std::uint32_t unsafe_warps_ = 0;   // live warps whose next issue may touch global memory
  void note_next(Warp& wp);          // after a warp's exec_next, used or finished changed
  // Suspended try_waits (Inflight::suspended) whose pipeline work is done: looked at each tick.
  std::vector<std::uint32_t> suspended_;
  bool resume_waits(std::uint64_t now);  // completes those that may go on; true if any did
  std::vector<StageCell> cells_, stage_cells_;
  bool issued_ = false, progressed_ = false;
  SmStats stats_;
};

}  // namespace smemsim::timing

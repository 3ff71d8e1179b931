// GpuSim's state (gpu.cpp: construction and the cycle loop; gpu_parallel.cpp: the SMs' executors
// and the parallel tick and commit of each cycle, issue 31).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "smemsim/timing.hpp"
#include "timing/reg_rows.hpp"
#include "timing/sm.hpp"

namespace smemsim::timing {

struct GpuSim::Impl {
  Impl(const ptx::Module& m, const ptx::Kernel& k, const Arch& a, const exec::Launch& l,
       exec::GlobalMemory& mem, const TimingOptions& o);
  const ptx::Module& module;
  const ptx::Kernel& kernel;  // the caller's
  Arch arch;
  exec::Launch launch;
  TimingOptions options;
  lower::Rules rules;  // sm.lower, parsed
  // The list scheduler (sm.lower's `schedule`): the kernel in its order (order[new] = old), which
  // the executors run and the SMs time; none when it changed nothing. Indices leave GpuSim in the
  // caller's kernel's numbering (per-instruction statistics, observer events).
  std::vector<std::uint32_t> order;
  std::unique_ptr<ptx::Kernel> scheduled;
  // sm.lower's `ifcvt`: the kernel with its short forward branches made predicates (same
  // positions, src/lower/ifcvt.hpp), until the scheduler copies it; none when none qualified.
  std::unique_ptr<ptx::Kernel> converted;
  // sm.lower's `vector`: the kernel with each group of loads brought together (order holds its
  // order), until the scheduler copies it.
  std::unique_ptr<ptx::Kernel> vectored;
  const ptx::Kernel* code = nullptr;   // kernel, *converted, *vectored or *scheduled
  std::unique_ptr<Observer> renumber;  // the caller's observer behind an index map
  std::vector<InstInfo> info;
  std::vector<std::uint32_t>
      absorbed;  // apply_lowering: what each absorbed instruction issues with
  // sm.lower's unroll (src/lower/unroll.hpp): per instruction, its unrolled loop's branch when it
  // is that loop's overhead; empty when no loop is unrolled.
  std::vector<std::uint32_t> unrolled;
  TimingRows trows;  // the rows of the SMs' per-register tables (reg_rows.hpp)
  std::vector<std::uint32_t> const_lines;  // sm.const_miss_cycles: SimContext::const_line
  // The executor that checked the launch: it owns the module's variables (its siblings, one per
  // SM, share them) and runs --sample-ctas' untimed CTAs.
  std::unique_ptr<exec::Executor> primary;
  std::vector<std::unique_ptr<exec::Executor>> exs;  // per SM, made when it first takes a CTA
  SimContext ctx;
  std::unique_ptr<SharedL2> l2;  // sm.l2_slices: the L2 every SM shares
  std::vector<std::unique_ptr<Sm>> sms;
  std::vector<InstrStats> instr;
  std::uint64_t cycle = 0;
  std::uint64_t writes = 0;  // memory writes of all executors, at the last commit (spin checks)
  // More than one thread: the arena the SMs tick in, and per SM its outbox (outbox.hpp).
  std::uint32_t threads = 1;
  // A kernel with clusters: the SMs of a GPC (sm.gpc_sms), which tick together on one thread;
  // 0 without clusters (every SM on its own).
  std::uint32_t gpc_sms = 0;
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // tick_all's: runs of `awake`
  std::unique_ptr<tbb::task_arena> arena;
  std::vector<std::unique_ptr<Outbox>> outboxes;
  std::vector<std::exception_ptr> errors;  // per SM: what its tick threw in a parallel cycle
  // Running an SM ahead (gpu_ahead.cpp, TimingOptions::run_ahead): the most cycles in a row (0:
  // off), per instruction whether its issue group may touch global or local memory, and per SM
  // the first cycle it has not ticked and what each recent tick left (kAhead* bits, by cycle %
  // kAheadRing).
  static constexpr std::size_t kAheadRing = 64;
  static constexpr std::uint8_t kAheadProgressed = 1, kAheadIssued = 2, kAheadResident = 4,
                                kAheadAsleep = 8, kAheadRetired = 16;
  struct Ahead {
    std::uint64_t next = 0;
    std::array<std::uint8_t, kAheadRing> at{};
    // A tick ahead that threw (an out-of-bounds shared access, say): thrown when the cycle loop
    // reaches that cycle, at the SM's turn, as one tick a cycle would have thrown it.
    std::exception_ptr error;
  };
  std::uint32_t ahead_k = 0;
  std::vector<std::uint8_t> unsafe;
  std::vector<Ahead> ahead;
  TimingStats stats;
  exec::ExecStats merged;  // exec_stats()
  bool ran = false;

  struct Dispatcher;  // which CTA starts on which SM, and when (gpu_dispatch.hpp)

  void attach(std::uint32_t sm);
  void tick_all(const std::vector<std::uint32_t>& awake);
  void ahead_setup();  // gpu_ahead.cpp
  // This cycle's tick of each awake SM not ticked yet, each then running ahead while it may
  // (`room`: a CTA still to dispatch could start on an SM with room).
  void tick_ahead(const std::vector<std::uint32_t>& awake, bool room);
  std::uint8_t ahead_flags(std::uint32_t sm) const { return ahead[sm].at[cycle % kAheadRing]; }
  // What an SM's tick left (kAhead* bits); `before`: its resident CTAs before the tick.
  static std::uint8_t tick_flags(const Sm& s, std::uint32_t before) {
    return std::uint8_t((s.progressed() ? kAheadProgressed : 0) | (s.issued() ? kAheadIssued : 0) |
                        (!s.idle() ? kAheadResident : 0) | (s.asleep() ? kAheadAsleep : 0) |
                        (s.resident_ctas() < before ? kAheadRetired : 0));
  }
  bool is_ahead(std::uint32_t sm) const {
    return ahead_k && (ahead[sm].next > cycle + 1 || ahead[sm].error);
  }
  void commit(const std::vector<std::uint32_t>& awake);
  std::vector<const exec::Executor*> executors() const;
  const exec::ExecStats& exec_stats();
  [[noreturn]] void stuck(const std::string& why) const;
  void lower_code();
  void if_convert_code();  // sm.lower's ifcvt (gpu_lower.cpp)
  void vectorize_code();   // sm.lower's vector (gpu_lower.cpp)
  void find_unrolled();    // sm.lower's unroll (gpu_lower.cpp)
  void renumber_events();  // the observer's indices in the caller's numbering (gpu_lower.cpp)
};

}  // namespace smemsim::timing

// Replica microbenchmarks (issue 42): one per measured figure a measurement file may cite,
// written by us from the source's described method (the same per-step instruction sequence, the
// same clock, block and iterations) in kernels/ubench_replicas.cu, whose PTX ships in
// kernels/ptx/ubench_replicas.ptx. Running a replica in the cycle model gives the figure the
// model predicts, in the figure's unit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::calibrate {

struct Replica {
  std::string_view name;    // what a measurement file's `benchmark` names
  std::string_view kernel;  // in ubench_replicas.ptx
  std::string_view unit;
  std::string_view what;  // one line: the step and the figure
  // The arch key calibrate solves from this figure; "" for a figure that checks the others (a
  // throughput, decided by lanes and structure the sources give).
  std::string_view key;
  // A mechanism the model lacks that decides this figure ("" when none): the figure is reported,
  // never fitted.
  std::string_view missing;
  // The launch (one block) and the figure: threads, the kernel's `steps` argument (0: none), the
  // timing (thread 0's clocks, or the span from the first start to the last stop over all
  // threads), and either cycles / amount (a latency) or amount / cycles (a rate).
  std::uint32_t threads = 1;
  std::int32_t steps = 0;
  bool span = false;
  bool rate = false;
  double amount = 1;
  // The extra argument after clk and out: none, a u32 ring of 1,024 (global atomics), or a u64
  // ring of 4,096 and the flag `arg` (global chases). The Mem kinds run a kernel of
  // kernels/memory_ubench.cu instead (mem_read_ca, mem_read_cg, mem_write: a u64 clk of thread
  // 0's clock64 before and after, and the CTA's own `arg` 16-byte words read `steps` times, or
  // written once), as scripts/memory_measure.cu runs it with a CTA on every SM; here one CTA
  // runs on one SM whose L2 is its share of the preset's (sm.l2_bytes / sm.count), the model's
  // SMs having no other contention.
  enum class Extra : std::uint8_t {
    None,
    AtomicRing,
    ChaseRing,
    FlushRing,
    MemReadCa,
    MemReadCg,
    MemWrite,
    // mem_atomic_ind(clk, word, idx, out, steps): `steps` atomicAdds a thread to word[idx[t]],
    // idx all 0 (one word; ptxas cannot aggregate the warp's lanes), as
    // scripts/memory_scaling.cu runs it.
    MemAtomic,
    // kernels/hopper_ubench.cu's bulk_latency (as scripts/hopper_measure.cu runs it): `steps`
    // copies of `arg` bytes from a 64 KiB buffer to shared memory, one thread.
    BulkCopy,
    // Whole-GPU kernels of ubench_replicas.cu (`whole`): rep_l2_bw_64f(clk, out, a, n, steps)
    // over n = the grid's threads + 32 x steps doubles; rep_mem_bw(clk, a, b, c, d, e, f, n4)
    // over six arrays of n4 = sm.l2_bytes / 8 float4s (twice the L2 each);
    // rep_atomic_conflict(clk, out, word, steps).
    L2Bw64,
    MemBw,
    AtomicConflict,
    // kernels/wgmma.cu's wgmma_latency_nN(clk, steps): one warpgroup, `steps` times fence, one
    // m64nNk16 from shared memory, commit, wait (Luo et al. 2024's completion latency).
    Wgmma,
    // kernels/hopper_ubench.cu's dsm_latency / dsm_throughput(clk, steps) and
    // dsm_chase(clk, target = arg, steps): one cluster of 2 CTAs on two SMs of one GPC (issue 46).
    Dsm,
    DsmChase
  } extra = Extra::None;
  std::int32_t arg = 0;
  // The launch starts with its buffers in the L2 (TimingOptions::warm_l2): the GPU's figure is the
  // median of five launches of a region the L2 holds, each after the last.
  bool warm_l2 = false;
  // The figure was measured with this one CTA alone on the GPU (scripts/memory_scaling.cu's
  // *_1cta figures), not one a SM: the replica's SM has the whole L2 to itself.
  bool alone = false;
  // Launched as the source launched it on the whole GPU: (sm.max_threads / threads) x sm.count
  // CTAs (Accel-Sim's BLOCKS_NUM: every thread slot), every SM, the whole L2; `amount` is then
  // per thread of the grid (rep_mem_bw: per float4 of an array).
  bool whole = false;
  bool memory() const { return extra >= Extra::MemReadCa && extra <= Extra::MemAtomic; }
  bool cluster() const { return extra == Extra::Dsm || extra == Extra::DsmChase; }
  // In the replica table (replica_table.inc), which scripts/calibrate_measure.cu runs on a GPU;
  // the others' figures come from scripts/memory_measure.cu and hopper_measure.cu --figures.
  bool in_table() const { return extra <= Extra::FlushRing; }
};

const std::vector<Replica>& replicas();
const Replica* find_replica(std::string_view name);  // nullptr when none

// The replicas' PTX: ubench_replicas.ptx, memory_ubench.ptx and hopper_ubench.ptx.
struct Code {
  ptx::Module replicas, memory, hopper, wgmma;
};
// Loads both from `ptx_dir` (exec::suite_ptx_dir() when empty), once for every run.
Code load_replicas(const std::string& ptx_dir = "");
// InputError where `r` cannot run on `arch` as it should (mem_bw: no L2 to size its arrays by,
// or arrays past 1 GiB), before any simulation; run_replica checks it too.
void check_runnable(const Replica& r, const Arch& arch);
// The figure the cycle model gives for `r` on `arch` (one SM, or every SM for a `whole` one), in
// r.unit. `threads`: the host threads the SMs tick on (TimingOptions::threads; the figure does not
// depend on it).
double run_replica(const Replica& r, const Arch& arch, const Code& code, std::uint32_t threads = 1);

}  // namespace smemsim::calibrate

// What travels through an SM pipeline: one Op per subwarp of a warp instruction (or of a lock-loop
// micro-op), and what a pipeline needs from the SM that owns it (PipelineHost).
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/timing.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::timing {

// What MEM0 does with an op.
enum class MemWork : std::uint8_t {
  None,          // passes MEM0 in one cycle (unified pipeline) or takes the NONMEM path (split)
  Shared,        // ld/st (and loadstore atomics): bank passes planned from the access
  FsmRead,       // lock loop Read: bank passes of the pending lanes; takes lock bits
  FsmWrite,      // lock loop Write: bank passes of the winners; releases their locks
  NativeAtomic,  // bank passes, then same-word serialization passes
  Global,        // handed to the global memory unit at MEM0 (leaves the pipeline there)
  Tm,            // TX.Begin / TX.Commit: GPU-LocalTM's record and signature clearing (003 §4.2)
  // Another CTA's shared memory (distributed shared memory, issue 46): the SM's port to the
  // SM-to-SM network, sm.dsm_bytes_per_cycle, one pass a cycle; the result returns Op::far later.
  Dsm,
};

// Whether an op's MEM0 work is bank passes of shared memory (what the MIO queues take): every
// kind but none and a global access.
constexpr bool mio_work(MemWork m) {
  return m != MemWork::None && m != MemWork::Global;
}
// The units a shared-memory access issues to.
constexpr bool shared_memory_unit(Unit u) {
  return u == Unit::SharedLd || u == Unit::SharedSt || u == Unit::SharedAtom;
}

struct Op {
  std::uint32_t inflight = 0;  // the SM's record of the instruction (or micro-op)
  std::uint16_t warp = 0;      // SM warp slot
  std::uint8_t sub = 0;        // subwarp
  Unit unit = Unit::Alu;
  MemWork mem = MemWork::None;
  bool memory = false;        // a memory instruction: takes the MEM path (also in a split pipeline)
  bool planned = false;       // MEM0 work computed at its first arrival
  bool offloaded = false;     // left MEM0 into its sub-core's MIO queue (sm.mio_queue)
  std::uint16_t passes = 0;   // bank passes left
  std::uint16_t passes2 = 0;  // native atomics: same-word passes left, after the bank passes
  // GPU-LocalTM: cycles of transactional work at MEM0 left, after those (one cycle each, 003 §4.2).
  std::uint16_t tm_passes = 0;
  std::uint16_t total = 0;  // passes + passes2 as planned (the warp_bkconf_degree accumulator)
  // Phases of the access (an ldmatrix.x4 or a 16-byte-per-lane access has four): the passes up to
  // this many are the access's own, the rest are bank-conflict passes.
  std::uint16_t phases = 1;
  // A shared access (MemWork::Shared, NativeAtomic): its bank passes, phases and same-word passes
  // as planned at issue (SharedMemoryUnit::plan), which MEM0 takes on.
  std::uint32_t plan_passes = 0, plan_phases = 0, plan_same = 0;
  std::uint32_t replay = 1;  // cycles from one bank pass to the next (1: MEM0 holds the op)
  std::uint32_t replay2 = 1;
  std::uint16_t sectors = 0;     // global: 32-byte sectors
  std::uint16_t l1 = 0, l2 = 0;  // global loads: of them, those the L1 and the L2 hold
  std::uint16_t same = 0;        // global atomics: the most lanes on one address
  std::uint16_t extra = 0;       // cycles beyond its unit's latency (a tensor op's interval - 1)
  std::uint32_t far = 0;  // MemWork::Dsm: the network's cycles, sm.lat_dsm - its unit's latency
  std::uint64_t seq = 0;  // issue order: older ops win arbitration
};

class PipelineHost {
 public:
  virtual ~PipelineHost() = default;
  virtual Op& op(std::uint32_t id) = 0;
  // Every op, indexed by id (the vector may grow; a pipeline keeps a pointer to it).
  virtual std::vector<Op>& ops() = 0;
  // EXE stages of a unit: its latency minus front end, memory stages and writeback (>= 1).
  virtual std::uint32_t exe_stages(Unit u) const = 0;
  // First arrival at MEM0: plan the bank passes (and take lock bits for a lock-loop Read).
  virtual void mem0_plan(std::uint32_t id, std::uint64_t now) = 0;
  // The op's last pass at MEM0 is done (a lock-loop Write releases its locks here).
  virtual void mem0_done(std::uint32_t id, std::uint64_t now) = 0;
  // A global op at MEM0: the memory unit takes it (false: its queue is full, MEM0 refuses).
  virtual bool global_send(std::uint32_t id, std::uint64_t now) = 0;
  // A shared-memory op at MEM0 goes to its sub-core's MIO queue (sm.mio_queue > 0; its entry was
  // taken at issue, so this never refuses); false: no MIO, MEM0 makes its passes itself.
  virtual bool mio_send(std::uint32_t id, std::uint64_t now) = 0;
  // Data returning from the SM's shared units (global loads and atomics, MIO ops after their
  // passes) competes for writeback; global data first.
  virtual bool global_return_ready(std::uint64_t now) const = 0;
  virtual std::uint32_t global_return_pop() = 0;
  // The op wrote back (or, a global op, left the pipeline for the memory unit's bookkeeping).
  virtual void writeback(std::uint32_t id, std::uint64_t now) = 0;
  virtual void writeback_conflict() = 0;
  // A memory op's pass at MEM0 in cycle `now` needs the SM's shared-memory port, which the
  // sub-cores share (false: another sub-core has it this cycle; the op waits, Stall::MioThrottle).
  // Always true with one sub-core.
  virtual bool port_take(std::uint64_t now) = 0;
  // After a pass: whether the op keeps the port for its next pass in the next cycle.
  virtual void port_hold(bool hold) = 0;
};

}  // namespace smemsim::timing

// The cycle model on the kernel suite (kernels/*.cu, needs nvcc): seed 000 Fig. 5 measured by the
// kernel's own clock(), seed 000 Fig. 4's replication optimum, and determinism.
#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::test {
namespace {

struct SimResult {
  timing::TimingStats stats;
  exec::Workload w;
};

SimResult simulate(const std::string& name, const exec::BuiltinOptions& o, const Arch& arch,
                   timing::TimingOptions opt = {}) {
  SimResult r{{}, exec::make_builtin(name, o, SMEMSIM_PTX_DIR)};
  timing::GpuSim sim(r.w.module, exec::find_kernel(r.w.module, r.w.kernel), arch, r.w.launch,
                     r.w.memory, opt);
  r.stats = sim.run();
  EXPECT_EQ(r.w.check(r.w.memory), "") << name;
  return r;
}

std::uint32_t measured(const SimResult& r) {
  return reinterpret_cast<const std::uint32_t*>(r.w.memory.find("cycles")->bytes.data())[0];
}

// Seed 000 Eq. 1 pattern: lane id < c on word id * stride, the others on word id.
WarpAccess eq1(std::uint32_t c, std::uint32_t stride) {
  WarpAccess wa;
  wa.op = Op::Atomic;
  for (std::uint32_t id = 0; id < 32; ++id) wa.set(int(id), id < c ? id * stride : id);
  return wa;
}

// kernels/atomic_bench.cu under `sim` on the GTX 580 preset times each atomicAdd with clock().
// Seed 000 §III / Fig. 5: 118 cycles without conflicts (the simulator value of "108 vs. 118");
// stride 0 (Fig. 5a): c-way position conflicts run the lock loop c times, 118 c; stride 32 (Fig.
// 5b): one loop whose Read and Write each take c bank passes, 32 c + 18 + 36 c + 32 = 68 c + 50;
// stride 256 (Fig. 5c): a lock conflict every four bank conflicts, so the time steps up at c = 5,
// 9, 13, ... . Every value equals the analytic FSM model of the same pattern.
TEST(TimingKernels, Seed000Fig5AtomicBenchTimesItselfWithClock) {
  Arch fsm = default_arch();
  fsm.atomic_model = "fsm";
  AccessEvaluator model(fsm);
  std::map<std::uint32_t, std::uint32_t> stride256;
  for (const std::uint32_t stride : {0u, 32u, 256u}) {
    for (std::uint32_t c = 1; c <= 32; c += (c < 8 ? 1 : 3)) {
      SCOPED_TRACE(::testing::Message() << "stride " << stride << " conflicts " << c);
      exec::BuiltinOptions o;
      o.conflicts = c;
      o.stride = stride;
      const std::uint32_t t = measured(simulate("atomic_bench", o, default_arch()));
      EXPECT_EQ(std::int64_t(t), model.evaluate(eq1(c, stride)).latency);
      if (c == 1) EXPECT_EQ(t, 118u);
      if (stride == 0) EXPECT_EQ(t, 118u * c);
      if (stride == 32) EXPECT_EQ(t, 68u * c + 50);
      if (stride == 256) stride256[c] = t;
    }
  }
  // The step: within a group of four the growth is 68 per conflict (one more pass for the Read and
  // the Write); at c = 5 lane 4 shares lock 0 with lane 0 and waits for a second round: round 1
  // reads 5 words of bank 0 and writes 4 (32*5 + 18 + 36*4 + 32 = 354), round 2 is one lane
  // (118): 472, 150 more than c = 4 (32*4 + 18 + 36*4 + 32 = 322).
  EXPECT_EQ(stride256[2] - stride256[1], 68u);
  EXPECT_EQ(stride256[4] - stride256[3], 68u);
  EXPECT_EQ(stride256[4], 322u);
  EXPECT_EQ(stride256[5], 472u);
}

// Seed 000 Fig. 4: a 64-bin histogram over replication factors 1..128. With the lock loop the
// kernel is fastest at R = 16 (the paper's GTX 470 and its modified GPGPU-Sim); timing atomics as
// loads (GPGPU-Sim's original model) makes R = 1 fastest, because lanes voting the same bin of one
// copy are a free broadcast for a load but a lock conflict for the lock loop, and replication only
// adds bank conflicts and work. Images: uniform noise and three discs over mild noise, 256 x 256.
TEST(TimingKernels, Seed000Fig4HistogramReplicationOptimum) {
  for (const std::string image : {"noise", "blobs"}) {
    for (const std::string model : {"fsm", "loadstore"}) {
      Arch a = default_arch();
      a.atomic_model = model;
      std::uint32_t best_r = 0;
      std::uint64_t best = ~std::uint64_t{0};
      for (std::uint32_t r = 1; r <= 128; r *= 2) {
        exec::BuiltinOptions o;
        o.bins = 64;
        o.replication = r;
        o.image = image;
        o.width = o.height = 256;
        const std::uint64_t cycles = simulate("histogram", o, a).stats.cycles;
        if (cycles < best) best = cycles, best_r = r;
      }
      EXPECT_EQ(best_r, model == "fsm" ? 16u : 1u) << image << " " << model;
    }
  }
}

// Same launch, same stats, bit for bit: twice in a row, and with the idle-cycle skipping off (it
// must only save time). Every issue slot of every SM is accounted once per cycle.
TEST(TimingKernels, DeterministicAndSkippingChangesNothing) {
  struct Case {
    std::string name;
    exec::BuiltinOptions o;
  };
  std::vector<Case> cases(5);
  cases[0].name = "histogram";
  cases[0].o.replication = 8;
  cases[1].name = "transpose";
  cases[2].name = "reduction";
  cases[3].name = "atomic_bench";
  cases[3].o.conflicts = 8;
  cases[3].o.stride = 256;
  cases[4].name = "kmeans";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    timing::TimingOptions slow;
    slow.skip_idle = false;
    slow.per_instruction = true;
    timing::TimingOptions fast;
    fast.per_instruction = true;
    const auto a = simulate(c.name, c.o, default_arch(), fast).stats;
    const auto b = simulate(c.name, c.o, default_arch(), fast).stats;
    const auto d = simulate(c.name, c.o, default_arch(), slow).stats;
    for (const auto* x : {&b, &d}) {
      EXPECT_EQ(x->cycles, a.cycles);
      EXPECT_EQ(x->issue.cycles, a.issue.cycles);
      EXPECT_EQ(x->units.smem_passes, a.units.smem_passes);
      EXPECT_EQ(x->units.lock_failures, a.units.lock_failures);
      EXPECT_EQ(x->units.writeback_conflicts, a.units.writeback_conflicts);
      ASSERT_EQ(x->instructions.size(), a.instructions.size());
      for (std::size_t i = 0; i < a.instructions.size(); ++i) {
        EXPECT_EQ(x->instructions[i].latency, a.instructions[i].latency) << i;
        EXPECT_EQ(x->instructions[i].warp_states.cycles, a.instructions[i].warp_states.cycles) << i;
      }
    }
    std::uint64_t slots = 0;
    for (auto v : a.issue.cycles) slots += v;
    EXPECT_EQ(slots, a.cycles * default_arch().sm.count);
  }
}

// Every preset's SM runs a kernel with shared atomics, barriers and global memory (the default
// histogram) to the CPU reference's result; the issue slots account for every cycle of every
// scheduler (one per sub-core) of every SM.
TEST(TimingKernels, EveryPresetRunsTheHistogram) {
  for (const Arch& a : arch_presets()) {
    SCOPED_TRACE(a.name);
    const auto r = simulate("histogram", {}, a);
    std::uint64_t slots = 0;
    for (auto v : r.stats.issue.cycles) slots += v;
    EXPECT_EQ(slots, r.stats.cycles * a.sm.count * a.sm.subcores);
    EXPECT_GT(r.stats.units.smem_accesses, 0u);
  }
}

}  // namespace
}  // namespace smemsim::test

// Cycle-level model speed (issue 9 "must show" 5): simulated thread-instructions and cycles per
// second on one core, for the histogram, reduction and transpose kernels of the suite on the
// 16-SM GTX 580 preset (lock-loop atomics, unified pipeline, greedy-then-oldest). Goal: >= 10 M
// thread-instructions/s, more than 10x GPGPU-Sim 4.2's performance mode on this kind of machine
// (0.4-1.4 M/s). Needs the kernel suite PTX (nvcc at build time); skips otherwise.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "smemsim/arch.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace {

using namespace smemsim;

// `fresh`: each iteration starts from the inputs as built (kernels that change them, histogram
// bins or hash tables, then time the same work every iteration).
void run(benchmark::State& state, const std::string& name, const exec::BuiltinOptions& o,
         const Arch& arch = default_arch(), std::uint32_t sim_threads = 1, bool fresh = false,
         bool share_rows = true) {
  if (!std::filesystem::exists(std::string(SMEMSIM_PTX_DIR) + "/histogram.ptx")) {
    state.SkipWithError("no kernel suite PTX (nvcc not found at configure time)");
    return;
  }
  exec::Workload w = exec::make_builtin(name, o, SMEMSIM_PTX_DIR);
  const ptx::Kernel& k = exec::find_kernel(w.module, w.kernel);
  const exec::GlobalMemory initial = fresh ? w.memory : exec::GlobalMemory{};
  std::uint64_t threads = 0, cycles = 0;
  for (auto _ : state) {
    if (fresh) {
      state.PauseTiming();
      w.memory = initial;
      state.ResumeTiming();
    }
    timing::TimingOptions to;
    to.threads = sim_threads;
    to.share_rows = share_rows;
    timing::GpuSim sim(w.module, k, arch, w.launch, w.memory, to);
    const timing::TimingStats& s = sim.run();
    threads += s.thread_instructions;
    cycles += s.cycles;
    benchmark::DoNotOptimize(w.memory.buffers.data());
  }
  state.counters["thread_instr/s"] =
      benchmark::Counter(double(threads), benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}

// 1024 x 1024 noise image, 64 blocks of 256 threads (4 per SM), R = 8: lock-loop atomics.
void BM_SimHistogram(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.width = o.height = 1024;
  o.replication = 8;
  o.image = "noise";
  o.grid = exec::Dim3{64, 1, 1};
  run(state, "histogram", o);
}
BENCHMARK(BM_SimHistogram)->Unit(benchmark::kMillisecond);

// 2^20 elements, 4096 blocks of 256 threads: tree reduction in shared memory with barriers.
void BM_SimReduction(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.size = 1 << 20;
  o.variant = "interleaved";
  run(state, "reduction", o);
}
BENCHMARK(BM_SimReduction)->Unit(benchmark::kMillisecond);

// The same on volta-v100: four sub-cores per SM sharing the shared-memory port (issue 25).
void BM_SimReductionVolta(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.size = 1 << 20;
  o.variant = "interleaved";
  run(state, "reduction", o, find_preset("volta-v100"));
}
BENCHMARK(BM_SimReductionVolta)->Unit(benchmark::kMillisecond);

// 2,048 elements, 8 CTAs on volta-v100's 80 SMs (issue 31: the cost per cycle follows the busy
// SMs, not the preset's SM count). The GPU's construction is part of each iteration.
void BM_SimReductionVolta8Ctas(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.size = 2048;
  o.variant = "interleaved";
  run(state, "reduction", o, find_preset("volta-v100"));
}
BENCHMARK(BM_SimReductionVolta8Ctas)->Unit(benchmark::kMicrosecond);

// Parallel SMs (issue 31 item 1): 2^18 elements, 1,024 CTAs on hopper-h100's 132 SMs (every SM
// busy for most of the run), on 1, 2, 4, 8 and 16 threads (the argument; more than the cores
// this process may use are not used).
void BM_SimReductionHopperThreads(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.size = 1 << 18;
  run(state, "reduction", o, find_preset("hopper-h100"), std::uint32_t(state.range(0)));
}
BENCHMARK(BM_SimReductionHopperThreads)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// 1024 x 1024 naive 16 x 16 tiles: 8-way shared-memory conflicts in the store phase.
void BM_SimTranspose(benchmark::State& state) {
  exec::BuiltinOptions o;
  o.width = o.height = 1024;
  o.variant = "naive";
  run(state, "transpose", o);
}
BENCHMARK(BM_SimTranspose)->Unit(benchmark::kMillisecond);

// Seed 004's pipelines on the cf11 preset (issue 12: the elastic pipeline may cost at most 30 %
// over the baseline): the interleaved reduction of 2^20 elements on the unified pipeline with
// round robin, and on the elastic pipeline with bank-conflict-aware scheduling.
void cf11_reduction(benchmark::State& state, const char* pipeline, const char* scheduler) {
  exec::BuiltinOptions o;
  o.size = 1 << 20;
  o.variant = "interleaved";
  Arch a = find_preset("cf11");
  a.sm.pipeline = pipeline;
  a.sm.scheduler = scheduler;
  run(state, "reduction", o, a);
}
void BM_SimCf11Baseline(benchmark::State& state) {
  cf11_reduction(state, "unified", "lrr");
}
BENCHMARK(BM_SimCf11Baseline)->Unit(benchmark::kMillisecond);
void BM_SimCf11ElasticBankAware(benchmark::State& state) {
  cf11_reduction(state, "elastic", "bank-aware");
}
BENCHMARK(BM_SimCf11ElasticBankAware)->Unit(benchmark::kMillisecond);

// The kernel suite (issue 49): the 13 builtins `smemsim sim` runs, with their default inputs
// (the CLI's), on fermi-gtx480 and volta-v100, one thread; each iteration builds the GPU, as `sim`
// does, so a small launch's set-up counts. GPGPU-Sim 4.2 on the same kernels on this kind of
// machine: 0.06-0.23 M thread-instructions/s with SM2_GTX480, 0.15-0.57 M/s with SM7_QV100
// (docs/timing.md, "Speed of the suite").
//
//   build/release/bench/timing_bench --benchmark_filter=BM_Suite/volta --benchmark_repetitions=5
//
// BM_SuiteOwnRows/volta-v100/...: the same with a row per register in the SMs' tables
// (TimingOptions::share_rows = false), for a paired look at what sharing rows gives:
//   timing_bench --benchmark_filter='BM_Suite(OwnRows)?/volta-v100/aes' --benchmark_repetitions=5
//     --benchmark_enable_random_interleaving=true
[[maybe_unused]] const bool kSuiteRegistered = [] {
  const char* const names[] = {"histogram",    "transpose",    "reduction", "fwt", "kmeans",
                               "hough",        "atomic_bench", "genindex",  "aes", "dct8x8",
                               "tm_hashtable", "tm_kmeans",    "tm_genetic"};
  for (const char* arch : {"fermi-gtx480", "volta-v100"})
    for (const char* name : names)
      benchmark::RegisterBenchmark(
          (std::string("BM_Suite/") + arch + "/" + name).c_str(),
          [name = std::string(name), a = std::string(arch)](benchmark::State& s) {
            run(s, name, exec::BuiltinOptions{}, find_preset(a), 1, true);
          })
          ->Unit(benchmark::kMillisecond);
  for (const char* name : names)
    benchmark::RegisterBenchmark((std::string("BM_SuiteOwnRows/volta-v100/") + name).c_str(),
                                 [name = std::string(name)](benchmark::State& s) {
                                   run(s, name, exec::BuiltinOptions{}, find_preset("volta-v100"),
                                       1, true, false);
                                 })
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

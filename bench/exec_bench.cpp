// Executor speed (issue 5 "must show" 4): thread-instructions per second on one core for the
// histogram and transpose kernels of the suite, and the tensor-core GEMM and attention (issue 16),
// with no consumer (the functional executor alone) and with the profiler consuming every
// shared-memory access. Goal: >= 20 M thread-instructions/s. Needs the kernel suite PTX (nvcc at
// build time); skips otherwise.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/workloads.hpp"

#ifndef SMEMSIM_PTX_DIR
#define SMEMSIM_PTX_DIR ""
#endif

namespace {

using namespace smemsim;
using namespace smemsim::exec;

void run(benchmark::State& state, const std::string& name, const BuiltinOptions& o, bool profile) {
  if (!std::filesystem::exists(std::string(SMEMSIM_PTX_DIR) + "/histogram.ptx")) {
    state.SkipWithError("no kernel suite PTX (nvcc not found at configure time)");
    return;
  }
  Workload w = make_builtin(name, o, SMEMSIM_PTX_DIR);
  const ptx::Kernel& k = find_kernel(w.module, w.kernel);
  const Arch& arch = default_arch();
  std::uint64_t threads = 0, warps = 0;
  for (auto _ : state) {
    Executor ex(w.module, k, arch, w.launch, w.memory);
    Profiler prof(w.module, k, arch);
    if (profile) ex.set_consumer(&prof);
    ex.run();
    threads += ex.stats().thread_instructions;
    warps += ex.stats().warp_instructions;
    benchmark::DoNotOptimize(w.memory.buffers.data());
  }
  state.counters["thread_instr/s"] =
      benchmark::Counter(double(threads), benchmark::Counter::kIsRate);
  state.counters["warp_instr/s"] = benchmark::Counter(double(warps), benchmark::Counter::kIsRate);
}

void BM_Histogram(benchmark::State& state) {
  BuiltinOptions o;
  o.width = o.height = 512;
  o.replication = 8;
  o.image = "noise";
  run(state, "histogram", o, state.range(0) != 0);
}
BENCHMARK(BM_Histogram)->Arg(0)->Arg(1)->ArgName("profile")->Unit(benchmark::kMillisecond);

void BM_Transpose(benchmark::State& state) {
  BuiltinOptions o;
  o.width = o.height = 512;
  o.variant = "naive";
  run(state, "transpose", o, state.range(0) != 0);
}
BENCHMARK(BM_Transpose)->Arg(0)->Arg(1)->ArgName("profile")->Unit(benchmark::kMillisecond);

// Issue 16 "must show" 4: the tensor-core GEMM (cp.async, ldmatrix, mma.sync; 256 x 256 x 256) and
// the attention tile (8 heads).
void BM_GemmTc(benchmark::State& state) {
  BuiltinOptions o;
  o.width = o.height = o.size = 256;
  o.variant = "bk64";
  run(state, "gemm", o, state.range(0) != 0);
}
BENCHMARK(BM_GemmTc)->Arg(0)->Arg(1)->ArgName("profile")->Unit(benchmark::kMillisecond);

void BM_AttentionTc(benchmark::State& state) {
  BuiltinOptions o;
  o.size = 8;
  run(state, "attention", o, state.range(0) != 0);
}
BENCHMARK(BM_AttentionTc)->Arg(0)->Arg(1)->ArgName("profile")->Unit(benchmark::kMillisecond);

// Issue 49: the set-up a launch pays before its first instruction, for a 1,082-line module (the
// AES kernels' PTX): parsing it and preparing the executor (operands decoded, registers placed,
// reconvergence points, parameters). Goal: under 5 ms.
void BM_SetupAesModule(benchmark::State& state) {
  const std::string path = std::string(SMEMSIM_PTX_DIR) + "/aes_tbox.ptx";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("no kernel suite PTX");
    return;
  }
  Workload w = make_builtin("aes", BuiltinOptions{}, SMEMSIM_PTX_DIR);
  const Arch& arch = find_preset("volta-v100");
  for (auto _ : state) {
    const ptx::Module m = ptx::parse_file(path);
    Executor ex(m, find_kernel(m, w.kernel), arch, w.launch, w.memory);
    benchmark::DoNotOptimize(ex.cta_count());
  }
}
BENCHMARK(BM_SetupAesModule)->Unit(benchmark::kMillisecond);

// Issue 48: parsing and preparing a kernel of n instructions with n / 2 distinct immediates (a
// generated or unrolled kernel). Each immediate's constant row was found by searching the rows
// before it: 200,000 instructions took 3.8 s and 400,000 32 s; it is a hash now, linear in n.
void BM_PrepareDistinctImmediates(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  std::string t =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry big()\n{\n"
      "  .reg .b32 %r<16>;\n  .reg .pred %p<2>;\n";
  for (int i = 0; i < n; ++i)
    t += i % 2
             ? "  setp.lt.u32 %p1, %r" + std::to_string(2 + i % 10) + ", " + std::to_string(i) +
                   ";\n"
             : "  add.u32 %r" + std::to_string(2 + i % 10) + ", %r1, " + std::to_string(i) + ";\n";
  t += "  ret;\n}\n";
  Launch launch;
  launch.block = {32, 1, 1};
  GlobalMemory memory;
  const Arch& arch = find_preset("volta-v100");
  for (auto _ : state) {
    const ptx::Module m = ptx::parse(t, "big.ptx");
    Executor ex(m, m.kernels[0], arch, launch, memory);
    benchmark::DoNotOptimize(ex.cta_count());
  }
  state.counters["instructions/s"] =
      benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PrepareDistinctImmediates)->Arg(50000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace

// Core speed goals (issue 2 item 4): >= 20 M bank-degree evaluations/s and >= 5 M alg1 latencies/s
// on one core, for uniform random 32-lane patterns over the whole Fermi memory. Arguments: the
// address space, then the analyzer's implementation: 2 AVX-512, 1 AVX2, 0 portable (a kernel this
// CPU lacks is skipped).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "smemsim/evaluate.hpp"
#include "smemsim/patterns.hpp"

namespace smemsim {
namespace {

std::vector<WarpAccess> random_patterns(std::uint64_t space) {
  std::vector<WarpAccess> v;
  GenCommon c;
  c.op = Op::Atomic;
  c.count = 4096;
  c.memory_words = default_arch().memory_words();
  gen_random(c, space, 0, 1, [&](const WarpAccess& wa) { v.push_back(wa); });
  return v;
}

bool use_kernel(ConflictAnalyzer& a, benchmark::State& state) {
  const auto k = static_cast<ConflictAnalyzer::Kernel>(state.range(1));
  if (!a.use_kernel(k)) {
    state.SkipWithError("this CPU lacks the kernel");
    return false;
  }
  state.SetLabel(std::string(ConflictAnalyzer::kernel_name(k)));
  return true;
}

void BM_BankDegree(benchmark::State& state) {
  const auto pats = random_patterns(static_cast<std::uint64_t>(state.range(0)));
  ConflictAnalyzer a(default_arch());
  if (!use_kernel(a, state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    a.load(pats[i], 0, 32);
    benchmark::DoNotOptimize(a.bank_degree());
    i = (i + 1) & 4095;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankDegree)->ArgsProduct({{12288, 1024, 256}, {2, 1, 0}});

void BM_Alg1Latency(benchmark::State& state) {
  const auto pats = random_patterns(static_cast<std::uint64_t>(state.range(0)));
  ConflictAnalyzer a(default_arch());
  if (!use_kernel(a, state)) return;
  auto model = make_latency_model("alg1", default_arch().timing);
  std::size_t i = 0;
  for (auto _ : state) {
    a.load(pats[i], 0, 32);
    benchmark::DoNotOptimize(model->latency(a, Op::Atomic));
    i = (i + 1) & 4095;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Alg1Latency)->ArgsProduct({{12288, 1024, 256}, {2, 1, 0}});

void BM_EvaluateAllDegreesAndLatency(benchmark::State& state) {
  const auto pats = random_patterns(12288);
  AccessEvaluator ev(default_arch());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ev.evaluate(pats[i]));
    i = (i + 1) & 4095;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateAllDegreesAndLatency);

}  // namespace
}  // namespace smemsim

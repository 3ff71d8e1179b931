// The examples of docs/api.md, compiled (not run) by examples/consumer's build so that the page
// stays true to the headers.
#include <string>

#include "smemsim/arch.hpp"
#include "smemsim/conflict.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/trace.hpp"
#include "smemsim/warp_access.hpp"
#include "smemsim/workloads.hpp"

int main() {
  // An arch.
  smemsim::Arch a = smemsim::find_preset("ampere-a100");
  a.sm.count = 8;
  smemsim::validate(a);
  std::string toml = smemsim::to_toml(a, /*comments=*/true);
  // The conflicts of one warp access.
  smemsim::ConflictAnalyzer an(a);
  smemsim::WarpAccess wa;
  for (int lane = 0; lane < 32; ++lane) wa.set(lane, smemsim::WordAddr(33 * lane));
  an.load(wa, 0, 32);
  int banks = an.bank_degree();
  smemsim::Degrees d = an.degrees();
  // Latency and totals.
  smemsim::AccessEvaluator ev(a);
  smemsim::AccessResult r = ev.evaluate(wa);
  // A trace file.
  smemsim::TraceReader in("run.trace", smemsim::TraceLimits{});
  for (smemsim::WarpAccess next; in.next(next);) ev.evaluate(next);
  // A kernel, functionally.
  namespace ex = smemsim::exec;
  ex::BuiltinOptions o;
  o.size = 4096;
  ex::Workload w = ex::make_builtin("reduction", o);
  ex::Workload k;
  k.module = smemsim::ptx::parse_file("k.ptx");
  bool g = false, b = false;
  ex::apply_launch_spec("k.toml", k, g, b);
  ex::Executor run(w.module, ex::find_kernel(w.module, w.kernel), a, w.launch, w.memory);
  run.run();
  std::string mismatch = w.check ? w.check(w.memory) : "";
  // A kernel, cycle by cycle.
  smemsim::timing::GpuSim sim(w.module, ex::find_kernel(w.module, w.kernel), a, w.launch, w.memory,
                              smemsim::timing::TimingOptions{});
  const smemsim::timing::TimingStats& st = sim.run();
  return int(toml.size() + std::size_t(banks + d.bank + r.latency) + mismatch.size() +
             std::size_t(st.cycles)) == -1;
}

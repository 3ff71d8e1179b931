// The replica microbenchmarks' table and runner (replicas.hpp). Each runs its kernel of
// kernels/ubench_replicas.cu on one SM as the source ran it and turns the cycles thread 0 measured
// into the figure.
#include "calibrate/replicas.hpp"

#include <cstring>
#include <functional>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::calibrate {
namespace {

struct Setup {
  std::uint32_t block = 1;
  double steps = 1;  // the figure is cycles / steps
  // Makes the launch's arguments after `out` (buffer 0).
  std::function<std::vector<exec::Arg>(exec::GlobalMemory&)> args;
};

// The methods, from the TITAN V log's sources (docs/calibration.md): one block of one thread.
Setup setup_of(std::string_view name) {
  Setup s;
  s.args = [](exec::GlobalMemory&) { return std::vector<exec::Arg>{}; };
  if (name == "shared_chase") {
    s.steps = 2048;
  } else if (name == "hfma2_chain") {
    s.steps = 4096;
    s.args = [](exec::GlobalMemory&) { return std::vector<exec::Arg>{exec::Arg::real(1.0)}; };
  } else if (name == "global_atomic_chase") {
    s.steps = 1024;
    s.args = [](exec::GlobalMemory& mem) {
      const std::uint32_t g =
          mem.add(exec::Buffer{"ring", exec::ElemType::U32, std::vector<std::uint8_t>(1024 * 4)});
      return std::vector<exec::Arg>{exec::Arg::buf(g)};
    };
  }
  return s;
}

}  // namespace

const std::vector<Replica>& replicas() {
  static const std::vector<Replica> r = {
      {"shared_chase",
       "rep_shared_chase",
       "cycles",
       "p = s[p] on a u64 shared array of 4,096 entries, one thread, 2,048 hops: cycles a hop",
       {"sm.lat_shared_ld"},
       ""},
      {"hfma2_chain",
       "rep_hfma2_chain",
       "cycles",
       "acc = acc * mult + acc on half2 (mul.f16x2, add.f16x2), one thread, 4,096 steps: cycles a "
       "step",
       {"sm.lat_fma"},
       ""},
      {"global_atomic_chase",
       "rep_atomic_chase",
       "cycles",
       "p = atomicAdd(&g[p], 10) on a u32 global ring of 1,024, one thread, 1,024 hops: cycles a "
       "hop",
       {"sm.global_atomic_latency"},
       ""},
  };
  return r;
}

const Replica* find_replica(std::string_view name) {
  for (const Replica& r : replicas())
    if (r.name == name) return &r;
  return nullptr;
}

double run_replica(const Replica& r, const Arch& preset, const std::string& ptx_dir) {
  const ptx::Module m = exec::load_suite_ptx(ptx_dir.empty() ? exec::suite_ptx_dir() : ptx_dir,
                                             "ubench_replicas", "smemsim calibrate");
  Arch arch = preset;
  arch.sm.count = 1;
  const Setup s = setup_of(r.name);
  exec::GlobalMemory mem;
  const std::uint32_t out =
      mem.add(exec::Buffer{"out", exec::ElemType::U32, std::vector<std::uint8_t>(8)});
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {s.block, 1, 1};
  launch.args = {exec::Arg::buf(out)};
  for (const exec::Arg& a : s.args(mem)) launch.args.push_back(a);
  timing::GpuSim sim(m, exec::find_kernel(m, std::string(r.kernel)), arch, launch, mem, {});
  sim.run();
  std::uint32_t cycles = 0;
  std::memcpy(&cycles, mem.find("out")->bytes.data(), 4);
  return double(cycles) / s.steps;
}

}  // namespace smemsim::calibrate

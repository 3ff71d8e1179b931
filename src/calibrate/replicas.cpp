// The replica microbenchmarks' table and runner (replicas.hpp). Each runs its kernel of
// kernels/ubench_replicas.cu on one SM as the source ran it and turns the clocks the kernel
// recorded into the figure, with the source's formula (docs/calibration.md).
#include "calibrate/replicas.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::calibrate {

using Extra = Replica::Extra;

const std::vector<Replica>& replicas() {
  constexpr double kK = 1024;
#define SMEMSIM_REPLICA(name, kernel, unit, what, key, missing, threads, steps, span, rate, \
                        amount, extra, arg)                                                 \
  {name, #kernel, unit, what, key, missing, threads, steps, span, rate, amount, Extra::extra, arg},
  static const std::vector<Replica> r = {
#include "calibrate/replica_table.inc"
  };
#undef SMEMSIM_REPLICA
  return r;
}

const Replica* find_replica(std::string_view name) {
  for (const Replica& r : replicas())
    if (r.name == name) return &r;
  return nullptr;
}

ptx::Module load_replicas(const std::string& ptx_dir) {
  return exec::load_suite_ptx(ptx_dir.empty() ? exec::suite_ptx_dir() : ptx_dir, "ubench_replicas",
                              "smemsim calibrate");
}

double run_replica(const Replica& r, const Arch& preset, const ptx::Module& m) {
  Arch arch = preset;
  arch.sm.count = 1;
  exec::GlobalMemory mem;
  const std::uint32_t clk =
      mem.add(exec::Buffer{"clk", exec::ElemType::U32, std::vector<std::uint8_t>(8u * r.threads)});
  const std::uint32_t out =
      mem.add(exec::Buffer{"out", exec::ElemType::U32, std::vector<std::uint8_t>(4u * r.threads)});
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {r.threads, 1, 1};
  launch.args = {exec::Arg::buf(clk), exec::Arg::buf(out)};
  if (r.extra == Extra::AtomicRing)
    launch.args.push_back(exec::Arg::buf(
        mem.add(exec::Buffer{"ring", exec::ElemType::U32, std::vector<std::uint8_t>(1024 * 4)})));
  if (r.extra == Extra::ChaseRing || r.extra == Extra::FlushRing) {
    // FlushRing: 128 MiB, a 32 MiB ring and 96 MiB to read past it (rep_dram_chase).
    const std::size_t bytes = r.extra == Extra::FlushRing ? std::size_t(128) << 20 : 4096 * 8;
    launch.args.push_back(exec::Arg::buf(
        mem.add(exec::Buffer{"ring", exec::ElemType::U64, std::vector<std::uint8_t>(bytes)})));
    launch.args.push_back(exec::Arg::integer(r.arg));
  }
  if (r.steps) launch.args.push_back(exec::Arg::integer(r.steps));
  timing::GpuSim sim(m, exec::find_kernel(m, std::string(r.kernel)), arch, launch, mem, {});
  sim.run();
  std::vector<std::uint32_t> c(2u * r.threads);
  std::memcpy(c.data(), mem.find("clk")->bytes.data(), c.size() * 4);
  std::uint64_t cycles = std::uint64_t(c[1] - c[0]);  // thread 0 (32-bit %clock wraps)
  if (r.span) {
    std::uint32_t first = c[0], last = c[1];
    for (std::uint32_t t = 1; t < r.threads; ++t) {
      first = std::min(first, c[2 * t]);
      last = std::max(last, c[2 * t + 1]);
    }
    cycles = last - first;
  }
  if (cycles == 0)
    throw std::runtime_error(fmt::format("calibrate: replica {} measured 0 cycles", r.name));
  return r.rate ? r.amount / double(cycles) : double(cycles) / r.amount;
}

}  // namespace smemsim::calibrate

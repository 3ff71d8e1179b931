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
  // {name, kernel, unit, what, key, missing, threads, steps, span, rate, amount, extra, arg}
  static const std::vector<Replica> r = {
      {"shared_chase", "rep_shared_chase", "cycles",
       "p = s[p], u64 s[4096], 1 thread, 2,048 hops: cycles a hop", "sm.lat_shared_ld", "", 1, 0,
       false, false, 2048},
      {"shared_chase32", "rep_shared_bw32", "cycles",
       "t = s[t], u32 s[8192], s[i] = (i + 1,024) % 8,192, 1 thread, 4,096 hops: cycles a hop",
       "sm.lat_shared_ld", "", 1, 0, false, false, 4096},
      {"shared_chase_direct", "rep_shared_chase_direct", "cycles",
       "p = *(s + p) on bytes, u32 s[4096] of byte offsets, 1 thread, 2,048 hops: cycles a hop "
       "(each load's result is the next one's address)",
       "sm.lat_shared_ld", "", 1, 0, false, false, 2048},
      {"hfma2_chain", "rep_hfma2", "cycles",
       "acc = acc * mult + acc on half2 (mul.f16x2, add.f16x2), 1 thread, 4,096 steps: cycles a "
       "step",
       "sm.lat_fp16", "", 1, 4096, false, false, 4096},
      {"ffma_chain", "rep_ffma", "cycles",
       "4 dependent fma.rn.f32 a step, 1 thread, 4,096 steps: cycles an fma", "sm.lat_fma", "", 1,
       4096, false, false, 4 * 4096},
      {"imad_chain", "rep_imad", "cycles",
       "4 dependent mad.lo.s32 a step, 1 thread, 1,024 steps: cycles a mad", "sm.lat_fma", "", 1,
       1024, false, false, 4 * kK},
      {"dfma_chain", "rep_dfma", "cycles",
       "4 dependent fma.rn.f64 a step, 1 thread, 4,096 steps: cycles an fma", "sm.lat_fp64", "", 1,
       4096, false, false, 4 * 4096},
      {"sin_chain", "rep_sin", "cycles",
       "4 dependent sin.approx.ftz.f32 a step, 1 thread, 1,024 steps: cycles a sin", "sm.lat_sfu",
       "", 1, 1024, false, false, 4 * kK},
      {"sqrt_chain", "rep_sqrt", "cycles",
       "4 dependent sqrt.approx.ftz.f32 a step, 1 thread, 1,024 steps: cycles a sqrt", "sm.lat_sfu",
       "", 1, 1024, false, false, 4 * kK},
      {"global_atomic_chase", "rep_atomic_chase", "cycles",
       "p = atomicAdd(&g[p], 10), u32 g[1024], 1 thread, 1,024 hops: cycles a hop",
       "sm.global_atomic_latency", "", 1, 0, false, false, kK, Extra::AtomicRing},
      {"shared_bw32", "rep_shared_bw32", "B/clk/SM",
       "t = s[t], u32 s[8192], 1,024 threads, 4,096 steps, span: bytes a cycle", "", "", 1024, 0,
       true, true, 4096 * kK * 4},
      {"shared_bw64", "rep_shared_bw64", "B/clk/SM",
       "t = s[t], u64 s[4096], 1,024 threads, 4,096 steps, span: bytes a cycle", "", "", 1024, 0,
       true, true, 4096 * kK * 8},
      {"hfma2_tput", "rep_hfma2", "flop/clk/SM",
       "acc = acc * mult + acc on half2, 1,024 threads, 1,024 steps, thread 0: flops a cycle", "",
       "", 1024, 1024, false, true, kK * kK * 4},
      {"ffma_tput", "rep_ffma", "flop/clk/SM",
       "4 dependent fma.rn.f32 a step, 1,024 threads, 1,024 steps, thread 0: flops a cycle", "", "",
       1024, 1024, false, true, kK * kK * 8},
      {"dfma_tput", "rep_dfma", "flop/clk/SM",
       "4 dependent fma.rn.f64 a step, 1,024 threads, 4,096 steps, thread 0: flops a cycle", "", "",
       1024, 4096, false, true, 4096 * kK * 8},
      {"imad_tput", "rep_imad", "flop/clk/SM",
       "4 dependent mad.lo.s32 a step, 1,024 threads, 1,024 steps, thread 0: 2 ops a mad", "", "",
       1024, 1024, false, true, kK * kK * 8},
      {"sqrt_tput", "rep_sqrt", "ops/clk/SM",
       "4 dependent sqrt.approx.ftz.f32 a step, 1,024 threads, 1,024 steps, thread 0: ops a cycle",
       "", "", 1024, 1024, false, true, kK * kK * 4},
      {"l1_chase", "rep_global_chase", "cycles",
       "p = ld.global.ca [p], a ring of 4,096 u64 8 bytes apart, 1 thread, 32,768 hops", "",
       "no L1 cache (issue 44): every load goes to DRAM", 1, 0, false, false, 32768,
       Extra::ChaseRing, 0},
      {"l2_chase", "rep_global_chase", "cycles",
       "p = ld.global.cg [p], a ring of 4,096 u64 8 bytes apart, 1 thread, 32,768 hops", "",
       "no L2 cache (issue 44): every load goes to DRAM", 1, 0, false, false, 32768,
       Extra::ChaseRing, 1},
  };
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
  if (r.extra == Extra::ChaseRing) {
    launch.args.push_back(exec::Arg::buf(
        mem.add(exec::Buffer{"ring", exec::ElemType::U64, std::vector<std::uint8_t>(4096 * 8)})));
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

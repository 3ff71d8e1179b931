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
  constexpr double kMiB = kK * kK;
  constexpr std::int32_t kL2BwSteps = 64, kAtomicSteps = 4;
  static const std::vector<Replica> r = {
#include "calibrate/replica_table.inc"
      // kernels/memory_ubench.cu's streaming kernels, as scripts/memory_measure.cu runs them (a
      // CTA of 1,024 threads on every SM; the figure is one CTA's bytes over the median CTA's
      // span). `arg` is the CTA's region in 16-byte words, `steps` the times it is read. The L1
      // read checks sm.l1_bytes_per_cycle rather than fitting it: the model's figure is bound by
      // the loop's ALU work, not the L1, and l1_bw_64v's 122 B/clk says the L1 delivers more
      // (docs/gpu-runs.md "The memory's bandwidths").
      {"l1_read", "mem_read_ca", "B/clk/SM",
       "ld.global.ca.v4 of the CTA's 32 KiB, 64 times, 1,024 threads, thread 0's clock64 between "
       "two barriers: bytes a cycle",
       "", "", 1024, 64, false, true, 2 * kMiB, Extra::MemReadCa, 2048, true},
      {"l2_read", "mem_read_cg", "B/clk/SM",
       "ld.global.cg.v4 of the CTA's 128 KiB, 16 times, 1,024 threads, thread 0's clock64 "
       "between two barriers: bytes a cycle",
       "sm.l2_slice_bytes_per_cycle", "", 1024, 16, false, true, 2 * kMiB, Extra::MemReadCg, 8192,
       true},
      {"dram_read", "mem_read_cg", "B/clk/SM",
       "ld.global.cg.v4 of the CTA's 16 MiB once, 1,024 threads, thread 0's clock64 between two "
       "barriers: bytes a cycle",
       "sm.global_bytes_per_cycle", "", 1024, 1, false, true, 16 * kMiB, Extra::MemReadCg, 1 << 20,
       false},
      {"dram_write", "mem_write", "B/clk/SM",
       "st.global.v4 of the CTA's 16 MiB once, 1,024 threads, thread 0's clock64 between two "
       "barriers: bytes a cycle",
       "sm.global_bytes_per_cycle", "", 1024, 0, false, true, 16 * kMiB, Extra::MemWrite, 1 << 20,
       false},
      // The same streams from one CTA alone on the GPU (scripts/memory_scaling.cu --figures): the
      // whole L2 and DRAM behind one SM, so what limits them is the SM (its warps' loads in
      // flight, its port to the L2), not the slices or channels every SM shares.
      {"l2_read_1cta", "mem_read_cg", "B/clk/SM",
       "ld.global.cg.v4 of 128 KiB, 16 times, one CTA of 1,024 threads alone on the GPU, thread "
       "0's clock64 between two barriers: bytes a cycle",
       "", "", 1024, 16, false, true, 2 * kMiB, Extra::MemReadCg, 8192, true, true},
      {"dram_read_1cta", "mem_read_cg", "B/clk/SM",
       "ld.global.cg.v4 of 16 MiB once, one CTA of 1,024 threads alone on the GPU, thread 0's "
       "clock64 between two barriers: bytes a cycle",
       "", "", 1024, 1, false, true, 16 * kMiB, Extra::MemReadCg, 1 << 20, false, true},
      {"dram_write_1cta", "mem_write", "B/clk/SM",
       "st.global.v4 of 16 MiB once, one CTA of 1,024 threads alone on the GPU, thread 0's "
       "clock64 between two barriers: bytes a cycle",
       "sm.l2_write_bytes_per_cycle", "", 1024, 0, false, true, 16 * kMiB, Extra::MemWrite, 1 << 20,
       false, true},
      // One word's atomics as the L2 executes them, 32 lanes a warp (ptxas cannot aggregate
      // them: the address comes through a table).
      {"atomic_word_warp", "mem_atomic_ind", "cycles",
       "atomicAdd by 32 lanes to one global word, the address through a table, result used, 16 "
       "a thread, one warp alone, thread 0's clock64: cycles a warp's atomic",
       "sm.l2_atomic_cycles", "", 32, 16, false, false, 16, Extra::MemAtomic, 0, false, true},
      {"atomic_word_cta", "mem_atomic_ind", "ops/clk/SM",
       "atomicAdd by 1,024 threads to one global word, the address through a table, result used, "
       "16 a thread, one CTA alone, thread 0's clock64: updates a cycle",
       "sm.l2_atomic_cycles", "", 1024, 16, false, true, 16 * kK, Extra::MemAtomic, 0, false, true},
      // A bulk copy's latency from issue to its mbarrier's phase, one thread (the TMA's
      // non-tensor form): the model reads the L2 as the TMA does, and the waiting thread is
      // suspended until the phase flips. The small copy checks the L2's latency (no key of its
      // own); the larger ones, one SM alone pulling from the shared L2, fit the SM's port to it.
      {"bulk_copy_16", "bulk_latency", "cycles",
       "cp.async.bulk of 16 bytes from the L2 to shared memory, then mbarrier.try_wait.parity "
       "until its phase flips, 1 thread, 256 copies: cycles a copy",
       "", "", 32, 256, false, false, 256, Extra::BulkCopy, 16, false},
      {"bulk_copy_4096", "bulk_latency", "cycles",
       "cp.async.bulk of 4,096 bytes from the L2 to shared memory, then mbarrier.try_wait.parity "
       "until its phase flips, 1 thread, 256 copies: cycles a copy",
       "sm.l2_bytes_per_cycle", "", 32, 256, false, false, 256, Extra::BulkCopy, 4096, false},
      {"bulk_copy_32768", "bulk_latency", "cycles",
       "cp.async.bulk of 32,768 bytes from the L2 to shared memory, then "
       "mbarrier.try_wait.parity until its phase flips, 1 thread, 256 copies: cycles a copy",
       "sm.l2_bytes_per_cycle", "", 32, 256, false, false, 256, Extra::BulkCopy, 32768, false},
      // Hopper's warpgroup multiply (issue 46), Luo et al. 2024's Table X: one warpgroup's
      // m64nNk16 (f32 += f16 x f16) into one accumulator, back to back. For N >= 64 the tensor
      // cores' rate decides it (sm.wgmma_fmas, the whitepaper's); for small N with A and B from
      // shared memory their reads (A 2 KiB, 16 passes a product, B N / 4); with A from registers
      // the product's least time on the tensor core, sm.lat_wgmma, fitted to m64n8k16's.
      {"wgmma_n8", "wgmma_latency_n8", "cycles",
       "1,024 wgmma.mma_async m64n8k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_n16", "wgmma_latency_n16", "cycles",
       "1,024 wgmma.mma_async m64n16k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_n32", "wgmma_latency_n32", "cycles",
       "1,024 wgmma.mma_async m64n32k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_n64", "wgmma_latency_n64", "cycles",
       "1,024 wgmma.mma_async m64n64k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_n128", "wgmma_latency_n128", "cycles",
       "1,024 wgmma.mma_async m64n128k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_n256", "wgmma_latency_n256", "cycles",
       "1,024 wgmma.mma_async m64n256k16, A and B from shared memory (128B swizzle), f32 += f16 x "
       "f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_rs_n8", "wgmma_latency_rs_n8", "cycles",
       "1,024 wgmma.mma_async m64n8k16, A from registers (128B swizzle), f32 += f16 x f16 into one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "sm.lat_wgmma", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_rs_n16", "wgmma_latency_rs_n16", "cycles",
       "1,024 wgmma.mma_async m64n16k16, A from registers (128B swizzle), f32 += f16 x f16 into "
       "one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      {"wgmma_rs_n32", "wgmma_latency_rs_n32", "cycles",
       "1,024 wgmma.mma_async m64n32k16, A from registers (128B swizzle), f32 += f16 x f16 into "
       "one "
       "accumulator, then commit and wait; one warpgroup: cycles a product",
       "", "", 128, 1024, false, false, 1024, Extra::Wgmma, 0, false},
      // Distributed shared memory (issue 46): a cluster of 2 CTAs on two SMs of one GPC
      // (kernels/hopper_ubench.cu). Luo et al. 2024 (§III.D.3, H800): a chain of adds to the
      // partner's word fits the network's latency, and 1,024 threads adding 8 words each a step
      // its rate. Our H100's chases check the latency: in the partner's shared memory, and
      // through the CTA's own window (a local access); both loops test a counter for the clock
      // each step, which the GPU pays for and the model hides (docs/timing.md "Clusters").
      {"dsm_chase_peer", "dsm_chase", "cycles",
       "a cluster of 2 CTAs of 128 threads: thread 0 of rank 0 chases byte offsets in the "
       "partner's shared memory (ld.shared::cluster at mapa's base + the last word), 64 "
       "unclocked steps then 256, %clock around them: cycles a hop",
       "", "", 128, 256, false, false, 256, Extra::DsmChase, 1, false},
      {"dsm_chase_own", "dsm_chase", "cycles",
       "the same chase in the CTA's own shared memory through its cluster window: cycles a hop", "",
       "", 128, 256, false, false, 256, Extra::DsmChase, 0, false},
      {"dsm_latency", "dsm_latency", "cycles",
       "a cluster of 2 CTAs of one thread: 256 atomicAdds to a word of the partner CTA's shared "
       "memory, each add's old value the next one's operand, %clock around them: cycles an add",
       "sm.lat_dsm", "", 1, 256, false, false, 256, Extra::Dsm, 0, false},
      {"dsm_throughput", "dsm_throughput", "B/clk/SM",
       "a cluster of 2 CTAs of 1,024 threads: each thread adds 8 registers to 8 words of the "
       "partner CTA's shared memory, 256 times, thread 0's %clock around the loop and a "
       "barrier: bytes a cycle of one SM",
       "sm.dsm_bytes_per_cycle", "", 1024, 256, false, true, 1024.0 * 4 * 8 * 256, Extra::Dsm, 0,
       false},
      // Accel-Sim's whole-GPU figures (calibration/titanv-accelsim.toml), launched as it launched
      // them: 1,024-thread CTAs on every thread slot of every SM. Their loops are the source's
      // with fewer steps (`steps`; the figure is a steady rate, which the first steps' ramp
      // changes by under 1 % at these counts: docs/calibration.md "The whole GPU's rates").
      {"l2_bw_64f", "rep_l2_bw_64f", "B/clk",
       "after a warm-up pass, ld.global.cg.f64 of a[32 i + uid] added up, every thread of the "
       "GPU, 64 steps, thread 0's %clock between two barriers: bytes a cycle",
       "sm.l2_slice_bytes_per_cycle", "", 1024, kL2BwSteps, false, true, 8.0 * kL2BwSteps,
       Extra::L2Bw64, 0, false, false, true},
      {"mem_bw", "rep_mem_bw", "B/clk",
       "a grid-stride loop reading five float4 arrays of twice the L2 and writing their sum to a "
       "sixth, every thread of the GPU, thread 0's %clock between two barriers: bytes a cycle",
       "sm.dram_bytes_per_cycle", "", 1024, 0, false, true, 96, Extra::MemBw, 0, false, false,
       true},
      {"atomic_add_bw_conflict", "rep_atomic_conflict", "B/clk",
       "atomicAdd(&word[0], 10) by every thread of the GPU, results summed, 4 a thread, the span "
       "over all threads: bytes a cycle",
       "sm.l2_atomic_cycles", "", 1024, kAtomicSteps, true, true, 4.0 * kAtomicSteps,
       Extra::AtomicConflict, 0, false, false, true},
  };
#undef SMEMSIM_REPLICA
  return r;
}

const Replica* find_replica(std::string_view name) {
  for (const Replica& r : replicas())
    if (r.name == name) return &r;
  return nullptr;
}

Code load_replicas(const std::string& ptx_dir) {
  const std::string dir = ptx_dir.empty() ? exec::suite_ptx_dir() : ptx_dir;
  return {exec::load_suite_ptx(dir, "ubench_replicas", "smemsim calibrate"),
          exec::load_suite_ptx(dir, "memory_ubench", "smemsim calibrate"),
          exec::load_suite_ptx(dir, "hopper_ubench", "smemsim calibrate"),
          exec::load_suite_ptx(dir, "wgmma", "smemsim calibrate")};
}

namespace {

// The most rep_mem_bw's six arrays may take, MiB: 630 MiB on hopper-h100's 50 MB L2, 75 on
// volta-v100's; the largest sm.l2_bytes (256 MiB) would take 3 GiB and minutes.
constexpr double kMemBwMaxMiB = 1024;

// rep_mem_bw's float4s an array: twice the L2 in floats, in fours (the source's
// ARRAY_SIZE / 4 with ARRAY_SIZE = L2 bytes / 4 x 2).
std::uint32_t mem_bw_float4s(const Arch& arch) {
  return std::uint32_t(std::max<std::uint64_t>(arch.sm.l2_bytes / 8, 1));
}

// The buffers replica `r`'s kernel takes, added to `mem`, and its arguments (the clocks first);
// `all` is the launch's threads.
std::vector<exec::Arg> arguments(const Replica& r, exec::GlobalMemory& mem, const Arch& arch,
                                 std::uint32_t all) {
  auto buffer = [&](const char* name, exec::ElemType t, std::size_t bytes, std::uint8_t fill = 0) {
    return exec::Arg::buf(mem.add(exec::Buffer{name, t, std::vector<std::uint8_t>(bytes, fill)}));
  };
  using exec::ElemType;
  switch (r.extra) {
    case Extra::L2Bw64: {  // rep_l2_bw_64f(clk, out, a, n, steps)
      const std::uint32_t n = all + 32u * std::uint32_t(r.steps);
      return {buffer("clk", ElemType::U32, 8u * all), buffer("out", ElemType::F64, 8u * all),
              buffer("a", ElemType::F64, 8u * n), exec::Arg::integer(n),
              exec::Arg::integer(r.steps)};
    }
    case Extra::MemBw: {  // rep_mem_bw(clk, a, b, c, d, e, f, n4)
      const std::uint32_t n4 = mem_bw_float4s(arch);
      std::vector<exec::Arg> a = {buffer("clk", ElemType::U32, 8u * all)};
      for (const char* name : {"a", "b", "c", "d", "e", "f"})
        a.push_back(buffer(name, ElemType::F32, 16u * std::size_t(n4)));
      a.push_back(exec::Arg::integer(n4));
      return a;
    }
    case Extra::AtomicConflict:  // rep_atomic_conflict(clk, out, word, steps)
      return {buffer("clk", ElemType::U32, 8u * all), buffer("out", ElemType::U32, 4u * all),
              buffer("word", ElemType::U32, 4), exec::Arg::integer(r.steps)};
    default:
      break;
  }
  std::vector<exec::Arg> a;
  if (r.extra == Extra::MemAtomic)  // mem_atomic_ind(clk, word, idx, out, iters), idx all 0
    return {buffer("clk", exec::ElemType::U64, 16), buffer("word", exec::ElemType::U32, 4),
            buffer("idx", exec::ElemType::U32, 4u * r.threads),
            buffer("out", exec::ElemType::U32, 4u * r.threads), exec::Arg::integer(r.steps)};
  if (r.memory()) {  // mem_read_ca/cg(clk, in, out, n16, reps), mem_write(clk, dst, n16)
    a = {buffer("clk", exec::ElemType::U64, 16),
         buffer("data", exec::ElemType::U32, std::size_t(r.arg) * 16, 1)};
    if (r.extra != Extra::MemWrite) a.push_back(buffer("out", exec::ElemType::U32, 4u * r.threads));
    a.push_back(exec::Arg::integer(r.arg));
    if (r.extra != Extra::MemWrite) a.push_back(exec::Arg::integer(r.steps));
    return a;
  }
  if (r.extra == Extra::Wgmma || r.extra == Extra::Dsm)  // kernel(clk, steps)
    return {buffer("clk", exec::ElemType::U32, 16), exec::Arg::integer(r.steps)};
  if (r.extra == Extra::DsmChase)  // dsm_chase(clk, target, steps)
    return {buffer("clk", exec::ElemType::U32, 16), exec::Arg::integer(r.arg),
            exec::Arg::integer(r.steps)};
  if (r.extra == Extra::BulkCopy)  // bulk_latency(clk, src, bytes, steps)
    return {buffer("clk", exec::ElemType::U32, 16),
            buffer("src", exec::ElemType::U8, std::size_t(1) << 16, 1), exec::Arg::integer(r.arg),
            exec::Arg::integer(r.steps)};
  a = {buffer("clk", exec::ElemType::U32, 8u * r.threads),
       buffer("out", exec::ElemType::U32, 4u * r.threads)};
  if (r.extra == Extra::AtomicRing) a.push_back(buffer("ring", exec::ElemType::U32, 1024 * 4));
  if (r.extra == Extra::ChaseRing || r.extra == Extra::FlushRing) {
    // FlushRing: 128 MiB, a 32 MiB ring and 96 MiB to read past it (rep_dram_chase).
    a.push_back(buffer("ring", exec::ElemType::U64,
                       r.extra == Extra::FlushRing ? std::size_t(128) << 20 : 4096 * 8));
    a.push_back(exec::Arg::integer(r.arg));
  }
  if (r.steps) a.push_back(exec::Arg::integer(r.steps));
  return a;
}

// The cycles the kernel timed: thread 0's clocks (a 64-bit clock64 pair for the memory
// kernels, else a 32-bit %clock pair, which wraps), or with `span` from the first start to the
// last stop of the launch's `all` threads.
std::uint64_t cycles_of(const Replica& r, const exec::Buffer& clk, std::uint32_t all) {
  if (r.memory()) {
    std::uint64_t c[2];
    std::memcpy(c, clk.bytes.data(), sizeof c);
    return c[1] > c[0] ? c[1] - c[0] : 0;
  }
  std::vector<std::uint32_t> c(r.span ? 2u * all : 2u);
  std::memcpy(c.data(), clk.bytes.data(), c.size() * 4);
  std::uint32_t first = c[0], last = c[1];
  for (std::uint32_t t = 1; r.span && t < all; ++t) {
    first = std::min(first, c[2 * t]);
    last = std::max(last, c[2 * t + 1]);
  }
  return std::uint32_t(last - first);
}

}  // namespace

void check_runnable(const Replica& r, const Arch& arch) {
  if (r.extra != Extra::MemBw) return;
  // Its arrays are sized by the L2 (twice it each, six of them): none to size them by, or more
  // than this replica should allocate and stream, is the arch's fault.
  const double mib = 96.0 * double(arch.sm.l2_bytes / 8) / (1 << 20);
  if (!arch.sm.l2_bytes)
    throw InputError(fmt::format(
        "calibrate: replica {} sizes its six arrays at twice sm.l2_bytes, which is 0", r.name));
  if (mib > kMemBwMaxMiB)
    throw InputError(
        fmt::format("calibrate: replica {} would stream six arrays of twice sm.l2_bytes ({}), "
                    "{:.0f} MiB in all; it runs up to {:.0f} MiB",
                    r.name, arch.sm.l2_bytes, mib, kMemBwMaxMiB));
}

double run_replica(const Replica& r, const Arch& preset, const Code& code, std::uint32_t threads) {
  // One CTA, on one SM. A figure measured with a CTA on every SM (the memory kernels) gets that
  // SM's share of the L2: with a shared L2 (sm.l2_slices) 1 / sm.count of its lines and of the
  // slices' and DRAM channels' rates (TimingOptions::l2_share); without, the SM's share is the
  // model's anyway. The other figures (one CTA on the GPU) have the whole L2.
  // A whole-GPU replica runs as it ran: every SM, the whole L2.
  Arch arch = preset;
  timing::TimingOptions opt;
  if (!r.whole && arch.sm.l2_slices) {
    if (r.memory() && !r.alone) opt.l2_share = std::max(arch.sm.count, 1u);
  } else if (!r.whole) {
    if (arch.sm.count > 1) arch.sm.l2_bytes /= arch.sm.count;
    arch.sm.count = 1;
  }
  // A cluster's replica runs one cluster of 2 CTAs, on two SMs of one GPC.
  const std::uint32_t grid =
      r.whole       ? std::max(arch.sm.max_threads / r.threads, 1u) * std::max(arch.sm.count, 1u)
      : r.cluster() ? 2
                    : 1;
  if (r.cluster() && !arch.sm.l2_slices) arch.sm.count = 2;
  const std::uint32_t all = grid * r.threads;
  check_runnable(r, arch);
  const ptx::Module& m = r.memory()                   ? code.memory
                         : r.extra == Extra::BulkCopy ? code.hopper
                         : r.cluster()                ? code.hopper
                         : r.extra == Extra::Wgmma    ? code.wgmma
                                                      : code.replicas;
  exec::GlobalMemory mem;
  exec::Launch launch;
  launch.grid = {grid, 1, 1};
  launch.block = {r.threads, 1, 1};
  launch.args = arguments(r, mem, arch, all);
  opt.warm_l2 = r.warm_l2;
  opt.threads = std::clamp(threads, 1u, std::max(grid, 1u));
  timing::GpuSim sim(m, exec::find_kernel(m, std::string(r.kernel)), arch, launch, mem, opt);
  sim.run();
  const std::uint64_t cycles = cycles_of(r, *mem.find("clk"), all);
  if (cycles == 0)
    throw std::runtime_error(fmt::format("calibrate: replica {} measured 0 cycles", r.name));
  const double amount = !r.whole                  ? r.amount
                        : r.extra == Extra::MemBw ? r.amount * mem_bw_float4s(arch)
                                                  : r.amount * all;
  return r.rate ? amount / double(cycles) : double(cycles) / amount;
}

}  // namespace smemsim::calibrate

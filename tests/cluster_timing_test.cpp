// Thread-block clusters in the cycle model (issue 46; docs/timing.md "Clusters"): a cluster's
// CTAs start together on different SMs of one GPC, reach each other's shared memory over the
// SM-to-SM network (sm.lat_dsm, sm.dsm_bytes_per_cycle through the MIO queues), and meet at the
// cluster barrier across SMs. Results are checked against CPU computations written out here from
// kernels/cluster.cu; timings against derivations from the keys in each test's comment.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "calibrate/replicas.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::timing {
namespace {

exec::Workload suite_cluster(const std::string& spec, exec::Dim3 grid, exec::Dim3 block) {
  exec::Workload w;
  w.module = exec::load_suite_ptx(exec::suite_ptx_dir(), "cluster", "cluster_timing_test");
  bool g = false, b = false;
  exec::apply_launch_spec_text(spec, "cluster.toml", w, g, b);
  w.launch.grid = grid;
  w.launch.block = block;
  return w;
}

TimingStats simulate(exec::Workload& w, const Arch& arch, TimingOptions opt = {}) {
  GpuSim sim(w.module, exec::find_kernel(w.module, w.kernel), arch, w.launch, w.memory, opt);
  return sim.run();
}

std::vector<std::int32_t> words_of(const exec::Workload& w, const std::string& name) {
  const exec::Buffer& b = *w.memory.find(name);
  std::vector<std::int32_t> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

const std::string kExchange =
    "kernel = \"cluster_exchange\"\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\n"
    "count = 2048\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 2048\n";

TEST(ClusterTiming, PartnersExchangeTilesOnTwoSmsOfOneGpc) {
  // cluster_exchange on hopper-h100, 8 CTAs of 256 threads in clusters of 2: out[256 b + t] =
  // in[256 (b ^ 1) + 255 - t] + 1000 (b mod 2), in = 0, 1, 2, ... The dispatcher tries the GPCs
  // in turn (18 SMs each), each cluster on the first two SMs with room of the GPC after the last
  // one's: cluster c on SMs 18c and 18c + 1, one CTA each, every other SM none.
  exec::Workload w = suite_cluster(kExchange, {8, 1, 1}, {256, 1, 1});
  const TimingStats st = simulate(w, find_preset("hopper-h100"));
  const std::vector<std::int32_t> out = words_of(w, "out");
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 256; ++t)
      ASSERT_EQ(out[std::size_t(256 * b + t)], 256 * (b ^ 1) + 255 - t + 1000 * (b % 2))
          << b << " " << t;
  ASSERT_EQ(st.sms.size(), 132u);
  for (std::size_t i = 0; i < st.sms.size(); ++i)
    EXPECT_EQ(st.sms[i].ctas, i / 18 < 4 && i % 18 < 2 ? 1u : 0u) << "SM " << i;
  // Each warp reads its partner's 32 words reversed, 128 aligned bytes: 4 segments of 32 bytes,
  // 8 warps a CTA, 8 CTAs: 256 segments over the network; the tiles' own writes none.
  EXPECT_EQ(st.units.dsm_segments, 256u);
  EXPECT_GT(st.units.dsm_requests, 0u);
}

TEST(ClusterTiming, TheSameCyclesOnAnyThreadCount) {
  // A cluster's SMs touch each other's state as they issue: a GPC's SMs tick on one thread, in SM
  // order, the GPCs on the workers (here the four clusters' four GPCs on two, every cycle: no
  // fewest-SMs threshold), so the result is the same bit for bit.
  exec::Workload a = suite_cluster(kExchange, {8, 1, 1}, {256, 1, 1});
  exec::Workload b = suite_cluster(kExchange, {8, 1, 1}, {256, 1, 1});
  TimingOptions two;
  two.threads = 2;
  two.parallel_min_sms = 1;
  const TimingStats one = simulate(a, find_preset("hopper-h100"));
  const TimingStats par = simulate(b, find_preset("hopper-h100"), two);
  EXPECT_EQ(one.cycles, par.cycles);
  EXPECT_EQ(one.warp_instructions, par.warp_instructions);
  EXPECT_EQ(words_of(a, "out"), words_of(b, "out"));
}

TEST(ClusterTiming, AtomicsIntoPartnersBuildOneHistogramAcrossSms) {
  // cluster_histogram, 5,000 values, 4 CTAs of 128 threads (2 clusters), as in
  // Cluster.AtomicsIntoAPartnersSharedMemoryBuildOneHistogram: element i is taken by CTA
  // (i mod 512) / 128, so by cluster (i mod 512) / 256, whose 128 bins count its elements'
  // v & 127. Here the two CTAs of a cluster are on two SMs: the zeroing, the adds and the read-out
  // are ordered only by the cluster barrier, which must hold each SM's warps for the other's.
  std::mt19937 gen(17);
  std::vector<int> values(5000);
  std::string list;
  for (int& v : values) {
    v = int(gen() % 1000);
    list += (list.empty() ? "" : ", ") + std::to_string(v);
  }
  exec::Workload w = suite_cluster(
      "kernel = \"cluster_histogram\"\nargs = [\"v\", 5000, \"bins\"]\n[buffers.v]\ntype = "
      "\"s32\"\ninit = \"values\"\nvalues = [" +
          list + "]\n[buffers.bins]\ntype = \"s32\"\ncount = 256\n",
      {4, 1, 1}, {128, 1, 1});
  const TimingStats st = simulate(w, find_preset("hopper-h100"));
  std::vector<std::int32_t> want(256, 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    ++want[std::size_t(128 * ((i % 512) / 256) + (values[i] & 127))];
  EXPECT_EQ(words_of(w, "bins"), want);
  EXPECT_GT(st.units.dsm_segments, 0u);
}

double replica(const char* name, const Arch& arch) {
  static const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica* r = calibrate::find_replica(name);
  EXPECT_NE(r, nullptr) << name;
  return r ? calibrate::run_replica(*r, arch, code) : 0;
}

TEST(ClusterTiming, EachAddOfTheChainWaitsOutTheNetworkLatency) {
  // dsm_latency: one thread adds to its partner's word 256 times, each add's old value the next
  // one's operand, so each add issues when the one before has returned. sm.lat_dsm is the time
  // from an add's issue to its result: raising it by 100 cycles lengthens every add the clock
  // waits for by exactly 100. The stop clock is read once the last add has issued, not returned:
  // 255 of the 256 adds are on the clocked path, 100 x 255 / 256 cycles more an add; and an add
  // takes at least the key less the part it spends after the clock (255 / 256 of it).
  Arch arch = find_preset("hopper-h100");
  const double base = replica("dsm_latency", arch);
  EXPECT_GE(base, double(arch.sm.lat_dsm) * 255 / 256);
  arch.sm.lat_dsm += 100;
  EXPECT_DOUBLE_EQ(replica("dsm_latency", arch) - base, 100.0 * 255 / 256);
}

TEST(ClusterTiming, ManyAddsAreBoundByTheSmsPortToTheNetwork) {
  // dsm_throughput: 1,024 threads a CTA each add 8 registers to 8 words of the partner's shared
  // memory, 256 steps; a warp's add covers 32 consecutive words, 4 segments of 32 bytes. With 32
  // warps and 8 independent adds each, the port is never idle: at R bytes a cycle an add holds it
  // 128 / R cycles, so an SM moves R bytes a cycle. The clock stops when the last adds have
  // issued, while the MIO queues (sm.mio_queue entries a sub-core) still hold some for the port:
  // a little more than R, under 3 % over 256 steps; and half the rate, half the bytes a cycle.
  Arch arch = find_preset("hopper-h100");
  double got[2] = {0, 0};
  for (const std::uint32_t rate : {8u, 16u}) {
    arch.sm.dsm_bytes_per_cycle = rate;
    const double g = replica("dsm_throughput", arch);
    got[rate / 16] = g;
    EXPECT_GE(g, double(rate)) << rate;
    EXPECT_LE(g, double(rate) * 1.03) << rate;
  }
  EXPECT_NEAR(got[1] / got[0], 2.0, 0.05);
}

TEST(ClusterTiming, RefusalsAreOneLineErrors) {
  const auto fails = [](const std::string& want, auto&& f) {
    try {
      f();
      ADD_FAILURE() << "ran; wanted: " << want;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  // A GPU without GPCs in the model (volta-v100), a cluster larger than the arch allows, and
  // --sample-ctas (whose untimed CTAs would run one at a time).
  fails("sm.gpc_sms = 0", [] {
    exec::Workload w = suite_cluster(kExchange, {2, 1, 1}, {256, 1, 1});
    simulate(w, find_preset("volta-v100"));
  });
  fails("allows at most 1 (sm.max_cluster)", [] {
    exec::Workload w = suite_cluster(kExchange, {2, 1, 1}, {256, 1, 1});
    Arch a = find_preset("hopper-h100");
    a.sm.max_cluster = 1;
    simulate(w, a);
  });
  // run refuses a cluster larger than the arch allows as well (a hand-written 32-CTA cluster).
  fails("allows at most 16 (sm.max_cluster)", [] {
    const ptx::Module big = ptx::parse(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n"
        ".explicitcluster\n.reqnctapercluster 32, 1, 1\n{\nret;\n}\n",
        "big.ptx");
    exec::GlobalMemory mem;
    exec::Launch l;
    l.grid = {32, 1, 1};
    l.block = {32, 1, 1};
    exec::Executor ex(big, big.kernels[0], find_preset("hopper-h100"), l, mem);
    ex.run();
  });
  // A multicast's ctaMask naming a rank the cluster does not have (bit 2 of a cluster of 2).
  fails("names no CTA, or a rank past the cluster's 2", [] {
    const ptx::Module bad = ptx::parse(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n"
        ".explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n.reg .b16 %rs<2>;\n.reg .b32 %r<4>;\n"
        ".reg .b64 %rd<4>;\n.shared .align 128 .b8 s[64];\n.shared .align 8 .b64 bar;\n"
        "ld.param.u64 %rd1, [p];\nmov.u32 %r1, s;\nmov.u32 %r2, bar;\n"
        "mbarrier.init.shared::cta.b64 [%r2], 1;\nmov.u16 %rs1, 4;\n"
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%r1], [%rd1], 16, [%r2], %rs1;\nret;\n}\n",
        "mask.ptx");
    exec::GlobalMemory mem;
    exec::Launch l;
    l.grid = {2, 1, 1};
    l.block = {32, 1, 1};
    l.args.push_back(
        exec::Arg::buf(mem.add({"g", exec::ElemType::U32, std::vector<std::uint8_t>(16, 0)})));
    exec::Executor ex(bad, bad.kernels[0], find_preset("hopper-h100"), l, mem);
    ex.run();
  });
  // An arch whose clusters could not fit a GPC.
  fails("is not between 1 and sm.gpc_sms = 1", [] {
    Arch a = find_preset("hopper-h100");
    a.sm.gpc_sms = 1;
    validate(a);
  });
  // A kernel that never ends: rank 0 waits at the cluster barrier, rank 1 on an mbarrier nothing
  // arrives at. run finds the deadlock at once; sim at its spin check (every 65,536 cycles), the
  // barrier's wait re-issued every kTryWaitSuspend cycles; both name the instruction as written.
  const ptx::Module hang = ptx::parse(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n.explicitcluster\n"
      ".reqnctapercluster 2, 1, 1\n{\n.reg .pred %p<3>;\n.reg .b32 %r<4>;\n"
      ".shared .align 8 .b64 bar;\nmov.u32 %r1, %cluster_ctarank;\nmov.u32 %r2, bar;\n"
      "mbarrier.init.shared::cta.b64 [%r2], 1;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra WAITBAR;\n"
      "barrier.cluster.arrive;\nbarrier.cluster.wait;\nret;\nWAITBAR:\n"
      "W: mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n@!%p2 bra W;\nret;\n}\n",
      "hang.ptx");
  exec::Launch two;
  two.grid = {2, 1, 1};
  two.block = {32, 1, 1};
  for (const char* part : {"barrier.cluster.wait;",
                           "of the cluster of block (0,0,0) waits at the "
                           "cluster barrier or for an mbarrier phase",
                           "warp 0 of block (1,0,0)"})
    fails(part, [&] {
      exec::GlobalMemory mem;
      exec::Executor ex(hang, hang.kernels[0], find_preset("hopper-h100"), two, mem);
      ex.run();
    });
  fails("never ends", [&] {
    exec::GlobalMemory mem;
    GpuSim sim(hang, hang.kernels[0], find_preset("hopper-h100"), two, mem, {});
    sim.run();
  });
  fails("--sample-ctas", [] {
    exec::Workload w = suite_cluster(kExchange, {2, 1, 1}, {256, 1, 1});
    TimingOptions o;
    o.sample_ctas = 1;
    simulate(w, find_preset("hopper-h100"), o);
  });
  // Reading a partner's shared memory after the partner has exited: rank 1 leaves at once after
  // the cluster barrier, rank 0 reads its memory 200 loop iterations later.
  const ptx::Module m = ptx::parse(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n"
      ".explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n.reg .pred %p<3>;\n.reg .b32 %r<8>;\n"
      ".shared .align 4 .b8 s[64];\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\n"
      "mov.u32 %r1, %cluster_ctarank;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra DONE;\n"
      "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 200;\n"
      "@%p2 bra LOOP;\nmov.u32 %r3, s;\nmapa.shared::cluster.u32 %r4, %r3, 1;\n"
      "ld.shared::cluster.u32 %r5, [%r4];\nDONE:\nret;\n}\n",
      "gone.ptx");
  fails("which has exited", [&] {
    exec::GlobalMemory mem;
    exec::Launch l;
    l.grid = {2, 1, 1};
    l.block = {32, 1, 1};
    l.args.push_back(
        exec::Arg::buf(mem.add({"o", exec::ElemType::U32, std::vector<std::uint8_t>(4, 0)})));
    GpuSim sim(m, m.kernels[0], find_preset("hopper-h100"), l, mem, {});
    sim.run();
  });
}

}  // namespace
}  // namespace smemsim::timing

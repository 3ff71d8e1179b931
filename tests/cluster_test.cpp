// Thread-block clusters and distributed shared memory (issue 46; kernels/cluster.cu, its PTX
// shipped in kernels/ptx): a cluster's CTAs run together under `run`, read and write each other's
// shared memory through mapa's addresses, meet at barrier.cluster, and see their place in the
// cluster in the special registers. Each result is checked against a CPU computation written out
// here from the kernel's CUDA source.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

#include "ptx_line.hpp"

namespace smemsim::exec {
namespace {

Workload cluster_workload(const std::string& spec, Dim3 grid, Dim3 block) {
  Workload w;
  w.module = load_suite_ptx(suite_ptx_dir(), "cluster", "cluster_test");
  bool g = false, b = false;
  apply_launch_spec_text(spec, "cluster.toml", w, g, b);
  w.launch.grid = grid;
  w.launch.block = block;
  return w;
}

void run(Workload& w) {
  Executor ex(w.module, find_kernel(w.module, w.kernel), find_preset("hopper-h100"), w.launch,
              w.memory);
  ex.run();
}

std::vector<std::int32_t> ints(const Workload& w, const std::string& name) {
  const Buffer& b = *w.memory.find(name);
  std::vector<std::int32_t> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

// Runs the launch `spec` on 4 CTAs of `threads` threads under `run` and then under `sim` on
// hopper-h100, expects `out` to equal `want` under both, and returns the cycle model's statistics.
timing::TimingStats run_and_time(const std::string& spec, std::uint32_t threads,
                                 const std::vector<std::int32_t>& want) {
  Workload w = cluster_workload(spec, {4, 1, 1}, {threads, 1, 1});
  run(w);
  EXPECT_EQ(ints(w, "out"), want) << "run";
  Workload t = cluster_workload(spec, {4, 1, 1}, {threads, 1, 1});
  timing::GpuSim sim(t.module, find_kernel(t.module, t.kernel), find_preset("hopper-h100"),
                     t.launch, t.memory, {});
  timing::TimingStats st = sim.run();
  EXPECT_EQ(ints(t, "out"), want) << "sim";
  return st;
}

TEST(Cluster, PartnersReadEachOthersTilesAfterTheClusterBarrier) {
  // cluster_exchange, 4 CTAs in clusters of 2: out[256 b + t] = in[256 (b ^ 1) + 255 - t] +
  // 1000 (b mod 2), with in = 0, 1, 2, ... The CTAs' warps take turns in rank order: without
  // the barrier, rank 0 would read its partner's tile before rank 1 wrote it (zeros).
  Workload w = cluster_workload(
      "kernel = \"cluster_exchange\"\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\n"
      "count = 1024\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 1024\n",
      {4, 1, 1}, {256, 1, 1});
  run(w);
  const std::vector<std::int32_t> out = ints(w, "out");
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 256; ++t)
      ASSERT_EQ(out[std::size_t(256 * b + t)], 256 * (b ^ 1) + 255 - t + 1000 * (b % 2))
          << b << " " << t;
}

TEST(Cluster, SpecialRegistersGiveEachCtaItsPlace) {
  // cluster_ids on a 4 x 2 grid in clusters of 2 x 2: CTA (x, y) has rank (x mod 2) + 2 (y mod 2),
  // place (x mod 2, y mod 2) in cluster (x / 2, y / 2), and its cluster has 4 CTAs.
  Workload w = cluster_workload(
      "kernel = \"cluster_ids\"\nargs = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 48\n",
      {4, 2, 1}, {32, 1, 1});
  run(w);
  const std::vector<std::int32_t> out = ints(w, "out");
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x) {
      const std::size_t o = std::size_t(6 * (x + 4 * y));
      EXPECT_EQ(out[o + 0], x % 2 + 2 * (y % 2)) << x << " " << y;
      EXPECT_EQ(out[o + 1], x % 2);
      EXPECT_EQ(out[o + 2], y % 2);
      EXPECT_EQ(out[o + 3], x / 2);
      EXPECT_EQ(out[o + 4], y / 2);
      EXPECT_EQ(out[o + 5], 4);
    }
}

TEST(Cluster, AtomicsIntoAPartnersSharedMemoryBuildOneHistogram) {
  // cluster_histogram: 5,000 values, 4 CTAs of 128 threads (2 clusters), a grid-stride loop:
  // element i is taken by CTA (i mod 512) / 128, so by cluster (i mod 512) / 256; cluster c's
  // 128 bins count its elements' v & 127, bins 0-63 in rank 0's memory, 64-127 in rank 1's.
  std::mt19937 gen(11);
  std::vector<int> values(5000);
  std::string list;
  for (int& v : values) {
    v = int(gen() % 1000);
    list += (list.empty() ? "" : ", ") + std::to_string(v);
  }
  Workload w = cluster_workload(
      "kernel = \"cluster_histogram\"\nargs = [\"v\", 5000, \"bins\"]\n[buffers.v]\ntype = "
      "\"s32\"\ninit = \"values\"\nvalues = [" +
          list + "]\n[buffers.bins]\ntype = \"s32\"\ncount = 256\n",
      {4, 1, 1}, {128, 1, 1});
  run(w);
  std::vector<std::int32_t> want(256, 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    ++want[std::size_t(128 * ((i % 512) / 256) + (values[i] & 127))];
  EXPECT_EQ(ints(w, "bins"), want);
}

// cluster_multicast, 4 CTAs of 32 threads (2 clusters), half = 256 words, src = 0, 1, 2, ...:
// cluster c's tile is src[512 c, 512 c + 512); rank r copies half r of it with one multicast to
// both CTAs (ctaMask 0b11), each CTA's mbarrier awaiting both halves; each CTA writes the tile it
// received, out[512 b + i] = 512 (b / 2) + i.
const std::string kMulticast =
    "kernel = \"cluster_multicast\"\nargs = [\"src\", \"out\", 256]\n[buffers.src]\ntype = "
    "\"s32\"\ncount = 1024\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 2048\n";

std::vector<std::int32_t> multicast_want() {
  std::vector<std::int32_t> want(2048);
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 512; ++i) want[std::size_t(512 * b + i)] = 512 * (b / 2) + i;
  return want;
}

TEST(Cluster, AMulticastCopyLandsInEveryCtaOfItsMask) {
  Workload w = cluster_workload(kMulticast, {4, 1, 1}, {32, 1, 1});
  run(w);
  EXPECT_EQ(ints(w, "out"), multicast_want());
  // The same under the cycle model, where each copy lands when its read of the L2 is done, in
  // the CTA on the other SM too.
  Workload t = cluster_workload(kMulticast, {4, 1, 1}, {32, 1, 1});
  timing::GpuSim sim(t.module, find_kernel(t.module, t.kernel), find_preset("hopper-h100"),
                     t.launch, t.memory, {});
  sim.run();
  EXPECT_EQ(ints(t, "out"), multicast_want());
}

TEST(Cluster, ARemoteArrivalReleasesThePartnersWaitingThreads) {
  // cluster_handoff, 4 CTAs of 64 threads (2 clusters), in = 0, 1, 2, ...: rank 1's threads write
  // their words into rank 0's shared memory and arrive on rank 0's mbarrier (expecting 64
  // arrivals) through .shared::cluster; rank 0's threads wait for that phase, then write the words
  // doubled: out[64 c + t] = 2 (64 c + t); the rest of out (128 words for 2 clusters) stays 0.
  const std::string spec =
      "kernel = \"cluster_handoff\"\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\n"
      "count = 128\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 256\n";
  std::vector<std::int32_t> want(256, 0);
  for (int i = 0; i < 128; ++i) want[std::size_t(i)] = 2 * i;
  // Under the cycle model the two CTAs are on two SMs: the waiting threads are suspended in their
  // try_wait until the partner's last arrival, which crosses the SM-to-SM network.
  const timing::TimingStats st = run_and_time(spec, 64, want);
  // Each of rank 1's 2 warps a cluster writes 32 words (4 segments) and arrives on one 8-byte
  // object (1 segment) across the network: 2 clusters x 2 warps x 5 segments.
  EXPECT_EQ(st.units.dsm_segments, 20u);
  // An arrival on another CTA's mbarrier returns no state; a wait there is not PTX's.
  const auto bad = [](const std::string& line, const std::string& want_text) {
    try {
      (void)ptx::parse(
          ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
          ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n" +
              line + "\nret;\n}\n",
          "r.ptx");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want_text), std::string::npos) << e.what();
    }
  };
  bad("mbarrier.arrive.shared::cluster.b64 %rd1, [%r1];", "returns no state");
  bad("mbarrier.try_wait.parity.shared::cluster.b64 %p1, [%r1], 0;", "only arrive");
}

TEST(Cluster, ABulkCopyPushesATileIntoThePartnersSharedMemory) {
  // cluster_push, 4 CTAs of 32 threads (2 clusters), n = 256, in = 0, 1, 2, ...: each CTA copies
  // its 256 words (1 KiB) into its partner's inbox with one bulk copy that completes the
  // partner's mbarrier, then writes its own inbox: out[256 b + i] = 256 (b ^ 1) + i.
  const std::string spec =
      "kernel = \"cluster_push\"\nargs = [\"in\", \"out\", 256]\n[buffers.in]\ntype = "
      "\"s32\"\ncount = 1024\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 1024\n";
  std::vector<std::int32_t> want(1024);
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 256; ++i) want[std::size_t(256 * b + i)] = 256 * (b ^ 1) + i;
  // Under the cycle model each copy crosses the SM-to-SM network: 1 KiB, 32 segments of 32
  // bytes, four copies; it lands (and completes the partner's mbarrier) when the network has
  // delivered it, no earlier than sm.lat_dsm after its issue.
  const timing::TimingStats st = run_and_time(spec, 32, want);
  EXPECT_EQ(st.units.dsm_segments, 4u * 32u);
}

TEST(Cluster, ABulkReductionAddsATileIntoThePartnersSharedMemory) {
  // cluster_reduce, 4 CTAs of 32 threads (2 clusters), n = 256, in = 0, 1, 2, ...: each CTA starts
  // acc at its own words and adds 1,000 x its words into its partner's acc with one
  // cp.reduce.async.bulk .add.u32, so out[256 b + i] = (256 b + i) + 1000 (256 (b ^ 1) + i).
  // A copy in place of the reduction would give 1000 (256 (b ^ 1) + i) alone; a reduction that
  // landed before the partner started acc would be overwritten by the start.
  const std::string spec =
      "kernel = \"cluster_reduce\"\nargs = [\"in\", \"out\", 256]\n[buffers.in]\ntype = "
      "\"u32\"\ncount = 1024\ninit = \"iota\"\n[buffers.out]\ntype = \"u32\"\ncount = 1024\n";
  std::vector<std::int32_t> want(1024);
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 256; ++i)
      want[std::size_t(256 * b + i)] = (256 * b + i) + 1000 * (256 * (b ^ 1) + i);
  // Under the cycle model it lands when the network has delivered it, as a copy does: 32
  // segments of 32 bytes per CTA.
  const timing::TimingStats st = run_and_time(spec, 32, want);
  EXPECT_EQ(st.units.dsm_segments, 4u * 32u);
}

TEST(Cluster, AsyncStoresAndReductionsCompleteThePartnersMbarrier) {
  // cluster_st_async, 4 CTAs of 32 threads (2 clusters): thread t of block b stores 1000 b + t
  // into its partner's inbox[t] (st.async) and adds 1 to its partner's count (red.async), each
  // completing 4 bytes of the partner's expected 256: out[33 b + t] = 1000 (b ^ 1) + t and
  // out[33 b + 32] = 32 (every lane's add, none lost to another's).
  const std::string spec =
      "kernel = \"cluster_st_async\"\nargs = [\"out\"]\n[buffers.out]\ntype = \"s32\"\ncount = "
      "132\n";
  std::vector<std::int32_t> want(132);
  for (int b = 0; b < 4; ++b) {
    for (int t = 0; t < 32; ++t) want[std::size_t(33 * b + t)] = 1000 * (b ^ 1) + t;
    want[std::size_t(33 * b + 32)] = 32;
  }
  // Under the cycle model each instruction's 32 lanes cross the network as the distinct 32-byte
  // segments they reach: the stores 4 (128 consecutive bytes), the adds 1 (one word); 4 CTAs.
  const timing::TimingStats st = run_and_time(spec, 32, want);
  EXPECT_EQ(st.units.dsm_segments, 4u * (4 + 1));
  // They land, completing the partner's mbarrier, when the network delivers them: sm.lat_dsm
  // after their issue. The partner's wait ends at the last one's landing, so 100 more cycles of
  // lat_dsm end the kernel exactly 100 cycles later (the cluster barriers' arrivals are not timed
  // as network crossings).
  const auto cycles = [&](std::uint32_t lat) {
    Workload t = cluster_workload(spec, {4, 1, 1}, {32, 1, 1});
    Arch a = find_preset("hopper-h100");
    a.sm.lat_dsm = lat;
    timing::GpuSim sim(t.module, find_kernel(t.module, t.kernel), a, t.launch, t.memory, {});
    return sim.run().cycles;
  };
  EXPECT_EQ(cycles(280), cycles(180) + 100);
  // The forms print as written; what the PTX ISA does not allow is one line naming it.
  const auto module = test::sm90_line;
  for (const char* line :
       {"st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r1], {%r2, %r3}, "
        "[%r4];",
        "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b64 [%r1], %rd1, [%r4];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r1], "
        "%r2, "
        "[%r4];"}) {
    const ptx::Module m = module(line);
    EXPECT_EQ(ptx::to_string(m.kernels[0], m.kernels[0].code[0]), line);
  }
  for (const auto& [line, why] : std::vector<std::pair<std::string, std::string>>{
           {"st.async.shared::cluster.u32 [%r1], %r2, [%r4];",
            "needs .shared::cluster.mbarrier::complete_tx::bytes"},
           {"st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 [%r1], {%rd1, %rd2, "
            "%rd3, %rd1}, [%r4];",
            ".v4 takes a 32-bit type"},
           {"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.f32 [%r1], "
            "%r2, [%r4];",
            "a reduction into .shared::cluster is"}}) {
    try {
      (void)module(line);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

TEST(Cluster, BadClusterLaunchesAreOneLineErrors) {
  const auto fails = [](Workload w, const std::string& want) {
    try {
      run(w);
      ADD_FAILURE() << "ran";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  const std::string spec =
      "kernel = \"cluster_exchange\"\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\n"
      "count = 1024\n[buffers.out]\ntype = \"s32\"\ncount = 1024\n";
  fails(cluster_workload(spec, {3, 1, 1}, {256, 1, 1}),
        "not a whole number of the kernel's clusters");
  // A preset without GPCs in the cycle model refuses clusters, naming the kernel and what runs
  // it (tests/cluster_timing_test.cpp times them on hopper-h100).
  Workload s = cluster_workload(spec, {2, 1, 1}, {256, 1, 1});
  try {
    timing::GpuSim sim(s.module, find_kernel(s.module, s.kernel), find_preset("volta-v100"),
                       s.launch, s.memory, {});
    ADD_FAILURE() << "volta-v100's cycle model took a cluster";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("`run` and `profile` execute it"), std::string::npos)
        << e.what();
  }
  // mapa to a rank the cluster does not have.
  const ptx::Module m = ptx::parse(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n"
      ".explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
      ".shared .align 4 .b8 s[64];\nmov.u32 %r1, s;\nmapa.shared::cluster.u32 %r2, %r1, 2;\n"
      "ld.shared::cluster.u32 %r3, [%r2];\nret;\n}\n",
      "m.ptx");
  GlobalMemory mem;
  Launch l;
  l.grid = {2, 1, 1};
  l.block = {32, 1, 1};
  l.args.push_back(Arg::buf(mem.add({"o", ElemType::U32, std::vector<std::uint8_t>(4, 0)})));
  try {
    Executor ex(m, m.kernels[0], find_preset("hopper-h100"), l, mem);
    ex.run();
    ADD_FAILURE() << "mapa to rank 2 of 2";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mapa to rank 2 in a cluster of 2 CTAs"),
              std::string::npos)
        << e.what();
  }
}

TEST(Cluster, LaunchInitGuessesAWholeNumberOfClusters) {
  // cluster_ids is 2 x 2 x 1 per cluster: the guessed grid is a multiple of it, and runs.
  Workload w;
  w.module = load_suite_ptx(suite_ptx_dir(), "cluster", "cluster_test");
  const std::string spec =
      launch_spec_skeleton(w.module, find_kernel(w.module, "cluster_ids"), "cluster.ptx");
  EXPECT_NE(spec.find("grid = [2, 2]"), std::string::npos) << spec;
  bool g = false, b = false;
  apply_launch_spec_text(spec, "init.toml", w, g, b);
  run(w);
}

}  // namespace
}  // namespace smemsim::exec

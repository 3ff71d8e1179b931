// The L1 and L2 of global and local memory (issue 44, src/timing/cache.hpp, docs/timing.md
// "Caches"), checked on kernels whose every access's level is known by hand.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

// One thread chases a ring of 16 u64 pointers (128 bytes: one line) it wrote itself: a warm lap
// of 16 hops, then 512 timed hops, with the cache operator OP. out[0] is the timed cycles.
std::string chase_kernel(const std::string& name, const std::string& op) {
  return ".visible .entry " + name + R"((.param .u64 ring, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [ring];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 0;
INIT:
  add.u32 %r2, %r1, 1;
  and.b32 %r2, %r2, 15;
  mul.wide.u32 %rd2, %r2, 8;
  add.s64 %rd3, %rd1, %rd2;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u64 [%rd5], %rd3;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra INIT;
  membar.gl;
  mov.u64 %rd6, %rd1;
  mov.u32 %r1, 0;
WARM:
  ld.global)" +
         op + R"(.u64 %rd6, [%rd6];
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra WARM;
  mov.u32 %r3, %clock;
  mov.u32 %r1, 0;
HOP:
  ld.global)" +
         op + R"(.u64 %rd6, [%rd6];
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p2, %r1, 512;
  @%p2 bra HOP;
  mov.u32 %r4, %clock;
  sub.u32 %r5, %r4, %r3;
  ld.param.u64 %rd7, [out];
  cvta.to.global.u64 %rd7, %rd7;
  cvt.u32.u64 %r6, %rd6;
  st.global.u32 [%rd7], %r5;
  st.global.u32 [%rd7+4], %r6;
  ret;
}
)";
}

// Cycles a hop of the chase with `op` on `arch`.
double hop(const std::string& op, const std::string& name, const std::string& arch) {
  const std::string ptx =
      temp_file("cache_" + name + ".ptx",
                ".version 7.0\n.target sm_70\n.address_size 64\n" + chase_kernel(name, op));
  const std::string bin = ::testing::TempDir() + "smemsim_cache_" + name + ".bin";
  const std::string spec =
      temp_file("cache_" + name + ".toml",
                "args = [\"ring\", \"out\"]\n[buffers.ring]\ntype = \"u64\"\ncount = 16\n"
                "[buffers.out]\ntype = \"u32\"\ncount = 2\nwrite = \"" +
                    bin + "\"\n");
  const CliResult r = cli("sim " + ptx + " --kernel " + name + " --grid 1 --block 1 --arch " +
                          arch + " --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string out = slurp(bin);
  if (out.size() < 4) return 0;
  std::uint32_t cycles = 0;
  std::memcpy(&cycles, out.data(), 4);
  return cycles / 512.0;
}

// The ring is one line the kernel wrote: its stores allocate it in the L2 (write-back), not in
// the L1 (written through). The warm lap then leaves it in the L1 for .ca. So every timed hop of
// .ca is an L1 hit, of .cg (past the L1) an L2 hit, of .cv (read again from memory) a DRAM
// access: the same instructions and the same path through the LSU, so the hops differ by the
// levels' latency keys alone, to the cycle.
TEST(Cache, EachLevelsLatencyIsWhatAHopOfItsChaseAdds) {
  for (const char* arch : {"volta-v100", "turing-t4", "ampere-a100", "hopper-h100"}) {
    SCOPED_TRACE(arch);
    const Arch& a = find_preset(arch);
    const double ca = hop(".ca", "chase_ca", arch);
    const double cg = hop(".cg", "chase_cg", arch);
    const double cv = hop(".cv", "chase_cv", arch);
    EXPECT_NEAR(cg - ca, double(a.sm.l2_latency) - double(a.sm.l1_latency), 0.1);
    EXPECT_NEAR(cv - cg, double(a.sm.global_latency) - double(a.sm.l2_latency), 0.1);
    // And an L1 hit is the LSU's path (the shared load's) and the L1's key, give or take the
    // loop's cycle: the same chase through shared memory takes lat_shared_ld a hop.
    EXPECT_NEAR(ca, double(a.sm.lat_shared_ld + a.sm.l1_latency), 1.5);
  }
  // Without caches (the seeds' GPUs' way) every hop is a DRAM access.
  const double plain = hop("", "chase_plain",
                           "volta-v100 --set sm.l1_unified_bytes=0 --set "
                           "sm.l2_bytes=0");
  const double cv = hop(".cv", "chase_cv", "volta-v100");
  EXPECT_NEAR(plain, cv, 0.1);
}

// 256 threads read a 96 KiB array twice, coalesced (tests below).
const char* kTwice = R"(.version 7.0
.target sm_70
.address_size 64
.extern .shared .align 4 .b8 dyn[];
.visible .entry twice(.param .u64 a, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
PASS:
  mov.u32 %r2, %r1;
STEP:
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  add.u32 %r5, %r5, %r3;
  add.u32 %r2, %r2, 256;
  setp.lt.u32 %p1, %r2, 24576;
  @%p1 bra STEP;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 2;
  @%p2 bra PASS;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r5;
  ret;
}
)";

// 256 threads read a 96 KiB array twice, coalesced (each warp 32 consecutive words a step). With
// no shared memory the launch's carve-out is 0 and the V100's L1 has all 128 KiB: the second
// pass finds its 3,072 sectors there. With 64 KiB of dynamic shared memory (reserved by the
// launch, whether the kernel touches it or not) the carve-out is 64 and
// the L1 has 64 KiB: the first pass leaves only the array's last 64 KiB in it (LRU), and the
// second pass, starting from the front, evicts each line before it is read again: no hit.
TEST(Cache, ALargerCarveOutLeavesLessL1) {
  const std::string ptx = temp_file("cache_carve.ptx", kTwice);
  auto run = [&](std::uint32_t shared, const std::string& extra = "") {
    const std::string spec = temp_file(
        "cache_carve_" + std::to_string(shared) + ".toml",
        "grid = 1\nblock = 256\ndynamic_shared = " + std::to_string(shared) + "\n" + extra +
            "args = [\"a\", \"out\"]\n[buffers.a]\ntype = \"u32\"\ncount = 24576\ninit = "
            "\"iota\"\n[buffers.out]\ntype = \"u32\"\ncount = 256\n");
    const CliResult r =
        cli("sim " + ptx + " --kernel twice --arch volta-v100 --launch " + spec + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  const nlohmann::json all = run(0), carved = run(64 * 1024);
  ASSERT_TRUE(all.is_object() && carved.is_object());
  EXPECT_EQ(all["timing"]["units"]["l1_hit_sectors"], 3072);
  EXPECT_EQ(carved["timing"]["units"]["l1_hit_sectors"], 0);
  EXPECT_GT(carved["timing"]["cycles"].get<double>(), all["timing"]["cycles"].get<double>());
  // The launch's preferred carve-out (cudaFuncAttributePreferredSharedMemoryCarveout, percent of
  // the V100's 96 KiB): 100 takes all 96 KiB, leaving a 32 KiB L1 (no hit); 50 wants 48 KiB,
  // rounded up to the 64 KiB carve-out (no hit); 0, with no shared memory, the whole 128 KiB.
  EXPECT_EQ(run(0, "carveout = 100\n")["timing"]["units"]["l1_hit_sectors"], 0);
  EXPECT_EQ(run(0, "carveout = 50\n")["timing"]["units"]["l1_hit_sectors"], 0);
  EXPECT_EQ(run(0, "carveout = 0\n")["timing"]["units"]["l1_hit_sectors"], 3072);
  // A percent out of range is an error naming the file, line and key.
  const std::string bad =
      temp_file("cache_carve_bad.toml", "grid = 1\nblock = 256\ncarveout = 101\nargs = []\n");
  const CliResult e = cli("sim " + ptx + " --kernel twice --arch volta-v100 --launch " + bad);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.out.find("cache_carve_bad.toml:3"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("'carveout' must be a percent"), std::string::npos) << e.out;
  // profile --timing gives them per instruction: the load moved 2 x 3,072 sectors, half from the
  // L1 (the second pass), none from the L2 (the array came from the host: not in it).
  const std::string spec = temp_file("cache_carve_prof.toml",
                                     "grid = 1\nblock = 256\nargs = [\"a\", \"out\"]\n"
                                     "[buffers.a]\ntype = \"u32\"\ncount = 24576\n"
                                     "[buffers.out]\ntype = \"u32\"\ncount = 256\n");
  const CliResult p = cli(
      "profile " + ptx + " --kernel twice --arch volta-v100 --timing --launch " + spec + " --json");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  const nlohmann::json j = nlohmann::json::parse(p.out, nullptr, false);
  int loads = 0;
  for (const auto& r : j["timing"]["instructions"])
    if (r["instruction"].get<std::string>().starts_with("ld.global")) {
      ++loads;
      EXPECT_EQ(r["global_sectors"], 6144);
      EXPECT_EQ(r["l1_hit_sectors"], 3072);
      EXPECT_EQ(r["l2_hit_sectors"], 0);
    }
  EXPECT_EQ(loads, 1) << p.out.substr(0, 2000);
  // Nsight Compute's memory table per line (issue 44): the load is 8 warps x 2 passes x 96 steps
  // = 1,536 requests of 4 sectors (32 lanes x 4 consecutive bytes), the second pass's 3,072 from
  // the L1, the first pass's 3,072 (96 KiB) from DRAM; the store is 8 requests of 4 sectors, 1 KiB.
  // Without .loc lines a row is its PTX line.
  ASSERT_TRUE(j["timing"]["global_lines"].is_array()) << p.out.substr(0, 2000);
  ASSERT_EQ(j["timing"]["global_lines"].size(), 2u);
  const nlohmann::json& ld = j["timing"]["global_lines"][0];
  EXPECT_TRUE(ld["cuda"].is_null());
  EXPECT_EQ(ld["requests"], 1536);
  EXPECT_EQ(ld["sectors"], 6144);
  EXPECT_EQ(ld["sectors_per_request"], 4.0);
  EXPECT_EQ(ld["l1_hit_sectors"], 3072);
  EXPECT_EQ(ld["dram_bytes"], 96 * 1024);
  const nlohmann::json& st = j["timing"]["global_lines"][1];
  EXPECT_EQ(st["requests"], 8);
  EXPECT_EQ(st["sectors"], 32);
  EXPECT_EQ(st["dram_bytes"], 1024);
  // The text form has the same row.
  const CliResult t =
      cli("profile " + ptx + " --kernel twice --arch volta-v100 --timing --launch " + spec);
  ASSERT_EQ(t.exit_code, 0) << t.out;
  EXPECT_NE(t.out.find("global and local memory per CUDA line"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("1536    6144     4.0    50%     0%      98304"), std::string::npos)
      << t.out;
}

// .L1::no_allocate (PTX ISA, cache eviction priority hints; issue 44): the 96 KiB twice-read
// kernel above with the hint on its load. Without it the second pass finds its 3,072 sectors in
// the V100's 128 KiB L1 (Cache.ALargerCarveOutLeavesLessL1). With it the first pass allocates
// nothing in the L1, so the second pass finds them in the L2 (the GPU's 6 MiB holds 96 KiB):
// 3,072 L2 hits, none in the L1, and the kernel takes longer (an L2 hit's latency, not an L1's).
TEST(Cache, NoAllocateLoadsLeaveTheL1Empty) {
  const std::string spec = temp_file("cache_noalloc.toml",
                                     "grid = 1\nblock = 256\nargs = [\"a\", \"out\"]\n"
                                     "[buffers.a]\ntype = \"u32\"\ncount = 24576\n"
                                     "[buffers.out]\ntype = \"u32\"\ncount = 256\n");
  const auto run = [&](const std::string& name, const std::string& src) {
    const CliResult r = cli("sim " + temp_file(name, src) + " --kernel twice --arch volta-v100 " +
                            "--launch " + spec + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  std::string src = kTwice;
  const std::string plain = "ld.global.u32 %r3, [%rd3];";
  src.replace(src.find(plain), plain.size(), "ld.global.L1::no_allocate.u32 %r3, [%rd3];");
  const nlohmann::json hinted = run("cache_noalloc.ptx", src);
  const nlohmann::json plain_run = run("cache_alloc.ptx", kTwice);
  ASSERT_TRUE(hinted.is_object() && plain_run.is_object());
  EXPECT_EQ(plain_run["timing"]["units"]["l1_hit_sectors"], 3072);
  EXPECT_EQ(hinted["timing"]["units"]["l1_hit_sectors"], 0);
  EXPECT_EQ(hinted["timing"]["units"]["l2_hit_sectors"], 3072);
  EXPECT_EQ(plain_run["timing"]["units"]["l2_hit_sectors"], 0);
  EXPECT_EQ(hinted["timing"]["units"]["global_sectors"], 2 * 3072 + 32);
  EXPECT_GT(hinted["timing"]["cycles"].get<double>(), plain_run["timing"]["cycles"].get<double>());
}

// One warp's atomicAdd to global memory, timed by %clock around it (the old value read back, so
// the second clock waits for it): lane l adds to word l >> s, so 4 lanes a word on 8 words (s = 2),
// 8 a word on 4 (s = 3) or all 32 on one (s = 5), the words always within one 32-byte sector (the
// same request, the same transfer). The L2 updates the lanes on one word one after another,
// sm.l2_atomic_cycles each, so 8 a word return 4 of them later than 4 a word, and 32 a word 28.
TEST(Cache, LanesOnOneGlobalWordAreUpdatedOneAfterAnother) {
  const std::string ptx = temp_file("cache_gatom.ptx", R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry gatom(.param .u64 w, .param .u64 out, .param .u32 shift)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [w];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r9, [shift];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, %r9;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  bar.sync 0;
  mov.u32 %r3, %clock;
  atom.global.add.u32 %r4, [%rd3], 1;
  add.u32 %r5, %r4, %r3;
  mov.u32 %r6, %clock;
  sub.u32 %r7, %r6, %r3;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd4, %rd5;
  st.global.v2.u32 [%rd6], {%r7, %r5};
  ret;
}
)");
  auto cycles = [&](int shift, const std::string& arch) {
    const std::string bin = ::testing::TempDir() + "smemsim_cache_gatom.bin";
    const std::string spec =
        temp_file("cache_gatom.toml", "grid = 1\nblock = 32\nargs = [\"w\", \"out\", " +
                                          std::to_string(shift) +
                                          "]\n[buffers.w]\ntype = \"u32\"\ncount = 32\n"
                                          "[buffers.out]\ntype = \"u32\"\ncount = 64\nwrite = \"" +
                                          bin + "\"\n");
    const CliResult r = cli("sim " + ptx + " --kernel gatom --arch " + arch + " --launch " + spec);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const std::string out = slurp(bin);
    std::uint32_t c = 0;
    if (out.size() >= 4) std::memcpy(&c, out.data(), 4);  // lane 0's
    return double(c);
  };
  for (const char* arch : {"volta-v100", "ampere-a100"}) {
    SCOPED_TRACE(arch);
    const double t = find_preset(arch).sm.l2_atomic_cycles;
    ASSERT_GT(t, 0);
    const double four = cycles(2, arch), eight = cycles(3, arch), all = cycles(5, arch);
    EXPECT_EQ(eight - four, 4 * t);
    EXPECT_EQ(all - four, 28 * t);
  }
  // The seeds' GPUs: no serialization (the key is 0).
  EXPECT_EQ(cycles(5, "fermi-gtx580"), cycles(2, "fermi-gtx580"));
}

// The L1s are each SM's own state and the L2 is served at the end of each cycle in SM order, so
// the parallel simulator gives the same cycles and hits on any thread count: the 96 KiB kernel on
// 64 CTAs (one per SM), each finding its second pass in its L1. The first pass's 3,072 sectors
// come from DRAM once, for the first SM that asks for each (the 96 KiB stay in the 6 MiB L2):
// the other 63 SMs find them in the L2, 63 x 3,072 hits.
TEST(Cache, TheSameOnAnyThreadCount) {
  const std::string ptx = temp_file("cache_threads.ptx", kTwice);
  const std::string spec =
      temp_file("cache_threads.toml",
                "grid = 64\nblock = 256\nargs = [\"a\", \"out\"]\n[buffers.a]\ntype = \"u32\"\n"
                "count = 24576\ninit = \"iota\"\n[buffers.out]\ntype = \"u32\"\ncount = 256\n");
  std::string first;
  for (const char* threads : {"1", "2"}) {
    const CliResult r = cli("sim " + ptx + " --kernel twice --arch volta-v100 --launch " + spec +
                            " --threads " + threads + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_EQ(j["timing"]["units"]["l1_hit_sectors"], 64 * 3072);
    EXPECT_EQ(j["timing"]["units"]["l2_hit_sectors"], 63 * 3072);
    const std::string t = j["timing"]["cycles"].dump() + " " + j["timing"]["units"].dump();
    if (first.empty()) first = t;
    EXPECT_EQ(t, first) << threads << " threads";
  }
}

// The carve-out rule, on the presets' lists: the smallest listed size holding the resident CTAs'
// shared memory; the L1 is the rest of the SRAM.
TEST(Cache, TheCarveOutIsTheSmallestThatHoldsTheSharedMemory) {
  const Arch& v = find_preset("volta-v100");
  EXPECT_EQ(l1_capacity(v, 0), 128u * 1024);
  EXPECT_EQ(l1_capacity(v, 8 * 1024), 120u * 1024);
  EXPECT_EQ(l1_capacity(v, 8 * 1024 + 1), 112u * 1024);
  EXPECT_EQ(l1_capacity(v, 96 * 1024), 32u * 1024);
  const Arch& t = find_preset("turing-t4");  // 32 or 64 KiB only
  EXPECT_EQ(l1_capacity(t, 0), 64u * 1024);
  EXPECT_EQ(l1_capacity(t, 40 * 1024), 32u * 1024);
  EXPECT_EQ(l1_capacity(find_preset("fermi-gtx580"), 0), 0u);  // the seeds' GPU: no L1
  Arch bad = v;
  bad.sm.carveouts = "0,16,8";
  EXPECT_THROW(validate(bad), InputError);
  bad.sm.carveouts = "0,8,x";
  EXPECT_THROW(validate(bad), InputError);
  bad.sm.carveouts = "0,8,200";  // more than the SRAM
  EXPECT_THROW(validate(bad), InputError);
}

// Issue 44: the naive and the tiled matmul (builtin:matmul --variant naive|tiled, 64 x 64 floats,
// 16 x 16 CTAs of 16 x 16 threads, one CTA per SM on ampere-a100), by Nsight's memory table.
// Naive: each thread loads 64 elements of A and 64 of B: 128 warps x 128 = 16,384 requests; a warp
// is two rows of 16 threads, so an A load touches 2 words (2 sectors) and a B load 2 x 64
// consecutive bytes of one row (2 sectors): 32,768 sectors. Each CTA needs 16 rows of A and 16
// columns of B once, 8 KiB = 256 sectors, 4,096 over the 16 CTAs past its L1; the L1 holds them
// for the rest (28,672). The L2 is every SM's: each of A's and B's 512 sectors comes from DRAM
// once (1,024 sectors, 32,768 bytes) and the other 3,072 are L2 hits. Tiled: per CTA 4 k-steps x
// 8 warps = 32 requests per matrix, 512 over the grid, 4 sectors each (16 consecutive floats per
// half-warp), 2,048 sectors, of which the matrix's 512 from DRAM (16,384 bytes) and 1,536 from the
// L2: the same DRAM bytes and L2 traffic (the L1 held the naive kernel's re-reads), 16 times fewer
// requests.
TEST(Cache, TheTileSavesRequestsTheL1WouldServe) {
  const auto lines = [](const std::string& variant) {
    const CliResult r =
        cli("profile builtin:matmul --variant " + variant + " --arch ampere-a100 --timing --json");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j["reference"]["matches"].get<bool>()) << variant;
    return j["timing"]["global_lines"];
  };
  const nlohmann::json naive = lines("naive"), tiled = lines("tiled");
  ASSERT_EQ(naive.size(), 2u);  // the loop's loads, the store
  EXPECT_EQ(naive[0]["requests"], 16384);
  EXPECT_EQ(naive[0]["sectors"], 32768);
  EXPECT_EQ(naive[0]["l1_hit_sectors"], 28672);
  EXPECT_EQ(naive[0]["l2_hit_sectors"], 3072);
  EXPECT_EQ(naive[0]["dram_bytes"], 32768);
  ASSERT_EQ(tiled.size(), 3u);  // the A tile's load, the B tile's, the store
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(tiled[k]["requests"], 512);
    EXPECT_EQ(tiled[k]["sectors"], 2048);
    EXPECT_EQ(tiled[k]["l2_hit_sectors"], 1536);
    EXPECT_EQ(tiled[k]["dram_bytes"], 16384);
  }
  EXPECT_EQ(naive[1]["dram_bytes"], tiled[2]["dram_bytes"]);  // C, 16 KiB
}

}  // namespace
}  // namespace smemsim::test

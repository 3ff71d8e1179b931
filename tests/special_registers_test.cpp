// Every special register of the PTX ISA is implemented or refused for the launch of the kernel
// that reads it, never the module (issue 27 item 1). The kernels are tests/corpus/
// special_registers.cu (ours); the expected values are the PTX ISA's definitions ("Special
// Registers"), written out below. Skips without nvcc.
#include <bit>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

// Lane l: eq = 1 << l, lt = eq - 1, le = lt | eq, gt = ~le, ge = ~lt (32 bits).
TEST(SpecialRegisters, LaneMasksFollowTheIsa) {
  SKIP_WITHOUT_NVCC();
  Launcher l("special_registers");
  l.raw("out", std::vector<std::uint32_t>(5 * 64), ElemType::U32);
  l.run("lanemasks", 1, 64);
  const auto out = l.got<std::uint32_t>("out");
  for (std::uint32_t t = 0; t < 64; ++t) {
    const std::uint32_t lane = t % 32, eq = 1u << lane, lt = eq - 1;
    EXPECT_EQ(out[5 * t + 0], eq) << t;
    EXPECT_EQ(out[5 * t + 1], lt) << t;
    EXPECT_EQ(out[5 * t + 2], lt | eq) << t;
    EXPECT_EQ(out[5 * t + 3], ~(lt | eq)) << t;
    EXPECT_EQ(out[5 * t + 4], ~lt) << t;
  }
}

// The odd threads of 4 blocks of 64 take slots 0..127 of the counter, each exactly once: within a
// warp, a thread's slot is the warp's base plus the number of active (odd) lanes below it (its
// coalesced_group rank, which cooperative groups computes from %lanemask_lt).
TEST(SpecialRegisters, CoalescedThreadsAggregateAnAtomic) {
  SKIP_WITHOUT_NVCC();
  Launcher l("special_registers");
  l.raw("counter", std::vector<std::uint32_t>(1), ElemType::U32)
      .raw("slot", std::vector<std::uint32_t>(256, 0xffffffffu), ElemType::U32);
  l.run("aggregated_increment", 4, 64);
  EXPECT_EQ(l.got<std::uint32_t>("counter")[0], 128u);
  const auto slot = l.got<std::uint32_t>("slot");
  std::vector<int> seen(128, 0);
  for (std::uint32_t t = 0; t < 256; ++t) {
    if (t % 2 == 0) {
      EXPECT_EQ(slot[t], 0xffffffffu) << t;
      continue;
    }
    ASSERT_LT(slot[t], 128u) << t;
    ++seen[slot[t]];
    // Rank in the warp's group: the odd lanes below this one.
    const std::uint32_t lane = t % 32, base = slot[t - lane + 1];
    EXPECT_EQ(slot[t], base + lane / 2) << t;
  }
  for (int s = 0; s < 128; ++s) EXPECT_EQ(seen[std::size_t(s)], 1) << s;
}

TEST(SpecialRegisters, TiledPartitionOf16SumsEachTile) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(64, -50, 50, 5);
  Launcher l("special_registers");
  l.buffer("in", in).buffer("out", Ints(128));
  l.run("tile16_sum", 1, 64);
  const Ints out = l.get("out");
  for (int tile = 0; tile < 4; ++tile) {
    int s = 0;
    for (int k = 0; k < 16; ++k) s += in[std::size_t(16 * tile + k)];
    EXPECT_EQ(out[std::size_t(tile)], s) << tile;
  }
  for (int t = 0; t < 64; ++t) EXPECT_EQ(out[std::size_t(64 + t)], t % 16) << t;
}

// Two blocks of 32 threads with 128 dynamic bytes. The static array is 8 words (32 bytes), the
// dynamic one follows it: %dynamic_smem_size = 128 and %total_smem_size = 32 + 128. %nsmid is the
// arch's SM count (fermi-gtx580: 16). Without clusters every CTA is a cluster of one: explicit 0,
// cluster_nctarank 1, cluster_ctarank 0, %clusterid = %ctaid, %nclusterid = %nctaid (2).
// %globaltimer moves forward, and its lo/hi halves read after it are not behind it.
TEST(SpecialRegisters, LaunchConstantsAndTheGlobalTimer) {
  SKIP_WITHOUT_NVCC();
  Launcher l("special_registers");
  l.raw("out", std::vector<std::uint32_t>(32), ElemType::U32);
  l.run("launch_constants", Dim3{2, 1, 1}, Dim3{32, 1, 1}, 128);
  const auto out = l.got<std::uint32_t>("out");
  for (std::uint32_t b = 0; b < 2; ++b) {
    const std::uint32_t* o = out.data() + 16 * b;
    EXPECT_EQ(o[0], 128u) << b;
    EXPECT_EQ(o[1], 32u + 128u) << b;
    EXPECT_EQ(o[2], find_preset("fermi-gtx580").sm.count) << b;
    EXPECT_EQ(o[3], 0u);
    EXPECT_EQ(o[4], 1u);
    EXPECT_EQ(o[5], 0u);
    EXPECT_EQ(o[6], b);
    EXPECT_EQ(o[7], 2u);
    EXPECT_EQ(o[8], 1u);
    EXPECT_EQ(o[9], 1u) << "the global timer";
    EXPECT_EQ(o[10], 1u);  // dyn[0] = fixed[1] = 1: the dynamic array is usable
  }
}

// The repro: a module with a plain kernel and one reading %pm0. `launch init` and `run` of
// the plain kernel work; running the other is one line, exit 2, naming %pm0 and its PTX line.
TEST(SpecialRegisters, ARefusedRegisterFailsOnlyItsKernel) {
  SKIP_WITHOUT_NVCC();
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/special_registers.ptx";
  const std::string spec = test::temp_file("plain.toml", "");
  const auto init = test::cli("launch init " + ptx + " --kernel plain --force -o " + spec);
  ASSERT_EQ(init.exit_code, 0) << init.out;
  EXPECT_EQ(test::cli("run " + ptx + " --launch " + spec).exit_code, 0);
  const std::string pspec = test::temp_file("perf.toml", "");
  const auto pinit = test::cli("launch init " + ptx + " --kernel perf_counter --force -o " + pspec);
  ASSERT_EQ(pinit.exit_code, 0) << pinit.out;  // launch init reads the parameters only
  const auto bad = test::cli("run " + ptx + " --launch " + pspec);
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
  EXPECT_NE(bad.out.find("%pm0"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("special_registers.ptx:"), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find(".cpp"), std::string::npos) << bad.out;  // no source location of ours
}

}  // namespace
}  // namespace smemsim::exec

namespace smemsim::exec {
namespace {

// A refusal names the user's CUDA line and the kernel's C++ name, never a toolkit header's line
// (issue 27 item 7: "(mma.hpp:155)" read as smemsim's own source; a surface read from
// surface_indirect_functions.h here).
TEST(SpecialRegisters, ARefusalInAHeaderNamesTheKernelsLine) {
  SKIP_WITHOUT_NVCC();
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/header_lines.ptx";
  const std::string spec = test::temp_file("surface.toml", "");
  ASSERT_EQ(test::cli("launch init " + ptx + " --kernel surface_read --force -o " + spec).exit_code,
            0);
  const auto r = test::cli("run " + ptx + " --launch " + spec);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("(header_lines.cu:8)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("surface_indirect_functions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in kernel 'surface_read(unsigned long long, int*)'"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace smemsim::exec

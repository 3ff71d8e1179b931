// sm.lower's `ifcvt` rule (src/lower/ifcvt.hpp): a short forward branch becomes the guard of the
// instructions it jumps over, as ptxas does for sm_90 (conv_rows's `@%p bra` round one
// `ld.global` each are predicated LDGs in its SASS). Derived by hand: which branches qualify, the
// rewritten code, equal results on the suite, and the latency a converted tile load hides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/ifcvt.hpp"
#include "lower_test_util.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

constexpr const char* kIfcvtBranches = R"(
.visible .entry branches(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];                 // 0
  setp.eq.s32 %p1, %r1, 0;                  // 1
  @%p1 bra $A;                              // 2 over one load: converted
  ld.global.u32 %r2, [%rd1];                // 3
$A:
  st.global.u32 [%rd1+4], %r2;              // 4
  @!%p1 bra $B;                             // 5 over five: too long
  add.s32 %r3, %r3, 1;                      // 6
  add.s32 %r3, %r3, 1;                      // 7
  add.s32 %r3, %r3, 1;                      // 8
  add.s32 %r3, %r3, 1;                      // 9
  add.s32 %r3, %r3, 1;                      // 10
$B:
  @%p1 bra $C;                              // 11 over a write of its own predicate: kept
  setp.ne.s32 %p1, %r3, 0;                  // 12
$C:
  @%p1 bra $E;                              // 13 over a label another branch targets: kept
  add.s32 %r4, %r4, 1;                      // 14
$D:
  add.s32 %r4, %r4, 2;                      // 15
$E:
  @%p1 bra $D;                              // 16 backwards: kept
  @!%p1 bra $F;                             // 17 over a guarded instruction: kept
  @%p2 add.s32 %r5, %r5, 1;                 // 18
$F:
  ret;                                      // 19
}
)";

TEST(LowerIfcvt, ConvertsOnlyShortForwardBranchesRoundPlainCode) {
  ptx::Module m = ptx::parse(std::string(kTimingHeader) + kIfcvtBranches, "branches.ptx");
  ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 20u);
  const std::vector<std::uint32_t> got =
      lower::if_conversions(k, timing::reg_uses(timing::decode_kernel(k)));
  EXPECT_EQ(got, std::vector<std::uint32_t>{2});
  const ptx::Instruction before = k.code[3];
  lower::if_convert(k, got);
  // The branch is mov.pred %p1, %p1 (nothing), flagged; the load it jumped over is @!%p1.
  EXPECT_EQ(k.code[2].op, ptx::Opcode::Mov);
  EXPECT_TRUE(k.code[2].has(ptx::kIfConverted));
  EXPECT_EQ(k.code[2].guard, ptx::kNone);
  EXPECT_EQ(k.code[2].ops[0].reg, k.code[2].ops[1].reg);
  EXPECT_EQ(k.code[3].op, before.op);
  EXPECT_EQ(k.code[3].guard, k.code[2].ops[0].reg);
  EXPECT_TRUE(k.code[3].guard_negated);
  EXPECT_EQ(k.code[4].guard, ptx::kNone);  // after the label: as it was
}

// Two tile loads, each behind a bounds branch, each stored to shared memory (conv_rows's shape),
// between two clock reads, one warp whose lanes all load. With the scheduler and `spaces` but no
// if-conversion each load is its own block, so the second load waits for the first one's store:
// two global latencies. Converted, the four are one block and both loads issue first: the span
// shrinks by one load's latency (at least sm.global_latency, at most the whole load path and a
// few cycles of issue), as in LowerSpaces.AHoistedLoadHidesItsLatency.
TEST(LowerIfcvt, AConvertedTileLoadHidesItsLatency) {
  const std::string body = R"(
.visible .entry tile(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r9, s;
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p1, %r1, 64;
  mov.u32 %r10, %clock;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
  @%p1 bra $L1;
  ld.global.u32 %r3, [%rd2+16];
$L1:
  st.shared.u32 [%r9], %r3;
  @%p1 bra $L2;
  ld.global.u32 %r4, [%rd2+256];
$L2:
  st.shared.u32 [%r9+4], %r4;
  mov.u32 %r11, %clock;
  sub.s32 %r12, %r11, %r10;
  st.global.u32 [%rd2], %r12;
  ret;
}
)";
  expect_one_load_latency_saved(body, "schedule,spaces", "schedule,spaces,ifcvt");
}

// A converted body's global load is often off in every lane (a tile's bounds check): no request
// leaves the SM, so its reader waits for no memory. One thread, between two clock reads: a
// predicated-off ld.global, then an add of its destination. Before, the model sent an empty
// request and the add waited a DRAM latency (500 on hopper-h100); now the span is the load's
// issue through the LSU path alone: under lat_shared_ld + 30 cycles, far under global_latency.
TEST(LowerIfcvt, AnAccessWithEveryLaneOffWaitsForNoMemory) {
  const std::string body = R"(
.visible .entry off(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 7;
  setp.eq.u32 %p1, %r1, %r1;
  mov.u32 %r10, %clock;
  @!%p1 ld.global.u32 %r2, [%rd2+256];
  add.s32 %r3, %r2, 1;
  mov.u32 %r11, %clock;
  sub.s32 %r12, %r11, %r10;
  st.global.u32 [%rd2], %r12;
  st.global.u32 [%rd2+4], %r3;
  ret;
}
)";
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  TimedKernel k(body, 1, 80);
  k.run(a);
  EXPECT_EQ(k.out()[1], 8u);  // the load wrote nothing
  EXPECT_LT(k.out()[0], a.sm.lat_shared_ld + 30);
}

// The converted kernel is what the executor runs: every suite kernel whose results do not depend
// on timing gives the same outputs, byte for byte, with the rule on and off (volta-v100 with
// the hopper rules added; its other keys as shipped).
TEST(LowerIfcvt, SuiteKernelsComputeTheSame) {
  std::uint32_t compared = 0;
  for (const std::string& name : exec::builtin_names()) {
    if (name == "atomic_bench" || name.starts_with("tm_") || name == "kmeans") continue;
    SCOPED_TRACE(name);
    std::vector<std::vector<std::uint8_t>> out[2];
    for (int on = 0; on < 2; ++on) {
      exec::Workload w = exec::make_builtin(name, {}, SMEMSIM_PTX_DIR);
      Arch a = find_preset("volta-v100");
      a.sm.lower = on ? "fma,imad,lea,addr,cvt,mov,ifcvt,schedule,spaces"
                      : "fma,imad,lea,addr,cvt,mov,schedule,spaces";
      std::vector<std::pair<std::string, exec::Launch>> steps;
      for (const exec::Workload::Step& s : w.pipeline) steps.emplace_back(s.kernel, s.launch);
      if (steps.empty()) steps.emplace_back(w.kernel, w.launch);
      for (const auto& [kernel, launch] : steps) {
        timing::GpuSim sim(w.module, exec::find_kernel(w.module, kernel), a, launch, w.memory, {});
        sim.run();
      }
      if (w.check) EXPECT_EQ(w.check(w.memory), "") << (on ? "ifcvt" : "without");
      for (const exec::Buffer& b : w.memory.buffers) out[on].push_back(b.bytes);
    }
    EXPECT_EQ(out[0], out[1]);
    ++compared;
  }
  EXPECT_GE(compared, 20u);
}

}  // namespace
}  // namespace smemsim::test

// `sim --warm-l2` (TimingOptions::warm_l2, docs/timing.md "Caches"): the launch's buffers start in
// the L2, as a copy from the host just before the launch leaves them, where Nsight Compute's
// default (--cache-control all) and the model's default start every line in DRAM. Derived by
// hand: one dependent load's latency is the L2's instead of the DRAM's, a buffer larger than the
// L2 is not held, and the option is refused where no cycle model runs.
#include <gtest/gtest.h>

#include <string>

#include "smemsim/arch.hpp"
#include "test_util.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One thread, between two clock reads: a load of the output buffer (never touched before, so
// no cache of the SM holds it) and an add of what it read. The span is the load's path plus the
// add: cold, through sm.global_latency; warm, through sm.l2_latency. Everything else is the same
// run, so the spans differ by global_latency - l2_latency (664 - 267 = 397 on hopper-h100), give
// or take the cycle or two a sector waits for its path's bandwidth (13 B/clk from DRAM, 17 from
// the L2: a 32-byte sector's credit).
constexpr const char* kOneLoad = R"(
.visible .entry one(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r10, %clock;
  ld.global.u32 %r1, [%rd2+256];
  add.s32 %r2, %r1, 1;
  mov.u32 %r11, %clock;
  sub.s32 %r12, %r11, %r10;
  st.global.u32 [%rd2], %r12;
  st.global.u32 [%rd2+4], %r2;
  ret;
}
)";

std::uint32_t span(const Arch& a, bool warm) {
  TimedKernel k(kOneLoad, 1, 80);
  k.warm_l2 = warm;
  k.run(a);
  EXPECT_EQ(k.out()[1], 1u);  // the word read was 0
  return k.out()[0];
}

TEST(WarmL2, ALoadOfAnInputTakesTheL2Latency) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  const std::uint32_t cold = span(a, false), warm = span(a, true);
  EXPECT_NEAR(double(cold - warm), double(a.sm.global_latency - a.sm.l2_latency), 2.0)
      << cold << " " << warm;
}

// And an L2 smaller than one set of lines holds nothing (it crashed the model when a store
// allocated in it: `--set sm.l2_bytes=256`).
TEST(WarmL2, ABufferLargerThanTheL2StaysInDram) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.sm.l2_bytes = 256;  // the 320-byte buffer does not fit
  EXPECT_EQ(span(a, false), span(a, true));
  const CliResult r = cli("sim builtin:conv --arch hopper-h100 --set sm.l2_bytes=256");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(WarmL2, TheCliTakesItWhereACycleModelRuns) {
  const CliResult warm = cli("sim builtin:conv --arch hopper-h100 --warm-l2 --json");
  const CliResult cold = cli("sim builtin:conv --arch hopper-h100 --json");
  ASSERT_EQ(warm.exit_code, 0) << warm.out;
  ASSERT_EQ(cold.exit_code, 0) << cold.out;
  EXPECT_NE(warm.out, cold.out);  // its inputs are L2 hits: fewer cycles
  // And the document says which reading it is.
  EXPECT_NE(warm.out.find("\"warm_l2\": true"), std::string::npos);
  EXPECT_NE(cold.out.find("\"warm_l2\": false"), std::string::npos);
  const CliResult p = cli("profile builtin:conv --warm-l2");
  EXPECT_EQ(p.exit_code, 2) << p.out;
  EXPECT_NE(p.out.find("--warm-l2 applies to the cycle-level model"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace smemsim::test

// `sim --warm-l2` (TimingOptions::warm_l2, docs/timing.md "Caches"): the launch's buffers start in
// the L2, as a copy from the host just before the launch leaves them, where Nsight Compute's
// default (--cache-control all) and the model's default start every line in DRAM. Derived by
// hand: one dependent load's latency is the L2's instead of the DRAM's, a buffer larger than the
// L2 is not held, and the option is refused where no cycle model runs.
#include <gtest/gtest.h>

#include <fmt/format.h>

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
// or take the cycle or two a sector waits for its path's bandwidth (12 B/clk from DRAM, 32 from
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

// A launch spec says the same with warm_l2 = true (for sim, profile --timing and fix): the
// kernel above, as a file, takes the cycles --warm-l2 gives it, in a spec alone or beside the
// flag; a value that is not a boolean is one line naming the spec's line, exit 2.
TEST(WarmL2, ALaunchSpecCanSayIt) {
  const std::string ptx = temp_file("warm_one.ptx", std::string(kTimingHeader) + kOneLoad);
  const std::string base =
      "kernel = \"one\"\ngrid = 1\nblock = 1\nargs = [\"out\"]\n"
      "[buffers.out]\ntype = \"u32\"\ncount = 80\n";
  const std::string cold = temp_file("warm_cold.toml", base);
  const std::string warm = temp_file("warm_warm.toml", "warm_l2 = true\n" + base);
  // The JSON's cycles, and whether it says warm_l2 (negative when it says false).
  auto cycles = [&](const std::string& spec, const char* flag) -> long long {
    const CliResult r =
        cli(fmt::format("sim {} --launch {} --arch hopper-h100 --json {}", ptx, spec, flag));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const std::size_t c = r.out.find("\"cycles\": "), w = r.out.find("\"warm_l2\": ");
    if (c == std::string::npos || w == std::string::npos) {
      ADD_FAILURE() << r.out;
      return 0;
    }
    const long long n = std::stoll(r.out.substr(c + 10, 20));
    return r.out.compare(w + 11, 4, "true") == 0 ? n : -n;
  };
  const long long by_flag = cycles(cold, "--warm-l2");
  EXPECT_GT(by_flag, 0);
  EXPECT_EQ(cycles(warm, ""), by_flag);
  EXPECT_EQ(cycles(warm, "--warm-l2"), by_flag);
  const long long flushed = cycles(cold, "");
  EXPECT_LT(flushed, 0);
  EXPECT_GT(-flushed, by_flag);  // the DRAM's latency instead of the L2's
  const std::string bad2 = temp_file("warm_bad2.toml", "warm_l2 = 1\n" + base);
  const CliResult r = cli(fmt::format("sim {} --launch {} --arch hopper-h100", ptx, bad2));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("warm_bad2.toml:1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'warm_l2' must be true or false"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::test

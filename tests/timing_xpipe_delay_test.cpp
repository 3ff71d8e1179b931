// The cross-pipe delay (sm.xpipe_delay, docs/timing.md "Cross-pipe delay"): a fixed-latency
// result reaches an instruction of the other pipe (the ALU's an FMA-pipe instruction, the FMA
// pipe's an ALU instruction) xpipe_delay cycles later than one of its own pipe. The source is
// ptxas 13.0's control codes for sm_75, sm_80 and sm_90: 5 cycles of stall counts from an IADD3,
// LOP3, SHF, LEA or ISETP to a dependent IMAD and from an IMAD to those, 4 within a pipe; on
// hopper-h100 lat_alu and lat_fma are 4, so xpipe_delay is 1. Each cost below is derived by hand
// from those keys, for chains of N links timed between two clock reads (24 links less 8, over 16).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "smemsim/arch.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One warp: %r10 = 1 and %r3 = 0 (nothing folds them); link k reads %r{10 + k} and writes
// %r{11 + k} through %r{200 + k}, by `first` then `second` (fmt strings of {0} the destination and
// {1} the source, each keeping the value: + 0, * 1); out[0] = the chain's cycles, out[1] its value.
std::string chain(int n, const std::string& first, const std::string& second) {
  std::string body;
  for (int k = 0; k < n; ++k) {
    body += "  " + fmt::format(fmt::runtime(first), 200 + k, 10 + k) + "\n";
    body += "  " + fmt::format(fmt::runtime(second), 11 + k, 200 + k) + "\n";
  }
  return clock_timed("xpipe", "  .reg .b32 %r<400>;\n  .reg .b64 %rd<4>;\n",
                     "  mov.u32 %r1, %tid.x;\n  and.b32 %r3, %r1, 0;\n  add.u32 %r10, %r3, 1;\n",
                     body, fmt::format("st.global.u32 [%rd2+4], %r{};", 10 + n));
}

const std::string kAdd = "add.u32 %r{}, %r{}, %r3;";   // the ALU (IADD3)
const std::string kMul = "mul.lo.u32 %r{}, %r{}, 1;";  // the FMA pipe (IMAD)

std::uint32_t per_link(const Arch& a, const std::string& first, const std::string& second) {
  TimedKernel k8(chain(8, first, second), 32, 2), k24(chain(24, first, second), 32, 2);
  k8.run(a);
  k24.run(a);
  EXPECT_EQ(k24.out()[1], 1u);  // + 0 and * 1 keep the 1
  const std::uint32_t d = k24.out()[0] - k8.out()[0];
  EXPECT_EQ(d % 16, 0u) << d;
  return d / 16;
}

// Within a pipe two dependent ops a link, each lat 4: 8 a link, with or without the delay.
TEST(XpipeDelay, WithinAPipeEachResultIsReadAtItsLatency) {
  const Arch a = hopper_plain();
  ASSERT_EQ(a.sm.xpipe_delay, 1u);
  ASSERT_EQ(a.sm.lat_alu, 4u);
  ASSERT_EQ(a.sm.lat_fma, 4u);
  EXPECT_EQ(per_link(a, kAdd, kAdd), 8u);
  EXPECT_EQ(per_link(a, kMul, kMul), 8u);
}

// add then mul then the next link's add: each result crosses to the other pipe, 4 + 1 = 5 each,
// 10 a link (ptxas's 5 from an IADD3 to an IMAD and back); 8 with the delay at 0, 12 at 2.
TEST(XpipeDelay, AResultCrossingToTheOtherPipeIsReadLater) {
  Arch a = hopper_plain();
  EXPECT_EQ(per_link(a, kAdd, kMul), 10u);
  EXPECT_EQ(per_link(a, kMul, kAdd), 10u);
  a.sm.xpipe_delay = 0;
  EXPECT_EQ(per_link(a, kAdd, kMul), 8u);
  a.sm.xpipe_delay = 2;
  EXPECT_EQ(per_link(a, kAdd, kMul), 12u);
}

// The seeds' GPUs have none.
TEST(XpipeDelay, TheSeedsPresetsHaveNone) {
  for (const char* name : {"fermi-gtx580", "fermi-gtx480", "cf11", "southern-islands"})
    EXPECT_EQ(find_preset(name).sm.xpipe_delay, 0u) << name;
}

}  // namespace
}  // namespace smemsim::test

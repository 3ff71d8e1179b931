// sm.lower's `spaces` rule (src/lower/schedule.hpp): the list scheduler keeps the order of two
// memory instructions only where their state spaces may alias, so a global load passes the shared
// store before it, as ptxas hoists conv_rows's LDGs above its STSs for sm_90 (docs/timing.md
// "Lowering"). Derived by hand: the orders each case must keep and the cycles a hoisted load saves.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lower/schedule.hpp"
#include "lower_test_util.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

constexpr const char* kOrders = R"(
.visible .entry orders(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[64];
  ld.param.u64 %rd1, [out];                // 0
  mov.u32 %r10, s;                         // 1
  ld.global.u32 %r1, [%rd1];               // 2
  st.shared.u32 [%r10], %r1;               // 3 shared store
  ld.global.u32 %r2, [%rd1+4];             // 4 global load: may pass 3
  st.u32 [%rd1+8], %r2;                    // 5 generic store: aliases every space
  ld.global.u32 %r3, [%rd1+12];            // 6 must stay after 5
  ld.shared.u32 %r4, [%r10+4];             // 7 must stay after 3 and 5
  atom.global.add.u32 %r5, [%rd1], 1;      // 8 an atomic: after everything before
  ld.shared.u32 %r6, [%r10+8];             // 9 and before everything after
  ld.volatile.global.u32 %r7, [%rd1+16];   // 10 volatile: in order with all of them
  ld.global.u32 %r8, [%rd1+20];            // 11
  ret;                                     // 12
}
)";

std::vector<std::uint32_t> positions(bool spaces) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kOrders, "orders.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  // A global load's latency far above the rest, as on every preset: the scheduler then wants
  // each global load as early as it may go.
  std::vector<std::uint32_t> latency(k.code.size(), 4);
  for (std::uint32_t i : {2u, 4u, 6u, 10u, 11u}) latency[i] = 500;
  std::vector<std::uint32_t> order =
      lower::schedule(k, timing::reg_uses(info), latency, {}, spaces);
  if (order.empty())
    for (std::uint32_t i = 0; i < k.code.size(); ++i) order.push_back(i);
  std::vector<std::uint32_t> pos(order.size());
  for (std::uint32_t p = 0; p < order.size(); ++p) pos[order[p]] = p;
  return pos;
}

TEST(LowerSpaces, KeepsOnlyTheOrderThatMayAlias) {
  const std::vector<std::uint32_t> p = positions(true);
  ASSERT_EQ(p.size(), 13u);
  EXPECT_LT(p[4], p[3]);  // the global load went above the shared store
  EXPECT_LT(p[5], p[6]);  // not above a generic store
  EXPECT_LT(p[3], p[7]);  // a shared load stays after the shared store
  EXPECT_LT(p[5], p[7]);  // and after the generic one
  for (std::uint32_t i = 2; i < 8; ++i) EXPECT_LT(p[i], p[8]) << i;  // the atomic: a fence
  EXPECT_LT(p[8], p[9]);
  EXPECT_LT(p[9], p[10]);  // volatile: after every memory access before it
  EXPECT_LT(p[10], p[11]);
  EXPECT_EQ(p[12], 12u);  // the block's end stays
}

TEST(LowerSpaces, WithoutTheRuleMemoryStaysInProgramOrder) {
  const std::vector<std::uint32_t> p = positions(false);
  const std::vector<std::uint32_t> mem = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  for (std::size_t i = 1; i < mem.size(); ++i) EXPECT_LT(p[mem[i - 1]], p[mem[i]]) << mem[i];
}

// Two global loads each stored to shared memory, between two clock reads. As written (and with
// `schedule` alone) each store waits for its load before the next load issues: two global
// latencies in a row. With `spaces` both loads issue first and the second's latency hides under
// the first's: the kernel's span shrinks by one load's latency less the cycle between the loads.
// So the saving is at least sm.global_latency (the memory's part of a load's latency) and at most
// the whole load path (lat_shared_ld + global_latency) plus a few cycles of issue.
TEST(LowerSpaces, AHoistedLoadHidesItsLatency) {
  const std::string body = R"(
.visible .entry hoist(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r9, s;
  mov.u32 %r10, %clock;
  ld.global.u32 %r1, [%rd2+16];
  st.shared.u32 [%r9], %r1;
  ld.global.u32 %r2, [%rd2+256];
  st.shared.u32 [%r9+4], %r2;
  mov.u32 %r11, %clock;
  sub.s32 %r12, %r11, %r10;
  st.global.u32 [%rd2], %r12;
  ret;
}
)";
  expect_one_load_latency_saved(body, "schedule", "schedule,spaces");
}

}  // namespace
}  // namespace smemsim::test

// The taken branch's fetch (sm.taken_branch_fetch, docs/timing.md "Taken-branch fetch"): a
// guarded branch that leaves the fall-through path has its target issue no earlier than
// taken_branch_fetch cycles after the branch issued; a branch that falls through costs nothing
// more. Each cost below is derived by hand from hopper-h100's keys (lat_alu 4, guard_delay 9,
// lat_branch 5), for loops of N iterations timed between two clock reads (24 iterations less 8:
// 16 iterations, each ending in a taken branch).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "smemsim/arch.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One warp counts %r10 from 0 to n: `add`, `setp` on its result, `chain` dependent adds on %r30
// (other work between the setp and the branch), `@p bra` back to the add. out[0] = the loop's
// cycles, out[1] = n.
std::string taken_counting_loop(int n, int chain) {
  std::string work;
  for (int k = 0; k < chain; ++k) work += "  add.u32 %r30, %r30, 1;\n";
  return clock_timed("loop", "  .reg .b32 %r<400>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n",
                     "  mov.u32 %r1, %tid.x;\n  and.b32 %r10, %r1, 0;\n  mov.u32 %r30, %r10;\n",
                     fmt::format("LOOP:\n  add.u32 %r10, %r10, 1;\n  setp.lt.u32 %p1, %r10, {};\n"
                                 "{}  @%p1 bra LOOP;\n",
                                 n, work),
                     "st.global.u32 [%rd2+4], %r10;");
}

std::uint32_t taken_per_iteration(const Arch& a, int chain) {
  TimedKernel k8(taken_counting_loop(8, chain), 32, 2), k24(taken_counting_loop(24, chain), 32, 2);
  k8.run(a);
  k24.run(a);
  EXPECT_EQ(k24.out()[1], 24u);
  const std::uint32_t d = k24.out()[0] - k8.out()[0];
  EXPECT_EQ(d % 16, 0u) << d;
  return d / 16;
}

// For each (taken_branch_fetch, cycles): the loop with `chain` adds takes that many cycles an
// iteration on hopper_plain().
void expect_iterations(int chain,
                       std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> cases) {
  Arch a = hopper_plain();
  for (const auto& [fetch, cycles] : cases) {
    a.sm.taken_branch_fetch = fetch;
    EXPECT_EQ(taken_per_iteration(a, chain), cycles) << "taken_branch_fetch " << fetch;
  }
}

// An iteration: the add issues at 0; the setp reads its result at 4; the predicate is readable at
// 8, the bra (guard_delay 9 more) issues at 17 and holds its warp lat_branch 5, so the next add
// issues at 22. The target may issue at 17 + taken_branch_fetch: 22 still with 5, 28 with 11, 32
// with 15.
TEST(TakenBranch, ALoopsTargetIssuesTheFetchAfterItsBranch) {
  Arch a = hopper_plain();
  ASSERT_EQ(a.sm.lat_alu, 4u);
  ASSERT_EQ(a.sm.guard_delay, 9u);
  ASSERT_EQ(a.sm.lat_branch, 5u);
  expect_iterations(0, {{0, 22}, {5, 22}, {11, 28}, {15, 32}});
}

// Six dependent adds between the setp and the bra. The ALU takes a warp instruction in 2 cycles
// (lanes_alu 16), so: add 0, setp 4, the chain's adds 6, 10, ..., 26 (each reads the one before,
// lat_alu 4), the bra 27 (its guard was ready at 17), the next add 32 without a fetch. A
// predicate known early does not hide the fetch, which starts at the branch: 27 + 11 = 38 with
// 11, 27 + 20 = 47 with 20, the same 6 and 15 cycles more as in the loop above.
TEST(TakenBranch, AnEarlyPredicateDoesNotHideTheFetch) {
  expect_iterations(6, {{0, 32}, {5, 32}, {11, 38}, {20, 47}});
}

// A forward branch over four adds, taken or not by the flag its setp computed just before: not
// taken it falls through (its four adds issue) and pays nothing. Taken: the setp issues at s, its
// predicate is readable at s + 4, the bra issues at s + 13 (guard_delay 9) and its target at
// s + 18 (lat_branch 5); with a fetch of 30 at s + 13 + 30 = s + 43, 25 cycles later.
std::string taken_forward_branch(bool taken) {
  return clock_timed("fwd", "  .reg .b32 %r<400>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n",
                     "  mov.u32 %r1, %tid.x;\n  and.b32 %r10, %r1, 0;\n",
                     fmt::format("  add.u32 %r11, %r10, {};\n  setp.ne.u32 %p1, %r11, 0;\n"
                                 "  @%p1 bra SKIP;\n  add.u32 %r20, %r10, 1;\n"
                                 "  add.u32 %r21, %r10, 2;\n  add.u32 %r22, %r10, 3;\n"
                                 "  add.u32 %r23, %r10, 4;\nSKIP:\n",
                                 taken ? 1 : 0),
                     "st.global.u32 [%rd2+4], %r11;");
}

std::uint32_t taken_cycles(const std::string& ptx, const Arch& a) {
  TimedKernel k(ptx, 32, 2);
  k.run(a);
  return k.out()[0];
}

TEST(TakenBranch, OnlyABranchThatLeavesTheFallThroughPathPaysIt) {
  Arch a = hopper_plain();
  a.sm.taken_branch_fetch = 0;
  const std::uint32_t fall0 = taken_cycles(taken_forward_branch(false), a),
                      taken0 = taken_cycles(taken_forward_branch(true), a);
  a.sm.taken_branch_fetch = 30;
  EXPECT_EQ(taken_cycles(taken_forward_branch(false), a), fall0);
  EXPECT_EQ(taken_cycles(taken_forward_branch(true), a), taken0 + 25);
}

// The seeds' GPUs have none.
TEST(TakenBranch, TheSeedsPresetsHaveNone) {
  for (const char* name : {"fermi-gtx580", "fermi-gtx480", "cf11", "southern-islands"})
    EXPECT_EQ(find_preset(name).sm.taken_branch_fetch, 0u) << name;
}

}  // namespace
}  // namespace smemsim::test

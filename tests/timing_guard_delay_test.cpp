// The guard delay (sm.guard_delay, docs/timing.md "Guard delay"): an instruction's guard predicate
// (@p) is read at issue, earlier than its register operands, so a predicate that a fixed-latency
// pipe wrote (setp: ISETP, FSETP) guards an instruction guard_delay cycles later than a register
// reader may read it. The source is ptxas 13.0's control codes for sm_80 and sm_90: at least 13
// cycles of stall counts from an ISETP, FSETP, LOP3 or PLOP3 to the instruction its predicate
// guards (a branch or any other), 4 to a SEL that reads the predicate as an operand; on
// hopper-h100 lat_alu is 4, so guard_delay is 9. Each cost below is derived by hand from those
// keys, for chains of N links timed between two clock reads (24 links less 8, over 16).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "lower/schedule.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One warp: %r10 = 1 and %r3 = 0 in registers (nothing folds them); link k reads %r{10 + k} and
// writes %r{11 + k} through the predicate %p{k}; out[0] = the chain's cycles, out[1] its value.
std::string guard_chain(int n, bool as_guard) {
  std::string body;
  for (int k = 0; k < n; ++k) {
    body += fmt::format("  setp.ne.u32 %p{}, %r{}, %r3;\n", k, 10 + k);
    body += as_guard ? fmt::format("  @%p{0} add.u32 %r{2}, %r{1}, %r3;\n", k, 10 + k, 11 + k)
                     : fmt::format("  selp.u32 %r{2}, %r{1}, %r3, %p{0};\n", k, 10 + k, 11 + k);
  }
  return clock_timed("guard", "  .reg .pred %p<40>;\n  .reg .b32 %r<400>;\n  .reg .b64 %rd<4>;\n",
                     "  mov.u32 %r1, %tid.x;\n  and.b32 %r3, %r1, 0;\n  add.u32 %r10, %r3, 1;\n",
                     body, fmt::format("st.global.u32 [%rd2+4], %r{};", 10 + n));
}

struct LinkCost {
  std::uint32_t per_link = 0, value = 0;
  std::uint64_t wait = 0;  // issue-slot cycles a link adds waiting (Stall::Wait)
};

LinkCost guard_link_cost(const Arch& a, bool as_guard) {
  TimedKernel k8(guard_chain(8, as_guard), 32, 2), k24(guard_chain(24, as_guard), 32, 2);
  const timing::TimingStats s8 = k8.run(a), s24 = k24.run(a);
  const std::uint32_t d = k24.out()[0] - k8.out()[0];
  EXPECT_EQ(d % 16, 0u) << d;
  return {d / 16, k24.out()[1],
          (s24.issue[timing::Stall::Wait] - s8.issue[timing::Stall::Wait]) / 16};
}

// @p add after setp p: the add issues 4 + 9 = 13 after the setp, the next setp 4 after the add:
// 17 a link, 15 of its cycles waiting (two issue). Without the delay 4 + 4 = 8. Every predicate
// is true (1 != 0), so each add writes its register and the chain ends at 1.
TEST(GuardDelay, AGuardReadsASetpsPredicateLate) {
  const Arch h = hopper_plain();
  ASSERT_EQ(h.sm.guard_delay, 9u);
  ASSERT_EQ(h.sm.lat_alu, 4u);
  const LinkCost on = guard_link_cost(h, true);
  EXPECT_EQ(on.per_link, 17u);
  EXPECT_EQ(on.wait, 15u);
  EXPECT_EQ(on.value, 1u);
  Arch none = h;
  none.sm.guard_delay = 0;
  EXPECT_EQ(guard_link_cost(none, true).per_link, 8u);
  // A larger delay moves the link by exactly the difference.
  Arch big = h;
  big.sm.guard_delay = 20;
  EXPECT_EQ(guard_link_cost(big, true).per_link, 4u + 20u + 4u);
}

// selp reads the predicate as an operand, as a register: 4 + 4 = 8 with or without the delay (the
// SASS's SEL 4 cycles after its ISETP).
TEST(GuardDelay, APredicateReadAsAnOperandIsNotLate) {
  const Arch h = hopper_plain();
  const LinkCost on = guard_link_cost(h, false);
  EXPECT_EQ(on.per_link, 8u);
  EXPECT_EQ(on.value, 1u);
  Arch none = h;
  none.sm.guard_delay = 0;
  EXPECT_EQ(guard_link_cost(none, false).per_link, 8u);
}

// A loop's block: the counter's add (0), eight independent adds (1-8), the setp of the counter
// (9) and the branch it guards (10). The scheduler's latencies: 4 each; the setp's to the
// instruction it guards 4 + 9 = 13. The branch ends the block in place, so the setp's height is
// 13 where each add's is 4: once the counter's add has issued (cycle 0), the setp is ready at
// cycle 4 and goes before the adds still waiting (adds 1-3 fill cycles 1-3), as ptxas puts a
// loop's ISETP early (rep_lds_imad's sm_90 SASS: the ISETP second in the loop, its BRA last).
// Without the guard latencies every height is 4 and program order keeps the setp last.
constexpr const char* kLoop = R"(
.visible .entry loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;        // 0
  add.u32 %r2, %r2, 1;        // 1
  add.u32 %r3, %r3, 1;        // 2
  add.u32 %r4, %r4, 1;        // 3
  add.u32 %r5, %r5, 1;        // 4
  add.u32 %r6, %r6, 1;        // 5
  add.u32 %r7, %r7, 1;        // 6
  add.u32 %r8, %r8, 1;        // 7
  add.u32 %r9, %r9, 1;        // 8
  setp.lt.u32 %p1, %r1, 4;    // 9
  @%p1 bra LOOP;              // 10
  ret;
}
)";

TEST(GuardDelay, TheSchedulerIssuesABranchsSetpEarly) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kLoop, "loop.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  // The block's instructions by their index in the kernel (the mov before the label is 0).
  std::uint32_t first = 0;
  while (k.code[first].op != ptx::Opcode::Add) ++first;
  const std::vector<std::uint32_t> latency(k.code.size(), 4);
  std::vector<std::uint32_t> guard = latency;
  guard[first + 9] += 9;
  auto position_of_setp = [&](const std::vector<std::uint32_t>& g) {
    std::vector<std::uint32_t> order =
        lower::schedule(k, timing::reg_uses(info), latency, {}, false, 0, g);
    if (order.empty())
      for (std::uint32_t i = 0; i < k.code.size(); ++i) order.push_back(i);
    for (std::uint32_t p = 0; p < order.size(); ++p)
      if (order[p] == first + 9) return p - first;
    return ~0u;
  };
  EXPECT_EQ(position_of_setp(guard), 4u);  // after the counter's add and adds 1-3
  EXPECT_EQ(position_of_setp({}), 9u);     // where the PTX has it
}

}  // namespace
}  // namespace smemsim::test

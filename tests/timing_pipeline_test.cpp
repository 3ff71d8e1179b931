// Exact-cycle tests of the cycle-level model, derived by hand (issue 9, "What it must show" 1).
//
// Every test runs on fig4_arch() unless it says otherwise: one SM, front end IF ID, one EXE stage,
// MEM0 MEM1, writeback; every latency 6 (= 2 + 1 + 2 + 1); a warp passes a stage in one cycle; a
// bank pass takes one cycle and a conflict holds MEM0 (t_bank = 1); loose round robin; relaxed
// barrel processing (independent instructions of one warp issue back to back). An instruction
// issued in cycle c is in IF at c, ID at c+1, EXE at c+2, MEM0 (or NONMEM0) at c+3, MEM1 at c+4,
// writes back at c+5, and a dependent instruction issues at c+6.
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

// One warp: i0 at 0, i1 at 6, i2 at 12, i3 at 18 (each 6 after its producer); ret has no operand
// and issues at 19. i3 writes back at 18 + 5 = 23, ret at 19 + 5 = 24: the kernel takes cycles
// 0..24, 25 cycles. The issue slot issues 5 times, waits on the ALU's results (`wait`) in 1-5, 7-11
// and 13-17 (15 cycles) and waits while the finished warp drains (Nsight Compute's `drain`: its ret
// and i3 in flight), 20-24 (5 cycles); it is never idle.
TEST(TimingPipeline, DependentAluChainInOneWarp) {
  TimedKernel k(kChain, 32);
  Recorder rec;
  const auto s = k.run(fig4_arch(), &rec);
  EXPECT_EQ(rec.issued(0, 0), 0u);
  EXPECT_EQ(rec.issued(0, 1), 6u);
  EXPECT_EQ(rec.issued(0, 2), 12u);
  EXPECT_EQ(rec.issued(0, 3), 18u);
  EXPECT_EQ(rec.issued(0, 4), 19u);
  EXPECT_EQ(rec.completed(0, 3), 23u);
  EXPECT_EQ(rec.completed(0, 4), 24u);
  EXPECT_EQ(s.cycles, 25u);
  EXPECT_EQ(s.issue[Stall::Issued], 5u);
  EXPECT_EQ(s.issue[Stall::Wait], 15u);
  EXPECT_EQ(s.issue[Stall::ShortScoreboard], 0u);
  EXPECT_EQ(s.issue[Stall::Drain], 5u);
  EXPECT_EQ(s.issue[Stall::Idle], 0u);
  EXPECT_EQ(s.warp_instructions, 5u);
  EXPECT_EQ(s.thread_instructions, 5u * 32);
}

// Two warps, loose round robin: warp 0 issues i0 at 0, warp 1 at 1; each then waits 6 for its
// operand, so i1 at 6 / 7, i2 at 12 / 13, i3 at 18 / 19. At 19 both may issue (warp 0 its ret,
// warp 1 its i3): round robin continues after warp 0, so warp 1's i3 at 19, warp 0's ret at 20,
// warp 1's ret at 21, which writes back at 26: 27 cycles.
TEST(TimingPipeline, TwoWarpsInterleaveRoundRobin) {
  TimedKernel k(kChain, 64);
  Recorder rec;
  const auto s = k.run(fig4_arch(), &rec);
  const std::uint64_t w0[] = {0, 6, 12, 18, 20}, w1[] = {1, 7, 13, 19, 21};
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(rec.issued(0, i), w0[i]) << "warp 0, instruction " << i;
    EXPECT_EQ(rec.issued(1, i), w1[i]) << "warp 1, instruction " << i;
  }
  EXPECT_EQ(s.cycles, 27u);
  EXPECT_EQ(s.issue[Stall::Issued], 10u);
}

// The same two warps under greedy-then-oldest: at 19 the greedy warp 0 (last issued at 18) keeps
// the slot and issues its ret; warp 1's i3 follows at 20 and its ret at 21 (greedy again). Warp 0's
// ret writes back at 24, warp 1's at 26: still 27 cycles, in another order.
TEST(TimingPipeline, TwoWarpsGreedyThenOldest) {
  TimedKernel k(kChain, 64);
  Arch a = fig4_arch();
  a.sm.scheduler = "gto";
  Recorder rec;
  const auto s = k.run(a, &rec);
  const std::uint64_t w0[] = {0, 6, 12, 18, 19}, w1[] = {1, 7, 13, 20, 21};
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(rec.issued(0, i), w0[i]) << "warp 0, instruction " << i;
    EXPECT_EQ(rec.issued(1, i), w1[i]) << "warp 1, instruction " << i;
  }
  EXPECT_EQ(s.cycles, 27u);
}

// Strict barrel processing (004 §6): a warp issues nothing while an instruction of it is in flight.
// One warp, i0..i4 each at 6 after the one before, even the independent ret: 0, 6, 12, 18, 24;
// ret writes back at 29: 30 cycles. The slot waits on "barrel" in 1-5, 7-11, 13-17 and 19-23 (20
// cycles: the scoreboard is never the reason, the warp has an instruction in flight first) and
// waits while ret drains (`drain`), 25-29.
TEST(TimingPipeline, StrictBarrelOneInstructionPerWarpInFlight) {
  TimedKernel k(kChain, 32);
  Arch a = fig4_arch();
  a.sm.barrel = "strict";
  Recorder rec;
  const auto s = k.run(a, &rec);
  EXPECT_EQ(rec.issued(0, 4), 24u);
  EXPECT_EQ(s.cycles, 30u);
  EXPECT_EQ(s.issue[Stall::Barrel], 20u);
  EXPECT_EQ(s.issue[Stall::Wait], 0u);
  EXPECT_EQ(s.issue[Stall::Drain], 5u);
  EXPECT_EQ(s.issue[Stall::Idle], 0u);
}

// WB contents in cycle `c` (-1: bubble).
int wb(const Recorder& r, std::uint64_t c) {
  const auto& cells = r.cells.at(c);
  return cells.back().warp < 0 ? -1 : int(cells.back().index);
}

// 004 Fig. 4a, unified pipeline. The load W_i issues at c and reaches MEM0 at c+3; its 2-way
// conflict holds MEM0 at c+4 as well, so it is in MEM1 at c+5 and writes back at c+6. W_i+1 reaches
// EXE at c+3 and cannot enter MEM0 at c+4: EXE, ID and IF stay full, and the front end cannot
// issue at c+4 (the one stall, for a bank conflict). Nothing reaches WB at c+5 (the bubble: i8,
// issued at c-1, wrote back at c+4). W_i+1 follows the load: WB at c+7; W_i+4 issues at c+5 instead
// of c+4. Without the conflict: the load writes back at c+5, W_i+1 at c+6, W_i+4 issues at c+4.
TEST(TimingPipeline, Seed004Fig4aUnifiedConflictStallsAndLeavesOneWritebackBubble) {
  for (const bool conflict : {true, false}) {
    SCOPED_TRACE(conflict ? "2-way conflict" : "conflict-free");
    TimedKernel k(fig4_kernel(conflict ? 7 : 6), 32);
    Recorder rec;
    const auto s = k.run(fig4_arch("unified"), &rec);
    const std::uint64_t c = rec.issued(0, 9);
    const std::uint64_t d = conflict ? 1 : 0;
    EXPECT_EQ(rec.issued(0, 10), c + 1);
    EXPECT_EQ(rec.issued(0, 12), c + 3);
    EXPECT_EQ(rec.issued(0, 13), c + 4 + d);
    EXPECT_EQ(rec.completed(0, 9), c + 5 + d);
    EXPECT_EQ(rec.completed(0, 10), c + 6 + d);
    EXPECT_EQ(rec.completed(0, 11), c + 7 + d);
    EXPECT_EQ(wb(rec, c + 4), 8);
    EXPECT_EQ(wb(rec, c + 5), conflict ? -1 : 9);
    EXPECT_EQ(s.issue[Stall::BankConflict], d);
    EXPECT_EQ(s.units.bank_conflict_passes, d);
    if (conflict) EXPECT_EQ(rec.stalls.at(c + 4), Stall::BankConflict);
  }
}

// 004 Fig. 4b, split pipeline. W_i+1 takes the NONMEM path: EXE c+3, NONMEM0 c+4, NONMEM1 c+5, and
// would write back at c+6, where the delayed load (MEM0 c+3 and c+4, MEM1 c+5) writes back too.
// The older load wins; W_i+1 stays in NONMEM1 and W_i+2 behind it in NONMEM0, W_i+3 in EXE, W_i+4
// and W_i+5 in ID and IF: the front end cannot issue at c+6 (a writeback stall), ret issues at c+7.
// WB: bubble at c+5, load c+6, W_i+1 c+7, W_i+2 c+8. Without the conflict nothing stalls.
TEST(TimingPipeline, Seed004Fig4bSplitConflictBecomesAWritebackConflict) {
  for (const bool conflict : {true, false}) {
    SCOPED_TRACE(conflict ? "2-way conflict" : "conflict-free");
    TimedKernel k(fig4_kernel(conflict ? 7 : 6), 32);
    Recorder rec;
    const auto s = k.run(fig4_arch("split"), &rec);
    const std::uint64_t c = rec.issued(0, 9);
    const std::uint64_t d = conflict ? 1 : 0;
    EXPECT_EQ(rec.issued(0, 14), c + 5);  // no stall before c+6
    EXPECT_EQ(rec.issued(0, 15), c + 6 + d);
    EXPECT_EQ(rec.completed(0, 9), c + 5 + d);
    EXPECT_EQ(rec.completed(0, 10), c + 6 + d);
    EXPECT_EQ(rec.completed(0, 11), c + 7 + d);
    EXPECT_EQ(wb(rec, c + 5), conflict ? -1 : 9);
    EXPECT_EQ(s.issue[Stall::Writeback], d);
    EXPECT_EQ(s.issue[Stall::BankConflict], 0u);  // the NONMEM path kept the front end going
    EXPECT_EQ(s.units.writeback_conflicts, d);
    if (conflict) EXPECT_EQ(rec.stalls.at(c + 6), Stall::Writeback);
  }
}

// bar.sync across two warps. Warp 1 branches over three dependent adds (i3-i5) straight to the
// barrier; warp 0 executes them. i0 at 0 / 1, i1 (setp) at 6 / 7, i2 (bra) at 12 / 13; the branch
// takes 6, so warp 0's i3 issues at 18 and warp 1's bar at 19. Warp 0: i4 at 24, i5 at 30, bar at
// 31 (no operand). Every warp has arrived at 31, but the barrier opens when the last bar writes
// back (31 + 5 = 36): both warps may issue from 37. Round robin after warp 0 (last issued): warp 1
// i7 at 37, warp 0 i7 at 38, warp 1 ret at 39, warp 0 ret at 40, which writes back at 45.
TEST(TimingPipeline, BarrierOpensWhenTheLastArrivalWritesBack) {
  TimedKernel k(R"(
.visible .entry bar(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra SKIP;
  add.u32 %r2, %r1, 1;
  add.u32 %r3, %r2, 1;
  add.u32 %r4, %r3, 1;
SKIP:
  bar.sync 0;
  add.u32 %r5, %r1, 7;
  ret;
}
)",
                64);
  Recorder rec;
  const auto s = k.run(fig4_arch(), &rec);
  EXPECT_EQ(rec.issued(0, 3), 18u);
  EXPECT_EQ(rec.issued(1, 6), 19u);
  EXPECT_EQ(rec.issued(0, 5), 30u);
  EXPECT_EQ(rec.issued(0, 6), 31u);
  EXPECT_EQ(rec.issued(1, 7), 37u);
  EXPECT_EQ(rec.issued(0, 7), 38u);
  EXPECT_EQ(rec.issued(1, 8), 39u);
  EXPECT_EQ(rec.issued(0, 8), 40u);
  EXPECT_EQ(s.cycles, 46u);
  for (std::uint64_t c = 32; c <= 36; ++c) EXPECT_EQ(rec.stalls.at(c), Stall::Barrier) << c;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// bar.arrive (issue 15): warp 0 produces and arrives at barrier 1 without waiting, warp 1 waits on
// it with bar.sync 1, 64. As in the bar.sync test above: i0 at 0 / 1, i1 at 6 / 7, i2 (bra) at
// 12 / 13; warp 0 falls through to i3 at 18, warp 1 branches to its bar.sync (i8) at 19. Warp 0:
// i4 (needs i3) at 24, bar.arrive (no register operand) at 25, i6 at 26, ret at 27 -- the arrive
// does not hold it. The barrier is complete at 25 and opens when the arrive writes back (25 + 5 =
// 30), so warp 1 stalls on the barrier through cycle 30 (alone from 28 on), issues i9 at 31 and
// its ret at 32, which writes back at 37: 38 cycles.
TEST(TimingPipeline, BarArriveCountsWithoutWaitingAndOpensAtItsWriteback) {
  TimedKernel k(R"(
.visible .entry arrive(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra CONSUMER;
  add.u32 %r2, %r1, 1;
  add.u32 %r3, %r2, 1;
  bar.arrive 1, 64;
  add.u32 %r5, %r1, 7;
  ret;
CONSUMER:
  bar.sync 1, 64;
  add.u32 %r6, %r1, 9;
  ret;
}
)",
                64);
  Recorder rec;
  const auto s = k.run(fig4_arch(), &rec);
  EXPECT_EQ(rec.issued(0, 3), 18u);
  EXPECT_EQ(rec.issued(1, 8), 19u);
  EXPECT_EQ(rec.issued(0, 5), 25u);
  EXPECT_EQ(rec.issued(0, 6), 26u);
  EXPECT_EQ(rec.issued(0, 7), 27u);
  EXPECT_EQ(rec.issued(1, 9), 31u);
  EXPECT_EQ(rec.issued(1, 10), 32u);
  EXPECT_EQ(s.cycles, 38u);
  for (std::uint64_t c = 28; c <= 30; ++c) EXPECT_EQ(rec.stalls.at(c), Stall::Barrier) << c;
}

}  // namespace
}  // namespace smemsim::test

// Exact-cycle tests of the MIO queues (sm.mio_queue, src/timing/mio.hpp; issue 25 item 1's "one
// shared MIO/LSU queue with its depth"), derived by hand.
//
// Every test runs on fig4_arch() (timing_pipeline_test.cpp's header: an instruction issued in
// cycle c is in IF at c, ID at c+1, EXE at c+2, MEM0 at c+3, MEM1 at c+4, writes back at c+5; a
// dependent instruction issues at c+6; t_bank = 1, so a conflicting access's passes follow each
// other in consecutive cycles). Every latency is 6 = 2 front-end + 1 EXE + 2 memory stages + 1,
// so a shared access spends one EXE stage either way, and with the queue its data comes back
// tail = mem_stages + (EXE stages - 1) = 2 cycles after its last pass: in the cycle it would have
// written back from MEM1 without the queue.
//
// kConflict: lane l (%laneid) reads word 32 l (byte 128 l), so all 32 lanes are in bank 0: 32
// passes, one per cycle. i0 and i1 make the address; i2 (the load) issues at 12, after i1's
// writeback at 11.
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

const char* kConflict = R"(
.visible .entry conf(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sh[4096];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 7;
  ld.shared.u32 %r3, [%r2];
  mov.u32 %r4, 4;
  mov.u32 %r5, 5;
  mov.u32 %r6, 6;
  ret;
}
)";

// i2 and i3 both conflicting loads, independent of each other.
const char* kTwoConflicts = R"(
.visible .entry conf2(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sh[4096];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 7;
  ld.shared.u32 %r3, [%r2];
  ld.shared.u32 %r4, [%r2+4];
  mov.u32 %r5, 5;
  ret;
}
)";

Arch mio_arch(std::uint32_t depth, std::uint32_t subcores = 1) {
  Arch a = fig4_arch();
  a.sm.subcores = subcores;
  a.sm.mio_queue = depth;
  validate(a);
  return a;
}

// Without the queue (the seeds' pipeline) the load holds MEM0 for its 32 passes (15..46) and the
// in-order pipeline behind it stops: i3 (issued 13) waits in EXE, i4 in ID, i5 in IF, and the
// issue slot stalls on the bank conflict. With a queue the load leaves MEM0 at 16 into the queue,
// whose scheduler makes the same 32 passes 15..46 (the port is free in 15), so its data comes back
// at 46 + 2 = 48 as before; i3, i4, i5 pass MEM0 at 16, 17, 18 and write back at 18, 19, 20; ret
// issues at 16 and writes back at 21. The kernel ends with the load: 49 cycles, no bank_conflict
// stall at the issue slot.
TEST(TimingMio, AluWorkGoesOnPastAConflictingAccess) {
  TimedKernel k(kConflict, 32);
  Recorder with;
  const auto s = k.run(mio_arch(4), &with);
  EXPECT_EQ(with.issued(0, 2), 12u);
  EXPECT_EQ(with.completed(0, 2), 48u);
  EXPECT_EQ(with.issued(0, 3), 13u);
  EXPECT_EQ(with.completed(0, 3), 18u);
  EXPECT_EQ(with.completed(0, 5), 20u);
  EXPECT_EQ(with.issued(0, 6), 16u);
  EXPECT_EQ(with.completed(0, 6), 21u);
  EXPECT_EQ(s.issue[Stall::BankConflict], 0u);
  EXPECT_EQ(s.units.bank_conflict_passes, 31u);
  EXPECT_EQ(s.cycles, 49u);

  // The same load without the queue: the same passes and the same writeback of the load, but ret
  // waits for the pipeline behind MEM0 (i3 leaves EXE for MEM0 only at 47).
  Recorder without;
  const auto n = k.run(fig4_arch(), &without);
  EXPECT_EQ(without.completed(0, 2), 48u);
  EXPECT_GT(without.issued(0, 6), 40u);
  EXPECT_GT(n.issue[Stall::BankConflict], 20u);
  EXPECT_GT(n.cycles, s.cycles);
}

// A conflict-free access takes its latency with or without the queue: kConflict on one lane (a
// single pass): the load issued at 12 writes back at 17 either way.
TEST(TimingMio, AConflictFreeAccessKeepsItsLatency) {
  TimedKernel k(kConflict, 1);
  Recorder with, without;
  const auto s = k.run(mio_arch(4), &with);
  const auto n = k.run(fig4_arch(), &without);
  EXPECT_EQ(with.completed(0, 2), 17u);
  EXPECT_EQ(without.completed(0, 2), 17u);
  EXPECT_EQ(s.cycles, n.cycles);
}

// Depth 1: the second load (i3) needs the entry the first holds until its last pass (46), so the
// warp stalls on mio_throttle from 13 to 45 (33 cycles) and i3 issues at 46: IF 46, ID 47, EXE 48,
// MEM0 49, passes 49..80, data back at 82: 83 cycles. i4 issues at 47, ret at 48.
// Depth 2: i3 issues at 13 and waits in the queue behind i2 (a FIFO): passes 47..78, back at 80:
// 81 cycles, no mio_throttle.
TEST(TimingMio, AFullQueueStallsIssueWithMioThrottle) {
  TimedKernel k(kTwoConflicts, 32);
  Recorder one;
  const auto s1 = k.run(mio_arch(1), &one);
  EXPECT_EQ(one.issued(0, 3), 46u);
  EXPECT_EQ(one.completed(0, 3), 82u);
  EXPECT_EQ(one.issued(0, 4), 47u);
  EXPECT_EQ(one.issued(0, 5), 48u);
  EXPECT_EQ(s1.issue[Stall::MioThrottle], 33u);
  EXPECT_EQ(one.stalls.at(13), Stall::MioThrottle);
  EXPECT_EQ(s1.cycles, 83u);

  Recorder two;
  const auto s2 = k.run(mio_arch(2), &two);
  EXPECT_EQ(two.issued(0, 3), 13u);
  EXPECT_EQ(two.completed(0, 2), 48u);
  EXPECT_EQ(two.completed(0, 3), 80u);
  EXPECT_EQ(s2.issue[Stall::MioThrottle], 0u);
  EXPECT_EQ(s2.cycles, 81u);
}

// Two sub-cores, one warp each, both running kConflict: both loads issue at 12 (sub-core 0 first,
// 12 % 2 = 0, so warp 0's is older) and are sent at 15. The scheduler serves the oldest head: warp
// 0's passes 15..46 (back at 48), then warp 1's 47..78 (back at 80): the port is the SM's, one
// pass per cycle for both queues. Each warp's ALU work and ret go on meanwhile (ret at 16).
TEST(TimingMio, TheOldestQueueHeadGetsTheSmsPort) {
  TimedKernel k(kConflict, 64);
  Recorder rec;
  const auto s = k.run(mio_arch(4, 2), &rec);
  EXPECT_EQ(rec.issued(0, 2), 12u);
  EXPECT_EQ(rec.issued(1, 2), 12u);
  EXPECT_EQ(rec.completed(0, 2), 48u);
  EXPECT_EQ(rec.completed(1, 2), 80u);
  EXPECT_EQ(rec.issued(0, 6), 16u);
  EXPECT_EQ(rec.issued(1, 6), 16u);
  EXPECT_EQ(s.units.smem_passes, 64u);
  EXPECT_EQ(s.cycles, 81u);
}

TEST(TimingMio, AQueueTooShortForOneInstructionIsRefused) {
  Arch a = fig4_arch();
  a.sm.simd_width = 8;  // 4 subwarps per instruction
  a.sm.mio_queue = 2;
  try {
    validate(a);
    ADD_FAILURE() << "a 2-entry queue accepted for 4 subwarps";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.mio_queue"), std::string::npos) << e.what();
  }
  a.sm.mio_queue = 4;
  EXPECT_NO_THROW(validate(a));
}

}  // namespace
}  // namespace smemsim::test

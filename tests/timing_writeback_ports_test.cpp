// sm.writeback_ports (issue 42): two results that reach the end of their units in the same cycle
// both commit when the sub-core has two result buses, where seed 004's single MEM0 latch makes
// the younger one wait. Derived by hand on fig4_arch() (timing_test_util.hpp: IF ID, one EXE
// stage, MEM0 MEM1, writeback; every latency 6 = 2 + 1 + 2 + 1), with the SFU's latency set to 8,
// so that sin.approx spends three cycles in EXE.
#include <gtest/gtest.h>

#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// i0 mov %f1 issues at 0 and writes back at 5; i1 sin.approx reads %f1: issued at 6, IF 6, ID 7,
// EXE 8-10, MEM0 11, MEM1 12, writeback 13. i2 and i3 are independent moves issued at 7 and 8
// (i2: EXE 9, MEM0 10, writeback 12). i3: IF 8, ID 9, EXE 10, and at 11 it wants MEM0 with the
// older sin.
//  - One port: sin takes MEM0 at 11; i3 stays in EXE, takes MEM0 at 12 and writes back at 14; ret
//    (issued 9) waits in ID behind it: EXE 12, MEM0 13, MEM1 14, writeback 15: 16 cycles.
//  - Two ports: i3 takes the second path at 11 (its two stages, 11 and 12) and writes back at 13
//    beside sin; ret: EXE 11, MEM0 12, writeback 14: 15 cycles.
const char* kCollide = R"(
.visible .entry collide(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  mov.f32 %f1, 0f3F800000;
  sin.approx.f32 %f2, %f1;
  mov.u32 %r1, 7;
  mov.u32 %r2, 9;
  ret;
}
)";

Arch collide_arch(std::uint32_t ports) {
  Arch a = fig4_arch();
  a.sm.lat_sfu = 8;
  a.sm.writeback_ports = ports;
  return a;
}

TEST(WritebackPorts, OnePortMakesTheYoungerResultWait) {
  TimedKernel k(kCollide, 32);
  Recorder rec;
  const auto s = k.run(collide_arch(1), &rec);
  EXPECT_EQ(rec.issued(0, 1), 6u);
  EXPECT_EQ(rec.issued(0, 3), 8u);
  EXPECT_EQ(rec.completed(0, 1), 13u);
  EXPECT_EQ(rec.completed(0, 2), 12u);
  EXPECT_EQ(rec.completed(0, 3), 14u);
  EXPECT_EQ(rec.completed(0, 4), 15u);
  EXPECT_EQ(s.cycles, 16u);
}

TEST(WritebackPorts, TwoPortsCommitBothInOneCycle) {
  TimedKernel k(kCollide, 32);
  Recorder rec;
  const auto s = k.run(collide_arch(2), &rec);
  EXPECT_EQ(rec.completed(0, 1), 13u);
  EXPECT_EQ(rec.completed(0, 2), 12u);
  EXPECT_EQ(rec.completed(0, 3), 13u);
  EXPECT_EQ(rec.completed(0, 4), 14u);
  EXPECT_EQ(s.cycles, 15u);
}

// The same in the split pipeline (004 Fig. 4b): sin and i3 both take the NONMEM path there, one
// a cycle, so the same collision happens at NONMEM0 and the second port removes it alike.
TEST(WritebackPorts, SplitPipelineAlike) {
  for (const std::uint32_t ports : {1u, 2u}) {
    TimedKernel k(kCollide, 32);
    Recorder rec;
    Arch a = collide_arch(ports);
    a.sm.pipeline = "split";
    k.run(a, &rec);
    EXPECT_EQ(rec.completed(0, 3), ports == 1 ? 14u : 13u) << ports << " ports";
  }
}

}  // namespace
}  // namespace smemsim::test

// memory.hash_latency (seed 002 §4.5: a configurable bank hash needs about 250 ps of a ~700 ps
// cycle, so every access takes one more cycle): the shared-memory units get that many more
// pipeline stages before MEM0. Exact cycles on fig4_arch() (timing_test_util.hpp: IF ID EXE MEM0
// MEM1 WB, every latency 6; an instruction issued at c lets a dependent one issue at c + 6).
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "test_util.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// i0 tid (issues at 0); i1 tid * 4 (at 6, after i0); i2 the array's address (7: issue is in order);
// i3 the word's address (13, six after i2); i4..i7 four loads of the lane's words, each depending
// on i3 only (19, 20, 21, 22); i8 adds the first load's value; i9 ret.
const char* kLoads = R"(
.visible .entry loads(.param .u64 out)
{
  .reg .b32 %r<16>;
  .shared .align 4 .b8 sh[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sh;
  add.u32 %r4, %r3, %r2;
  ld.shared.u32 %r5, [%r4];
  ld.shared.u32 %r6, [%r4+128];
  ld.shared.u32 %r7, [%r4+256];
  ld.shared.u32 %r8, [%r4+384];
  add.u32 %r9, %r5, 1;
  ret;
}
)";

// Without the hash stage i4 (issued at 19) writes back at 24 and lets i8 issue at 25; with
// hash_latency 1 the load passes IF ID EXE HASH MEM0 MEM1 WB: writeback at 25, i8 at 26. The four
// loads still issue in consecutive cycles (the hash stage is pipelined: it delays each access, it
// does not hold the ones behind); i7 writes back at 27 (28). ret follows i8 by one cycle and the
// kernel ends when it writes back: cycles 0..31, 32 cycles without the hash, 33 with it.
TEST(TimingHashLatency, Seed002Sec45OneMoreCyclePerSharedAccessPipelined) {
  for (std::uint32_t h : {0u, 1u}) {
    Arch a = fig4_arch();
    a.hash_latency = h;
    TimedKernel k(kLoads, 32);
    Recorder rec;
    const auto s = k.run(a, &rec);
    EXPECT_EQ(rec.issued(0, 3), 13u);
    for (std::uint32_t i = 4; i < 8; ++i) EXPECT_EQ(rec.issued(0, i), 19u + (i - 4)) << h;
    EXPECT_EQ(rec.issued(0, 8), 25u + h);
    EXPECT_EQ(rec.completed(0, 4), 24u + h);
    EXPECT_EQ(rec.completed(0, 7), 27u + h);
    EXPECT_EQ(s.cycles, 32u + h);
  }
}

// ALU instructions and the instruction mix around them do not pay it.
TEST(TimingHashLatency, OnlySharedMemoryUnitsPayIt) {
  Arch a = fig4_arch();
  a.hash_latency = 3;
  TimedKernel k(kChain, 32);
  Recorder rec;
  EXPECT_EQ(k.run(a, &rec).cycles, 25u);  // TimingPipeline.DependentAluChainInOneWarp's 25
}

TEST(TimingHashLatency, ArchKeyHasARange) {
  EXPECT_EQ(cli("arch show --set memory.hash_latency=1").exit_code, 0);
  const auto r = cli("arch show --set memory.hash_latency=17");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("memory.hash_latency"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::test

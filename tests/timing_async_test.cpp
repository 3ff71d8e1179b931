// cp.async in the cycle model (issue 25): a copy is timed as its global read (it was timed as a
// shared store, about 30 cycles, however far its data came from), it joins its warp's open group,
// and wait_group N holds the warp's next instruction until at most N committed groups have copies
// in flight. Derived by hand from the model's rules (docs/timing.md "Global memory", "Issue"):
// - an instruction that waits for something that completes in cycle X issues at X + 1 (as a
//   register dependence does: TimingPipeline's chain, producer written back at c + 5, dependent at
//   c + 6);
// - a global read's data comes back at least sm.global_latency cycles after it leaves MEM0.
#include <gtest/gtest.h>

#include <cstring>

#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

// i0..i2 set up the addresses; i3 copies out[0] to sh[0] (group 0), i4 commits; i5 copies out[1]
// to sh[1] (group 1), i6 commits; i7 waits until at most one group is in flight (group 0 done);
// i8 mov; i9 waits for every group; i10 reads sh[1]; i11 stores it to out[2]; i12 ret.
const char* kGroups = R"(
.visible .entry groups(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sh[256];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, sh;
  cp.async.ca.shared.global [%r1], [%rd2], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r1+4], [%rd2+4], 4;
  cp.async.commit_group;
  cp.async.wait_group 1;
  mov.u32 %r2, 2;
  cp.async.wait_group 0;
  ld.shared.u32 %r3, [%r1+4];
  st.global.u32 [%rd2+8], %r3;
  ret;
}
)";

TEST(TimingAsync, WaitGroupHoldsTheWarpUntilItsGroupsAreDone) {
  TimedKernel k(kGroups, 1);
  k.input(0, {11, 22, 0, 0});
  Recorder rec;
  const Arch a = fig4_arch();
  const auto s = k.run(a, &rec);
  // Each copy's data comes back a global latency after it left.
  EXPECT_GE(rec.completed(0, 3), rec.issued(0, 3) + a.sm.global_latency);
  EXPECT_GE(rec.completed(0, 5), rec.issued(0, 5) + a.sm.global_latency);
  // wait_group 1 issues at once; what follows it waits for group 0, and only for group 0.
  EXPECT_EQ(rec.issued(0, 7), rec.issued(0, 6) + 1);
  EXPECT_EQ(rec.issued(0, 8), rec.completed(0, 3) + 1);
  EXPECT_LT(rec.issued(0, 8), rec.completed(0, 5));
  // wait_group 0: the shared load after it waits for group 1.
  EXPECT_EQ(rec.issued(0, 10), std::max(rec.completed(0, 5), rec.issued(0, 9)) + 1);
  // The copy landed: in0[2] = in0[1] (the buffer given as `out`).
  std::uint32_t got = 0;
  std::memcpy(&got, k.mem.find("in0")->bytes.data() + 8, 4);
  EXPECT_EQ(got, 22u);
  EXPECT_GT(s.issue[Stall::Memory], 0u);
}

// Without a wait the copies do not hold the warp: the same kernel with both waits removed ends its
// issue long before the data is back (the kernel still ends when the copies are done).
TEST(TimingAsync, CopiesWithoutAWaitDoNotHoldTheWarp) {
  std::string body = kGroups;
  for (const char* w : {"  cp.async.wait_group 1;\n", "  cp.async.wait_group 0;\n"})
    body.erase(body.find(w), std::string(w).size());
  body.erase(body.find("  ld.shared.u32"), body.find("  ret;") - body.find("  ld.shared.u32"));
  TimedKernel k(body, 1);
  Recorder rec;
  const Arch a = fig4_arch();
  const auto s = k.run(a, &rec);
  EXPECT_LT(rec.issued(0, 8), rec.issued(0, 3) + 10);  // ret, after i7's mov
  EXPECT_GE(s.cycles, rec.issued(0, 5) + a.sm.global_latency);
}

}  // namespace
}  // namespace smemsim::test

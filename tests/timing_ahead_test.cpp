// Running an SM ahead (TimingOptions::run_ahead, issue 49; src/timing/gpu_ahead.cpp): on one
// thread an SM that touches nothing another SM sees ticks several cycles before the next SM
// ticks. It must change nothing: every kernel of the suite, on a GPU whose L2 its SMs share
// (hopper-h100) and on one that models each SM's share of it (volta-v100, fermi-gtx580: the
// lock loop), gives the same cycles, stall counts, per-SM statistics, unit counts and outputs
// with run-ahead on (the default, 32 cycles) and off (1). And it must happen: AES's SMs spend
// most cycles in its shared-memory rounds, so most of its SM-cycles are ticked ahead.
#include <gtest/gtest.h>

#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "timing_same.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using AheadRun = SuiteRun;

AheadRun run_builtin(const std::string& name, const Arch& arch, std::uint32_t ahead) {
  timing::TimingOptions o;
  o.threads = 1;
  o.run_ahead = ahead;
  return run_suite_kernel(name, arch, o);
}

void expect_same(const AheadRun& on, const AheadRun& off) {
  ASSERT_EQ(on.stats.size(), off.stats.size());
  for (std::size_t l = 0; l < on.stats.size(); ++l) {
    SCOPED_TRACE(::testing::Message() << "launch " << l);
    expect_same_stats(on.stats[l], off.stats[l]);
    EXPECT_EQ(off.stats[l].ahead_ticks, 0u);
  }
  EXPECT_EQ(on.buffers, off.buffers);  // outputs, byte for byte (atomic_bench's clock() reads too)
}

TEST(TimingAhead, EverySuiteKernelIsTheSameWithAndWithout) {
  for (const char* arch : {"volta-v100", "hopper-h100", "fermi-gtx580"}) {
    const Arch& a = find_preset(arch);
    for (const std::string& name : exec::builtin_names()) {
      SCOPED_TRACE(::testing::Message() << name << " on " << arch);
      expect_same(run_builtin(name, a, 32), run_builtin(name, a, 1));
    }
  }
}

// AES on volta-v100: 257 CTAs whose rounds read only shared memory, between a global load at the
// start and a store at the end: most SM-cycles are ticked ahead (534,871 of the 616,601 SM ticks
// when this was written), and none with run-ahead off.
TEST(TimingAhead, AesTicksMostSmCyclesAhead) {
  const Arch& v = find_preset("volta-v100");
  const AheadRun on = run_builtin("aes", v, 32);
  std::uint64_t sm_cycles = 0;
  for (const timing::SmStats& s : on.stats.at(0).sms) sm_cycles += s.busy_cycles;
  EXPECT_GT(on.stats.at(0).ahead_ticks, sm_cycles / 2);
  EXPECT_LE(on.stats.at(0).ahead_ticks, sm_cycles);
}

// Two CTAs on two SMs loop alike and then store out of bounds; CTA 0 takes two multiplies more on
// the way, so SM 1 fails a few cycles before SM 0. One tick a cycle reports SM 1's error; with
// run-ahead SM 0 may reach its store first (within 32 cycles), and its error must wait for its
// cycle: the message names block (1,0,0) either way.
TEST(TimingAhead, AnErrorAheadIsThrownAtItsCycle) {
  const std::string ptx = std::string(kTimingHeader) + R"(
.visible .entry oob()
{
  .reg .b32 %r<10>;
  .reg .pred %p<3>;
  .shared .align 4 .b8 s[64];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$L_loop:
  add.u32 %r3, %r3, %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 200;
  @%p1 bra $L_loop;
  setp.eq.u32 %p2, %r1, 0;
  @!%p2 bra $L_store;
  mul.lo.u32 %r3, %r3, 3;
  mul.lo.u32 %r3, %r3, 5;
$L_store:
  mov.u32 %r4, s;
  st.shared.u32 [%r4+4096], %r3;
  ret;
}
)";
  const ptx::Module m = ptx::parse(ptx, "oob.ptx");
  auto error = [&](std::uint32_t ahead) {
    exec::GlobalMemory mem;
    exec::Launch launch;
    launch.grid = {2, 1, 1};
    launch.block = {32, 1, 1};
    timing::TimingOptions o;
    o.run_ahead = ahead;
    try {
      timing::GpuSim sim(m, m.kernels.at(0), find_preset("volta-v100"), launch, mem, o);
      sim.run();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string one = error(1), ahead = error(32);
  EXPECT_NE(one.find("block (1,0,0)"), std::string::npos) << one;
  EXPECT_EQ(ahead, one);
}

}  // namespace
}  // namespace smemsim::test

// SharedRows of the SMs' per-register tables (src/timing/reg_rows.hpp, issue 49): registers share a
// row only where no answer of the scoreboard or the delay tables changes. Here, by hand, which
// registers share and which must not; and, for every kernel of the suite on three GPUs (two with
// the guard and cross-pipe delays, hopper-h100 with the operand delay too, fermi-gtx580 with the
// lock loop), the same cycles, stall counts, per-SM and per-instruction statistics and outputs
// with sharing (the default) and with a row per register.
#include <gtest/gtest.h>

#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "timing/inst_info.hpp"
#include "timing/reg_rows.hpp"
#include "timing_same.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

struct SharedRows {
  ptx::Module module;
  timing::TimingRows rows;
  std::uint32_t row(const std::string& name) const {
    const ptx::Kernel& k = module.kernels.at(0);
    for (std::uint32_t r = 0; r < k.regs.size(); ++r)
      if (k.regs[r].name == name) return rows.row[r];
    ADD_FAILURE() << "no register " << name;
    return ~0u;
  }
};

SharedRows shared_rows_of_module(const std::string& text) {
  SharedRows r{ptx::parse(text, "k.ptx"), {}};
  const ptx::Kernel& k = r.module.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  r.rows = timing::share_timing_rows(k, info, std::uint32_t(k.regs.size()) + 1, nullptr);
  return r;
}

SharedRows shared_rows_of(const std::string& body) {
  return shared_rows_of_module(
      std::string(kTimingHeader) + ".visible .entry k(.param .u64 out)\n{\n" +
      "\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n" + body + "}\n");
}

// The rows of `kernel` with its placeholder `hole` replaced by `text`.
SharedRows shared_rows_with(std::string kernel, const std::string& hole, const std::string& text) {
  kernel.replace(kernel.find(hole), hole.size(), text);
  return shared_rows_of(kernel);
}

// %r1 is written (0) and read (1); %r2 is written (1) and read (2); %r3 starts at 2, after %r1's
// last mention, a read that waited for %r1's write: it takes %r1's row. %rd1 lives 3-4 beside %r3.
TEST(TimingRows, AValueReadForTheLastTimeGivesItsRowToTheNext) {
  const SharedRows r = shared_rows_of(R"(
	mov.u32 %r1, 7;
	add.s32 %r2, %r1, 1;
	mul.lo.s32 %r3, %r2, 3;
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r3;
	ret;
)");
  EXPECT_EQ(r.row("%p1"), r.row("%p2"));
  EXPECT_NE(r.row("%r1"), r.row("%r2"));
  EXPECT_NE(r.row("%r3"), r.row("%rd1"));
}

// A global load whose result nothing reads (%r1) may still be in flight when the warp issues the
// instructions after it: a register that shared its row would wait for it (its write-after-write
// check), where its own row would not. %r1 keeps its row; %r2, which starts after %r1's only
// mention, takes a new one.
TEST(TimingRows, AWriteNothingReadsKeepsItsRow) {
  const SharedRows r = shared_rows_of(R"(
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1];
	mov.u32 %r2, 5;
	st.global.u32 [%rd1+4], %r2;
	ret;
)");
  EXPECT_NE(r.row("%r1"), r.row("%r2"));
  EXPECT_GE(r.rows.private_regs, 2u);  // %r1 and the expansions' register
}

// %r4 is loaded at 2 and read only at 5, past the guarded branch at 4: when every lane branches,
// the warp leaves %r4's range (2-5, widened to the branch's region 4-6) with the load in flight,
// so %r4 keeps its row, and the mov at 7 may not take it. %r1's load is read by the setp at 3,
// before the branch: %r1 gives its row back, and the mov takes that one. With a store guarded by
// %p1 in the branch's place, %r4 is read on every path, and only the expansions' register keeps a
// row to itself.
TEST(TimingRows, ABranchPastTheOnlyReadKeepsTheRow) {
  const std::string kernel = R"(
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r4, [%rd1+12];
	setp.eq.u32 %p1, %r1, 0;
	BRANCH;
	add.s32 %r2, %r4, 1;
	st.global.u32 [%rd1+4], %r2;
$L_join:
	mov.u32 %r3, 9;
	st.global.u32 [%rd1+8], %r3;
	ret;
)";
  auto with = [&](const std::string& branch) { return shared_rows_with(kernel, "BRANCH", branch); };
  const SharedRows skips = with("@%p1 bra $L_join");
  EXPECT_EQ(skips.rows.private_regs, 2u);
  EXPECT_NE(skips.row("%r4"), skips.row("%r3"));
  EXPECT_EQ(skips.row("%r1"), skips.row("%r3"));
  const SharedRows reads = with("@%p1 st.global.u32 [%rd1+16], %r1");
  EXPECT_EQ(reads.rows.private_regs, 1u);
}

// In a loop, %r1 is loaded every trip and read only where %p2 holds: a trip that branches past
// the read and then leaves the loop leaves the load in flight. %r1 lives through the whole loop (a
// range that meets a loop takes it whole) and keeps a row to itself. With the store guarded by
// %p2 instead of branched around, every trip reads %r1 and only the expansions' register keeps a
// row to itself.
TEST(TimingRows, AReadSkippedInALoopKeepsTheRow) {
  const std::string kernel = R"(
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, 0;
$L_loop:
	ld.global.u32 %r1, [%rd1];
	setp.lt.u32 %p2, %r2, 3;
	STORE;
$L_skip:
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 8;
	@%p1 bra $L_loop;
	mov.u32 %r5, 1;
	st.global.u32 [%rd1+8], %r5;
	ret;
)";
  auto with = [&](const std::string& store) { return shared_rows_with(kernel, "STORE", store); };
  EXPECT_EQ(with("@!%p2 bra $L_skip;\n\tst.global.u32 [%rd1+4], %r1").rows.private_regs, 2u);
  EXPECT_EQ(with("@%p2 st.global.u32 [%rd1+4], %r1").rows.private_regs, 1u);
}

// Paths that diverge run one after the other, out of code order: here the branch's target block
// lies after the join, so the warp may run 6, reach the join (7), run 9-11 and come back to 7.
// %p2 (2-7) and %p3 (9-10) do not meet in code order, but %p3's setp completes between %p2's
// setp and its use as a guard at 7, and a row's delay entries are its last writer's: the guard
// delay of %p2 would be lost. Both the branch back to the join (a backward branch: the span 7-11)
// and the divergent region (5-11) widen %p2 over the rare block, so the two cannot share (either
// alone keeps them apart; without both %p3 would take %p2's row, the lowest free at 9).
TEST(TimingRows, ADivergentRegionWidensTheRangesInIt) {
  const SharedRows r = shared_rows_of(R"(
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p2, %r1, 1;
	selp.u32 %r6, 1, 0, %p2;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L_rare;
	st.global.u32 [%rd1], %r6;
$L_join:
	@%p2 st.global.u32 [%rd1+8], %r1;
	ret;
$L_rare:
	setp.eq.u32 %p3, %r1, 2;
	@%p3 st.global.u32 [%rd1+4], %r1;
	bra.uni $L_join;
)");
  EXPECT_NE(r.row("%p2"), r.row("%p3"));
}

// The owner tags. On hopper-h100 a predicate that a fixed-latency pipe wrote guards an
// instruction 9 cycles later than a register reader may read it (sm.guard_delay): %p1's setp (1)
// leaves its row that delay. %p1 is last read at 2 (as selp's source, not as a guard), and %p2,
// which nothing writes (its value is undefined, as on a GPU, and no completion of its own
// overwrites the row's entries), takes %p1's row at 3. The guarded add waits only for the selp's
// result (4 cycles); %p1's guard delay, read as %p2's, would hold it 5 cycles more (the test fails
// so without the tags). With them the cycles are those of a row per register. The PTX is timed as
// written (sm.lower = none).
TEST(TimingRows, ADelayLeftOnARowIsItsWritersOnly) {
  const std::string body = R"(
.visible .entry own(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .pred %p<3>;
  .shared .align 4 .b8 s[256];
  mov.u32 %r8, %tid.x;
  setp.eq.u32 %p1, %r8, 0;
  selp.u32 %r2, 1, 2, %p1;
  @%p2 add.u32 %r2, %r2, 1;
  mov.u32 %r5, s;
  st.shared.u32 [%r5], %r2;
  ret;
}
)";
  const SharedRows r = shared_rows_of_module(std::string(kTimingHeader) + body);
  EXPECT_EQ(r.row("%p1"), r.row("%p2"));
  const Arch h = hopper_plain();
  auto cycles = [&](bool share) {
    exec::GlobalMemory mem;
    exec::Launch launch;
    launch.grid = {1, 1, 1};
    launch.block = {32, 1, 1};
    launch.args.push_back(exec::Arg::integer(0));
    timing::TimingOptions o;
    o.share_rows = share;
    timing::GpuSim sim(r.module, r.module.kernels.at(0), h, launch, mem, o);
    return sim.run().cycles;
  };
  EXPECT_EQ(cycles(true), cycles(false));
}

SuiteRun shared_rows_run(const std::string& name, const Arch& arch, bool share) {
  timing::TimingOptions o;
  o.threads = 1;
  o.share_rows = share;
  o.per_instruction = true;
  return run_suite_kernel(name, arch, o);
}

TEST(TimingRows, EverySuiteKernelIsTheSameWithAndWithoutSharing) {
  for (const char* arch : {"volta-v100", "hopper-h100", "fermi-gtx580"}) {
    const Arch& a = find_preset(arch);
    for (const std::string& name : exec::builtin_names()) {
      SCOPED_TRACE(::testing::Message() << name << " on " << arch);
      const SuiteRun shared = shared_rows_run(name, a, true), own = shared_rows_run(name, a, false);
      ASSERT_EQ(shared.stats.size(), own.stats.size());
      for (std::size_t l = 0; l < shared.stats.size(); ++l)
        expect_same_stats(shared.stats[l], own.stats[l]);
      EXPECT_EQ(shared.buffers, own.buffers);
    }
  }
}

}  // namespace
}  // namespace smemsim::test

// The SM's instruction and constant caches, cold at a launch's start (src/timing/fetch.hpp,
// docs/timing.md "Instruction and constant caches"). Each cost is derived by hand: a warp whose
// next instruction's 128-byte line (instructions 8k..8k+7) was never requested waits
// sm.icache_miss_cycles from its request, which the SM makes when the first warp reaches it, with
// the next sm.icache_prefetch_lines lines; a kernel parameter's or a launch dimension's 64-byte
// line is requested when a warp reaches the instruction and costs sm.const_miss_cycles.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "smemsim/arch.hpp"
#include "smemsim/ptx.hpp"
#include "timing/fetch.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// hopper-h100 on one SM, the PTX timed as written, without the launch's own cost and without
// either cache (each case turns on what it tests).
Arch bare() {
  Arch a = hopper_plain();
  a.sm.launch_cycles = 0;
  a.sm.dispatch_ctas = a.sm.dispatch_cycles = 0;
  a.sm.icache_miss_cycles = a.sm.icache_prefetch_lines = a.sm.const_miss_cycles = 0;
  return a;
}

// `n` independent adds (n + 2 instructions with the mov before them and the ret: the adds fill
// lines 0.. from instruction 1).
std::string adds(int n) {
  std::string body;
  for (int k = 0; k < n; ++k) body += fmt::format("  add.u32 %r{}, %r1, {};\n", 2 + k, k);
  return ".visible .entry adds(.param .u64 out)\n{\n  .reg .b32 %r<200>;\n  mov.u32 %r1, "
         "%tid.x;\n" +
         body + "  ret;\n}\n";
}

std::uint64_t cycles(const std::string& ptx, const Arch& a, std::uint32_t threads = 32) {
  TimedKernel k(ptx, threads);
  return k.run(a).cycles;
}

// One warp, 6 instructions (one line): the first issues M cycles later, and so does everything
// after it (nothing else waits on anything the line delays).
TEST(Fetch, AColdLineCostsTheMissOnce) {
  Arch a = bare();
  const std::uint64_t base = cycles(adds(4), a);
  for (const std::uint32_t m : {1u, 50u, 170u}) {
    a.sm.icache_miss_cycles = m;
    EXPECT_EQ(cycles(adds(4), a), base + m) << m;
  }
}

// 38 instructions, lines 0-4. Without prefetching the warp meets each line cold: line 0 costs M
// from the warp's start; each later line is requested when the warp issues the last instruction
// of the line before (it then knows its next), 2 cycles before the next add could issue (an add
// holds the sub-core's 16 ALU lanes 2 cycles), so it costs M - 2. With the next 4 lines requested
// with the first, only the first costs M: the others arrive with it.
TEST(Fetch, PrefetchedLinesArriveWithTheFirst) {
  Arch a = bare();
  const std::uint64_t base = cycles(adds(36), a);
  a.sm.icache_miss_cycles = 100;
  EXPECT_EQ(cycles(adds(36), a), base + 100 + 4 * 98);
  a.sm.icache_prefetch_lines = 4;
  EXPECT_EQ(cycles(adds(36), a), base + 100);
}

// The SM's warps share its cache: four warps (one a sub-core) wait for the same line, requested
// once, so four cost what one does.
TEST(Fetch, WarpsShareTheSmsLines) {
  Arch a = bare();
  const std::uint64_t base = cycles(adds(4), a, 128);
  a.sm.icache_miss_cycles = 170;
  EXPECT_EQ(cycles(adds(4), a, 128), base + 170);
}

// Parameters: ld.param of a parameter in line 1 (the first after the launch dimensions' line 0)
// waits for its line; a second parameter in the same line waits nothing more; one in the next line
// waits again, and so does %ntid.x, in line 0. A line is requested when the warp issues the
// instruction before (it then knows its next), at most 2 cycles before the reader would have
// issued without the miss (an ALU op holds the sub-core's 16 lanes 2 cycles), so each cold line
// costs C - 2 to C.
std::string params(const std::string& reads) {
  std::string decl;
  for (int p = 0; p < 20; ++p) decl += fmt::format("{}.param .u64 p{}", p ? ", " : "", p);
  return ".visible .entry params(" + decl +
         ")\n{\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<20>;\n  mov.u32 %r1, %tid.x;\n" + reads +
         "  ret;\n}\n";
}

TEST(Fetch, AParameterLineCostsTheMissOnce) {
  Arch a = bare();
  const std::string one = params("  ld.param.u64 %rd2, [p0];\n");
  // p0 and p7 lie in bytes 64-127 (line 1); p8 at byte 128 (line 2).
  const std::string same = params("  ld.param.u64 %rd2, [p0];\n  ld.param.u64 %rd3, [p7];\n");
  const std::string next = params("  ld.param.u64 %rd2, [p0];\n  ld.param.u64 %rd3, [p8];\n");
  const std::string dims = params("  ld.param.u64 %rd2, [p0];\n  mov.u32 %r3, %ntid.x;\n");
  const std::uint64_t b1 = cycles(one, a), b2 = cycles(same, a), b3 = cycles(next, a),
                      b4 = cycles(dims, a);
  a.sm.const_miss_cycles = 60;
  const auto within = [](std::uint64_t d, std::uint64_t lo, std::uint64_t hi) {
    EXPECT_GE(d, lo);
    EXPECT_LE(d, hi);
  };
  const std::uint64_t d1 = cycles(one, a) - b1;
  within(d1, 58, 60);
  EXPECT_EQ(cycles(same, a) - b2, d1);
  within(cycles(next, a) - b3, 116, 120);
  within(cycles(dims, a) - b4, 116, 120);
}

// Where each instruction's constant lies (constant_lines): line 0 the launch dimensions, the
// parameters from byte 64 as the launch lays them out (aligned to their size), then the .const
// variables from the next line; a load at a register's address is none (an LDC on the GPU).
TEST(Fetch, ConstantLines) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + R"(
.const .align 4 .b8 table[256];
.visible .entry k(.param .u32 a, .param .u64 b, .param .u32 c)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [a];
  ld.param.u64 %rd1, [b];
  ld.param.u32 %r2, [c+0];
  mov.u32 %r3, %nctaid.y;
  ld.const.u32 %r4, [table+132];
  mov.u64 %rd2, table;
  ld.const.u32 %r5, [%rd2];
  add.u32 %r6, %r1, 1;
  ret;
}
)",
                                   "t.ptx");
  std::uint32_t lines = 0;
  const auto at = timing::constant_lines(m.kernels.at(0), lines);
  // a at 64, b at 72 (8-aligned), c at 80: line 1. table from 128 (line 2): byte 260 is line 4.
  EXPECT_EQ(lines, 6u);  // bytes 0-383: the table's 256 from 128
  ASSERT_EQ(at.size(), 9u);
  EXPECT_EQ(at[0], 1u);
  EXPECT_EQ(at[1], 1u);
  EXPECT_EQ(at[2], 1u);
  EXPECT_EQ(at[3], 0u);
  EXPECT_EQ(at[4], 4u);
  EXPECT_EQ(at[5], ptx::kNone);
  EXPECT_EQ(at[6], ptx::kNone);
  EXPECT_EQ(at[7], ptx::kNone);
}

// The waits are named as Nsight Compute names them: a warp waiting for its line is in
// no_instruction, one waiting for its constant in imc_miss, and the issue slot says so too.
TEST(Fetch, TheWaitsAreNamed) {
  Arch a = bare();
  a.sm.icache_miss_cycles = 100;
  a.sm.const_miss_cycles = 60;
  TimedKernel k(params("  ld.param.u64 %rd2, [p0];\n"), 32);
  const timing::TimingStats s = k.run(a, nullptr, true);
  const auto slots = [&](timing::Stall r) { return s.issue.cycles[std::size_t(r)]; };
  // One warp on one of four sub-cores: its sub-core's slot waits 100 cycles for the line, then
  // for the parameter's line from the cycle after the mov before it issued: 59 of the 60.
  EXPECT_EQ(slots(timing::Stall::NoInstruction), 100u);
  EXPECT_EQ(slots(timing::Stall::ImcMiss), 59u);
  EXPECT_EQ(timing::stall_name(timing::Stall::NoInstruction), "no_instruction");
  EXPECT_EQ(timing::stall_name(timing::Stall::ImcMiss), "imc_miss");
}

}  // namespace
}  // namespace smemsim::test

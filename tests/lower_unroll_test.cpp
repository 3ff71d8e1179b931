// ptxas's unrolling of counted loops (sm.lower's `unroll`, src/lower/unroll.hpp): which loops the
// rule takes, checked against the SASS ptxas 13.0 made of the same PTX for sm_90
// (calibration/runs/h200-2026-11-28/sass.tar.gz), and what it saves in the cycle model, derived
// by hand. The parser's `.pragma "nounroll"` is checked here too.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lower/unroll.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"
#include "test_util.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

std::vector<std::uint32_t> overhead_of(const ptx::Kernel& k) {
  return lower::unrolled_overhead(k, timing::reg_uses(timing::decode_kernel(k)));
}

// The loops the rule unrolls: their branches.
std::vector<std::uint32_t> unrolled_loops(const ptx::Kernel& k) {
  std::vector<std::uint32_t> loops;
  const std::vector<std::uint32_t> o = overhead_of(k);
  for (std::uint32_t i = 0; i < o.size(); ++i)
    if (o[i] == i) loops.push_back(i);
  return loops;
}

TEST(PtxPragma, NounrollIsKeptWhereItStands) {
  const std::string body =
      "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n  mov.u32 %r1, 0;\nL:\n  .pragma \"nounroll\";\n"
      "  add.s32 %r1, %r1, 1;\n  setp.lt.s32 %p1, %r1, 8;\n  @%p1 bra L;\n  ret;\n}\n";
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n";
  const ptx::Module m = ptx::parse(head + ".visible .entry k()\n{\n" + body, "t.ptx");
  ASSERT_EQ(m.kernels[0].nounroll, std::vector<std::uint32_t>{1});  // before the add
  EXPECT_FALSE(m.kernels[0].nounroll_all);
  // At module scope it holds for every kernel, those before it too; a list of strings is read.
  const ptx::Module all = ptx::parse(
      head + ".visible .entry k()\n{\n" + body + ".pragma \"other\", \"nounroll\";\n", "t.ptx");
  EXPECT_TRUE(all.kernels[0].nounroll_all);
  // At entry scope (after the parameters), for that kernel.
  const ptx::Module entry =
      ptx::parse(head + ".visible .entry k() .pragma \"nounroll\";\n{\n" + body, "t.ptx");
  EXPECT_TRUE(entry.kernels[0].nounroll_all);
  EXPECT_THROW(ptx::parse(head + ".pragma nounroll;\n", "t.ptx"), InputError);
}

// Every kernel of the shipped PTX that ptxas compiled for sm_90: the loops the rule unrolls are
// those the SASS shows 4x whose trip count is known only at run time (a survey of the 310 PTX
// loops against their SASS loops, docs/timing.md "Lowering"); every other loop, none. Left out:
// the GPU-LocalTM kernels and rep_f2f_*, which have no SASS.
TEST(LowerUnroll, TheLoopsPtxasUnrollsFourTimes) {
  const std::map<std::pair<std::string, std::string>, std::size_t> sass_4x = {
      {{"conflict_free", "matmul"}, 1},
      {{"conflict_free", "matmul_naive"}, 1},
      {{"fix_corpus", "tr_rows"}, 2},
      {{"fix_corpus", "tr_rows_pad"}, 2},
      {{"genindex", "genindex"}, 1},
      {{"histogram", "histogram"}, 1},
      {{"histogram", "histogram12"}, 2},
      {{"hopper_ubench", "dsm_chase"}, 1},
      {{"hough", "hough_vote"}, 2},
      {{"kmeans", "kmeans_update"}, 3},
      {{"lud", "lud_diagonal"}, 2},
      {{"lud", "lud_perimeter"}, 2},
      {{"memory_ubench", "mem_chase"}, 1},
      {{"memory_ubench", "mem_chase_loaded"}, 1},
      {{"memory_ubench", "mem_read_pairs_ca"}, 1},
      {{"ubench_replicas", "rep_dfma"}, 1},
      {{"ubench_replicas", "rep_ffma"}, 1},
      {{"ubench_replicas", "rep_imad"}, 1},
      {{"ubench_replicas", "rep_sin"}, 1},
      {{"ubench_replicas", "rep_sqrt"}, 1},
      {{"ubench_replicas", "rep_wmma_f16acc"}, 1},
      {{"ubench_replicas", "rep_wmma_f32acc"}, 1},
      {{"wgmma", "wgmma_latency_n128"}, 1},
      {{"wgmma", "wgmma_latency_n16"}, 1},
      {{"wgmma", "wgmma_latency_n256"}, 1},
      {{"wgmma", "wgmma_latency_n32"}, 1},
      {{"wgmma", "wgmma_latency_n64"}, 1},
      {{"wgmma", "wgmma_latency_n8"}, 1},
      {{"wgmma", "wgmma_latency_rs_n16"}, 1},
      {{"wgmma", "wgmma_latency_rs_n32"}, 1},
      {{"wgmma", "wgmma_latency_rs_n8"}, 1},
  };
  std::size_t kernels = 0, loops = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx")) {
    if (e.path().extension() != ".ptx") continue;
    const std::string file = e.path().stem().string();
    if (file.rfind("tm_", 0) == 0) continue;
    const ptx::Module m = ptx::parse(slurp(e.path().string()), e.path().string());
    for (const ptx::Kernel& k : m.kernels) {
      if (k.name.rfind("rep_f2f_", 0) == 0) continue;
      const auto it = sass_4x.find({file, k.name});
      const std::size_t want = it == sass_4x.end() ? 0 : it->second;
      const std::size_t got = unrolled_loops(k).size();
      EXPECT_EQ(got, want) << file << ".ptx " << k.name;
      ++kernels;
      loops += got;
    }
  }
  EXPECT_GE(kernels, 160u);
  EXPECT_EQ(loops, 39u);
}

// One loop each, and whether the rule unrolls it: the counter %r1 from a parameter (a trip count
// known only at run time) unless said otherwise.
std::size_t loops_in(const std::string& setup, const std::string& body, int pad = 0) {
  std::string extra;
  for (int i = 0; i < pad; ++i) extra += "  add.s32 %r3, %r3, %r2;\n";
  const ptx::Module m = ptx::parse(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n, .param "
      ".u64 p)\n{\n  .reg .b32 %r<9>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<3>;\n"
      "  ld.param.u32 %r2, [n];\n  ld.param.u64 %rd1, [p];\n  mov.u32 %r3, 0;\n" +
          setup + "L:\n" + extra + body + "  ret;\n}\n",
      "t.ptx");
  return unrolled_loops(m.kernels[0]).size();
}

TEST(LowerUnroll, TheLoopsItLeaves) {
  const std::string from_param = "  mov.u32 %r1, %r2;\n";
  const std::string step = "  add.s32 %r1, %r1, -1;\n  setp.ne.s32 %p1, %r1, 0;\n  @%p1 bra L;\n";
  EXPECT_EQ(loops_in(from_param, "  add.s32 %r3, %r3, %r1;\n" + step), 1u);
  // A trip count known when compiling: the counter starts from a constant, the bound is one.
  EXPECT_EQ(loops_in("  mov.u32 %r1, 64;\n", "  add.s32 %r3, %r3, %r1;\n" + step), 0u);
  // Stepped by a register.
  EXPECT_EQ(loops_in(from_param,
                     "  add.s32 %r1, %r1, %r2;\n  setp.lt.u32 %p1, %r1, 4096;\n  @%p1 bra L;\n"),
            0u);
  // .pragma "nounroll" in its header block.
  EXPECT_EQ(loops_in(from_param, "  .pragma \"nounroll\";\n  add.s32 %r3, %r3, %r1;\n" + step), 0u);
  // An atomic whose result is read; one whose result is not is fine.
  EXPECT_EQ(loops_in(from_param,
                     "  atom.global.add.u32 %r4, [%rd1], 1;\n  add.s32 %r3, %r3, %r4;\n" + step),
            0u);
  EXPECT_EQ(loops_in(from_param, "  atom.global.add.u32 %r4, [%rd1], 1;\n" + step), 1u);
  // A second latch back to the head.
  EXPECT_EQ(loops_in(from_param, "  add.s32 %r3, %r3, %r1;\n" + step +
                                     "  setp.gt.s32 %p2, %r3, 0;\n  @%p2 bra L;\n"),
            0u);
  // More than 64 PTX instructions: 61 adds and the three of its overhead are 64, one more is 65.
  EXPECT_EQ(loops_in(from_param, step, 61), 1u);
  EXPECT_EQ(loops_in(from_param, step, 62), 0u);
}

// rep_ffma's loop: 16 fma.rn.f32, `add.s32 %r14, %r14, -4`, setp, bra. The overhead is the add,
// the setp and the branch; its nounroll remainder loop is not unrolled.
TEST(LowerUnroll, TheOverheadIsTheCounterTheCompareAndTheBranch) {
  const ptx::Module m = ptx::parse(
      slurp(std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/ubench_replicas.ptx"), "u.ptx");
  const ptx::Kernel* k = m.find_kernel("rep_ffma");
  ASSERT_NE(k, nullptr);
  const std::vector<std::uint32_t> o = overhead_of(*k);
  std::vector<ptx::Opcode> ops;
  for (std::uint32_t i = 0; i < o.size(); ++i)
    if (o[i] != ptx::kNone) ops.push_back(k->code[i].op);
  EXPECT_EQ(ops, (std::vector<ptx::Opcode>{ptx::Opcode::Add, ptx::Opcode::Setp, ptx::Opcode::Bra}));
}

// One warp: four independent FADDs, then the counter's add, setp and branch, N trips (N from the
// thread index, so known only at run time). On hopper-h100's keys with only this rule:
//   - a trip that issues its overhead: FADDs at 0-3, the add at 4 (ALU), the setp at 8 (lat_alu
//     4), its predicate readable at 12 and the bra at 12 + guard_delay 9 = 21; the next FADD
//     waits lat_branch 5 (26) and the taken branch's fetch 11: 32 cycles;
//   - a trip that does not: the four FADDs, and the first of the next trip at 4 (its own FADD's
//     latency, 4): 4 cycles.
// Timed as 24 trips less 8: trips 8-23, of which 11, 15, 19 and 23 issue their overhead (23 falls
// through, as 7 does in the run of 8, where 7 is the last): 12 x 4 + 4 x 32 = 176, 11 a trip.
// Without the rule every trip is 32.
std::string unroll_loop(int n) {
  return clock_timed(
      "unroll",
      "  .reg .b32 %r<400>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n",
      fmt::format("  mov.u32 %r1, %tid.x;\n  and.b32 %r10, %r1, 0;\n  add.s32 %r10, %r10, {};\n"
                  "  mov.f32 %f1, 0f00000000;\n  mov.f32 %f2, %f1;\n  mov.f32 %f3, %f1;\n"
                  "  mov.f32 %f4, %f1;\n",
                  n),
      "LOOP:\n  add.f32 %f1, %f1, 0f3F800000;\n  add.f32 %f2, %f2, 0f3F800000;\n"
      "  add.f32 %f3, %f3, 0f3F800000;\n  add.f32 %f4, %f4, 0f3F800000;\n"
      "  add.s32 %r10, %r10, -1;\n  setp.ne.s32 %p1, %r10, 0;\n  @%p1 bra LOOP;\n",
      "cvt.rzi.u32.f32 %r20, %f1;\n  st.global.u32 [%rd2+4], %r20;");
}

std::uint32_t unroll_per_trip(const Arch& a) {
  TimedKernel k8(unroll_loop(8), 32, 2), k24(unroll_loop(24), 32, 2);
  k8.run(a);
  k24.run(a);
  EXPECT_EQ(k24.out()[1], 24u);  // the functional result: every trip ran
  const std::uint32_t d = k24.out()[0] - k8.out()[0];
  EXPECT_EQ(d % 16, 0u) << d;
  return d / 16;
}

TEST(LowerUnroll, ThreeTripsOfFourIssueNoOverhead) {
  Arch a = hopper_plain();
  ASSERT_EQ(a.sm.taken_branch_fetch, 11u);
  ASSERT_EQ(a.sm.guard_delay, 9u);
  EXPECT_EQ(unroll_per_trip(a), 32u);
  a.sm.lower = "unroll";
  EXPECT_EQ(unroll_per_trip(a), 11u);
}

}  // namespace
}  // namespace smemsim::test

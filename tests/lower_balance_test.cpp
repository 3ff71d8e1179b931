// The lowering rule balance (issue 42, src/timing/pipe_balance.cpp): ptxas runs some integer
// adds, moves and shifts by an immediate on the FMA pipe as IMAD forms (VIADD, IMAD.MOV.U32,
// IMAD.SHL.U32), so that the ALU pipe does not bound a block the FMA pipe could share. Checked on
// a hand-read kernel with two pipe configurations (which instructions move, derived below), and
// on hopper-h100's L1 bandwidth figure, whose loop the ALU bound before.
#include <gtest/gtest.h>

#include "calibrate/replicas.hpp"
#include "lower/lower.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One basic block (no branch target before the ret), numbered in the comments.
const char* kPipes = R"(
.visible .entry pipes(.param .u64 out, .param .f32 x)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  mov.u32 %r1, %tid.x;            // 0  ALU: a special register (S2R), never an IMAD
  add.s32 %r2, %r1, 1;            // 1  may move (VIADD)
  add.s32 %r3, %r2, %r1;          // 2  may move (IMAD.IADD)
  shl.b32 %r4, %r3, %r1;          // 3  ALU: a shift by a register
  xor.b32 %r5, %r4, 3;            // 4  ALU: logic
  setp.ne.s32 %p1, %r5, 0;        // 5  ALU: a compare
  shl.b32 %r6, %r5, 2;            // 6  may move (IMAD.SHL.U32)
  mov.u32 %r7, %r6;               // 7  may move (IMAD.MOV.U32)
  add.s32 %r8, %r7, %r6;          // 8  may move
  ld.param.f32 %f1, [x];          // 9  constant
  add.f32 %f2, %f1, %f1;          // 10 FMA
  mul.f32 %f3, %f2, %f2;          // 11 FMA
  selp.b32 %r9, %r8, 0, %p1;      // 12 ALU
  ld.param.u64 %rd1, [out];       // 13
  st.global.u32 [%rd1], %r9;      // 14
  st.global.f32 [%rd1+4], %f3;    // 15
  ret;                            // 16
}
)";

std::vector<std::uint32_t> moved(const ptx::Kernel& k, const SmConfig& sm) {
  std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<std::uint32_t> absorbed =
      timing::apply_lowering(k, info, lower::parse_rules("none"));
  timing::balance_pipes(k, info, absorbed, sm);
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < info.size(); ++i)
    if (info[i].unit == timing::Unit::Imad) {
      EXPECT_TRUE(info[i].int_mul) << i;  // at IMAD's rate (sm.lanes_imad)
      out.push_back(i);
    }
  return out;
}

// The block's ALU ops are 0-8 and 12 (ten), its FMA ops 10 and 11. Candidates, in program
// order, move while that lowers the busier pipe's cycles (ALU, FMA) and the ALU is the busier:
// - hopper-h100 (ALU 16 lanes: 2 cycles a warp op; FMA 32: 1; IMAD 16: 2): (20, 2); 1 gives
//   (18, 4), 2 (16, 6), 6 (14, 8), 7 (12, 10); 8 would give (10, 12), whose 12 is not below 12:
//   it stays. 1, 2, 6, 7 move.
// - an FMA pipe of 16 lanes, IMAD on all of them (2 cycles each): (20, 4); 1 (18, 6), 2 (16, 8),
//   6 (14, 10), 7 (12, 12); the pipes are even, so 8 stays: 1, 2, 6, 7.
// - an ALU of 32 lanes (1 cycle) beside it: (10, 4); 1 (9, 6), 2 (8, 8), then even: 1, 2.
TEST(LoweringBalance, MovesIntegerOpsToTheFmaPipeWhileTheAluIsBusier) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kPipes, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 17u);
  SmConfig sm = find_preset("hopper-h100").sm;
  EXPECT_EQ(moved(k, sm), (std::vector<std::uint32_t>{1, 2, 6, 7}));
  sm.lanes_fma = 16;
  sm.lanes_imad = 0;  // IMAD at the FMA pipe's 16 lanes
  EXPECT_EQ(moved(k, sm), (std::vector<std::uint32_t>{1, 2, 6, 7}));
  sm.lanes_alu = 32;
  EXPECT_EQ(moved(k, sm), (std::vector<std::uint32_t>{1, 2}));
  // No FMA pipe of its own (Fermi's CUDA cores): nothing moves.
  EXPECT_TRUE(moved(k, find_preset("fermi-gtx580").sm).empty());
}

// hopper-h100's L1 bandwidth replica (rep_l1_bw_64v: 32 warps of 256-byte L1 hits). Its loop
// issues, for each load, an add, a widening cvt and a 64-bit and and add: 8 cycles of a sub-core's
// 16 ALU lanes, with the loop's counter and compare more, so the ALU bounds it under 4 x 256 / 8
// = 128 B/clk (102.1 in the model, -16 % against the H100's 121.98). With the rule the adds share
// the FMA pipe, as VIADD and IMAD.X do in the SASS, and the figure is within 5 %.
TEST(LoweringBalance, TheH100sL1BandwidthIsNoLongerAluBound) {
  const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica& r = *calibrate::find_replica("l1_bw_64v");
  Arch a = find_preset("hopper-h100");
  const double with = calibrate::run_replica(r, a, code);
  EXPECT_NEAR(with, 121.98, 0.05 * 121.98);
  const lower::Rules rules = lower::parse_rules(a.sm.lower);
  ASSERT_TRUE(rules.balance);
  lower::Rules off = rules;
  off.balance = false;
  a.sm.lower = lower::to_string(off);
  const double without = calibrate::run_replica(r, a, code);
  EXPECT_LT(without, 0.9 * 121.98);
  EXPECT_GT(with, without * 1.15);
}

}  // namespace
}  // namespace smemsim::test

// The list scheduler and wgmma (src/lower/schedule.hpp, lower.hpp's ends_block): a
// wgmma.mma_async does not end a block, so a loop's counter moves above the products, as ptxas
// puts wgmma_latency_rs_n8's VIADD (and its ISETP) before its HGMMAs (sm_90a SASS in
// calibration/runs/h200-2026-11-28/sass.tar.gz); the products keep their order among themselves
// and with every memory instruction, and wgmma's fence, commit_group and wait_group stay where
// they are. Read on the shipped PTX of kernels/wgmma.cu, the kernel the H800 figure's replica runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/schedule.hpp"
#include "smemsim/ptx.hpp"
#include "test_util.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::test {
namespace {

bool is_mma(const ptx::Instruction& ins) {
  return ins.op == ptx::Opcode::Wgmma &&
         ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask) == ptx::WgmmaOp::Mma;
}

TEST(LowerWgmmaOrder, ALoopsCounterMovesAboveItsProducts) {
  const ptx::Module m =
      ptx::parse(slurp(std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/wgmma.ptx"), "wgmma.ptx");
  const ptx::Kernel* kp = nullptr;
  for (const ptx::Kernel& k : m.kernels)
    if (k.name == "wgmma_latency_rs_n8") kp = &k;
  ASSERT_NE(kp, nullptr);
  const ptx::Kernel& k = *kp;
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  // Every instruction 4 cycles to a dependent, the products 13, and a setp 4 + 9 to the
  // instruction it guards (hopper-h100's guard_delay; a block's branch counts): the scheduler
  // issues, cycle by cycle, the ready instruction with the longest path to the block's end.
  std::vector<std::uint32_t> latency(k.code.size(), 4), guard(k.code.size(), 4);
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    if (is_mma(k.code[i])) latency[i] = guard[i] = 13;
    if (k.code[i].op == ptx::Opcode::Setp) guard[i] = 13;
  }
  std::vector<std::uint32_t> order =
      lower::schedule(k, timing::reg_uses(info), latency, {}, false, 0, guard);
  ASSERT_FALSE(order.empty());
  std::vector<std::uint32_t> pos(order.size());
  for (std::uint32_t p = 0; p < order.size(); ++p) pos[order[p]] = p;

  // The unrolled loop: the back branch whose block holds four products.
  std::uint32_t head = 0, back = 0;
  for (std::uint32_t i = 0; i < k.code.size(); ++i) {
    const ptx::Instruction& ins = k.code[i];
    if (ins.op != ptx::Opcode::Bra || ins.ops[0].kind != ptx::OperandKind::Label) continue;
    const std::uint32_t t = ins.ops[0].target;
    int mmas = 0;
    for (std::uint32_t j = t; j < i; ++j) mmas += is_mma(k.code[j]);
    if (t < i && mmas == 4) head = t, back = i;
  }
  ASSERT_LT(head, back) << "no loop of four products";
  EXPECT_EQ(pos[back], back);  // the branch ends the block in place
  std::uint32_t first_mma = back, counter = 0;
  std::vector<std::uint32_t> mma;
  for (std::uint32_t j = head; j < back; ++j) {
    if (is_mma(k.code[j])) {
      first_mma = std::min(first_mma, pos[j]);
      mma.push_back(j);
    }
    if (k.code[j].op == ptx::Opcode::Add) counter = j;
  }
  ASSERT_EQ(mma.size(), 4u);
  ASSERT_GT(counter, mma.back());  // in the PTX the counter follows the products
  // The counter, which no product reads, goes to the top of the block, above the products; they
  // keep their order (and the setp its place after them: the products' 13 cycles are the longer
  // path to the block's end).
  EXPECT_LT(pos[counter], first_mma);
  for (std::size_t j = 1; j < mma.size(); ++j) EXPECT_LT(pos[mma[j - 1]], pos[mma[j]]);

  // Outside the loop every wgmma fence, commit_group and wait_group keeps its place.
  for (std::uint32_t i = 0; i < k.code.size(); ++i)
    if (k.code[i].op == ptx::Opcode::Wgmma && !is_mma(k.code[i])) EXPECT_EQ(pos[i], i) << i;
}

}  // namespace
}  // namespace smemsim::test

// The lowering rule lop3 (issue 42, src/lower/lower.hpp): two dependent bitwise operations, the
// first read only by the second, are one LOP3.LUT (a function of three registers). Checked on a
// hand-read kernel (which instructions are taken in, and which stay and why) and on a chain's
// cycles against a derivation from the keys, with the rule on and off.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>

#include "lower/lower.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kLogic = R"(
.visible .entry logic(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;            // 0
  xor.b32 %r2, %r1, 5;            // 1  lop3, with 2
  xor.b32 %r3, %r2, %r1;          // 2  took 1 in: three inputs, so it is not taken in itself
  xor.b32 %r4, %r3, 7;            // 3  lop3, with 4
  and.b32 %r5, %r4, %r1;          // 4
  not.b32 %r6, %r5;               // 5  lop3, with 6 (a not is one input of the three)
  or.b32 %r7, %r6, 3;             // 6
  xor.b32 %r8, %r7, %r1;          // 7  read twice by 8: stays
  and.b32 %r9, %r8, %r8;          // 8  read by an add: stays
  add.s32 %r10, %r9, 1;           // 9
  setp.ne.s32 %p1, %r10, 0;       // 10
  setp.ne.s32 %p2, %r1, 0;        // 11
  and.pred %p3, %p1, %p2;         // 12 predicates: stays (no LOP3 on them)
  or.pred %p4, %p3, %p1;          // 13
  cvt.u64.u32 %rd1, %r10;         // 14
  xor.b64 %rd2, %rd1, 9;          // 15 its reader is 32 bits wide: stays
  cvt.u32.u64 %r11, %rd2;         // 16
  and.b32 %r12, %r11, 255;        // 17
  selp.b32 %r13, %r12, 0, %p4;    // 18
  ld.param.u64 %rd3, [out];       // 19
  st.global.u32 [%rd3], %r13;     // 20
  ret;                            // 21
}
)";

TEST(LoweringLop3, TakesInOneBitwiseProducerPerConsumer) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kLogic, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 22u);
  std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<std::uint32_t> with =
      timing::apply_lowering(k, info, lower::parse_rules("lop3"));
  std::vector<std::uint32_t> marked, into;
  for (std::uint32_t i = 0; i < with.size(); ++i)
    if (with[i] != ptx::kNone) marked.push_back(i), into.push_back(with[i]);
  EXPECT_EQ(marked, (std::vector<std::uint32_t>{1, 3, 5}));
  EXPECT_EQ(into, (std::vector<std::uint32_t>{2, 4, 6}));
  // Off (and under every other rule) none of them is taken in.
  std::vector<timing::InstInfo> plain = timing::decode_kernel(k);
  const auto without =
      timing::apply_lowering(k, plain, lower::parse_rules("fma,imad,lea,addr,cvt,mov"));
  for (std::uint32_t i : {1u, 3u, 5u}) EXPECT_EQ(without[i], ptx::kNone) << i;
}

// Each link is x = (x ^ a) ^ b. Off, the two xors wait on each other: 2 x lat_alu a link. With
// lop3 the first issues with the second, which waits for the previous link: lat_alu a link. The
// clock reads add a constant, so two chain lengths' difference is (N2 - N1) x the link's cost.
std::string xor_chain(int n) {
  std::string body;
  for (int k = 0; k < n; ++k)
    body += fmt::format("  xor.b32 %r{0}, %r{1}, %r100;\n  xor.b32 %r{2}, %r{0}, %r101;\n",
                        2 * k + 200, k == 0 ? 1 : 2 * k + 199, 2 * k + 201);
  return fmt::format(
      ".visible .entry chain(.param .u64 out)\n{{\n  .reg .b32 %r<400>;\n  .reg .b64 %rd<8>;\n"
      "  mov.u32 %r1, %tid.x;\n  mov.u32 %r100, 0x5a5a5a5a;\n  mov.u32 %r101, 0x0ff00ff0;\n"
      "  mov.u32 %r390, %clock;\n{}  mov.u32 %r391, %clock;\n  sub.s32 %r392, %r391, %r390;\n"
      "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  st.global.u32 [%rd2], %r392;\n  st.global.u32 [%rd2+4], %r{};\n  ret;\n}}\n",
      body, 2 * n + 199);
}

struct ChainResult {
  std::uint32_t cycles, value;
  std::uint64_t absorbed;
};

ChainResult run_chain(int n, const char* rules) {
  Arch a = find_preset("volta-v100");
  a.sm.count = 1;
  a.sm.lower = rules;
  TimedKernel k(xor_chain(n), 1, 2);
  const timing::TimingStats s = k.run(a);
  std::uint32_t out[2];
  std::memcpy(out, k.mem.find("out")->bytes.data(), sizeof out);
  return {out[0], out[1], s.absorbed};
}

TEST(LoweringLop3, XorPairTakesOneAluLatencyALink) {
  const std::uint32_t alu = find_preset("volta-v100").sm.lat_alu;
  const ChainResult on8 = run_chain(8, "lop3"), on24 = run_chain(24, "lop3");
  const ChainResult off8 = run_chain(8, "none"), off24 = run_chain(24, "none");
  EXPECT_EQ(on24.cycles - on8.cycles, 16 * alu);
  EXPECT_EQ(off24.cycles - off8.cycles, 16 * 2 * alu);
  // The PTX still runs as written: each link is x ^ a ^ b, so an even count of links leaves x,
  // the thread index (0).
  EXPECT_EQ(on24.value, off24.value);
  EXPECT_EQ(on24.value, 0u);
  EXPECT_EQ(on24.absorbed, 24u);
  EXPECT_EQ(off24.absorbed, 0u);
}

}  // namespace
}  // namespace smemsim::test

// `sim --sample-ctas K` (issue 31, item 4): the first K CTAs per SM (two residencies at least)
// timed, the rest run functionally and their cycles estimated from the steady CTAs by Little's
// law (src/timing/sampling.cpp). The estimate's error on real kernels is measured by
// scripts/sample-error.py (docs/timing.md); these tests hold the arithmetic on hand-made records,
// what must stay exact (outputs, instruction counts, a grid the timed part covers) and the errors.
#include <algorithm>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "test_util.hpp"
#include "timing/sampling.hpp"

namespace smemsim::timing {
namespace {

// Two slots; the first residency (CTAs 0, 1) runs cycles 0-99, the steady CTAs 2-5 run 100 cycles
// each from cycle 100 on (two at a time), the timed part ends at 299. Ten untimed CTAs of the same
// work keep two slots busy 10 x 100 / 2 = 500 cycles longer: 299 + 500 = 799. A CTA of twice the
// work counts twice.
TEST(Sampling, LittlesLawOnTheSteadyCtas) {
  SamplingStats s;
  s.slots = 2;
  s.cycles_timed = 299;
  s.timed = {{0, 0, 99, 10},    {1, 0, 99, 10},    {2, 100, 199, 10},
             {3, 100, 199, 10}, {4, 200, 299, 10}, {5, 200, 299, 10}};
  estimate_untimed(s, std::vector<std::uint64_t>(10, 10));
  EXPECT_EQ(s.steady_ctas, 4u);
  EXPECT_DOUBLE_EQ(s.steady_cycles, 100);
  EXPECT_DOUBLE_EQ(s.equivalents, 10);
  EXPECT_EQ(s.cycles_estimate, 799u);
  EXPECT_EQ(s.cycles_low, 799u);  // every steady CTA took 100 cycles: no spread
  EXPECT_EQ(s.cycles_high, 799u);
  EXPECT_EQ(s.matched, 10u);
  std::vector<std::uint64_t> doubled(10, 10);
  doubled[0] = 20;  // one CTA of twice the work: 11 equivalents, 299 + 11 x 100 / 2 = 849
  estimate_untimed(s, doubled);
  EXPECT_DOUBLE_EQ(s.equivalents, 11);
  EXPECT_EQ(s.cycles_estimate, 849u);
  EXPECT_EQ(s.scaled, 1u);
}

// Steady CTAs of 80 and 120 cycles: the range puts every untimed CTA at the 10th and the 90th
// percentile of them. Steady CTAs: 80, 80, 120, 120 (mean 100); the 10th percentile is the first
// (index 0.3 -> 0), 80; the 90th is index 2.7 -> 2, 120. Four untimed CTAs on two slots:
// 299 + 4 x {80, 100, 120} / 2 = 459, 499, 539.
TEST(Sampling, TheRangeComesFromTheSteadyCtasSpread) {
  SamplingStats s;
  s.slots = 2;
  s.cycles_timed = 299;
  s.timed = {{0, 0, 99, 10},    {1, 0, 99, 10},    {2, 100, 179, 10},
             {3, 100, 219, 10}, {4, 180, 259, 10}, {5, 220, 339, 10}};
  estimate_untimed(s, std::vector<std::uint64_t>(4, 10));
  EXPECT_EQ(s.cycles_estimate, 499u);
  EXPECT_EQ(s.cycles_low, 459u);
  EXPECT_EQ(s.cycles_high, 539u);
}

using test::cli;

nlohmann::json sim_json(const std::string& args) {
  const auto r = cli("sim " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return nlohmann::json::parse(r.out.substr(r.out.find('{')))["timing"];
}

// Outputs and instruction counts do not depend on sampling: the untimed CTAs run on the same
// executor (the reference check passes, the counts are the full run's). A grid the timed part
// covers (128 CTAs of 256 elements; fermi-gtx580 holds 16 SMs x 6 = 96 at once, two residencies
// are 192) is the full run: the same cycles.
TEST(Sampling, OutputsAndInstructionsStayExactAndACoveredGridIsMeasured) {
  const std::string big = "builtin:reduction --size 262144 --arch fermi-gtx580";
  const auto full = sim_json(big);
  const auto sampled = sim_json(big + " --sample-ctas 1");
  EXPECT_EQ(sampled["warp_instructions"], full["warp_instructions"]);
  EXPECT_EQ(sampled["thread_instructions"], full["thread_instructions"]);
  EXPECT_EQ(sampled["ctas"], full["ctas"]);
  EXPECT_LT(sampled["sampling"]["ctas_timed"], sampled["sampling"]["ctas_total"]);
  const auto small = "builtin:reduction --size 32768 --arch fermi-gtx580";
  const auto covered = sim_json(std::string(small) + " --sample-ctas 1");
  EXPECT_EQ(covered["sampling"]["ctas_timed"], covered["sampling"]["ctas_total"]);
  EXPECT_EQ(covered["cycles"], sim_json(small)["cycles"]);
}

TEST(Sampling, BadUsesAreOneLineErrorsOrNotes) {
  const auto zero = cli("sim builtin:reduction --sample-ctas 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out;
  const auto tl = cli("sim builtin:reduction --sample-ctas 2 --timeline /tmp/smemsim_never.json");
  EXPECT_EQ(tl.exit_code, 2) << tl.out;
  EXPECT_NE(tl.out.find("--sample-ctas times only some CTAs"), std::string::npos) << tl.out;
  // One CTA: nothing to extrapolate, and the output says so.
  const auto one = cli("sim builtin:reduction --size 256 --sample-ctas 4");
  EXPECT_EQ(one.exit_code, 0) << one.out;
  EXPECT_NE(one.out.find("all 1 CTAs fit in the timed part"), std::string::npos) << one.out;
}

// Blocks from 1,000 on spin on a flag nothing writes. The timed part (256 blocks on fermi-gtx580)
// finishes; the untimed blocks run one at a time, and the first spinner ends the run at once with
// run's error and a word on why --sample-ctas meets it.
TEST(Sampling, AnUntimedBlockThatNeverEndsIsOneLine) {
  const std::string ptx = test::temp_file("sample_late_spin.ptx", R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry late(.param .u64 flag)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %ctaid.x;
  setp.lt.u32 %p2, %r2, 1000;
  @%p2 bra DONE;
LOOP:
  ld.volatile.global.u32 %r1, [%rd2];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra LOOP;
DONE:
  ret;
}
)");
  const std::string spec = test::temp_file(
      "sample_late_spin.toml", "args = [\"flag\"]\n[buffers.flag]\ntype = \"u32\"\ncount = 1\n");
  const auto r = cli("sim " + ptx + " --launch " + spec +
                     " --grid 2000 --block 64 --arch fermi-gtx580 --sample-ctas 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("warp 0 of block (1000,0,0) spins"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--sample-ctas runs the untimed CTAs"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::timing

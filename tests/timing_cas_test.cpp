// atomics.shared_float = cas (issue 42): ptxas for sm_90 emits a shared float add as a
// compare-and-swap loop (an H200's SASS opcode counts of kmeans: ATOMS 1,473, LDS 1,393, FADD
// 1,377 where the PTX has 384 shared atomics), and a lane retries while another changed its word
// between its read and its swap. The cycle model runs the loop on the lock loop's micro-ops (LDS,
// FADD, ATOMS.CAS, BRA), one lock a word. Each count below is worked out from that by hand.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>

#include "smemsim/arch.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One warp; lane t adds 1 to shared word (t & mask) with an f32 or u32 atomic add; after a
// barrier every lane writes word 0 to out[0].
std::string adder(unsigned mask, const char* type) {
  const bool f = std::string(type) == "f32";
  return fmt::format(R"(
.visible .entry adder(.param .u64 out)
{{
  .reg .b32 %r<10>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 acc[128];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, {0};
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, acc;
  add.s32 %r5, %r4, %r3;
  {1}
  bar.sync 0;
  ld.shared.b32 %r7, [%r4];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.b32 [%rd2], %r7;
  ret;
}}
)",
                     mask,
                     f ? "mov.f32 %f1, 0f3F800000;\n  atom.shared.add.f32 %f2, [%r5], %f1;"
                       : "atom.shared.add.u32 %r6, [%r5], 1;");
}

struct CasRun {
  std::uint64_t iterations, expanded, cycles;
  std::uint32_t word0;
};

CasRun run(unsigned mask, const char* type, const char* mode) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.shared_float_atomics = mode;
  TimedKernel k(adder(mask, type), 32, 1);
  const timing::TimingStats s = k.run(a);
  return {s.units.lock_iterations, s.expanded, s.cycles, k.out()[0]};
}

float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(SharedFloatCas, RoundsAreTheMostLanesOnOneWord) {
  // One word, 32 lanes: each round one lane's swap succeeds (one lock a word, the lowest lane
  // first), so 32 rounds, and 4 micro-ops a round of which the first stands for the PTX
  // instruction itself: 4 x 32 - 1 = 127 more instructions issue. The sum is 32.
  const CasRun one = run(0, "f32", "cas");
  EXPECT_EQ(one.iterations, 32u);
  EXPECT_EQ(one.expanded, 127u);
  EXPECT_EQ(as_float(one.word0), 32.0f);
  // Two words, 16 lanes each: both words progress in the same round, 16 rounds (4 x 16 - 1).
  const CasRun two = run(1, "f32", "cas");
  EXPECT_EQ(two.iterations, 16u);
  EXPECT_EQ(two.expanded, 63u);
  EXPECT_EQ(as_float(two.word0), 16.0f);
  // Every lane its own word: one round.
  const CasRun own = run(31, "f32", "cas");
  EXPECT_EQ(own.iterations, 1u);
  EXPECT_EQ(own.expanded, 3u);
  EXPECT_EQ(as_float(own.word0), 1.0f);
  // A round's four steps wait on each other: at least lat_shared_ld + lat_fma + lat_shared_atom
  // cycles, so 31 more rounds take at least 31 times that more than the one-round kernel.
  const Arch h = find_preset("hopper-h100");
  EXPECT_GE(one.cycles - own.cycles,
            31u * (h.sm.lat_shared_ld + h.sm.lat_fma + h.sm.lat_shared_atom));
}

TEST(SharedFloatCas, IntegerAddsAndTheNativeReadingStayOneInstruction) {
  // An integer add is a native ATOMS.ADD: no loop.
  const CasRun u = run(0, "u32", "cas");
  EXPECT_EQ(u.iterations, 0u);
  EXPECT_EQ(u.expanded, 0u);
  EXPECT_EQ(u.word0, 32u);
  // atomics.shared_float = native: the float add is one instruction too, and computes the same.
  const CasRun n = run(0, "f32", "native");
  EXPECT_EQ(n.iterations, 0u);
  EXPECT_EQ(n.expanded, 0u);
  EXPECT_EQ(as_float(n.word0), 32.0f);
  EXPECT_LT(n.cycles, run(0, "f32", "cas").cycles);
}

}  // namespace
}  // namespace smemsim::test

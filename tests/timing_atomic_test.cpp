// The lock-loop atomic in the cycle model (seed 000 §III, Fig. 1): Read / Update / Write / Branch
// as four instructions through the pipeline, real lock bits, retries. A kernel times one
// atom.shared with %clock, the way seed 000/001's microbenchmarks time atomics on hardware: t0, the
// atomic, t1, then two back-to-back clock reads e0, e1 for the overhead; out = (t1 - t0) - (e1 -
// e0) is the cycles from the atomic's issue to the issue of the instruction after it. Lane l
// updates word idx[l]. An instruction (i10, `mov %r9, %r5`) waits for the address so that t0 issues
// the cycle before the atomic.
#include <random>

#include <gtest/gtest.h>

#include "smemsim/evaluate.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

const char* kTimeAtom = R"(
.visible .entry time_atom(.param .u64 idx, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sh[32768];
  ld.param.u64 %rd1, [idx];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, sh;
  add.u32 %r5, %r4, %r3;
  mov.u32 %r9, %r5;
  mov.u32 %r6, %clock;
  atom.shared.add.u32 %r7, [%r5], 1;
  mov.u32 %r8, %clock;
  mov.u32 %r10, %clock;
  mov.u32 %r11, %clock;
  sub.u32 %r12, %r8, %r6;
  sub.u32 %r13, %r11, %r10;
  sub.u32 %r14, %r12, %r13;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r14;
  ret;
}
)";

// Cycles of the atomic for word addresses `idx` (one per lane), as the kernel measured it.
std::uint32_t time_atom(const Arch& a, const std::vector<std::uint32_t>& idx,
                        timing::TimingStats* stats = nullptr) {
  TimedKernel k(kTimeAtom, std::uint32_t(idx.size()));
  k.input(0, idx);
  const auto s = k.run(a);
  if (stats) *stats = s;
  const auto out = k.out();
  for (std::size_t l = 1; l < idx.size(); ++l) EXPECT_EQ(out[l], out[0]) << "lane " << l;
  return out[0];
}

std::vector<std::uint32_t> lanes(std::initializer_list<std::pair<int, std::uint32_t>> set) {
  std::vector<std::uint32_t> v(32);
  for (std::uint32_t l = 0; l < 32; ++l) v[l] = l;
  for (auto [l, w] : set) v[std::size_t(l)] = w;
  return v;
}

// The analytic FSM model of seed 000 §III on the same pattern (docs/models.md): an independent
// computation of the same number from the degrees.
std::int64_t fsm_model(Arch a, const std::vector<std::uint32_t>& idx) {
  a.atomic_model = "fsm";
  AccessEvaluator ev(a);
  WarpAccess wa;
  wa.op = Op::Atomic;
  for (std::size_t l = 0; l < idx.size(); ++l) wa.set(int(l), idx[l]);
  return ev.evaluate(wa).latency;
}

// Lanes 0 and 1 update word 0 (a position conflict: one lock), lane 2 word 32 (bank 0, lock 32),
// the others their own word. Round 1: all 32 lanes read; bank 0 holds words 0 and 32, two passes,
// and a pass is a replay of the 6-cycle Read: 12. Lane 1 finds lock 0 taken by lane 0. Update 6.
// The 31 winners write: words 0 and 32 again in bank 0, 12. Branch 6. Round 2: lane 1 alone, 6 +
// 6 + 6 + 6. Total 36 + 24 = 60 cycles, two lock iterations, one failed lock.
TEST(TimingAtomic, LanesTakeDifferentLockRounds) {
  const auto idx = lanes({{1, 0}, {2, 32}});
  timing::TimingStats s;
  EXPECT_EQ(time_atom(fig4_arch(), idx, &s), 60u);
  EXPECT_EQ(fsm_model(fig4_arch(), idx), 60);
  EXPECT_EQ(s.units.lock_iterations, 2u);
  EXPECT_EQ(s.units.lock_failures, 1u);
  EXPECT_EQ(s.units.bank_conflict_passes, 2u);  // the Read and the Write of round 1
}

// One warp alone: the mechanism (bank passes at MEM0, lock bits, the loop) gives exactly the
// analytic FSM model's cycles, pattern for pattern: on the Fig. 4 pipeline and on the GTX 580
// preset (Read 32, Update 18, Write 36, Branch 32 per seed 000 §III), for random patterns over 4096
// words and over 64 words (many position and lock conflicts).
TEST(TimingAtomic, OneWarpMatchesTheAnalyticFsmModel) {
  std::mt19937 rng(7);
  for (const Arch& a : {fig4_arch(), default_arch()}) {
    for (const std::uint32_t space : {4096u, 64u, 2048u}) {
      for (int trial = 0; trial < 12; ++trial) {
        std::vector<std::uint32_t> idx(32);
        for (auto& w : idx) w = rng() % space;
        SCOPED_TRACE(::testing::Message() << a.name << " space " << space << " trial " << trial);
        EXPECT_EQ(std::int64_t(time_atom(a, idx)), fsm_model(a, idx));
      }
    }
  }
}

// Seed 000 Fig. 5 and §III on the GTX 580 preset: conflict-free 118 cycles ("108 vs. 118");
// c-way position conflicts (stride 0, Eq. 1) loop c times: 118 c; bank conflicts without lock
// conflicts (stride 32): one round whose Read and Write each take c passes, 32 c + 18 + 36 c + 32;
// stride 256: locks alias every 4 lanes (256 x 4 = 1024 words), a lock round every four conflicts.
TEST(TimingAtomic, Seed000Fig5SyntheticBenchmarkOnGtx580) {
  const Arch a = default_arch();
  auto eq1 = [](std::uint32_t conflicts, std::uint32_t stride) {
    std::vector<std::uint32_t> idx(32);
    for (std::uint32_t id = 0; id < 32; ++id) idx[id] = id < conflicts ? id * stride : id;
    return idx;
  };
  EXPECT_EQ(time_atom(a, eq1(1, 0)), 118u);
  for (std::uint32_t c : {2u, 5u, 16u, 32u}) EXPECT_EQ(time_atom(a, eq1(c, 0)), 118u * c) << c;
  for (std::uint32_t c : {2u, 8u, 32u})
    EXPECT_EQ(time_atom(a, eq1(c, 32)), 32u * c + 18 + 36 * c + 32) << c;
  // Stride 256, c = 5: lanes 0..4 on words 0, 256, 512, 768, 1024; words 0 and 1024 share lock 0.
  // Round 1 reads 5 words of bank 0 (lanes 5..31 are alone in their banks): 5 passes; 4 win and
  // write (4 passes). Round 2: lane 4 alone. 32*5 + 18 + 36*4 + 32 + 118 = 472.
  EXPECT_EQ(time_atom(a, eq1(5, 256)), 472u);
  EXPECT_EQ(fsm_model(a, eq1(5, 256)), 472);
}

// Two warps update the same 32 words at the same time. Warp 0's Read takes all 32 locks at MEM0
// (issued at a, MEM0 at a + 3); warp 1's Read one cycle later finds every lock taken and its lanes
// retry; warp 0's Write releases them (Update issued at a + 6, Write at a + 12, MEM0 at a + 15)
// long before warp 1's second Read (a + 1 + 24, MEM0 at a + 28). The lock unit does not track
// owners: a lock held by another warp is a lock conflict too (seed 000 §II.A).
TEST(TimingAtomic, ALockHeldByAnotherWarpMakesItsLanesRetry) {
  std::vector<std::uint32_t> idx(64);
  for (std::uint32_t l = 0; l < 64; ++l) idx[l] = l % 32;
  TimedKernel k(kTimeAtom, 64);
  k.input(0, idx);
  Recorder rec;
  Arch a = fig4_arch();
  a.sm.global_bytes_per_cycle = 4096;  // the two warps' idx loads return one cycle apart
  const auto s = k.run(a, &rec);
  int reads[2] = {0, 0};
  std::uint64_t first_read[2] = {0, 0};
  for (const Event& e : rec.issues)
    if (e.micro == 1 && reads[e.warp]++ == 0) first_read[e.warp] = e.cycle;
  EXPECT_EQ(reads[0], 1);
  EXPECT_EQ(reads[1], 2);
  EXPECT_EQ(first_read[1], first_read[0] + 1);
  EXPECT_EQ(s.units.lock_failures, 32u);
  EXPECT_EQ(s.units.lock_iterations, 3u);
  EXPECT_GT(s.issue[timing::Stall::LockRetry], 0u);
}

// atomics.model = loadstore times the atomic as a load (GPGPU-Sim's original behaviour, seed 000
// §III and Fig. 4): it does not hold the warp (t1 issues the next cycle, so the kernel measures 1),
// and it takes the load latency, 6, when its 32 lanes are on one word (a broadcast, one pass) and
// 6 + 31 when they are on 32 words of bank 0 (32 passes of one cycle). Instruction 13 is the atom.
TEST(TimingAtomic, LoadstoreAtomicsAreTimedLikeLoads) {
  Arch a = fig4_arch();
  a.atomic_model = "loadstore";
  std::vector<std::uint32_t> same(32, 5), strided(32);
  for (std::uint32_t l = 0; l < 32; ++l) strided[l] = l * 32;
  for (const auto& [idx, cycles] : {std::pair{same, 6u}, std::pair{strided, 6u + 31}}) {
    TimedKernel k(kTimeAtom, 32);
    k.input(0, idx);
    Recorder rec;
    k.run(a, &rec);
    EXPECT_EQ(k.out()[0], 1u);
    EXPECT_EQ(rec.completed(0, 13) + 1 - rec.issued(0, 13), cycles);
  }
}

}  // namespace
}  // namespace smemsim::test

// Exact-cycle tests of seed 004's elastic pipeline (§3.2, Figs. 5-6) and bank-conflict-aware
// scheduling (§4, Fig. 7), derived by hand (issue 12, "What it must show" 1-2).
//
// The pipeline is fig4_arch()'s (timing_test_util.hpp): IF, ID, one EXE stage, MEM0, MEM1, WB;
// 32 lanes per cycle unless a test says otherwise; a bank pass takes one cycle and a conflict holds
// MEM0; loose round robin; relaxed barrel processing. In the elastic pipeline a non-memory op may
// write back the cycle after EXE when the writeback port is free (the MEM path has priority; then
// the NONMEM queue's oldest entry; then the op leaving EXE), so an ALU instruction issued at c
// writes back at c+3 and its dependant issues at c+4 (6 in the baseline pipelines).
#include <bit>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "timing/bank_aware.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

Arch elastic_arch(const std::string& scheduler = "lrr") {
  Arch a = fig4_arch("elastic");
  a.sm.scheduler = scheduler;
  validate(a);
  return a;
}

int wb(const Recorder& r, std::uint64_t c) {
  const auto& cells = r.cells.at(c);
  return cells.back().warp < 0 ? -1 : int(cells.back().index);
}

// One warp, i0 -> i1 -> i2 -> i3 dependent: the elastic pipeline forwards each from EXE to WB, so
// i1 issues at 4, i2 at 8, i3 at 12 (6, 12, 18 in the baseline: DependentAluChainInOneWarp).
TEST(TimingElastic, NonMemoryInstructionsWriteBackFromExe) {
  TimedKernel k(kChain, 32);
  Recorder rec;
  k.run(elastic_arch(), &rec);
  EXPECT_EQ(rec.issued(0, 1), 4u);
  EXPECT_EQ(rec.issued(0, 2), 8u);
  EXPECT_EQ(rec.issued(0, 3), 12u);
  EXPECT_EQ(rec.completed(0, 3), 15u);
}

// 004 Fig. 5, on the window of Fig. 4 (fig4_kernel: i9 the load W_i, i10..i14 ALU, i15 ret). The
// load W_i issues at c: EXE c+2, MEM0 c+3 (and c+4 with the conflict), MEM1, WB
// c+5 (c+6). i8 (issued c-1) writes back from EXE at c+2; W_i+1 (i10) at c+4, from EXE. Without
// the conflict the load takes WB at c+5 (MEM first), W_i+2 waits one cycle in the NONMEM queue and
// writes back at c+6, W_i+3 at c+7, ... With the conflict WB is free at c+5 and W_i+2 is forwarded
// into it straight from EXE — the bubble of Figs. 4a/4b is filled — the load writes back at c+6
// and W_i+3 queues to c+7 as before. Nothing ever blocks the front end: ret issues at c+6 and the
// kernel takes the same number of cycles either way. In the split pipeline the conflict costs a
// writeback stall (Seed004Fig4bSplitConflictBecomesAWritebackConflict).
TEST(TimingElastic, Seed004Fig5ConflictCostsNothingWhenTheNextWarpIsNotAMemoryWarp) {
  std::uint64_t cycles[2] = {};
  for (const bool conflict : {false, true}) {
    SCOPED_TRACE(conflict ? "2-way conflict" : "conflict-free");
    TimedKernel k(fig4_kernel(conflict ? 7 : 6), 32);
    Recorder rec;
    const auto s = k.run(elastic_arch(), &rec);
    const std::uint64_t c = rec.issued(0, 9);
    const std::uint64_t d = conflict ? 1 : 0;
    EXPECT_EQ(rec.issued(0, 15), c + 6);
    EXPECT_EQ(rec.completed(0, 8), c + 2);
    EXPECT_EQ(rec.completed(0, 10), c + 4);
    EXPECT_EQ(rec.completed(0, 9), c + 5 + d);
    EXPECT_EQ(rec.completed(0, 11), c + 6 - d);
    EXPECT_EQ(rec.completed(0, 12), c + 7);
    EXPECT_EQ(rec.completed(0, 13), c + 8);
    EXPECT_EQ(wb(rec, c + 5), conflict ? 11 : 9);
    EXPECT_EQ(s.issue[Stall::BankConflict], 0u);
    EXPECT_EQ(s.issue[Stall::Writeback], 0u);
    EXPECT_EQ(s.units.bank_conflict_passes, d);
    cycles[d] = s.cycles;
  }
  EXPECT_EQ(cycles[0], cycles[1]);
}

// The same window with W_i+1 a memory warp (a broadcast load, i10): it reaches EXE at c+3 and
// cannot enter MEM0 at c+4, where W_i's second pass is; with one subwarp there is no PREMEM queue
// (N = 0, Eq. 3), so EXE, ID and IF stay full and the front end stalls at c+4 — a bank-conflict
// stall, because the memory warp was scheduled within safe_mem_dist = 2 cycles of W_i (Eq. 1).
TEST(TimingElastic, Seed004Fig5AMemoryWarpInsideTheSafeDistanceStalls) {
  std::string src = fig4_kernel(7);
  src.replace(src.find("add.u32 %r11, %r1, 1;"), 21, "ld.shared.u32 %r11, [%r7];");
  TimedKernel k(src, 32);
  Recorder rec;
  const auto s = k.run(elastic_arch(), &rec);
  const std::uint64_t c = rec.issued(0, 9);
  EXPECT_EQ(rec.issued(0, 10), c + 1);
  EXPECT_EQ(rec.issued(0, 12), c + 3);
  EXPECT_EQ(rec.issued(0, 13), c + 5);  // not c + 4
  EXPECT_EQ(rec.completed(0, 10), c + 7);
  EXPECT_EQ(s.issue[Stall::BankConflict], 1u);
  EXPECT_EQ(rec.stalls.at(c + 4), Stall::BankConflict);
}

// 004 §3.2.3: simd_width 16, so a warp is two subwarps and N = 1; a bank phase is 16 lanes (as
// on GT200), one per subwarp. The load's lanes 0-7 read words
// 0-7 and lanes 8-15 words 32-39 (2-way in subwarp 0), lanes 16-31 likewise 64 words on (2-way in
// subwarp 1). Subwarp 0: IF c, ID c+1, EXE c+2, MEM0 c+3 and c+4. Subwarp 1 (issued c+1) reaches
// EXE at c+3 and finds MEM0 busy at c+4: without PREMEM it stays in EXE, ID and IF fill behind it
// and the front end stalls at c+4 (one bank-conflict stall); with PREMEM it waits there, enters
// MEM0 at c+5, and the front end never stops. Its last pass is at c+6 either way: the load writes
// back at c+8.
TEST(TimingElastic, Seed004PrememQueueTakesTheBackToBackSubwarp) {
  for (const std::string premem : {"none", "eq3"}) {
    SCOPED_TRACE("sm.premem = " + premem);
    TimedKernel k(R"(
.visible .entry sub(.param .u64 out)
{
  .reg .b32 %r<20>;
  .shared .align 4 .b8 sh[8192];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  shr.u32 %r3, %r1, 3;
  shl.b32 %r4, %r2, 2;
  shl.b32 %r5, %r3, 7;
  add.u32 %r6, %r4, %r5;
  mov.u32 %r7, sh;
  add.u32 %r8, %r7, %r6;
  mov.u32 %r9, %r8;
  ld.shared.u32 %r10, [%r8];
  add.u32 %r11, %r1, 1;
  add.u32 %r12, %r1, 2;
  add.u32 %r13, %r1, 3;
  ret;
}
)",
                  32);
    Arch a = elastic_arch();
    a.sm.simd_width = 16;
    a.transaction_lanes = 16;  // one bank phase per subwarp
    a.sm.premem = premem;
    validate(a);
    Recorder rec;
    const auto s = k.run(a, &rec);
    const std::uint64_t c = rec.issued(0, 9);
    const std::uint64_t stall = premem == "none" ? 1 : 0;
    EXPECT_EQ(rec.issued(0, 10), c + 2);
    EXPECT_EQ(rec.issued(0, 11), c + 4 + stall);
    EXPECT_EQ(rec.completed(0, 9), c + 8);
    EXPECT_EQ(s.issue[Stall::BankConflict], stall);
    EXPECT_EQ(s.units.bank_conflict_passes, 2u);
  }
}

// A d-way conflicting load A (lanes l read word (l mod 32/d) + 32 (l div 32/d)) and a broadcast
// load B, twice round a loop: i9 A, i10 B, i11 add, i12 setp, i13 bra, i14 ret.
std::string loop_kernel(int d) {
  const int g = 32 / d;
  return R"(
.visible .entry loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<24>;
  .shared .align 4 .b8 sh[16384];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, )" +
         std::to_string(g - 1) + R"(;
  shr.u32 %r3, %r1, )" +
         std::to_string(std::countr_zero(unsigned(g))) + R"(;
  shl.b32 %r4, %r2, 2;
  shl.b32 %r5, %r3, 7;
  add.u32 %r6, %r4, %r5;
  mov.u32 %r7, sh;
  add.u32 %r8, %r7, %r6;
  mov.u32 %r20, 0;
LOOP:
  ld.shared.u32 %r10, [%r8];
  ld.shared.u32 %r11, [%r7];
  add.u32 %r20, %r20, 1;
  setp.lt.u32 %p1, %r20, 2;
  @%p1 bra LOOP;
  ret;
}
)";
}

// 004 §4 (Fig. 7, Eq. 5, footnote 9), one warp, elastic pipeline. First round: the history cache
// misses, the prediction is 0 and B issues the next cycle (a at A's issue); B waits in EXE behind
// A's d passes (MEM0 a+3 .. a+d+2), enters MEM0 at a+d+3 and writes back at a+d+5. A's d passes
// are stored as d - 1 (footnote 9). Second round: the hit predicts d - 1, so memory warps are
// masked for the d - 1 cycles after A (Eq. 5: safe distance d): B issues at a+d, the slot records d
// - 1 safe_distance stalls, and B still writes back at a+d+5 (the mask costs this lone warp nothing
// and keeps its pipeline free). Predictions: A low then correct, B (conflict-free) correct twice;
// history: 2 misses then 2 hits.
TEST(TimingBankAware, MasksMemoryWarpsForTheSafeDistanceMinusOne) {
  for (const int d : {2, 4}) {
    SCOPED_TRACE(d);
    TimedKernel k(loop_kernel(d), 32);
    Recorder rec;
    const auto s = k.run(elastic_arch("bank-aware"), &rec);
    const std::uint64_t a1 = rec.issued(0, 9, 0), a2 = rec.issued(0, 9, 1);
    EXPECT_EQ(rec.issued(0, 10, 0), a1 + 1);
    EXPECT_EQ(rec.issued(0, 10, 1), a2 + std::uint64_t(d));
    std::uint64_t b_done[2] = {};
    int n = 0;
    for (const Event& e : rec.completions)
      if (e.index == 10) b_done[n++] = e.cycle;
    ASSERT_EQ(n, 2);
    EXPECT_EQ(b_done[0], a1 + std::uint64_t(d) + 5);
    EXPECT_EQ(b_done[1], a2 + std::uint64_t(d) + 5);
    EXPECT_EQ(s.issue[Stall::SafeDistance], std::uint64_t(d - 1));
    EXPECT_EQ(s.units.predictions_correct, 3u);
    EXPECT_EQ(s.units.predictions_low, 1u);
    EXPECT_EQ(s.units.predictions_high, 0u);
    EXPECT_EQ(s.units.history_misses, 2u);
    EXPECT_EQ(s.units.history_hits, 2u);
  }
}

// Footnote 10: with no non-memory warp ready, the masked memory warp B issues anyway (a2 + 1), as
// without prediction; lrr / plain elastic behave the same and record no safe_distance stall.
TEST(TimingBankAware, Footnote10VariantIssuesAMemoryWarpWhenNothingElseIsReady) {
  for (const std::string sched : {"bank-aware-fill", "lrr"}) {
    SCOPED_TRACE(sched);
    TimedKernel k(loop_kernel(4), 32);
    Recorder rec;
    const auto s = k.run(elastic_arch(sched), &rec);
    EXPECT_EQ(rec.issued(0, 10, 1), rec.issued(0, 9, 1) + 1);
    EXPECT_EQ(s.issue[Stall::SafeDistance], 0u);
  }
}

// 004 §6, relaxed barrel with in-order commit: after the second A (predicted to conflict) the warp
// issues nothing until A has written back (a2 + 3 + d passes + MEM1 = a2 + d + 4): B at a2 + d + 5.
TEST(TimingBankAware, InOrderRelaxedCommitHoldsAWarpBehindAPredictedConflict) {
  Arch a = elastic_arch("bank-aware");
  a.sm.relaxed_commit = "in-order";
  validate(a);
  TimedKernel k(loop_kernel(4), 32);
  Recorder rec;
  k.run(a, &rec);
  EXPECT_EQ(rec.issued(0, 10, 0), rec.issued(0, 9, 0) + 1);  // first round: predicted 0
  EXPECT_EQ(rec.issued(0, 10, 1), rec.issued(0, 9, 1) + 4 + 5);
  EXPECT_THROW(
      {
        Arch b = fig4_arch("elastic");
        b.sm.relaxed_commit = "in-order";  // needs a bank-aware scheduler
        validate(b);
      },
      InputError);
}

// 004 §4.2: the history cache, 2 ways x 4 sets, LRU.
TEST(TimingBankAware, HistoryCacheHitsMissesAndReplacesTheLeastRecentlyUsed) {
  timing::ConflictHistoryCache c(4, 2);
  EXPECT_FALSE(c.lookup(5).has_value());  // cold: a miss
  c.update(5, 3);
  c.update(9, 1);  // same set (5 mod 4 = 9 mod 4 = 1), second way
  EXPECT_EQ(c.lookup(5), 3u);
  EXPECT_EQ(c.lookup(9), 1u);
  EXPECT_EQ(c.lookup(5), 3u);  // 9 is now the least recently used of set 1
  c.update(13, 7);             // a third PC in set 1 evicts 9
  EXPECT_FALSE(c.lookup(9).has_value());
  EXPECT_EQ(c.lookup(5), 3u);
  EXPECT_EQ(c.lookup(13), 7u);
  c.update(13, 2);  // a hit overwrites
  EXPECT_EQ(c.lookup(13), 2u);
  EXPECT_EQ(c.lookup(6), std::nullopt);  // another set
  EXPECT_EQ(c.evictions(), 1u);
  EXPECT_EQ(c.hits(), 6u);
  EXPECT_EQ(c.misses(), 3u);
  c.clear();  // kernel launch
  EXPECT_FALSE(c.lookup(5).has_value());
}

// Footnote 9 and the scoring: a warp of 4 subwarps (simd_width 8) whose passes are 4
// (conflict-free) is stored as 0; 7 passes as 3. A prediction below, equal to or above the stored
// value is too low, correct or too high.
TEST(TimingBankAware, StoresTheDegreeLessTheSubwarpsAndScoresPredictions) {
  Arch a = default_arch();
  a.sm.simd_width = 8;
  timing::BankAwareReady r(a, false);
  EXPECT_EQ(r.scheduled(3, 100), 0u);   // miss: 0
  EXPECT_FALSE(r.memory_allowed(103));  // its own 4 subwarps: 100..103
  EXPECT_TRUE(r.memory_allowed(104));
  r.resolved(3, 7, 0);  // stored 3; predicted 0: too low
  EXPECT_EQ(r.scheduled(3, 200), 3u);
  EXPECT_FALSE(r.memory_allowed(206));
  EXPECT_TRUE(r.memory_allowed(207));  // safe distance 7 (Eq. 5)
  r.resolved(3, 7, 3);                 // correct
  r.resolved(3, 4, 3);                 // stored 0; predicted 3: too high
  EXPECT_EQ(r.scheduled(3, 300), 0u);
  timing::UnitCounts u;
  r.count(u);
  EXPECT_EQ(u.predictions_low, 1u);
  EXPECT_EQ(u.predictions_correct, 1u);
  EXPECT_EQ(u.predictions_high, 1u);
  EXPECT_EQ(u.history_misses, 1u);
  EXPECT_EQ(u.history_hits, 2u);
}

// 004 Tables 1-2 for the cf11 preset (M = 4 MEM stages, N = 32 / 8 - 1 = 3, 8 lanes) and its
// history cache: 2 x 256 entries of (14 - 8) tag + log2(32) = 5 value bits = 11 bits: 704 bytes
// (§4.4).
TEST(TimingBankAware, HardwareCostOfTables1And2) {
  const Arch a = find_preset("cf11");
  const timing::ElasticCost c = timing::elastic_cost(a);
  EXPECT_EQ(c.nonmem_entries, 4u);
  EXPECT_EQ(c.premem_entries, 3u);
  EXPECT_EQ(c.latch_lanes, 56u);
  EXPECT_EQ(c.wb_mux_inputs, 7u);
  EXPECT_EQ(c.mem0_mux_inputs, 4u);
  EXPECT_EQ(c.cache_entries, 512u);
  EXPECT_EQ(c.tag_bits, 6u);
  EXPECT_EQ(c.value_bits, 5u);
  EXPECT_EQ(c.cache_bytes, 704u);
  EXPECT_EQ(c.gates, 64u);  // 2 per warp context, 32 warps
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// The other reading of "matured" (sm.nonmem_ready = fixed): a non-memory op may not write back
// before the fixed NONMEM path would deliver it, so the queue of M entries is full in steady state
// and Fig. 5's window behaves as the split pipeline's (Fig. 4b): the conflict costs one writeback
// stall. That it does not remove the stall Fig. 5 shows removed is why `exe` is the default.
TEST(TimingElastic, FixedReadingOfMaturedKeepsFig4bsStall) {
  std::uint64_t cycles[2] = {};
  for (const bool conflict : {false, true}) {
    TimedKernel k(fig4_kernel(conflict ? 7 : 6), 32);
    Arch a = fig4_arch("elastic");
    a.sm.nonmem_ready = "fixed";
    validate(a);
    const auto s = k.run(a);
    cycles[conflict] = s.cycles;
    EXPECT_EQ(s.issue[timing::Stall::Writeback], conflict ? 1u : 0u);
  }
  EXPECT_EQ(cycles[1], cycles[0] + 1);
}

}  // namespace
}  // namespace smemsim::test

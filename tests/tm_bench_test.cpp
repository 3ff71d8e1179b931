// The GPU-LocalTM benchmarks (kernels/tm_*.cu, seed 003 §5.1) against their CPU checks on every
// configuration, their conflict behaviour derived from the layouts, the 003 §4.2 costs on a case
// small enough to count by hand, and the localtm study. Skipped without nvcc.
#include <string>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/study.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "study_test_util.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

exec::Workload make(const std::string& name, std::uint32_t size, const std::string& variant) {
  exec::BuiltinOptions o;
  o.variant = variant;
  o.buckets = o.k = o.size = size;
  return exec::make_builtin(name, o, SMEMSIM_PTX_DIR);
}

Arch si(const std::string& detector = "bloom", const std::string& index = "position",
        const std::string& timing = "paper") {
  Arch a = find_preset("southern-islands");
  a.tm.detector = detector;
  a.tm.bloom_index = index;
  a.tm.timing = timing;
  return a;
}

// Functional run: the check's verdict ("" = matches) and the counts.
std::string run(exec::Workload& w, const Arch& arch, tm::TmStats* stats = nullptr) {
  exec::Executor ex(w.module, exec::find_kernel(w.module, w.kernel), arch, w.launch, w.memory);
  ex.run();
  if (stats) *stats = ex.stats().tm;
  return w.check(w.memory);
}

timing::TimingStats sim(exec::Workload& w, const Arch& arch) {
  timing::GpuSim g(w.module, exec::find_kernel(w.module, w.kernel), arch, w.launch, w.memory, {});
  timing::TimingStats s = g.run();
  EXPECT_EQ(w.check(w.memory), "") << w.description;
  return s;
}

// 003 §5.1's correctness: a hash table with every id exactly once, centers equal to the serial
// update, GA histories that chain — for every benchmark, size, variant and detector, functional
// and timed (the timing model interleaves warps differently, so other commit orders).
TEST(TmBench, EveryBenchmarkMatchesItsReferenceEverywhere) {
  SKIP_WITHOUT_NVCC();
  for (const char* name : {"tm_hashtable", "tm_kmeans", "tm_genetic"})
    for (std::uint32_t size : {2u, 32u, 256u}) {
      for (const char* variant : {"tx", "serial"}) {
        exec::Workload w = make(name, size, variant);
        EXPECT_EQ(run(w, si()), "") << w.description;
      }
      for (const char* det : {"bloom", "exact"})
        for (const char* idx : {"position", "word"}) {
          exec::Workload w = make(name, size, "tx");
          EXPECT_EQ(run(w, si(det, idx)), "") << w.description << " " << det << " " << idx;
          exec::Workload t = make(name, size, "tx");
          sim(t, si(det, idx));
        }
    }
}

// HT256: 256 threads, 256 buckets, one id per bucket: "no conflicts" (003 §5.1.1). Each of the 4
// wavefronts commits in one attempt.
TEST(TmBench, Ht256NeverConflicts) {
  SKIP_WITHOUT_NVCC();
  exec::Workload w = make("tm_hashtable", 256, "tx");
  tm::TmStats st;
  ASSERT_EQ(run(w, si(), &st), "");
  EXPECT_EQ(st.attempts, 4u);
  EXPECT_EQ(st.lane_aborts, 0u);
  EXPECT_EQ(st.lane_commits, 256u);
  EXPECT_DOUBLE_EQ(st.commit_ratio(), 1.0);
}

// HT2's table: bucket 0 is words 0..127, bucket 1 words 128..255. Under the position index
// ((word / 32) % 8) two words of one bank share a bit only 256 words apart: no false conflicts.
// Under the word index (word % 8) every word of a bank has the same bit, so the first slot of
// bucket 1 (word 128, bank 0) aliases bucket 0's (word 0, bank 0): false conflicts. The exact
// detector never has them.
TEST(TmBench, FalseConflictsFollowTheBloomIndex) {
  SKIP_WITHOUT_NVCC();
  tm::TmStats pos, word, exact;
  exec::Workload a = make("tm_hashtable", 2, "tx"), b = make("tm_hashtable", 2, "tx"),
                 c = make("tm_hashtable", 2, "tx");
  ASSERT_EQ(run(a, si("bloom", "position"), &pos), "");
  ASSERT_EQ(run(b, si("bloom", "word"), &word), "");
  ASSERT_EQ(run(c, si("exact", "word"), &exact), "");
  EXPECT_EQ(pos.conflicts_false, 0u);
  EXPECT_GT(word.conflicts_false, 0u);
  EXPECT_EQ(exact.conflicts_false, 0u);
  EXPECT_GT(pos.conflicts_true, 0u);
}

// 003 §4.2's costs counted by hand on HT256 (no conflicts; 4 wavefronts of 64 lanes, lane l of
// wavefront v owns word 64 v + l, two lanes per bank). Per wavefront:
//  TX.Begin 1; the load: signature query 1 + two new accesses in each bank x 2 = 5; the store: 1 +
//  two repeated accesses x 1 = 3; TX.Commit: 1 + two records per bank x 1 = 3.
// So begin/commit overhead 4 x (1 + 3) = 16 and memory overhead 4 x (5 + 3) = 32; perfect: none.
TEST(TmBench, Ht256CostsAreThePapersCycleCounts) {
  SKIP_WITHOUT_NVCC();
  exec::Workload w = make("tm_hashtable", 256, "tx");
  const timing::TimingStats s = sim(w, si());
  ASSERT_TRUE(s.uses_tm);
  EXPECT_EQ(s.tm.begin_commit_overhead, 16u);
  EXPECT_EQ(s.tm.mem_overhead, 32u);
  exec::Workload p = make("tm_hashtable", 256, "tx");
  const timing::TimingStats q = sim(p, si("bloom", "position", "perfect"));
  EXPECT_EQ(q.tm.begin_commit_overhead, 0u);
  EXPECT_EQ(q.tm.mem_overhead, 0u);
  EXPECT_EQ(q.issue[timing::Stall::TmOverhead], 0u);
  EXPECT_LT(q.cycles, s.cycles);
}

// The smemsim_tm.cuh fallback (a spin lock) compiles for a GPU, without -DSMEMSIM_TM.
TEST(TmBench, TheHeaderBuildsForAGpuWithoutTheMarkers) {
#ifndef SMEMSIM_NVCC
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  const std::string obj = ::testing::TempDir() + "smemsim_tm_gpu.o";
  const test::CliResult r =
      test::shell(std::string(SMEMSIM_NVCC) + " -c -arch=" + SMEMSIM_NVCC_ARCH + " " +
                  SMEMSIM_SOURCE_DIR + "/kernels/tm_hashtable.cu -o " + obj);
  EXPECT_EQ(r.exit_code, 0) << r.out;
#endif
}

// The study: speed-ups over TX. Serialization, HT256 committing everything, HT2 serializing some
// attempts, the report beside 003's numbers.
TEST(TmBench, LocaltmStudyQuick) {
  SKIP_WITHOUT_NVCC();
  const study::Table t = test::run_all("localtm", {{"benchmarks", "HT"}});
  const std::map<std::string, std::string> ht256{
      {"benchmark", "HT"}, {"size", "256"}, {"system", "localtm"}};
  const std::map<std::string, std::string> ser256{
      {"benchmark", "HT"}, {"size", "256"}, {"system", "serial"}};
  EXPECT_GT(test::at(t, ser256, "cycles"), 10 * test::at(t, ht256, "cycles"));
  EXPECT_EQ(test::at(t, ht256, "lane_commits"), 256);
  EXPECT_EQ(test::at(t, ht256, "lane_aborts"), 0);
  const auto& info = study::find_study("localtm");
  auto s = info.make();
  s->configure(study::resolve_config(info, find_preset(info.arch), true, {{"benchmarks", "HT"}}));
  const study::Report rep = s->report(t);
  EXPECT_NE(rep.markdown.find("| HT256 |"), std::string::npos) << rep.markdown;
  EXPECT_NE(rep.markdown.find("189 of 3,801"), std::string::npos);
  EXPECT_EQ(rep.figures.size(), 3u);
}

}  // namespace
}  // namespace smemsim

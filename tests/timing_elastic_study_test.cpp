// The `elastic` study (seed 004 §5): seed 004's benchmarks on the cf11 preset under the baseline
// pipeline, the elastic pipeline and bank-conflict-aware scheduling. Skipped without nvcc.
#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/error.hpp"
#include "smemsim/study.hpp"
#include "study_test_util.hpp"

namespace smemsim {
namespace {

using study::Table;
using test::at;
using test::run_all;

double stalls(const Table& t, const std::string& bench, const std::string& cfg) {
  const std::map<std::string, std::string> w{
      {"benchmark", bench}, {"layout", "conflicting"}, {"config", cfg}};
  return at(t, w, "stall_schedule") + at(t, w, "stall_bank") + at(t, w, "stall_other");
}

// Table 4's transpose row, derived: the 16x16 tile is stored row-wise (lane tx of an 8-lane
// subwarp writes word 16 ty + tx: 8 banks, 1 pass) and read column-wise (word 16 tx + ty: all 8
// lanes in bank ty mod 8, 8 passes); as many loads as stores, so the average degree is (1 + 8) / 2
// = 4.50 — 004 Table 4's value. The padded tile (stride 17) reads conflict-free: 1.00.
TEST(ElasticStudy, TransposeConflictDegreeIsTable4s) {
  const Table t = run_all("elastic", {{"benchmarks", "transpose"}, {"configs", "baseline"}});
  const std::map<std::string, std::string> c{
      {"benchmark", "transpose"}, {"layout", "conflicting"}, {"config", "baseline"}};
  EXPECT_DOUBLE_EQ(at(t, c, "smem_passes") / at(t, c, "smem_accesses"), 4.5);
  const std::map<std::string, std::string> o{
      {"benchmark", "transpose"}, {"layout", "optimized"}, {"config", "baseline"}};
  EXPECT_DOUBLE_EQ(at(t, o, "smem_passes") / at(t, o, "smem_accesses"), 1.0);
  EXPECT_EQ(at(t, c, "ctas_per_sm"), 4);  // 1,024 threads per core / 256 (004 Table 4: 4)
}

// 004 §5.1-5.3 on the interleaved reduction: the enhanced GPU removes most bank-conflict stalls
// (the history cache predicts the regular strides), stalls drop, and the kernel gets faster than on
// the baseline and than with pure elastic (round robin lets memory warps into the busy MEM0). The
// conflict-free sequential reduction hardly changes (Fig. 11).
TEST(ElasticStudy, ReductionStallsDropAndBankAwareSchedulingPays) {
  const Table t = run_all("elastic", {{"benchmarks", "reduction"}});
  const std::map<std::string, std::string> base{
      {"benchmark", "reduction"}, {"layout", "conflicting"}, {"config", "baseline"}};
  const std::map<std::string, std::string> enh{
      {"benchmark", "reduction"}, {"layout", "conflicting"}, {"config", "bank-aware"}};
  EXPECT_LT(at(t, enh, "stall_bank"), 0.1 * at(t, base, "stall_bank"));
  EXPECT_LT(stalls(t, "reduction", "bank-aware"), 0.5 * stalls(t, "reduction", "baseline"));
  const double cb = at(t, base, "cycles");
  const double ce = at(
      t, {{"benchmark", "reduction"}, {"layout", "conflicting"}, {"config", "elastic"}}, "cycles");
  const double ca = at(t, enh, "cycles");
  EXPECT_LT(ce, cb);
  EXPECT_LT(ca, ce);
  EXPECT_GT(at(t, enh, "pred_correct"),
            0.7 * (at(t, enh, "pred_correct") + at(t, enh, "pred_low") + at(t, enh, "pred_high")));
  const double ob = at(
      t, {{"benchmark", "reduction"}, {"layout", "optimized"}, {"config", "baseline"}}, "cycles");
  const double oe = at(
      t, {{"benchmark", "reduction"}, {"layout", "optimized"}, {"config", "bank-aware"}}, "cycles");
  EXPECT_NEAR(ob / oe, 1.0, 0.02);
}

TEST(ElasticStudy, RefusesTheAnalyticBackendAndUnknownBenchmarks) {
  EXPECT_THROW(run_all("elastic", {{"backend", "analytic"}}), InputError);
  EXPECT_THROW(run_all("elastic", {{"benchmarks", "fft"}}), InputError);
  EXPECT_THROW(run_all("elastic", {{"configs", "fast"}}), InputError);
}

}  // namespace
}  // namespace smemsim

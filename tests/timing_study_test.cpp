// The studies' `cycle` backend (issue 9 "Studies"): the histogram, Hough and k-means studies run
// their kernels (histogram12, hough_vote, kmeans_update of kernels/) on the cycle-level model and
// report whole-kernel cycles; the random-pattern studies have no kernel and refuse it.
#include <map>

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

// Seed 000 §V.B with whole kernels: at R = 1 the hash changes little (position conflicts, which no
// hash removes, dominate); at R = 16 it removes most bank and lock conflicts of the 16 copies (the
// copies of one bin are 32 words apart: one bank, and locks 32 apart); with padding (copies 33
// words apart) XOR makes conflicts that mod did not have and ADD does not.
TEST(TimingStudies, HistogramWholeKernelHashSpeedups) {
  const Table t = run_all("histogram", {{"images", "generated:blocks"},
                                        {"bins", "32"},
                                        {"r", "1,16"},
                                        {"layouts", "cyclic,cyclic-pad"},
                                        {"backend", "cycle"}});
  EXPECT_NEAR(at(t, {{"layout", "cyclic"}, {"r", "1"}}, "speedup_xor"), 1.0, 0.05);
  EXPECT_GT(at(t, {{"layout", "cyclic"}, {"r", "16"}}, "speedup_xor"), 1.5);
  EXPECT_GT(at(t, {{"layout", "cyclic"}, {"r", "16"}}, "speedup_add"), 1.5);
  const double x = at(t, {{"layout", "cyclic-pad"}, {"r", "16"}}, "speedup_xor");
  const double a = at(t, {{"layout", "cyclic-pad"}, {"r", "16"}}, "speedup_add");
  EXPECT_LT(x, 0.9);
  EXPECT_GT(a, x + 0.1);
  // The cycle columns are whole-kernel cycles (init, 16,384 pixels, merge), not per-access sums.
  EXPECT_GT(at(t, {{"layout", "cyclic"}, {"r", "1"}}, "cycles_mod"), 10000);
}

TEST(TimingStudies, HoughRunsItsKernel) {
  const Table t = run_all("hough", {{"images", "generated:blocks"},
                                    {"width", "64"},
                                    {"height", "48"},
                                    {"thetas", "8"},
                                    {"r", "1,2"},
                                    {"layouts", "replication"},
                                    {"backend", "cycle"}});
  ASSERT_EQ(t.rows.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) EXPECT_GT(t.num(k, "cycles_mod"), 1000) << k;
}

// Seed 001 §4.1.1 with whole kernels: kmeans_update on 8,000 2-component objects, k = 128 (the
// counters are checked in every run). Cyclic replication spreads a warp's votes for one cluster
// over copies: R = 8 beats R = 1.
TEST(TimingStudies, KMeansRunsItsKernel) {
  const Table t = run_all("kmeans", {{"objects", "8000"},
                                     {"dims", "2"},
                                     {"k", "128"},
                                     {"r", "1,8"},
                                     {"mappings", "cyclic,block"},
                                     {"backend", "cycle"}});
  const double c1 = at(t, {{"mapping", "cyclic"}, {"r", "1"}}, "cycles");
  EXPECT_LT(at(t, {{"mapping", "cyclic"}, {"r", "8"}}, "cycles"), 0.9 * c1);
  EXPECT_GT(at(t, {{"mapping", "block"}, {"r", "1"}}, "cycles"), 0.0);
}

TEST(TimingStudies, StudiesWithoutAKernelRefuseTheCycleBackend) {
  for (const char* s : {"random-patterns", "random-mapping"}) {
    try {
      study::resolve_config(study::find_study(s), default_arch(), true, {{"backend", "cycle"}});
      ADD_FAILURE() << s;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("has no kernel to run for backend 'cycle'"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace smemsim

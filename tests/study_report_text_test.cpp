// The random studies' report sentences follow the run (issue 29 item 2): with the lock count
// swept, the sentence names the run's lock count and the size where its measured lock degree
// flattens, not seed 001's 1,024.
//
// Why the curve flattens at the lock count: a random address in a vote space of S words takes
// lock (address mod L). For S <= L the warp's 32 addresses spread over S locks, so a larger S
// lowers the lock degree. For S >= L (S a multiple of L) every lock gets the same share of the
// space, and the addresses fall on L locks uniformly whatever S is: the degree no longer changes.
// Replication (cyclic: lane l uses copy l mod R, S words after the previous one) puts a warp's
// lanes on R copies; copy c's word w takes lock (c S + w) mod L. For S >= L a multiple of L,
// c S mod L = 0: every copy's word w takes the same lock as the original, and the lock degree
// cannot fall. For S < L the copies are on other locks and the degree falls.
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

std::string report(const std::string& study, const std::string& locks) {
  // A folder of this process: a second run into one resumes (and reuses) its points. Emptied
  // first: an earlier process with the same pid may have left one, of another build's arch
  // (which the study refuses to resume).
  const std::string out = ::testing::TempDir() + "smemsim_text_" + std::to_string(::getpid()) +
                          "_" + locks + "_" + study;
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  const auto r = cli("study run " + study + " --quick --no-plots --set atomics.locks=" + locks +
                     " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return slurp(out + "/" + study + "/report.md");
}

TEST(StudyReportText, TheLockSentenceFollowsTheLockCount) {
  for (const auto& [locks, shown] : {std::pair{"256", "256"}, std::pair{"1024", "1,024"}}) {
    SCOPED_TRACE(locks);
    const std::string md = report("random-patterns", locks);
    EXPECT_NE(md.find(std::string("at ") + shown + " and stays flat beyond it"), std::string::npos)
        << md;
    EXPECT_NE(md.find(std::string("the arch has ") + shown + " locks"), std::string::npos) << md;
    EXPECT_EQ(md.find(locks == std::string("256") ? "1,024 locks" : "256 locks"),
              std::string::npos);
    // The penalty sentence is a count of the table's rows, whichever it is.
    EXPECT_TRUE(std::regex_search(
        md, std::regex("(The lock/position penalty is the larger at [0-9] of the 8 sizes|At "
                       "every size)")))
        << md;
  }
}

TEST(StudyReportText, TheReplicationSentenceFollowsTheLockCount) {
  const std::string at256 = report("random-replication", "256");
  EXPECT_NE(at256.find("lowers the mean lock degree at 32, 64 and 128 words and leaves it within "
                       "5 % at 256, 512, 1,024, 2,048 and 4,096 words"),
            std::string::npos)
      << at256;
  const std::string at1024 = report("random-replication", "1024");
  EXPECT_NE(at1024.find("leaves it within 5 % at 1,024, 2,048 and 4,096 words"), std::string::npos)
      << at1024;
}

// random-mapping (seed 001 Fig. 7). By the aliasing above, at sizes of L words or more every copy
// of a word takes the original's lock, so replication (sorted or not) cannot lower the lock degree:
// sorted cyclic mapping gains less than 10 % there, and the boundary moves with L.
TEST(StudyReportText, TheMappingSentenceFollowsTheLockCount) {
  const std::string at256 = report("random-mapping", "256");
  EXPECT_NE(
      at256.find("and less at 256, 512, 1,024, 2,048 and 4,096 words; the arch has 256 locks"),
      std::string::npos)
      << at256;
  const std::string at1024 = report("random-mapping", "1024");
  EXPECT_NE(at1024.find("and less at 1,024, 2,048 and 4,096 words; the arch has 1,024 locks"),
            std::string::npos)
      << at1024;
  // The paper's sentence is kept, marked as the paper's.
  EXPECT_NE(at256.find("Seed 001 §3 (Fig. 7) found"), std::string::npos);
}

// kmeans (seed 001 §4.1.1): k cluster counters replicated R times take R k words; copies within the
// L locks take distinct locks and remove lock conflicts, copies beyond L alias the first ones'
// locks and only add bank conflicts. So the best R is the largest with R k <= L, at least 1: with
// L = 1,024, R = 8, 4, 2 for k = 128, 256, 512 (the paper's); with L = 256, R = 2, 1, 1.
TEST(StudyReportText, TheKMeansSentenceFollowsTheLockCount) {
  const std::string at256 = report("kmeans", "256");
  EXPECT_NE(at256.find("the best R is 2, 1, 1 for k = 128, 256, 512"), std::string::npos) << at256;
  EXPECT_NE(at256.find("fit in the arch's 256 locks, max(1, 256 / k), is 2, 1, 1"),
            std::string::npos)
      << at256;
  const std::string at1024 = report("kmeans", "1024");
  EXPECT_NE(at1024.find("the best R is 8, 4, 2 for k = 128, 256, 512"), std::string::npos)
      << at1024;
}

}  // namespace
}  // namespace smemsim::test

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

#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

std::string report(const std::string& study, const std::string& locks) {
  // A folder of this process: a second run into one resumes (and reuses) its points.
  const std::string out = ::testing::TempDir() + "smemsim_text_" + std::to_string(::getpid()) +
                          "_" + locks + "_" + study;
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

}  // namespace
}  // namespace smemsim::test

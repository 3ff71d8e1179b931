// Repeatable options take exactly one value per occurrence (issue 10, item 2): `--set k=v` before a
// positional argument leaves the positional alone, for every command that has both, and repeated
// `--pattern`s are separate accesses. Runs the built CLI on the hand-written examples in
// docs/examples (no nvcc needed).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

const std::string kPtx = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/fig5.ptx";
const std::string kSpec = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/fig5.launch.toml";

TEST(CliRepeatable, SetBeforeAPositionalDoesNotSwallowIt) {
  for (const std::string cmd : {"run", "profile", "sim"}) {
    const CliResult r =
        cli(cmd + " --set memory.banks=16 --set sm.count=1 " + kPtx + " --launch " + kSpec);
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("executed 16 warp-instructions"), std::string::npos) << cmd << r.out;
    if (cmd != "run")  // run does not print the arch
      EXPECT_NE(r.out.find("16 banks"), std::string::npos) << cmd << ": " << r.out;
  }
  const std::string out = ::testing::TempDir() + "smemsim_repeatable";
  shell("rm -rf " + out);  // a fresh study folder on every run
  const CliResult s =
      cli("study run --set patterns=100 --set memory.banks=16 random-patterns --quick "
          "--no-plots --out " +
          out);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_NE(s.out.find("100 uniform random"), std::string::npos) << s.out;
  const CliResult a = cli("analyze --set memory.banks=16 --pattern 0..31");
  EXPECT_EQ(a.exit_code, 0) << a.out;
  EXPECT_NE(a.out.find("16 banks"), std::string::npos) << a.out;
}

// Two --pattern options are two accesses (classify and hash search read them through the same
// option); a value that is not a pattern after one is an error, not a second pattern.
TEST(CliRepeatable, EachPatternIsOneAccess) {
  const CliResult r = cli("hash search --family bvxor --pattern 0..31 --pattern 0,32,2..31");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("over 2 accesses"), std::string::npos) << r.out;
  const CliResult bad = cli("hash search --family bvxor --pattern 0..31 0,32,2..31");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
}

}  // namespace
}  // namespace smemsim::test

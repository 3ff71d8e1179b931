// Output options added with issues 10-12 refuse an empty path or a negative count with exit 2 (an
// empty --csv or -o used to write nothing and exit 0).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(CliPaths, EmptyOutputPathsAndNegativeCountsAreErrors) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const std::pair<std::string, std::string> cases[] = {
      {"profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml --csv ''",
       "--csv: empty path"},
      {"analyze --trace /dev/null --csv ''", "--csv: empty path"},
      {"hash search --family bvxor --pattern 0..31 --emit cuda -o ''", "--output: empty path"},
      {"arch import /dev/null -o ''", "--output: empty path"},
      {"study run random-patterns --quick --stop-after -1", "--stop-after: must be at least 1"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
}

}  // namespace
}  // namespace smemsim::test

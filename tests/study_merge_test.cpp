// Issue 48, item 5: `study merge` checks each shard's config.json and points.csv as `study run`
// checks its options and reads its points, before it makes the merged folder. Before, an unknown
// backend or sweep key merged with exit 0 (the report then named the bogus key), and a value
// 'abc' in a column the report reads gave "stod", exit 1, after the merged folder was written.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {
namespace fs = std::filesystem;

class StudyMerge : public ::testing::Test {
 protected:
  // Two shards of a quick random-patterns run (8 points, 4 each), made once for the suite.
  static void SetUpTestSuite() {
    root_ = ::testing::TempDir() + "smemsim_merge_checks_" + std::to_string(::getpid());
    fs::remove_all(root_);
    for (int i = 0; i < 2; ++i) {
      const CliResult r = cli("study run random-patterns --quick --no-plots --shard " +
                              std::to_string(i) + "/2 --out " + root_ + "/s" + std::to_string(i));
      ASSERT_EQ(r.exit_code, 0) << r.out;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // Copies the shards, lets `mutate` edit the copies (shard folders S0 and S1), merges them.
  CliResult merge_mutated(
      const std::string& name,
      const std::function<void(const std::string&, const std::string&)>& mutate) {
    const std::string copy = root_ + "/" + name;
    fs::remove_all(copy);
    fs::create_directories(copy);
    fs::copy(root_ + "/s0", copy + "/s0", fs::copy_options::recursive);
    fs::copy(root_ + "/s1", copy + "/s1", fs::copy_options::recursive);
    const std::string s0 = copy + "/s0/random-patterns", s1 = copy + "/s1/random-patterns";
    mutate(s0, s1);
    merged_ = copy + "/merged";
    return cli("study merge --no-plots " + s0 + " " + s1 + " --out " + merged_);
  }
  static void edit_config(const std::string& shard,
                          const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json c = nlohmann::json::parse(slurp(shard + "/config.json"));
    edit(c);
    std::ofstream(shard + "/config.json") << c.dump(2);
  }
  // Replaces field `column` (0: the point) of data line `line` (1: the first after the header).
  static void edit_point(const std::string& shard, int line, int column, const std::string& v) {
    std::istringstream in(slurp(shard + "/points.csv"));
    std::string text, l;
    for (int i = 0; std::getline(in, l); ++i) {
      if (i == line) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        f.at(std::size_t(column)) = v;
        l.clear();
        for (std::size_t k = 0; k < f.size(); ++k) l += (k ? "," : "") + f[k];
      }
      text += l + "\n";
    }
    std::ofstream(shard + "/points.csv") << text;
  }

  static inline std::string root_;
  std::string merged_;
};

TEST_F(StudyMerge, UnmodifiedShardsMerge) {
  const CliResult r = merge_mutated("plain", [](const std::string&, const std::string&) {});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::exists(merged_ + "/random-patterns/report.md"));
}

TEST_F(StudyMerge, ABadConfigurationIsRefusedNamingTheFileAndNothingIsWritten) {
  struct Case {
    std::string name, words;
    std::function<void(nlohmann::json&)> edit;
  };
  const Case cases[] = {
      {"backend", "unknown latency backend 'bogus'",
       [](nlohmann::json& c) { c["backend"] = c["params"]["backend"] = "bogus"; }},
      {"backend2", "backend 'cycle' is not params.backend 'analytic'",
       [](nlohmann::json& c) { c["backend"] = "cycle"; }},
      {"sweep", "--sweep bogus: neither an arch key",
       [](nlohmann::json& c) {
         c["sweep"] = nlohmann::json::array({{{"key", "bogus"}, {"values", {"1"}}}});
       }},
      {"param", "study 'random-patterns' has no parameter 'bogus'",
       [](nlohmann::json& c) { c["params"]["bogus"] = "1"; }},
      {"missing", "params: the study's parameter 'sizes' is missing",
       [](nlohmann::json& c) { c["params"].erase("sizes"); }},
      {"seed", "seed 7 is not params.seed 1", [](nlohmann::json& c) { c["seed"] = 7; }},
      {"study", "unknown study 'bogus'", [](nlohmann::json& c) { c["study"] = "bogus"; }},
  };
  for (const Case& k : cases) {
    const CliResult r = merge_mutated(k.name, [&](const std::string& s0, const std::string& s1) {
      edit_config(s0, k.edit);
      edit_config(s1, k.edit);  // both alike: the shards agree, the configuration is bad
    });
    EXPECT_EQ(r.exit_code, 2) << k.name << ": " << r.out;
    EXPECT_NE(r.out.find("s0/random-patterns/config.json: "), std::string::npos)
        << k.name << ": " << r.out;
    EXPECT_NE(r.out.find(k.words), std::string::npos) << k.name << ": " << r.out;
    EXPECT_FALSE(fs::exists(merged_)) << k.name;
  }
}

TEST_F(StudyMerge, AnEmptyShardPathIsNamed) {
  const CliResult r = cli("study merge ''");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("a shard folder is an empty path"), std::string::npos) << r.out;
}

TEST_F(StudyMerge, AValueThatIsNoNumberIsNamedByShardLineAndColumn) {
  // Column 3 is latency_cycles_mean (after point, size, patterns), which the report reads.
  const CliResult r = merge_mutated(
      "abc", [](const std::string&, const std::string& s1) { edit_point(s1, 2, 3, "abc"); });
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("s1/random-patterns/points.csv:3: column 'latency_cycles_mean': 'abc' is "
                       "not a number"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(merged_));
}

// The same check on a run's own points.csv, read back when a finished run is run again.
TEST_F(StudyMerge, ARunReadingBackItsPointsNamesAValueThatIsNoNumber) {
  const std::string out = root_ + "/unsharded";
  const std::string run = "study run random-patterns --quick --no-plots --out " + out;
  ASSERT_EQ(cli(run).exit_code, 0);
  edit_point(out + "/random-patterns", 2, 3, "abc");
  const CliResult r = cli(run);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("random-patterns/points.csv:3: column 'latency_cycles_mean': 'abc'"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace smemsim::test

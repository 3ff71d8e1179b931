// Every list command accepts --json and prints a document with its schema version, its kind and
// the array of entries, each with a name (issue 10, item 3).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(CliLists, EveryListCommandPrintsJson) {
  const std::pair<std::string, std::string> lists[] = {{"arch list", "archs"},
                                                       {"model list", "models"},
                                                       {"hash list", "families"},
                                                       {"study list", "studies"}};
  for (const auto& [cmd, key] : lists) {
    const CliResult r = cli(cmd + " --json");
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.out;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << cmd << ": " << r.out;
    EXPECT_EQ(j.value("schema", 0), 1) << cmd;
    std::string kind = cmd;
    kind[kind.find(' ')] = '-';
    EXPECT_EQ(j.value("kind", ""), kind) << cmd;
    ASSERT_TRUE(j.contains(key) && j[key].is_array()) << cmd << ": " << r.out;
    ASSERT_FALSE(j[key].empty()) << cmd;
    for (const auto& e : j[key]) EXPECT_TRUE(e.contains("name")) << cmd << ": " << e.dump();
  }
}

}  // namespace
}  // namespace smemsim::test

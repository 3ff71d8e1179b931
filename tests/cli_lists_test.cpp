// Every list command accepts --json and prints an array of objects with a name (issue 10, item 3).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(CliLists, EveryListCommandPrintsJson) {
  for (const std::string cmd : {"arch list", "model list", "hash list", "study list"}) {
    const CliResult r = cli(cmd + " --json");
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.out;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_array()) << cmd << ": " << r.out;
    ASSERT_FALSE(j.empty()) << cmd;
    for (const auto& e : j) EXPECT_TRUE(e.contains("name")) << cmd << ": " << e.dump();
  }
}

}  // namespace
}  // namespace smemsim::test

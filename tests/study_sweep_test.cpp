// Arch sweeps (issue 10, item 5): `study run NAME --sweep KEY=V1,V2 ...` runs the study over the
// cross product as extra dimensions of its points: one table and one figure with every value, the
// derived arch named in report.md, resume, shards and merge keyed by the sweep, and a merge that
// refuses names the key that differs.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;

std::string sweep_fresh(const std::string& name) {
  const std::string d = ::testing::TempDir() + "smemsim_sweep_" + name;
  fs::remove_all(d);
  return d;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> r;
    std::istringstream f(line);
    for (std::string x; std::getline(f, x, ',');) r.push_back(x);
    rows.push_back(r);
  }
  return rows;
}

// Issue 10, "what it must show" 2.
TEST(StudySweep, OneTableAndOneFigureWithBothValuesAndTheDerivedArch) {
  const std::string out = sweep_fresh("banks");
  const CliResult r =
      cli("study run random-patterns --quick --sweep memory.banks=16,32 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string dir = out + "/random-patterns";
  // One table: the swept key is a column, every size appears once per value (8 sizes x 2).
  const auto rows = csv_rows(dir + "/points.csv");
  ASSERT_EQ(rows.size(), 1u + 16u);
  ASSERT_GE(rows[0].size(), 3u);
  EXPECT_EQ(rows[0][1], "memory.banks");
  EXPECT_EQ(rows[0][2], "size");
  std::map<std::string, std::map<std::string, std::vector<std::string>>> by;  // banks -> size
  for (std::size_t i = 1; i < rows.size(); ++i) by[rows[i][1]][rows[i][2]] = rows[i];
  ASSERT_EQ(by.size(), 2u);
  ASSERT_EQ(by["16"].size(), 8u);
  ASSERT_EQ(by["32"].size(), 8u);
  const auto col = [&](const std::string& name) {
    for (std::size_t c = 0; c < rows[0].size(); ++c)
      if (rows[0][c] == name) return c;
    ADD_FAILURE() << name;
    return std::size_t{0};
  };
  // Derivation: a 32-word vote space starting at word 0. With 32 banks every word has its own bank
  // (equal words broadcast): bank degree 1 in every pattern. With 16 banks each bank holds two of
  // the 32 words; a warp of 32 random lanes touches both words of some bank unless at most one
  // word of every pair is drawn, which 20,000 patterns essentially never see: 2 at most, ~2 mean.
  EXPECT_EQ(std::stod(by["32"]["32"][col("bank_degree_mean")]), 1.0);
  EXPECT_LE(std::stod(by["16"]["32"][col("bank_degree_mean")]), 2.0);
  EXPECT_NEAR(std::stod(by["16"]["32"][col("bank_degree_mean")]), 2.0, 1e-3);
  // The banks do not change the locks, and both configurations draw the same patterns per size
  // (common random numbers): identical lock degrees.
  for (const auto& [size, row] : by["16"])
    EXPECT_EQ(row[col("lock_degree_mean")], by["32"][size][col("lock_degree_mean")]) << size;
  // One figure with both values: a panel per configuration, titled by it.
  std::size_t figures = 0;
  for (const auto& e : fs::directory_iterator(dir)) figures += e.path().extension() == ".dat";
  EXPECT_EQ(figures, 1u);
  const std::string dat = slurp(dir + "/fig5_random_patterns.dat");
  EXPECT_NE(dat.find("# panel 0: banks=16\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# panel 1: banks=32\n"), std::string::npos) << dat;
  const std::string gp = slurp(dir + "/fig5_random_patterns.gp");
  EXPECT_NE(gp.find("set title \"banks=16\""), std::string::npos) << gp;
  EXPECT_NE(gp.find("set title \"banks=32\""), std::string::npos) << gp;
  // report.md names the derived arch of each configuration.
  const std::string md = slurp(dir + "/report.md");
  EXPECT_NE(md.find("fermi-gtx580 derived (memory.banks=16), uncalibrated"), std::string::npos)
      << md;
  EXPECT_NE(md.find("## Configuration memory.banks=32"), std::string::npos) << md;
  // summary.json: per configuration its values, arch and results.
  const auto s = nlohmann::json::parse(slurp(dir + "/summary.json"));
  ASSERT_EQ(s["results"]["configurations"].size(), 2u);
  EXPECT_EQ(s["results"]["configurations"][0]["values"]["memory.banks"], 16);
  EXPECT_EQ(s["results"]["configurations"][0]["arch"],
            "fermi-gtx580 derived (memory.banks=16), uncalibrated");
  // Resume: a second run reuses every point; another sweep on the folder is refused.
  const CliResult again =
      cli("study run random-patterns --quick --sweep memory.banks=16,32 --out " + out);
  EXPECT_NE(again.out.find("all 16 points were already computed"), std::string::npos) << again.out;
  const CliResult other =
      cli("study run random-patterns --quick --sweep memory.banks=16,64 --out " + out);
  EXPECT_EQ(other.exit_code, 2) << other.out;
  EXPECT_NE(other.out.find("holds points of a different configuration"), std::string::npos);
}

// The cross product of two keys, sharded and merged, equals the unsharded run; shards of different
// sweeps or parameters are refused naming what differs.
TEST(StudySweep, CrossProductShardsAndMerge) {
  const std::string base =
      "study run random-replication --quick --no-plots --set patterns=500 --sweep "
      "memory.banks=16,32 --sweep atomics.locks=512,1024";
  const std::string full = sweep_fresh("full"), s0 = sweep_fresh("s0"), s1 = sweep_fresh("s1"), m = sweep_fresh("m");
  ASSERT_EQ(cli(base + " --out " + full).exit_code, 0);
  ASSERT_EQ(cli(base + " --shard 0/2 --out " + s0).exit_code, 0);
  ASSERT_EQ(cli(base + " --shard 1/2 --out " + s1).exit_code, 0);
  const CliResult r = cli("study merge " + s0 + "/random-replication " + s1 +
                          "/random-replication --no-plots --out " + m);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* f : {"points.csv", "summary.json", "config.json"})
    EXPECT_EQ(slurp(m + "/random-replication/" + f), slurp(full + "/random-replication/" + f)) << f;
  // 4 configurations x 8 sizes; the locks column follows the banks column.
  const auto rows = csv_rows(full + "/random-replication/points.csv");
  EXPECT_EQ(rows.size(), 1u + 32u);
  EXPECT_EQ(rows[0][1], "memory.banks");
  EXPECT_EQ(rows[0][2], "atomics.locks");
  // A shard of another configuration: the merge names what differs.
  const auto merge_other = [&](const std::string& name, const std::string& sets) {
    const std::string t = sweep_fresh(name);
    EXPECT_EQ(cli("study run random-replication --quick --no-plots " + sets +
                  " --sweep atomics.locks=512,1024 --shard 1/2 --out " + t)
                  .exit_code,
              0);
    return cli("study merge " + s0 + "/random-replication " + t +
               "/random-replication --no-plots --out " + sweep_fresh(name + "_m"));
  };
  const CliResult bad = merge_other("t1", "--set patterns=400 --sweep memory.banks=16,32");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("differs from"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("params.patterns (\"400\" and \"500\")"), std::string::npos) << bad.out;
  const CliResult bad2 = merge_other("t2", "--set patterns=500 --sweep memory.banks=16,64");
  EXPECT_EQ(bad2.exit_code, 2) << bad2.out;
  EXPECT_NE(bad2.out.find("in sweep[memory.banks].values[1] (\"64\" and \"32\")"),
            std::string::npos)
      << bad2.out;
}

TEST(StudySweep, BadSweepsAreExitCode2) {
  const std::string out = " --quick --out " + sweep_fresh("bad");
  const std::pair<std::string, std::string> cases[] = {
      {"--sweep memory.banks", "expected KEY=V1,V2"},
      {"--sweep memory.banks=16,,32", "'' is not a value"},
      {"--sweep memory.banks=16,16", "16 is given twice"},
      {"--sweep memory.bankz=16,32", "neither an arch key"},
      {"--sweep memory.banks=16 --sweep memory.banks=32", "swept twice"},
      {"--sweep memory.banks=16,32 --set memory.banks=64", "also set with --set"},
      {"--sweep memory.banks=16,24", "memory.banks=24"},  // not a power of two: names the value
      {"--sweep patterns=10,x", "not an integer"}};
  for (const auto& [args, words] : cases) {
    const CliResult r = cli("study run random-patterns " + args + out);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << "\n" << r.out;
  }
}

}  // namespace
}  // namespace smemsim::test

// The study runner (issue 4): resume after an abrupt stop, thread-count and shard independence,
// merge, and bad input (exit 2).
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/images.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

namespace fs = std::filesystem;

using test::shell;
using test::slurp;

std::string fresh_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "smemsim_study_" + name;
  fs::remove_all(d);
  return d;
}

// A small random-mapping sweep: 42 points, several rows each.
const std::string kSweep = "study run random-mapping --quick --no-plots --set patterns=300";

TEST(StudyRunner, OneThreadEqualsTwoThreads) {
  const std::string a = fresh_dir("t1"), b = fresh_dir("t2");
  ASSERT_EQ(test::cli(kSweep + " --threads 1 --out " + a).exit_code, 0);
  ASSERT_EQ(test::cli(kSweep + " --threads 2 --out " + b).exit_code, 0);
  const std::string pa = slurp(a + "/random-mapping/points.csv");
  EXPECT_GT(std::count(pa.begin(), pa.end(), '\n'), 100);
  EXPECT_EQ(pa, slurp(b + "/random-mapping/points.csv"));
  EXPECT_EQ(slurp(a + "/random-mapping/config.json"), slurp(b + "/random-mapping/config.json"));
  EXPECT_TRUE(fs::exists(a + "/random-mapping/summary.json"));
  EXPECT_TRUE(fs::exists(a + "/random-mapping/report.md"));
  EXPECT_TRUE(fs::exists(a + "/random-mapping/arch.toml"));
  // A finished folder holds only its results (issue 24).
  EXPECT_FALSE(fs::exists(a + "/random-mapping/points.partial"));
  EXPECT_FALSE(fs::exists(a + "/random-mapping/.lock"));
}

// The studies on the cycle model (issue 31): seed 004's elastic pipeline and seed 003's
// GPU-LocalTM give the same points on one and on two threads.
TEST(StudyRunner, CycleStudiesEqualOnOneAndTwoThreads) {
  for (const std::string study : {"elastic", "localtm"}) {
    SCOPED_TRACE(study);
    const std::string a = fresh_dir(study + "1"), b = fresh_dir(study + "2");
    const std::string run = "study run " + study + " --quick --no-plots";
    ASSERT_EQ(test::cli(run + " --threads 1 --out " + a).exit_code, 0);
    ASSERT_EQ(test::cli(run + " --threads 2 --out " + b).exit_code, 0);
    const std::string pa = slurp(a + "/" + study + "/points.csv");
    EXPECT_GT(std::count(pa.begin(), pa.end(), '\n'), 4);
    EXPECT_EQ(pa, slurp(b + "/" + study + "/points.csv"));
  }
}

TEST(StudyRunner, InterruptedRunResumesAndEqualsUninterrupted) {
  const std::string full = fresh_dir("full"), cut = fresh_dir("cut");
  ASSERT_EQ(test::cli(kSweep + " --threads 2 --out " + full).exit_code, 0);
  // Stop abruptly (std::_Exit, as a kill) after 5 points of this invocation.
  auto r = test::cli(kSweep + " --stop-after 5 --threads 2 --out " + cut);
  ASSERT_EQ(r.exit_code, 75) << r.out;
  const std::string dir = cut + "/random-mapping";
  EXPECT_FALSE(fs::exists(dir + "/points.csv"));
  EXPECT_TRUE(fs::exists(dir + "/points.partial"));  // what the resume reads
  // A torn last line, as a kill in the middle of a write would leave.
  { std::ofstream(dir + "/points.partial", std::ios::app) << "17|64,300,4,cyc"; }
  r = test::cli(kSweep + " --stop-after 3 --threads 1 --out " + cut);
  ASSERT_EQ(r.exit_code, 75) << r.out;
  EXPECT_NE(r.out.find("(5 already done)"), std::string::npos) << r.out;
  r = test::cli(kSweep + " --threads 2 --out " + cut);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("(8 already done)"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir + "/points.csv"), slurp(full + "/random-mapping/points.csv"));
  EXPECT_FALSE(fs::exists(dir + "/points.partial"));
  // Rerunning a finished study recomputes nothing: its points are read back from points.csv.
  r = test::cli(kSweep + " --out " + cut);
  EXPECT_NE(r.out.find("already computed"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir + "/points.csv"), slurp(full + "/random-mapping/points.csv"));
}

TEST(StudyRunner, KilledChildResumes) {
  const std::string full = fresh_dir("kfull"), cut = fresh_dir("kcut");
  const std::string sweep = "study run random-mapping --quick --no-plots --set patterns=3000";
  ASSERT_EQ(test::cli(sweep + " --threads 1 --out " + full).exit_code, 0);
  // SIGKILL part-way (whatever point it reached).
  shell("timeout -s KILL 0.4 " + std::string(SMEMSIM_CLI) + " " + sweep + " --threads 1 --out " +
        cut);
  const auto r = test::cli(sweep + " --threads 2 --out " + cut);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(slurp(cut + "/random-mapping/points.csv"), slurp(full + "/random-mapping/points.csv"));
}

TEST(StudyRunner, ThreeShardsMergedEqualUnsharded) {
  const std::string full = fresh_dir("sfull"), sh = fresh_dir("shards"), merged = fresh_dir("m");
  ASSERT_EQ(test::cli(kSweep + " --out " + full).exit_code, 0);
  std::string dirs;
  for (int i = 0; i < 3; ++i) {
    const std::string out = sh + "/" + std::to_string(i);
    const auto r = test::cli(kSweep + " --shard " + std::to_string(i) + "/3 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    dirs += " " + out + "/random-mapping";
  }
  // Incomplete: one shard missing.
  EXPECT_EQ(test::cli("study merge " + sh + "/0/random-mapping --out " + merged).exit_code, 2);
  const auto r = test::cli("study merge --no-plots" + dirs + " --out " + merged);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(slurp(merged + "/random-mapping/points.csv"),
            slurp(full + "/random-mapping/points.csv"));
  EXPECT_EQ(slurp(merged + "/random-mapping/config.json"),
            slurp(full + "/random-mapping/config.json"));
  EXPECT_EQ(slurp(merged + "/random-mapping/summary.json"),
            slurp(full + "/random-mapping/summary.json"));
}

TEST(StudyRunner, ConfigurationChangeInSameFolderIsRefused) {
  const std::string d = fresh_dir("conf");
  ASSERT_EQ(test::cli("study run random-patterns --quick --no-plots --set patterns=100 --out " + d)
                .exit_code,
            0);
  const auto r =
      test::cli("study run random-patterns --quick --no-plots --set patterns=200 --out " + d);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("different configuration"), std::string::npos) << r.out;
}

// Exit code 2, and the message names what is wrong (when `needle` is given).
void expect_input_error(const std::string& args, const std::string& needle = "") {
  const auto r = test::cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  if (!needle.empty()) EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST(StudyRunner, BadInputExitsTwo) {
  const std::string d = " --out " + fresh_dir("bad");
  expect_input_error("study run no-such-study" + d, "unknown study 'no-such-study'");
  expect_input_error("study run random-patterns --quick --set colour=red" + d,
                     "no parameter 'colour'");
  expect_input_error("study run random-patterns --quick --set patterns=many" + d);
  expect_input_error("study run random-patterns --quick --set sizes=20000" + d);
  expect_input_error("study run random-patterns --quick --shard 3/3" + d);
  expect_input_error("study run random-replication --quick --set max_r=0" + d,
                     "'max_r': 0 must be >= 1");
  const std::string txt = test::temp_file("not_an_image.png", "this is text, not a PNG\n");
  expect_input_error("study run histogram --quick --set images=" + txt + d, "not a readable image");
  expect_input_error("study run histogram --quick --set images=/no/such/file.png" + d);
  expect_input_error("study run histogram --quick --set images=generated --set max_images=-1" + d,
                     "'max_images': -1 must be >= 1");
  // 4 B x 4096 bins x 64 copies = 1 MiB > 48 KiB.
  expect_input_error("study run histogram --quick --set bins=4096 --set r=64" + d,
                     "does not fit the shared memory");
  expect_input_error("study run kmeans --quick --set k=512 --set dims=5 --set r=8" + d);
  expect_input_error("study merge " + fresh_dir("bad") + "/nothing-here");
}

TEST(StudyRunner, ListNamesEveryStudy) {
  const auto r = test::cli("study list");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s :
       {"random-patterns", "random-replication", "random-mapping", "histogram", "kmeans", "hough"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(StudyRunner, WritesReadablePngWhenGnuplotExists) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "no gnuplot";
  const std::string d = fresh_dir("png");
  const auto r = test::cli("study run random-patterns --quick --set patterns=200 --out " + d);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string png = d + "/random-patterns/fig5_random_patterns.png";
  EXPECT_NE(r.out.find("figure: " + png), std::string::npos) << r.out;
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_NE(slurp(d + "/random-patterns/report.md").find("fig5_random_patterns.png"),
            std::string::npos);
}

TEST(Images, Luma12AndGeneratedImages) {
  EXPECT_EQ(images::luma12(0, 0, 0), 0);
  EXPECT_EQ(images::luma12(255, 255, 255), 4095);
  EXPECT_EQ(images::luma12(128, 128, 128), 2056);  // round(128 * 4095 / 255)
  const auto g = images::generate("gradient", 64, 8, 1);
  EXPECT_EQ(g.at(0, 0), 0);
  EXPECT_EQ(g.at(63, 7), 4095);
  const auto n1 = images::generate("noise", 32, 32, 7), n2 = images::generate("noise", 32, 32, 7);
  EXPECT_EQ(n1.px, n2.px);
  const auto b = images::generate("blocks", 32, 32, 3);
  EXPECT_EQ(b.at(0, 0), b.at(15, 15));
  EXPECT_THROW(images::generate("stripes", 8, 8, 1), InputError);
  EXPECT_THROW(images::load_gray12(test::temp_file("bad.jpg", "nope")), InputError);
  // Edges of the blocks image lie on tile borders only.
  for (const auto& e : images::sobel_edges(b, 1))
    EXPECT_TRUE(e.x % 16 == 15 || e.x % 16 == 0 || e.y % 16 == 15 || e.y % 16 == 0);
}

}  // namespace
}  // namespace smemsim

namespace smemsim {
namespace {

// study merge validates each shard (issue 28, item 3): a points.csv with ';' separators crashed it
// (SIGSEGV), a garbage line gave "stoull", a config.json field of the wrong type nlohmann's text.
// Each is now one line, exit 2, naming the file (and line or field).
TEST(StudyRunner, MergeValidatesEveryShard) {
  const std::string sh = fresh_dir("vshards");
  std::string dirs;
  for (int i = 0; i < 2; ++i) {
    const std::string out = sh + "/" + std::to_string(i);
    ASSERT_EQ(test::cli(kSweep + " --shard " + std::to_string(i) + "/2 --out " + out).exit_code, 0);
    dirs += " " + out + "/random-mapping";
  }
  const std::string csv = sh + "/1/random-mapping/points.csv";
  const std::string conf = sh + "/1/random-mapping/config.json";
  const std::string good_csv = slurp(csv), good_conf = slurp(conf);
  const auto merge_fails = [&](const std::string& needle) {
    const auto r = test::cli("study merge --no-plots" + dirs + " --out " + fresh_dir("vmerged"));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
  };
  std::string semi = good_csv;
  std::replace(semi.begin(), semi.end(), ',', ';');
  std::ofstream(csv) << semi;
  merge_fails(csv + ":1: the header is not 'point,");
  std::string body = good_csv;
  std::ofstream(csv) << body.substr(0, body.find('\n') + 1) << "garbage line\n";
  merge_fails(csv + ":2: 1 fields, the header has");
  std::ofstream(csv) << body.substr(0, body.find('\n') + 1) << "x7"
                     << body.substr(body.find('\n') + 2);
  merge_fails(csv + ":2: ");
  std::ofstream(csv) << good_csv;
  std::string bad_conf = good_conf;
  const auto at = bad_conf.find("\"points\":");
  ASSERT_NE(at, std::string::npos);
  bad_conf.replace(at, bad_conf.find(',', at) - at, "\"points\": \"many\"");
  std::ofstream(conf) << bad_conf;
  merge_fails(conf + ": field 'points' must be a non-negative integer");
  std::ofstream(conf) << "{ not json";
  merge_fails(conf + ": not a JSON document");
  std::ofstream(conf) << good_conf;
  const std::string merged = fresh_dir("vmerged");
  const auto ok = test::cli("study merge --no-plots" + dirs + " --out " + merged);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_TRUE(fs::exists(merged + "/random-mapping/points.csv"));
  EXPECT_FALSE(fs::exists(merged + "/random-mapping/.lock"));  // only results
}

// Issue 28: more threads than cores are capped to the cores (oneTBB would print a warning of its
// own and use fewer), an absurd count and a --stop-after of 0 (which used to run everything) are
// refused naming the option.
TEST(StudyRunner, ThreadCountsAreCappedAndZeroStopAfterIsRefused) {
  const std::string d = fresh_dir("threads");
  const auto r =
      test::cli("study run random-patterns --quick --no-plots --threads 4096 --out " + d);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("(4096 asked; this machine has"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TBB"), std::string::npos) << r.out;
  const auto big = test::cli("study run random-patterns --quick --threads 100000 --out " + d);
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.out.find("--threads"), std::string::npos) << big.out;
  const auto zero = test::cli("study run random-patterns --quick --stop-after 0 --out " + d);
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.out.find("--stop-after: must be at least 1"), std::string::npos) << zero.out;
}

}  // namespace
}  // namespace smemsim

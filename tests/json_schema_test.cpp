// Issue 10, item 3: every command's --json output (and every JSON file a study writes) validates
// against its documented schema (docs/schema/KIND.schema.json, listed in docs/json.md), every
// schema is exercised here, and every field a schema names is documented in docs/json.md.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "json_schema.hpp"
#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;

const std::string kSchemaDir = std::string(SMEMSIM_SOURCE_DIR) + "/docs/schema";

SchemaValidator& validator() {
  static SchemaValidator v(kSchemaDir);
  return v;
}

// Validates `doc` against the schema its "kind" names, which must be `kind`.
void expect_valid(const nlohmann::json& doc, const std::string& kind, const std::string& what) {
  ASSERT_TRUE(doc.is_object()) << what;
  ASSERT_EQ(doc.value("schema", 0), 1) << what;
  ASSERT_EQ(doc.value("kind", ""), kind) << what;
  for (const std::string& p : validator().validate(doc, kind + ".schema.json"))
    ADD_FAILURE() << what << ": " << p;
}

// Runs `args` (which must succeed) and validates its standard output.
void expect_valid_cli(const std::string& kind, const std::string& args) {
  static int n = 0;
  const std::string out = ::testing::TempDir() + "smemsim_schema_" + std::to_string(::getpid()) +
                          "_" + std::to_string(n++) + ".json";
  const CliResult r = shell("(" + std::string(SMEMSIM_CLI) + " " + args + " > " + out + ")");
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  const auto j = nlohmann::json::parse(slurp(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << args << ": not JSON";
  expect_valid(j, kind, args);
}

void expect_valid_file(const std::string& kind, const std::string& path) {
  const auto j = nlohmann::json::parse(slurp(path), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << path << ": not JSON";
  expect_valid(j, kind, path);
}

// (kind, arguments): each command's output must be of that kind and valid against its schema.
using Case = std::pair<std::string, std::string>;

std::vector<Case> analysis_cases(const std::string& t, const std::string& s4,
                                 const std::string& pcs) {
  return {{"analyze-pattern", "analyze --pattern 0,1024,2..31 --json"},
          {"analyze-pattern", "analyze --pattern 0..31 --op ld --json"},
          {"analyze-pattern", "analyze --pattern 0..31 --arch kepler-k20 --model fsm --json"},
          {"analyze-trace", "analyze --trace " + t + " --json"},
          {"analyze-trace", "analyze --trace " + pcs + " --json"},
          {"classify", "classify --pattern 0..31 --pattern 0,16,32,48 --json"},
          {"classify",
           "classify --pattern 0,1,32,33,64,65,96,97,128,129,160,161,192,193,224,225 --json"},
          {"hash-count", "hash count --json"},
          {"hash-count", "hash count --addr-bits 32 --bank-bits 5 --json"},
          {"hash-search", "hash search --family bvxor --trace " + s4 + " --json"},
          {"hash-search", "hash search --family bvxor --trace " + s4 + " --emit cuda --json"},
          {"hash-search",
           "hash search --family bits --heuristic mih --banks 8 --addr-bits 5 "
           "--pattern 27,12,6,19,11,4,28,3 --json"},
          {"hash-search", "hash search --family bvxor --trace " + pcs + " --pc 9 --json"},
          {"hash-apply", "hash apply --trace " + pcs + " --bank-hash xor --json"},
          {"hash-apply", "hash apply --trace " + t + " --bank-hash xor --arch ampere-a100 --json"}};
}

std::vector<Case> list_cases(const std::string& cfg) {
  return {{"arch-list", "arch list --json"},
          {"arch-show", "arch show --json"},
          {"arch-show", "arch show kepler-k20 --set memory.banks=16 --json"},
          {"arch-import", "arch import " + cfg + " --json"},
          {"model-list", "model list --json"},
          {"hash-list", "hash list --json"},
          {"study-list", "study list --json"}};
}

std::vector<Case> run_cases(const std::string& dir) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const std::string scan = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/scan_pipeline.ptx";
  return {
      {"run", "run builtin:transpose --json"},
      {"run", "run builtin:reduction --racecheck --json"},
      {"racecheck", "racecheck builtin:histogram --json"},
      {"run", "run builtin:atomic_bench --conflicts 4 --json"},
      {"run", "run builtin:tm_hashtable --buckets 4 --arch southern-islands --json"},
      {"profile", "profile builtin:transpose --json"},
      {"profile", "profile builtin:transpose --variant naive32 --json"},
      {"profile", "profile builtin:histogram --replication 2 --json"},
      {"profile", "profile builtin:tm_hashtable --buckets 4 --arch southern-islands --json"},
      {"profile", "profile builtin:reduction --timing --json"},
      {"profile", "profile builtin:transpose --emit-trace " + dir + "_schema.trace --json"},
      {"sim", "sim builtin:transpose --json"},
      {"fix", "fix builtin:transpose --json"},
      {"fix", "fix builtin:histogram --bins 8 --json"},
      {"sim", "sim builtin:transpose --arch cf11 --pipeline elastic --scheduler bank-aware --json"},
      {"sim", "sim builtin:tm_hashtable --buckets 4 --arch southern-islands --json"},
      {"sim", "sim builtin:reduction --timeline " + dir + "_schema_tl.json --json"},
      {"sim", "sim builtin:lud --json"},  // a pipeline: launches with their timing
      // Hand-written PTX without line information: cuda is null.
      {"profile", "profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml --json"},
      // TMA (issue 46): the reads of a TMA-written tile under each swizzle mode.
      {"profile", "profile " + std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/tma.ptx --launch " +
                      ex + "tma_rows.launch.toml --json"},
      // Clusters on two SMs (issue 46): the network's traffic, units.dsm_* and per instruction.
      {"sim", "sim " + std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/cluster.ptx --launch " + ex +
                  "cluster_exchange.launch.toml --json"},
      {"profile", "profile " + std::string(SMEMSIM_SOURCE_DIR) +
                      "/kernels/ptx/cluster.ptx --launch " + ex +
                      "cluster_exchange.launch.toml --timing --json"},
      // A [[launch]] pipeline: launches with their rows and totals.
      {"run", "run " + scan + " --launch " + dir + "_scan.toml --json"},
      {"profile", "profile " + scan + " --launch " + dir + "_scan.toml --json"}};
}

// The files of a study folder and `study run --json` (JsonSchema.StudyFiles).
const std::vector<std::string> kStudyKinds = {"study-run", "study-config", "study-run-info",
                                              "study-summary"};

class JsonSchema : public ::testing::Test {};

// The validator itself: it must reject what the schemas forbid (otherwise the tests below prove
// nothing).
TEST_F(JsonSchema, TheValidatorRejectsWhatTheSchemaForbids) {
  nlohmann::json doc =
      nlohmann::json::parse(cli("analyze --pattern 0,1024,2..31 --json").out, nullptr, false);
  ASSERT_TRUE(validator().validate(doc, "analyze-pattern.schema.json").empty());
  auto bad = doc;
  bad["extra_field"] = 1;  // not documented
  EXPECT_FALSE(validator().validate(bad, "analyze-pattern.schema.json").empty());
  bad = doc;
  bad.erase("latency_cycles");  // required
  EXPECT_FALSE(validator().validate(bad, "analyze-pattern.schema.json").empty());
  bad = doc;
  bad["bank_degree"] = "2";  // wrong type
  EXPECT_FALSE(validator().validate(bad, "analyze-pattern.schema.json").empty());
  bad = doc;
  bad["arch"]["memory"] = 3;  // inside a $ref to common.schema.json
  EXPECT_FALSE(validator().validate(bad, "analyze-pattern.schema.json").empty());
  bad = doc;
  bad["schema"] = 2;
  EXPECT_FALSE(validator().validate(bad, "analyze-pattern.schema.json").empty());
}

TEST_F(JsonSchema, AnalysisAndHashCommands) {
  const std::string dir = ::testing::TempDir() + std::to_string(::getpid());
  const std::string t = dir + "_schema_eq1.trace", s4 = dir + "_schema_s4.trace";
  ASSERT_EQ(cli("gen eq1 --conflicts 3 --stride 1024 --op atom --count 10 -o " + t).exit_code, 0);
  ASSERT_EQ(cli("gen stride --stride 4 --count 8 -o " + s4).exit_code, 0);
  // A trace with pc= lines, for per_pc and --pc.
  const std::string pcs = temp_file("schema_pc.trace",
                                    "smemsim-trace v1 unit=word warp=4\nld pc=7 0 1 2 3\nld pc=9 0 "
                                    "32 64 96\natom pc=9 0 0 1 2\n");
  for (const auto& [kind, args] : analysis_cases(t, s4, pcs)) expect_valid_cli(kind, args);
}

TEST_F(JsonSchema, ListsAndArchs) {
  const std::string cfg = temp_file("schema_gpgpusim.config",
                                    "-gpgpu_n_clusters 15\n-gpgpu_n_cores_per_cluster 1\n"
                                    "-gpgpu_shmem_num_banks 32\n-gpgpu_smem_latency 3\n"
                                    "-gpgpu_clock_domains 700.0:700.0:700.0:924.0\n");
  for (const auto& [kind, args] : list_cases(cfg)) expect_valid_cli(kind, args);
}

TEST_F(JsonSchema, RunProfileAndSim) {
  SKIP_WITHOUT_NVCC();
  const std::string dir = ::testing::TempDir() + std::to_string(::getpid());
  std::ofstream(dir + "_scan.toml")
      << "[buffers.in]\ntype = \"s32\"\ncount = 2048\ninit = \"iota\"\n"
         "[buffers.out]\ntype = \"s32\"\ncount = 2048\n[buffers.sums]\ntype = \"s32\"\ncount = 8\n"
         "[[launch]]\nkernel = \"scan_blocks\"\ngrid = 8\nblock = 256\nargs = [\"in\", \"out\", "
         "\"sums\"]\n[[launch]]\nkernel = \"scan_sums\"\ngrid = 1\nblock = 256\nargs = "
         "[\"sums\", 8]\n[[launch]]\nkernel = \"add_offsets\"\ngrid = 8\nblock = 256\nargs = "
         "[\"out\", \"sums\"]\n";
  for (const auto& [kind, args] : run_cases(dir)) expect_valid_cli(kind, args);
}

// Every study's files: config.json, run.json, summary.json (its results), and study run --json;
// a sweep, and a merge of sharded sweeps.
TEST_F(JsonSchema, StudyFiles) {
  const std::string out = ::testing::TempDir() + "smemsim_schema_studies";
  fs::remove_all(out);
  std::vector<std::string> names = {
      "random-patterns", "random-replication", "random-mapping", "histogram", "kmeans", "hough"};
  if (SMEMSIM_HAVE_PTX) names.insert(names.end(), {"elastic", "localtm"});
  for (const std::string& n : names) {
    expect_valid_cli("study-run", "study run " + n + " --quick --no-plots --json --out " + out);
    expect_valid_file("study-config", out + "/" + n + "/config.json");
    expect_valid_file("study-run-info", out + "/" + n + "/run.json");
    expect_valid_file("study-summary", out + "/" + n + "/summary.json");
  }
  const std::string sw = out + "/sweep";
  expect_valid_cli("study-run", "study run random-patterns --quick --no-plots --json --out " + sw +
                                    " --sweep memory.banks=16,32 --sweep memory.bank_hash=mod,xor");
  expect_valid_file("study-summary", sw + "/random-patterns/summary.json");
  expect_valid_file("study-config", sw + "/random-patterns/config.json");
  for (int i = 0; i < 2; ++i)
    expect_valid_cli("study-run",
                     "study run random-replication --quick --no-plots --json --shard " +
                         std::to_string(i) + "/2 --out " + out + "/s" + std::to_string(i) +
                         " --sweep patterns=100,200");
  expect_valid_cli("study-run", "study merge " + out + "/s0/random-replication " + out +
                                    "/s1/random-replication --no-plots --json --out " + out +
                                    "/merged");
}

// Every schema in docs/schema has validated outputs above.
TEST(JsonSchemaFiles, EverySchemaIsExercised) {
  std::set<std::string> covered(kStudyKinds.begin(), kStudyKinds.end());
  for (const auto& cases : {analysis_cases("t", "s4", "p"), list_cases("c"), run_cases("d")})
    for (const auto& c : cases) covered.insert(c.first);
  for (const auto& e : fs::directory_iterator(kSchemaDir)) {
    const std::string f = e.path().filename().string();
    if (f == "common.schema.json") continue;
    const std::string kind = f.substr(0, f.size() - std::string(".schema.json").size());
    EXPECT_TRUE(covered.count(kind)) << kind << " has no validated output in this test";
  }
}

// docs/json.md documents every kind and every field the schemas name (as `name`), every field has a
// description in its schema, and every $ref resolves.
TEST(JsonDocs, EveryKindAndFieldIsDocumented) {
  const std::string md = slurp(std::string(SMEMSIM_SOURCE_DIR) + "/docs/json.md");
  ASSERT_FALSE(md.empty());
  std::function<void(const nlohmann::json&, const std::string&, const std::string&)> walk =
      [&](const nlohmann::json& s, const std::string& file, const std::string& path) {
        if (!s.is_object()) return;
        if (s.contains("$ref"))
          EXPECT_TRUE(validator().resolves(s["$ref"].get<std::string>(), file))
              << file << ": " << path << ": unresolved $ref " << s["$ref"];
        for (const char* k : {"properties", "$defs"}) {
          if (!s.contains(k)) continue;
          for (const auto& [name, sub] : s[k].items()) {
            if (std::string(k) == "properties") {
              EXPECT_NE(md.find("`" + name + "`"), std::string::npos)
                  << file << ": field " << path << "/" << name << " is not in docs/json.md";
              EXPECT_TRUE(sub.contains("description") || sub.contains("$ref"))
                  << file << ": field " << path << "/" << name << " has no description";
            }
            walk(sub, file, path + "/" + name);
          }
        }
        for (const char* k : {"items", "additionalProperties"})
          if (s.contains(k)) walk(s[k], file, path + "/" + k);
        if (s.contains("anyOf"))
          for (const auto& alt : s["anyOf"]) walk(alt, file, path);
      };
  for (const auto& e : fs::directory_iterator(kSchemaDir)) {
    const std::string f = e.path().filename().string();
    const auto j = nlohmann::json::parse(slurp(e.path().string()));
    walk(j, f, "");
    if (f != "common.schema.json") {
      const std::string kind = f.substr(0, f.size() - std::string(".schema.json").size());
      EXPECT_NE(md.find("## `" + kind + "`"), std::string::npos)
          << "docs/json.md has no section '## `" << kind << "`'";
    }
  }
}

}  // namespace
}  // namespace smemsim::test

// The real-kernel corpus through the CLI (issue 15): __constant__ coefficients set by a launch
// spec's [symbols.NAME], the note for a constant never set (it read zeros silently before), and the
// errors for a symbol the module lacks or the kernel never reads. Skips without nvcc.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <filesystem>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

#ifndef SMEMSIM_CORPUS_PTX_DIR
#define SMEMSIM_CORPUS_PTX_DIR ""
#endif

namespace smemsim::test {
namespace {

const std::string kConv = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/conv_constant.ptx";

// A spec for conv1d over in = 0, 1, 2, ... (68 floats) writing out (64 floats) to `out`, plus
// `extra` TOML.
std::string conv_spec(const std::string& name, const std::string& out, const std::string& extra) {
  return temp_file(name,
                   "kernel = \"conv1d\"\ngrid = 2\nblock = 32\nargs = [\"in\", \"out\", "
                   "64]\n[buffers.in]\ntype = \"f32\"\ncount = 68\ninit = \"iota\"\n"
                   "[buffers.out]\ntype = \"f32\"\ncount = 64\nwrite = \"" +
                       out + "\"\n" + extra);
}

std::vector<double> read_values(const std::string& path) {
  std::ifstream in(path);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

TEST(ExecCorpusCli, ConstantCoefficientsFromTheLaunchSpec) {
  SKIP_WITHOUT_NVCC();
  // coeffs = 1, 2, 3, 2, 1 on in[j] = j: out[i] = sum_k c_k (i + k) = 9 i + (0 + 2 + 6 + 6 + 4)
  // = 9 i + 18, exact in f32 for i < 64.
  const std::string out = ::testing::TempDir() + "smemsim_conv_out.txt";
  const std::string spec =
      conv_spec("conv.toml", out,
                "[symbols.coeffs]\ntype = \"f32\"\ninit = \"values\"\nvalues = [1, 2, 3, 2, 1]\n");
  const CliResult r = cli("run " + kConv + " --launch " + spec);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;
  const std::vector<double> v = read_values(out);
  ASSERT_EQ(v.size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(v[std::size_t(i)], 9.0 * i + 18.0) << i;
}

TEST(ExecCorpusCli, AConstantNeverSetIsNamed) {
  SKIP_WITHOUT_NVCC();
  // Before: the kernel ran on zero coefficients and exited 0 with no word about it.
  const std::string out = ::testing::TempDir() + "smemsim_conv_zero.txt";
  const CliResult r = cli("run " + kConv + " --launch " + conv_spec("conv0.toml", out, ""));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("note: kernel reads __constant__ 'coeffs', which has no initializer in the "
                       "PTX and no [symbols.coeffs] entry"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read_values(out), std::vector<double>(64, 0.0));
}

TEST(ExecCorpusCli, SymbolEntriesMustNameAVariableTheKernelReads) {
  SKIP_WITHOUT_NVCC();
  const std::string out = ::testing::TempDir() + "smemsim_conv_err.txt";
  CliResult r = cli("run " + kConv + " --launch " +
                    conv_spec("conv1.toml", out,
                              "[symbols.offset]\ntype = \"s32\"\ninit = "
                              "\"fill\"\nvalue = 5\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("conv1.toml:13: symbols.offset: kernel 'conv1d(float const*, float*, "
                       "int)' never uses this variable"),
            std::string::npos)
      << r.out;
  r = cli("run " + kConv + " --launch " +
          conv_spec("conv2.toml", out, "[symbols.coef]\ntype = \"f32\"\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("conv2.toml:13: symbols.coef: the module has no variable of that name "
                       "(variables: coeffs, offset)"),
            std::string::npos)
      << r.out;
  r = cli("run " + kConv + " --launch " +
          conv_spec("conv3.toml", out,
                    "[symbols.coeffs]\ntype = \"f32\"\ninit = \"values\"\nvalues = [1, 2, 3, 4, 5, "
                    "6]\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("symbols.coeffs: 24 bytes do not fit in the variable's 20 bytes"),
            std::string::npos)
      << r.out;
  // An entry with no data was accepted and set nothing (the kernel read zeros, with no note).
  r = cli("run " + kConv + " --launch " +
          conv_spec("conv4.toml", out,
                    "[symbols.coeffs]\ntype = \"f32\"\ninit = \"values\"\nvalues = []\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("conv4.toml:13: symbols.coeffs: the entry gives no data"), std::string::npos)
      << r.out;
  // add_offset reads `offset`: set to 5 it adds 5 to every element.
  const std::string data = ::testing::TempDir() + "smemsim_offset.txt";
  const std::string spec =
      temp_file("offset.toml",
                "kernel = \"add_offset\"\ngrid = 1\nblock = 32\nargs = [\"d\"]\n[buffers.d]\n"
                "type = \"s32\"\ncount = 32\ninit = \"iota\"\nwrite = \"" +
                    data + "\"\n[symbols.offset]\ntype = \"s32\"\ninit = \"fill\"\nvalue = 5\n");
  r = cli("run " + kConv + " --launch " + spec);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::vector<double> d = read_values(data);
  ASSERT_EQ(d.size(), 32u);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(d[std::size_t(i)], i + 5) << i;
}

// Bank conflicts of ld/st counted by brute force from the emitted trace: for each access, the most
// distinct words any of the 32 four-byte banks holds, minus one (a word read by several lanes is
// one broadcast). Per PTX line. Independent of the analyzer's bit-sliced kernels.
std::map<std::uint32_t, std::int64_t> brute_force_conflicts(const std::string& trace) {
  std::map<std::uint32_t, std::int64_t> per_pc;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.starts_with("smemsim-trace")) continue;
    std::istringstream s(line);
    std::string op, tok;
    s >> op;
    if (op != "ld" && op != "st") continue;
    std::uint32_t pc = 0;
    std::map<std::uint64_t, std::set<std::uint64_t>> bank_words;
    while (s >> tok) {
      if (tok.starts_with("pc=")) {
        pc = std::uint32_t(std::stoul(tok.substr(3)));
      } else if (tok.find('=') == std::string::npos && tok != "-") {
        const std::uint64_t word = std::stoull(tok);
        bank_words[word % 32].insert(word);
      }
    }
    std::size_t degree = 1;
    for (const auto& [bank, words] : bank_words) degree = std::max(degree, words.size());
    per_pc[pc] += std::int64_t(degree) - 1;
  }
  return per_pc;
}

TEST(ExecCorpusCli, ProfileConflictsMatchABruteForceCountOfTheTrace) {
  SKIP_WITHOUT_NVCC();
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/samples.ptx";
  struct Case {
    std::string kernel, spec;
    // Worked by hand: the unpadded transpose's column read tile[tx][ty + j] puts a warp's 32 lanes
    // on one bank (31 extra passes) for each of 4 blocks x 8 warps x 4 reads = 3,968; padding
    // spreads them; matmul's tiles are read as rows or broadcasts, the sort at distinct words.
    std::int64_t conflicts;
  };
  const std::string mat = "type = \"f32\"\ncount = 4096\ninit = \"random\"\n";
  const std::vector<Case> cases = {
      {"transpose_tile<0>",
       "grid = [2, 2]\nblock = [32, 8]\nargs = [\"i\", \"o\", 64, 64]\n[buffers.i]\n" + mat +
           "[buffers.o]\n" + mat,
       4 * 8 * 4 * 31},
      {"transpose_tile<1>",
       "grid = [2, 2]\nblock = [32, 8]\nargs = [\"i\", \"o\", 64, 64]\n[buffers.i]\n" + mat +
           "[buffers.o]\n" + mat,
       0},
      {"matmul_tiled",
       "grid = [4, 4]\nblock = [16, 16]\nargs = [\"a\", \"b\", \"c\", 64]\n[buffers.a]\n" + mat +
           "[buffers.b]\n" + mat + "[buffers.c]\n" + mat,
       0},
      {"bitonic_sort256",
       "grid = 2\nblock = 256\nargs = [\"k\"]\n[buffers.k]\ntype = \"s32\"\ncount = 512\ninit = "
       "\"random\"\n",
       0}};
  for (const Case& c : cases) {
    const std::string spec = temp_file("bf.toml", "kernel = \"" + c.kernel + "\"\n" + c.spec);
    const std::string trace = ::testing::TempDir() + "smemsim_bf.trace";
    const CliResult r =
        cli("profile " + ptx + " --launch " + spec + " --emit-trace " + trace + " --json");
    ASSERT_EQ(r.exit_code, 0) << c.kernel << "\n" << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const std::map<std::uint32_t, std::int64_t> want = brute_force_conflicts(trace);
    std::int64_t total = 0;
    for (const auto& row : j["rows"]) {
      if (row["op"] != "ld" && row["op"] != "st") continue;
      const auto pc = row["ptx"]["line"].get<std::uint32_t>();
      const auto it = want.find(pc);
      EXPECT_EQ(row["bank_conflicts"].get<std::int64_t>(), it == want.end() ? 0 : it->second)
          << c.kernel << " line " << pc;
      total += row["bank_conflicts"].get<std::int64_t>();
    }
    EXPECT_EQ(total, c.conflicts) << c.kernel;
  }
}

TEST(ExecCorpusCli, ThreePassScanPipeline) {
  SKIP_WITHOUT_NVCC();
  // 8 blocks of 256 over in[i] = iota 0, 1, 2, ...: the inclusive prefix sum i (i + 1) / 2.
  const std::string ptx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/scan_pipeline.ptx";
  const std::string out = ::testing::TempDir() + "smemsim_scan_out.txt";
  const std::string spec = temp_file(
      "scan.toml",
      "[buffers.in]\ntype = \"s32\"\ncount = 2048\ninit = \"iota\"\n[buffers.out]\ntype = "
      "\"s32\"\ncount = 2048\nwrite = \"" +
          out +
          "\"\n[buffers.sums]\ntype = \"s32\"\ncount = 8\n\n"
          "[[launch]]\nkernel = \"scan_blocks\"\ngrid = 8\nblock = 256\nargs = [\"in\", \"out\", "
          "\"sums\"]\n\n[[launch]]\nkernel = \"scan_sums\"\ngrid = 1\nblock = 256\nargs = "
          "[\"sums\", 8]\n\n[[launch]]\nkernel = \"add_offsets\"\ngrid = 8\nblock = 256\nargs = "
          "[\"out\", \"sums\"]\n");
  CliResult r = cli("run " + ptx + " --launch " + spec);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("launch 2: kernel scan_sums(int*, int): grid 1,1,1"), std::string::npos)
      << r.out;
  const std::vector<double> v = read_values(out);
  ASSERT_EQ(v.size(), 2048u);
  for (int i = 0; i < 2048; ++i) ASSERT_EQ(v[std::size_t(i)], double(i) * (i + 1) / 2) << i;
  // profile: a table per launch, and the totals of all three.
  r = cli("profile " + ptx + " --launch " + spec + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["launches"].size(), 3u);
  std::int64_t accesses = 0;
  for (const auto& l : j["launches"]) accesses += l["totals"]["accesses"].get<std::int64_t>();
  EXPECT_EQ(j["totals"]["accesses"].get<std::int64_t>(), accesses);
  EXPECT_GT(accesses, 0);
  EXPECT_EQ(j["launches"][2]["totals"]["accesses"].get<std::int64_t>(), 0);  // no shared memory
  // Errors: --kernel beside [[launch]], a top-level key beside them, sim.
  r = cli("run " + ptx + " --launch " + spec + " --kernel scan_blocks");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("apply to one launch; this spec has 3 [[launch]] tables"), std::string::npos)
      << r.out;
  // sim (issue 27 item 5): the three launches in order on one GPU state, the same scan, and the
  // total is the launches' cycles one after the other.
  std::filesystem::remove(out);
  r = cli("sim " + ptx + " --launch " + spec + " --arch ampere-a100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json t = nlohmann::json::parse(r.out);
  ASSERT_EQ(t["launches"].size(), 3u);
  std::int64_t cycles = 0, warp_instructions = 0;
  for (const auto& l : t["launches"]) {
    EXPECT_GT(l["timing"]["cycles"].get<std::int64_t>(), 0);
    cycles += l["timing"]["cycles"].get<std::int64_t>();
    warp_instructions += l["timing"]["warp_instructions"].get<std::int64_t>();
  }
  EXPECT_EQ(t["timing"]["cycles"].get<std::int64_t>(), cycles);
  EXPECT_EQ(t["timing"]["warp_instructions"].get<std::int64_t>(), warp_instructions);
  const std::vector<double> sv = read_values(out);
  ASSERT_EQ(sv.size(), 2048u);
  for (int i = 0; i < 2048; ++i) ASSERT_EQ(sv[std::size_t(i)], double(i) * (i + 1) / 2) << i;
  r = cli("sim " + ptx + " --launch " + spec + " --timeline " + out + ".json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--pipeview and --timeline show one launch"), std::string::npos) << r.out;
  const std::string bad = temp_file("scan_bad.toml",
                                    "grid = 1\n[[launch]]\nkernel = \"scan_sums\"\n"
                                    "grid = 1\nblock = 32\nargs = [0, 1]\n");
  r = cli("run " + ptx + " --launch " + bad);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("scan_bad.toml:1: 'grid' belongs inside each [[launch]]"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace smemsim::test

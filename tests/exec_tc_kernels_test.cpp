// Issue 16 "must show" 2 and 3: the tensor-core demo kernels (kernels/gemm_tc.cu,
// kernels/attention_tc.cu) against CPU references, their ldmatrix conflicts against a brute-force
// count from the addresses in the trace, the loop profile -> hash search --pc -> a swizzled
// kernel compiled with the emitted hash, and the errors of bad tensor-core code. Skipped without
// nvcc.
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;

const char* kArch = " --arch ampere-a100";

nlohmann::json run_json(const std::string& args) {
  const auto r = cli(args + kArch + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// The ldmatrix rows of a profile: PTX line -> row.
std::map<std::uint32_t, nlohmann::json> ldmatrix_rows(const nlohmann::json& j) {
  std::map<std::uint32_t, nlohmann::json> out;
  for (const auto& row : j["rows"]) {
    const std::string text = row["instruction"].get<std::string>();
    if (text.starts_with("ldmatrix") && row["accesses"].get<std::int64_t>() > 0)
      out[row["ptx"]["line"].get<std::uint32_t>()] = row;
  }
  return out;
}

// The largest bank degree of the trace's accesses of `pcs`, counted from the addresses alone: per
// access, the most distinct words that fall in one of 32 four-byte banks (word % 32).
int brute_force_degree(const std::string& trace, const std::set<std::uint32_t>& pcs) {
  std::istringstream in(test::slurp(trace));
  std::string line;
  int worst = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string op, pc;
    if (!(ls >> op >> pc) || !pc.starts_with("pc=")) continue;
    if (!pcs.count(static_cast<std::uint32_t>(std::stoul(pc.substr(3))))) continue;
    std::map<unsigned, std::set<unsigned long>> per_bank;
    std::string word;
    while (ls >> word)  // addresses; '-' an inactive lane, key=value fields (warp=) skipped
      if (word != "-" && word.find('=') == std::string::npos)
        per_bank[std::stoul(word) % 32].insert(std::stoul(word));
    for (const auto& [bank, words] : per_bank) worst = std::max(worst, int(words.size()));
  }
  return worst;
}

TEST(TensorCoreKernels, GemmMatchesTheCpuProductAtBothTileShapes) {
  SKIP_WITHOUT_NVCC();
  for (const char* v : {"bk64", "bk64_swizzled", "bk32", "bk32_swizzled"}) {
    const auto j = run_json(std::string("run builtin:gemm --variant ") + v);
    EXPECT_EQ(j["reference"]["matches"], true) << v;
  }
  // A non-square product with K spanning several tiles.
  const auto j = run_json("run builtin:gemm --variant bk32 --height 64 --width 192 --size 96");
  EXPECT_EQ(j["reference"]["matches"], true);
}

TEST(TensorCoreKernels, AttentionMatchesTheCpuReference) {
  SKIP_WITHOUT_NVCC();
  for (const char* v : {"rowmajor", "swizzled"})
    EXPECT_EQ(run_json(std::string("run builtin:attention --size 2 --variant ") +
                       v)["reference"]["matches"],
              true)
        << v;
}

// Row-major tiles: an ldmatrix phase reads one 16-byte column chunk of eight consecutive rows.
// 128-byte rows (BK = 64): the eight rows are 32 words apart, all in the same four banks: 8-way.
// 64-byte rows (BK = 32): rows 16 words apart, two rows per 32 banks: 4-way. The profile's degree
// must equal the count from the trace's addresses; the swizzled tiles are conflict-free.
TEST(TensorCoreKernels, LdmatrixConflictDegreesEqualABruteForceCount) {
  SKIP_WITHOUT_NVCC();
  const std::map<std::string, int> expected = {{"bk64", 8}, {"bk32", 4}};
  for (const auto& [v, degree] : expected) {
    const std::string trace = test::temp_file("tc_" + v + ".trace", "");
    const auto j = run_json("profile builtin:gemm --variant " + v + " --emit-trace " + trace);
    const auto rows = ldmatrix_rows(j);
    ASSERT_EQ(rows.size(), v == "bk64" ? 16u : 8u) << v;  // (BK / 16) x (2 A + 2 B) per kernel
    std::set<std::uint32_t> pcs;
    for (const auto& [line, row] : rows) {
      EXPECT_EQ(row["bank_degree_max"], degree) << v << " line " << line;
      pcs.insert(line);
    }
    EXPECT_EQ(brute_force_degree(trace, pcs), degree) << v;
    const auto s = run_json("profile builtin:gemm --variant " + v + "_swizzled");
    EXPECT_EQ(s["totals"]["bank_conflicts"], 0) << v;
  }
  const auto a = run_json("profile builtin:attention --size 1");
  const auto arows = ldmatrix_rows(a);
  ASSERT_FALSE(arows.empty());
  bool trans = false;
  for (const auto& [line, row] : arows) {
    EXPECT_EQ(row["bank_degree_max"], 8) << line;
    trans |= row["instruction"].get<std::string>().find(".trans") != std::string::npos;
  }
  EXPECT_TRUE(trans);  // V's fragments
  EXPECT_EQ(
      run_json("profile builtin:attention --size 1 --variant swizzled")["totals"]["bank_conflicts"],
      0);
}

// The cycle model serves each ldmatrix matrix as one phase (the rows the executor emits). gemm bk64
// at 128 x 128 x 256: 16 warps, each 4 K tiles x 4 k16 steps x 4 ldmatrix.x4 = 64 ldmatrix (1,024
// in all) and 4 K tiles x 8 cp.async per thread = 32 (512 in all). Row-major: an ldmatrix takes 4
// phases x 8 passes, 28 of them conflict passes. Swizzled: every phase one pass, and no issue slot
// waits on a bank conflict (the further phases of a conflict-free access are a structural hazard,
// not a conflict). A cp.async is timed as its global read (docs/timing.md): 512 requests of 32
// lanes x 16 bytes = 16 sectors each, beside the 512 requests and 4,096 sectors of C's stores.
TEST(TensorCoreKernels, CycleModelServesLdmatrixPhaseByPhase) {
  SKIP_WITHOUT_NVCC();
  const auto rm = run_json("sim builtin:gemm --variant bk64")["timing"];
  EXPECT_EQ(rm["units"]["smem_passes"], 1024 * 32);
  EXPECT_EQ(rm["units"]["bank_conflict_passes"], 1024 * 28);
  EXPECT_EQ(rm["units"]["global_requests"], 512 + 512);
  EXPECT_EQ(rm["units"]["global_sectors"], 512 * 16 + 4096);
  const auto sw = run_json("sim builtin:gemm --variant bk64_swizzled")["timing"];
  EXPECT_EQ(sw["units"]["smem_passes"], 1024 * 4);
  EXPECT_EQ(sw["units"]["bank_conflict_passes"], 0);
  EXPECT_EQ(sw["issue_stalls"]["bank_conflict"], 0);
  // ampere-a100's SM is four sub-cores (issue 25): a conflicting ldmatrix's extra passes hold the
  // SM's shared-memory port (other sub-cores' memory ops: mio_throttle) and delay its fragments, so
  // the warps that read them wait on that MIO result (short_scoreboard) far longer than with the
  // swizzle.
  EXPECT_GT(rm["issue_stalls"]["short_scoreboard"].get<std::int64_t>(),
            2 * sw["issue_stalls"]["short_scoreboard"].get<std::int64_t>());
  EXPECT_LT(sw["cycles"].get<std::int64_t>(), rm["cycles"].get<std::int64_t>());
}

#ifdef SMEMSIM_NVCC
// The loop of docs/exec.md "Tensor cores": the hint and `hash search --pc` over the ldmatrix lines
// find a swizzle; it removes every conflict of those lines, as the hand-written one does (chunk ^=
// row % 8: word bits 2..4 ^= bits 5..7, bvxor k2 = 3, mask = 28; for 64-byte rows chunk ^= (row /
// 2) % 4: bits 2..3 ^= bits 5..6, mask = 12); compiled into the kernel through -DSMEMSIM_TILE_HASH
// it still multiplies correctly and profiles conflict-free.
TEST(TensorCoreKernels, HashSearchSwizzleEqualsOrBeatsTheHandWrittenOne) {
  const std::map<std::string, std::string> hand = {{"bk64", "bvxor:k1=0,k2=3,mask=28"},
                                                   {"bk32", "bvxor:k1=0,k2=3,mask=12"}};
  for (const auto& [v, spec] : hand) {
    const std::string trace = test::temp_file("tc_loop_" + v + ".trace", "");
    const auto j = run_json("profile builtin:gemm --variant " + v + " --emit-trace " + trace);
    const auto rows = ldmatrix_rows(j);
    ASSERT_FALSE(rows.empty());
    for (const auto& [line, row] : rows) {
      ASSERT_TRUE(row["hints"]["swizzle"].is_object()) << line;
      EXPECT_EQ(row["hints"]["swizzle"]["conflicts_after"], 0) << line;
    }
    const std::string range =
        std::to_string(rows.begin()->first) + ".." + std::to_string(rows.rbegin()->first);
    const auto found =
        run_json("hash search --family bvxor --bijective --trace " + trace + " --pc " + range);
    EXPECT_GT(found["baseline_conflicts"].get<std::int64_t>(), 0);
    // Both applied to every access of the trace (the cp.async copies too): the found one leaves
    // no more conflicts than the hand-written one, which leaves none.
    const auto conflicts_under = [&](const std::string& s) {
      return run_json("hash apply --trace " + trace + " --bank-hash '" + s +
                      "'")["hashed"]["bank_conflicts"]
          .get<std::int64_t>();
    };
    const std::int64_t by_hand = conflicts_under(spec);
    EXPECT_EQ(by_hand, 0) << spec;
    EXPECT_LE(conflicts_under(found["spec"].get<std::string>()), by_hand) << found["spec"];
    EXPECT_EQ(found["conflicts"], 0);

    // The emitted CUDA hash in the kernel's _swizzled variant.
    const std::string cuh = test::temp_file("tc_" + v + "_hash.cuh", "");
    const auto emit = cli("hash search --family bvxor --trace " + trace + " --pc " + range + kArch +
                          " --emit cuda -o " + cuh);
    ASSERT_EQ(emit.exit_code, 0) << emit.out;
    const std::string dir = ::testing::TempDir() + "smemsim_tc_ptx_" + v;
    const std::string nvcc = "mkdir -p " + dir + " && " + std::string(SMEMSIM_NVCC) +
                             " -ptx -lineinfo -arch=sm_80 -DSMEMSIM_TILE_HASH -include " + cuh +
                             " " + SMEMSIM_SOURCE_DIR + "/kernels/gemm_tc.cu -o " + dir +
                             "/gemm_tc.ptx 2>&1";
    ASSERT_EQ(std::system(nvcc.c_str()), 0) << nvcc;
    const auto hashed =
        run_json("profile builtin:gemm --variant " + v + "_swizzled --ptx-dir " + dir);
    EXPECT_EQ(hashed["reference"]["matches"], true) << v;
    EXPECT_EQ(hashed["totals"]["bank_conflicts"], 0) << v;
  }
}

// Must show 3: an ldmatrix row address off its 16-byte alignment, and an mma form smemsim does
// not implement (fp8): one line each, exit 2, naming the PTX line and the CUDA line.
TEST(TensorCoreKernels, BadTensorCoreCodeIsAClearError) {
  const std::string cu = test::temp_file("tc_bad.cu", R"(#include <cuda_fp16.h>
__global__ void misaligned(unsigned* out) {
  __shared__ __align__(16) unsigned short t[512];
  for (int i = threadIdx.x; i < 512; i += 32) t[i] = i;
  __syncwarp();
  unsigned r;
  const unsigned a = (unsigned)__cvta_generic_to_shared(&t[(threadIdx.x % 8) * 16 + 4]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
  out[threadIdx.x] = r;
}
__global__ void fp8(unsigned* out) {
  unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0;
  float c[4] = {};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  out[threadIdx.x] = (unsigned)c[0];
}
)");
  const std::string ptx = ::testing::TempDir() + "smemsim_tc_bad.ptx";
  const std::string nvcc =
      std::string(SMEMSIM_NVCC) + " -ptx -lineinfo -arch=sm_89 " + cu + " -o " + ptx + " 2>&1";
  ASSERT_EQ(std::system(nvcc.c_str()), 0) << nvcc;
  const std::string spec = test::temp_file("tc_bad.toml",
                                           "grid = [1]\nblock = [32]\nargs = [\"out\"]\n"
                                           "[buffers.out]\ntype = \"u32\"\ncount = 32\n");
  auto r = cli("run " + ptx + " --kernel misaligned --launch " + spec + kArch);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("smemsim_tc_bad.ptx:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("misaligned shared load of 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(smemsim_tc_bad.cu:8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ldmatrix.sync.aligned.m8n8.x1.shared.b16"), std::string::npos) << r.out;
  r = cli("run " + ptx + " --kernel fp8 --launch " + spec + kArch);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unsupported PTX instruction 'mma.sync.aligned.m16n8k32.row.col.f32.e4m3"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(fp8, fp6 and fp4 elements) (smemsim_tc_bad.cu:14)"), std::string::npos)
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

// An inlined helper of the kernel's own file used from two lines: its rows share the helper's line,
// so each names the line that called it (the 32-way stride-32 use at line 8, the conflict-free
// stride-33 use at line 9: gcd(33, 32) = 1).
TEST(ProfileInlining, NamesTheCallerOfAnInlinedHelperUsedTwice) {
  const std::string cu = test::temp_file(
      "tc_helper.cu", R"(__device__ __forceinline__ float load_tile(const float* t, int i) {
  return t[i];
}
__global__ void two_uses(float* out) {
  __shared__ float tile[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += 32) tile[i] = i;
  __syncthreads();
  float a = load_tile(tile, threadIdx.x * 32);
  float b = load_tile(tile, threadIdx.x * 33);
  out[threadIdx.x] = a + b;
}
)");
  const std::string ptx = ::testing::TempDir() + "smemsim_tc_helper.ptx";
  const std::string nvcc =
      std::string(SMEMSIM_NVCC) + " -ptx -lineinfo -arch=sm_75 " + cu + " -o " + ptx + " 2>&1";
  ASSERT_EQ(std::system(nvcc.c_str()), 0) << nvcc;
  const std::string spec = test::temp_file("tc_helper.toml",
                                           "grid = [1]\nblock = [32]\nargs = [\"out\"]\n"
                                           "[buffers.out]\ntype = \"f32\"\ncount = 32\n");
  const auto r = cli("profile " + ptx + " --launch " + spec + " --arch turing-t4");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(
                "> called at smemsim_tc_helper.cu:8: float a = load_tile(tile, threadIdx.x * 32);"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("called at smemsim_tc_helper.cu:9"), std::string::npos)
      << r.out;  // no conflict
  EXPECT_EQ(r.out.find("called at smemsim_tc_helper.cu:10"), std::string::npos) << r.out;
  // The JSON rows carry it for every inlined instruction: the loads at lines 8 and 9.
  const auto j = run_json("profile " + ptx + " --launch " + spec);
  std::set<int> lines;
  for (const auto& row : j["rows"])
    if (row["op"] == "ld" && row["called_from"].is_object())
      lines.insert(row["called_from"]["line"].get<int>());
  EXPECT_EQ(lines, (std::set<int>{8, 9}));
}
#endif

}  // namespace
}  // namespace smemsim

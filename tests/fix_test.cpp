// Issue 26 item 1: `smemsim fix` and the shared-array relayout it verifies its candidates with
// (exec::SharedRemap, docs/fix.md).
#include <algorithm>
#include <cstdlib>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "smemsim/exec.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

nlohmann::json fix_json(const std::string& args) {
  const CliResult r = cli("fix " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const auto at = r.out.find('{');
  return at == std::string::npos ? nlohmann::json::object()
                                 : nlohmann::json::parse(r.out.substr(at));
}

// Padding: word i of a 32-word row r moves to r * 33 + c (tile[32][33]); the bytes after the
// array move up by the 32 added words. Worked by hand for a 32 x 32 array of words at offset 64.
TEST(SharedRemap, PaddingMovesEachRowAndWhatFollows) {
  exec::SharedRemap r;
  r.base = 64, r.bytes = 4096, r.grain = 4, r.row = 32, r.pad = 1;
  EXPECT_EQ(r.check(), "");
  EXPECT_EQ(r.added_bytes(), 128u);                     // 32 rows x 1 word
  EXPECT_EQ(r.map(0), 0u);                              // before the array: unchanged
  EXPECT_EQ(r.map(64 + 4 * 31), 64u + 4 * 31);          // row 0, column 31
  EXPECT_EQ(r.map(64 + 4 * 32), 64u + 4 * 33);          // row 1, column 0: after one pad word
  EXPECT_EQ(r.map(64 + 4 * 33 + 2), 64u + 4 * 34 + 2);  // a byte inside a word keeps its place
  EXPECT_EQ(r.map(64 + 4096), 64u + 4096 + 128);        // the next array moves up
}

// Swizzle i ^ ((i >> 5) & 31): word 32 l (lane l's in a column read of a 32-word-row tile) moves
// to 32 l + l, bank l: the 32 lanes get 32 banks.
TEST(SharedRemap, SwizzleIsABijectionOrRefused) {
  exec::SharedRemap r;
  r.bytes = 4096, r.xor_shift = 5, r.xor_mask = 31;
  EXPECT_EQ(r.check(), "");
  EXPECT_EQ(r.added_bytes(), 0u);
  for (std::uint64_t l = 0; l < 32; ++l) EXPECT_EQ(r.map(4 * 32 * l), 4 * (32 * l + l));
  // e ^ (e & 1) clears bit 0: words 0 and 1 both go to 0.
  exec::SharedRemap bad;
  bad.bytes = 64, bad.xor_shift = 0, bad.xor_mask = 1;
  EXPECT_NE(bad.check().find("not a bijection"), std::string::npos) << bad.check();
  // Over 12 words, e ^ ((e >> 1) & 4) sends word 8 to 12, past the array.
  exec::SharedRemap out;
  out.bytes = 48, out.xor_shift = 1, out.xor_mask = 4;
  EXPECT_NE(out.check().find("outside the array"), std::string::npos) << out.check();
  // A 16-byte grain needs the array made of whole grains.
  exec::SharedRemap g16;
  g16.base = 8, g16.bytes = 64, g16.grain = 16, g16.row = 2, g16.pad = 1;
  EXPECT_NE(g16.check().find("whole 16-byte grains"), std::string::npos) << g16.check();
}

// The naive 32 x 32 transpose reads its tile by column: lane l reads word 32 l + c, bank
// (32 l + c) mod 32 = c for every lane, a 32-way access (31 conflicts). Padded to 33 words a row,
// lane l reads bank (33 l + c) mod 32 = (l + c) mod 32, 32 distinct banks: no conflict. The fix
// must find that padding, run it with the same output, and be faster in the cycle model.
TEST(Fix, TransposePaddingAndSwizzleRemoveEveryConflictWithTheSameOutput) {
  const nlohmann::json j = fix_json("builtin:transpose --variant naive32");
  ASSERT_EQ(j["arrays"].size(), 1u);
  const nlohmann::json& a = j["arrays"][0];
  EXPECT_EQ(a["cuda_name"].get<std::string>().substr(a["cuda_name"].get<std::string>().size() - 6),
            "tile32");
  // Every column read is 32-way: 31 conflicts on each of its accesses.
  for (const auto& l : a["lines"])
    if (l["op"] == "ld") EXPECT_EQ(l["conflicts"], 31 * l["accesses"].get<std::int64_t>());
  bool padded = false;
  for (const auto& c : a["candidates"]) {
    if (!c["offered"]) continue;
    EXPECT_TRUE(c["identical"]);
    EXPECT_LT(c["cycles"], j["cycles"]);
    if (c["kind"] == "pad" && c["description"] == "pad 1 word per 32-word row") {
      padded = true;
      EXPECT_EQ(c["conflicts"], 0);
      EXPECT_EQ(c["shared_bytes"], 4096 + 32 * 4);
      EXPECT_NE(c["code"].get<std::string>().find("tile32[32][32 + 1]"), std::string::npos);
    }
  }
  EXPECT_TRUE(padded) << a.dump(1);
  // The best is offered first and removes every conflict.
  EXPECT_TRUE(a["candidates"][0]["offered"]);
  EXPECT_EQ(a["candidates"][0]["conflicts"], 0);
}

// The GEMM's ldmatrix tiles (kernels/gemm_tc.cu, 64 halfs = 128 bytes a row): the eight 16-byte
// rows an ldmatrix 8x8 matrix reads sit at the same column of eight consecutive rows, 128 bytes
// apart, so all eight fall in the same four banks: 8-way. XOR-ing the 16-byte chunk index with the
// row (i ^ ((i >> 3) & 7) over 16-byte elements, CuTe's Swizzle<3,3,3> for halves) gives the eight
// rows eight different chunks: no conflict. The relayout moves 16-byte grains (ldmatrix and
// cp.async move 16 bytes), and the product must be the same.
TEST(Fix, GemmLdmatrixTilesGetTheChunkSwizzle) {
  const nlohmann::json j = fix_json("builtin:gemm --arch ampere-a100");
  ASSERT_EQ(j["arrays"].size(), 2u);  // As and Bs
  for (const auto& a : j["arrays"]) {
    EXPECT_EQ(a["grain"], 16);
    const auto& best = a["candidates"][0];
    EXPECT_EQ(best["description"], "swizzle i ^ ((i >> 3) & 7) of 16-byte elements") << a.dump(1);
    EXPECT_TRUE(best["identical"]);
    EXPECT_EQ(best["conflicts"], 0);
    EXPECT_LT(best["cycles"], j["cycles"]);
  }
  const CliResult cute = cli("fix builtin:gemm --arch ampere-a100 --emit cute");
  ASSERT_EQ(cute.exit_code, 0) << cute.out;
  EXPECT_NE(cute.out.find("using SmemSwizzle_As = cute::Swizzle<3, 2, 3>;"), std::string::npos)
      << cute.out;  // over 4-byte words: <3,3,3> over halves
  EXPECT_NE(cute.out.find("cute::Swizzle<3, 3, 3>"), std::string::npos) << cute.out;
}

// A launch spec for a kernel without parameters.
std::string no_args() {
  return temp_file("fix_no_args.toml", "args = []\n");
}

// A 48 KiB array (the whole of Fermi's shared memory) written with a stride of 32 words: lane l
// writes word 32 l, bank 0 for all, 31 conflicts. Padding it needs 384 more words, which do not
// fit: refused with the reason; a swizzle needs none and is offered: i ^ ((i >> 5) & 31) sends
// word 32 l to bank l.
TEST(Fix, APaddingThatDoesNotFitIsRefusedAndASwizzleOffered) {
  const std::string ptx = temp_file("fix_full.ptx", R"(.version 7.0
.target sm_20
.address_size 64
.visible .entry full()
{
  .reg .b32 %r<5>;
  .shared .align 4 .b8 big[49152];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 7;
  mov.u32 %r3, big;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  ret;
}
)");
  const nlohmann::json j =
      fix_json(ptx + " --kernel full --grid 1 --block 32 --launch " + no_args());
  EXPECT_EQ(j["conflicts"], 31);
  ASSERT_EQ(j["arrays"].size(), 1u);
  bool refused = false, swizzled = false;
  for (const auto& c : j["arrays"][0]["candidates"]) {
    if (c["kind"] == "pad") {
      EXPECT_FALSE(c["offered"]);
      refused = true;
      EXPECT_NE(c["refused"].get<std::string>().find("above the 49152 bytes"), std::string::npos)
          << c["refused"];
    } else if (c["offered"]) {
      swizzled = true;
      EXPECT_EQ(c["shared_bytes"], 49152);
    }
  }
  const nlohmann::json& best = j["arrays"][0]["candidates"][0];
  EXPECT_EQ(best["description"], "swizzle i ^ ((i >> 5) & 31)");
  EXPECT_EQ(best["conflicts"], 0);
  EXPECT_TRUE(refused);
  EXPECT_TRUE(swizzled);
}

// A data race: warp 1 reads the flag f without a barrier while warp 0 sets it only after two
// 32-way loads of `a` (lane l reads word 32 l: bank 0 for all) complete. As written the loads take
// 32 passes each and warp 1 (8 loop iterations later) reads f = 0; relaid out they take one pass,
// f is set first and warp 1 reads the flag's value. The outputs differ, so every candidate is
// refused with the buffer that changed (the window is delays 2..12 on fermi-gtx580; 8 is its
// middle).
TEST(Fix, ARemapThatChangesTheOutputIsRefused) {
  const std::string ptx = temp_file("fix_race.ptx", R"(.version 7.0
.target sm_20
.address_size 64
.visible .entry race(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b8 a[4096];
  .shared .align 4 .b32 f;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra READER;
  shl.b32 %r2, %r1, 7;
  mov.u32 %r3, a;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  st.shared.u32 [%r4+4], %r1;
  st.shared.u32 [%r4+8], %r1;
  st.shared.u32 [%r4+12], %r1;
  ld.shared.u32 %r8, [%r4];
  ld.shared.u32 %r9, [%r4+4];
  add.u32 %r5, %r8, %r9;
  add.u32 %r5, %r5, 1;
  st.shared.u32 [f], %r5;
  ret;
READER:
  mov.u32 %r6, 8;
LOOP:
  sub.u32 %r6, %r6, 1;
  setp.ne.u32 %p2, %r6, 0;
  @%p2 bra LOOP;
  ld.shared.u32 %r7, [f];
  setp.eq.u32 %p2, %r1, 32;
  @%p2 st.global.u32 [%rd2], %r7;
  ret;
}
)");
  const std::string toml =
      temp_file("fix_race.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  const nlohmann::json j =
      fix_json(ptx + " --kernel race --grid 1 --block 64 --arch fermi-gtx580 --launch " + toml);
  ASSERT_EQ(j["arrays"].size(), 1u);
  ASSERT_FALSE(j["arrays"][0]["candidates"].empty());
  for (const auto& c : j["arrays"][0]["candidates"]) {
    EXPECT_FALSE(c["offered"]) << c.dump();
    EXPECT_FALSE(c["identical"]);
    EXPECT_NE(c["refused"].get<std::string>().find(
                  "changes the output: buffer 'out' differs from the kernel's own output"),
              std::string::npos)
        << c["refused"];
  }
  EXPECT_EQ(j["arrays"][0]["code"], "");  // nothing recommended
}

// 8 bins of a gradient image: every lane of a warp votes on one word (position degree 32, seed
// 001 §2.1.3). With R copies interleaved by lane, lanes l and l' share a copy only when
// l = l' mod R: at most 32 / R lanes on one word. The builtin's own --replication R runs too, and
// its whole-kernel cycles must fall below the kernel as written. Its bins are an extern array:
// written into the kernel, the replication grows the launch's dynamic shared memory R times, and
// aggregation needs no more; both are applied and recommended.
TEST(Fix, HistogramGetsReplicationAndAggregation) {
  const nlohmann::json j = fix_json("builtin:histogram --bins 8");
  ASSERT_EQ(j["arrays"].size(), 1u);
  const nlohmann::json& a = j["arrays"][0];
  EXPECT_EQ(a["max_position"], 32);
  ASSERT_GE(a["replication"].size(), 6u);  // R = 1..32 fit in 48 KiB (8 words each)
  for (const auto& r : a["replication"]) {
    EXPECT_EQ(r["max_position"], 32 / r["copies"].get<int>()) << r.dump();
    EXPECT_EQ(r["shared_bytes"], 32 * r["copies"].get<int>());
    ASSERT_TRUE(r.contains("simulated_cycles"));
    ASSERT_TRUE(r.contains("applied_cycles")) << r["not_applied"];
  }
  EXPECT_EQ(a["replication"][0]["applied_cycles"], j["cycles"]);
  EXPECT_LT(a["replication"][3]["applied_cycles"], j["cycles"]);  // R = 8, as code
  EXPECT_TRUE(a["aggregation_recommended"]) << a["aggregation_not_applied"];
  EXPECT_EQ(a["replication"][0]["simulated_cycles"], j["cycles"]);
  EXPECT_LT(a["replication"][3]["simulated_cycles"], j["cycles"]);  // R = 8
  EXPECT_LT(a["replication"][3]["atomic_cycles"], a["replication"][0]["atomic_cycles"]);
  EXPECT_EQ(a["aggregated_max_lock"], 1);  // one lane per distinct word: 8 bins, 8 locks
  const std::string code = a["code"];
  EXPECT_NE(code.find("__match_any_sync"), std::string::npos) << code;
  EXPECT_NE(code.find("smemsim_sub_hist_copy()"), std::string::npos) << code;
}

// The replication prediction against the kernel that does replicate: k-means' vote spaces (seed 001
// §4.1) with one copy, R = 4 copies predicted by renaming the recorded atomics (lane l to copy
// l mod 4), against the same kernel run with --replication 4 (copy = tid mod 4, its own copy-major
// layout). With k = 8 centres every (copy, centre) word falls on its own bank and lock in both
// layouts, so Algorithm 1's latency depends only on the lanes per word, the same in both: the
// predicted atomic cycles and position degree must equal the real kernel's.
TEST(Fix, ReplicationPredictionMatchesTheReplicatedKernel) {
  const nlohmann::json j = fix_json("builtin:kmeans --replication 1");
  ASSERT_EQ(j["arrays"].size(), 1u);
  const nlohmann::json* r4 = nullptr;
  for (const auto& r : j["arrays"][0]["replication"])
    if (r["copies"] == 4) r4 = &r;
  ASSERT_NE(r4, nullptr) << j.dump(1);
  const CliResult p = cli("profile builtin:kmeans --replication 4 --json");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  const auto doc = nlohmann::json::parse(p.out);
  std::int64_t latency = 0, position = 0;
  for (const auto& row : doc["rows"])
    if (row["op"] == "atom") {
      latency += row["latency_cycles_total"].get<std::int64_t>();
      position = std::max(position, row["position_degree_max"].get<std::int64_t>());
    }
  EXPECT_EQ((*r4)["atomic_cycles"], latency);
  EXPECT_EQ((*r4)["max_position"], position);
  // The builtin with 4 copies, simulated: fewer cycles than with one.
  EXPECT_LT((*r4)["simulated_cycles"], j["cycles"]);
}

// The code `fix` hands over is the relayout it verified: the padding and swizzle functions it
// emits for the naive32 tile, compiled as host C++, map every word index as the remap did (the
// padding: i + (i / 32) x 1, tile[32][33]; the swizzle: i ^ ((i >> 5) & 31)).
TEST(Fix, TheEmittedFunctionsAreTheVerifiedRelayouts) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host c++ compiler";
  const nlohmann::json j = fix_json("builtin:transpose --variant naive32");
  std::string code, checks;
  for (const auto& c : j["arrays"][0]["candidates"]) {
    if (!c["offered"]) continue;
    const std::string d = c["description"];
    if (d == "pad 1 word per 32-word row") {
      code += c["code"].get<std::string>();
      checks +=
          "  for (unsigned i = 0; i < 1024; ++i) bad += smemsim_pad_tile32(i) != i + i / 32;\n";
    } else if (d == "swizzle i ^ ((i >> 5) & 31)") {
      code += c["code"].get<std::string>();
      checks +=
          "  for (unsigned i = 0; i < 1024; ++i) bad += smemsim_swizzle_tile32(i) != (i ^ ((i >> "
          "5) & "
          "31));\n";
    }
  }
  ASSERT_EQ(std::count(checks.begin(), checks.end(), '\n'), 2) << j.dump(1);
  const std::string src = temp_file(
      "fix_emit.cpp", "#define __device__\n#define __forceinline__ inline\n" + code +
                          "int main() {\n  int bad = 0;\n" + checks + "  return bad != 0;\n}\n");
  const std::string exe = ::testing::TempDir() + "smemsim_fix_emit";
  ASSERT_EQ(std::system(("c++ -std=c++17 -o " + exe + " " + src).c_str()), 0) << code;
  EXPECT_EQ(std::system(exe.c_str()), 0) << code;
}

TEST(Fix, NothingToFixAndBadInput) {
  // The 256-bin gradient histogram has no position conflict and a single bank conflict that no
  // relayout removes; the k-free matrix multiply has none at all.
  const CliResult m = cli("fix builtin:matmul");
  EXPECT_EQ(m.exit_code, 0) << m.out;
  EXPECT_NE(m.out.find("nothing to fix"), std::string::npos) << m.out;
  const std::string none = temp_file("fix_none.ptx", R"(.version 7.0
.target sm_20
.address_size 64
.visible .entry none()
{
  ret;
}
)");
  const CliResult r =
      cli("fix " + none + " --kernel none --grid 1 --block 32 --launch " + no_args());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("uses no shared memory: nothing to fix"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  const CliResult e = cli("fix builtin:transpose --emit ptx");
  EXPECT_EQ(e.exit_code, 2) << e.out;
}

}  // namespace
}  // namespace smemsim::test

// Issue 26 item 3: profile's rows per CUDA line by default, per instruction with --by instruction,
// and the flag and hint of atomic lines whose lanes meet on one word.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

// transpose32_naive unrolls its column read 4 times (transpose.cu:82, tile32[threadIdx.x][y + i]
// for i = 0, 8, 16, 24): 4 ld instructions of one CUDA line, each run by the 8 warps of 4 blocks
// (32 accesses) and 32-way (31 conflicts each): 992 per instruction, 3968 for the line.
TEST(ProfileLines, UnrolledCopiesAreOneRowOfTheirCudaLine) {
  const CliResult by_line = cli("profile builtin:transpose --variant naive32");
  ASSERT_EQ(by_line.exit_code, 0) << by_line.out;
  EXPECT_NE(by_line.out.find("292+3 transpose.cu:82 ld      128      3968"), std::string::npos)
      << by_line.out;
  EXPECT_EQ(by_line.out.find("hash search --pc 297"), std::string::npos) << "one hint per line";
  // The total is named for what it is (issue 26 item 4): a sum of access latencies, not the time.
  // Fermi's loadstore costs: a 32-way load 1024 cycles (32 passes x 32), a conflict-free store
  // 36: 128 x 1024 + 128 x 36 = 135,680.
  EXPECT_NE(by_line.out.find("access latencies summed 135680 cycles (not the kernel's time"),
            std::string::npos)
      << by_line.out;
  const CliResult by_ins = cli("profile builtin:transpose --variant naive32 --by instruction");
  ASSERT_EQ(by_ins.exit_code, 0) << by_ins.out;
  for (const char* pc : {"292 ", "297 ", "302 ", "305 "})
    EXPECT_NE(by_ins.out.find(std::string(pc) + "transpose.cu:82 ld       32       992"),
              std::string::npos)
        << pc << "\n"
        << by_ins.out;

  const CliResult j = cli("profile builtin:transpose --variant naive32 --json");
  ASSERT_EQ(j.exit_code, 0);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["rows"].size(), 8u);
  ASSERT_EQ(doc["cuda_lines"].size(), 2u);
  const auto& ld = doc["cuda_lines"][1];
  EXPECT_EQ(ld["ptx_lines"], nlohmann::json({292, 297, 302, 305}));
  EXPECT_EQ(ld["ops"], nlohmann::json({"ld"}));
  std::int64_t sum = 0;
  for (const auto& r : doc["rows"])
    if (r["op"] == "ld") sum += r["bank_conflicts"].get<std::int64_t>();
  EXPECT_EQ(ld["bank_conflicts"], sum);
  EXPECT_EQ(sum, 3968);
}

// Eight bins of the gradient image: the 32 lanes of a warp read 32 neighbouring pixels, whose
// values fall in one bin of 32 values: position degree 32 on the atomicAdd, which is flagged.
TEST(ProfileLines, ContendedAtomicsAreFlaggedWithTheirHint) {
  const CliResult r = cli("profile builtin:histogram --bins 8 --wide");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("> atomicAdd(&sub_hist["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hint: up to 32 lanes on one word: replicate x32 or aggregate per warp"),
            std::string::npos)
      << r.out;
  // 256 bins: no two lanes of a warp on one word, nothing flagged.
  const CliResult f = cli("profile builtin:histogram --wide");
  EXPECT_EQ(f.out.find("lanes on one word"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace smemsim::test

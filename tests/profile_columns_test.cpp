// `profile` shows the position and lock columns only for kernels with shared atomics (issue 10,
// item 6).
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernel_test_util.hpp"
#include "smemsim/profile.hpp"
#include "test_util.hpp"
#include "text_table.hpp"

namespace smemsim::test {
namespace {

TEST(ProfileColumns, AtomicColumnsOnlyForKernelsWithAtomics) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const CliResult r = cli("profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" bank max cycles  instruction\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" pos max"), std::string::npos) << r.out;
  const CliResult h = cli("profile builtin:histogram --bins 64");
  ASSERT_EQ(h.exit_code, 0) << h.out;
  EXPECT_NE(h.out.find(" bank max  pos max lock max cycles  instruction\n"), std::string::npos)
      << h.out;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// A column read of a 32 x 32 float tile (lane l reads word 32 l): 32-way on 32 banks. Read as rows
// of 32 words, one word of padding puts lane l at word 33 l, bank l: 1-way. A stride-1 access has
// no rows to pad: no hint.
TEST(ProfileHint, PaddingIsComputedOnTheAccess) {
  WarpAccess col32;
  for (int l = 0; l < 32; ++l) col32.set(l, WordAddr(32 * l));
  const auto h = exec::padding_hint(col32, default_arch());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->row_words, 32u);
  EXPECT_EQ(h->pad, 1u);
  EXPECT_EQ(h->before, 32);
  EXPECT_EQ(h->after, 1);
  WarpAccess row;  // consecutive words: no stride to pad
  for (int l = 0; l < 32; ++l) row.set(l, WordAddr(l));
  EXPECT_FALSE(exec::padding_hint(row, default_arch()).has_value());
}

// Issue 10, "what it must show" 3: the profile of the transposed-tile kernel prints, within 100
// columns, the conflicting line's CUDA source and a hint; applied (the kernel's padded variant has
// exactly that row length), the conflict is gone. The swizzle half of the hint is applied through
// a compiled variant of the kernel in exec_hash_e2e_test.cpp.
TEST(ProfileHint, TheHintAppliedRemovesTheConflict) {
  const CliResult n = cli("profile builtin:transpose --variant naive32");
  ASSERT_EQ(n.exit_code, 0) << n.out;
  EXPECT_NE(n.out.find("> odata[(y + i) * height + x] = tile32[threadIdx.x][threadIdx.y + i];"),
            std::string::npos)
      << n.out;
  // The conflicting CUDA line's loads (its 4 unrolled copies), which the hint names for `hash
  // search --pc`: the hint counts the whole line's conflicts (4 x 992, issue 43), and the command
  // under the table runs as printed on the trace this profile writes with --emit-trace.
  const auto j =
      nlohmann::json::parse(cli("profile builtin:transpose --variant naive32 --json").out);
  std::string pcs;
  for (const auto& row : j["rows"])
    if (row["bank_conflicts"] == 992)
      pcs += (pcs.empty() ? "" : ",") + std::to_string(row["ptx"]["line"].get<int>());
  ASSERT_EQ(std::count(pcs.begin(), pcs.end(), ','), 3) << j.dump();
  EXPECT_NE(n.out.find("hint: pad rows of 32 words to 33 (32-way -> 1-way)"), std::string::npos)
      << n.out;
  EXPECT_NE(n.out.find("smemsim hash search --family bvxor --arch fermi-gtx580 --trace t.trace "
                       "--pc " +
                       pcs + " --emit cuda"),
            std::string::npos)
      << n.out;
  std::size_t widest = 0;
  for (std::size_t a = 0, b = 0; a < n.out.size(); a = b + 1) {
    b = n.out.find('\n', a);
    if (b == std::string::npos) b = n.out.size();
    // The commands are not cut: they run as printed.
    if (n.out.compare(a, 17, "  smemsim hash se") != 0) widest = std::max(widest, b - a);
  }
  EXPECT_LE(widest, 100u) << n.out;
  // --wide: every column and the whole hint, with the degrees and the line's conflicts.
  const CliResult w = cli("profile builtin:transpose --variant naive32 --wide");
  EXPECT_NE(w.out.find("hint: pad rows of 32 words to 33 (32-way -> 1-way) or swizzle "
                       "bvxor:k1=0,k2=5,mask=31 (3968 -> 0 conflicts, hash search --pc " +
                       pcs + ")"),
            std::string::npos)
      << w.out;
  // The command, run on the trace, finds that swizzle and removes the line's conflicts.
  const std::string trace = ::testing::TempDir() + "smemsim_hint_" + std::to_string(::getpid());
  ASSERT_EQ(cli("profile builtin:transpose --variant naive32 --emit-trace " + trace).exit_code, 0);
  const CliResult h = cli("hash search --family bvxor --arch fermi-gtx580 --trace " + trace +
                          " --pc " + pcs + " --emit cuda");
  EXPECT_EQ(h.exit_code, 0) << h.out;
  EXPECT_NE(h.out.find("return i ^ ((i >> 5) & 31u);"), std::string::npos) << h.out;
  std::remove(trace.c_str());
  const CliResult p = cli("profile builtin:transpose --variant padded32 --json");  // tile33[32][33]
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_EQ(nlohmann::json::parse(p.out)["totals"]["bank_conflicts"], 0) << p.out;
}

// Long lines are cut to the width (the instruction, the source text) or wrapped at ", " (headers).
TEST(ProfileWidth, CutsAndWraps) {
  EXPECT_EQ(cli::fit("ld.shared.f32 %f5, [%r23];", 12), "ld.shared...");
  EXPECT_EQ(cli::fit("short", 12), "short");
  EXPECT_EQ(cli::fit("\xc3\xa4"
                     "0123456789",
                     8),
            "\xc3\xa4"
            "0123...");  // columns, not bytes
  EXPECT_EQ(cli::wrap("aaaa, bbbb, cccc", 11), "aaaa, bbbb,\n  cccc\n");
  EXPECT_EQ(cli::wrap("aaaa, bbbb, cccc", 0), "aaaa, bbbb, cccc\n");
  cli::TextTable t({{"n"}, {"text", true, true}});
  t.add({"7", "a long instruction text"}, {"> a note that is long too"});
  EXPECT_EQ(t.render(16), "n  text\n7  a long ins...\n  > a note th...\n");
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// profile --csv: the rows of --json as CSV, same names, the instruction quoted (it has commas).
TEST(ProfileCsv, RowsAsCsvWithTheJsonNames) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const std::string csv = ::testing::TempDir() + "smemsim_profile.csv";
  const CliResult r =
      cli("profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = shell("cat " + csv).out;
  EXPECT_EQ(text.rfind("ptx.file,ptx.line,cuda.file,cuda.line,op,instruction,accesses,"
                       "transactions,bank_conflicts,bank_degree_mean,bank_degree_max,",
                       0),
            0u)
      << text;
  // The 2-way load of the Fig. 5 window: one execution, 1 conflict, degree 2; no CUDA lines (the
  // example is hand-written PTX), so cuda.file and cuda.line are empty.
  EXPECT_NE(text.find("fig5.ptx,20,,,ld,\"ld.shared.u32 %r10, [%r8];\",1,1,1,2.0,2,"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// analyze --trace --csv: the per_pc rows of --json, one per instruction (trace `pc=`).
TEST(AnalyzeCsv, PerInstructionRows) {
  // pc 7: lanes read words 0..31; pc 9: the same with lane 1 on word 32 (2-way in bank 0), then
  // lanes 1 and 2 on words 32 and 64 (3-way).
  auto line = [](int pc, std::vector<int> a) {
    std::string l = "ld pc=" + std::to_string(pc);
    for (int x : a) l += " " + std::to_string(x);
    return l + "\n";
  };
  std::vector<int> w(32);
  for (int l = 0; l < 32; ++l) w[std::size_t(l)] = l;
  std::string text = "smemsim-trace v1 unit=word warp=32\n" + line(7, w);
  w[1] = 32;
  text += line(9, w);
  w[2] = 64;
  text += line(9, w);
  const std::string trace = temp_file("csv.trace", text);
  const std::string csv = ::testing::TempDir() + "smemsim_analyze.csv";
  const CliResult r = cli("analyze --trace " + trace + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // pc 9: two accesses, 1 + 2 conflicts, degrees 2 and 3 (mean 2.5, max 3).
  EXPECT_EQ(shell("cat " + csv).out,
            "pc,accesses,transactions,bank_conflicts,bank_degree_mean,bank_degree_max,"
            "position_degree_mean,position_degree_max,lock_degree_mean,lock_degree_max,"
            "latency_cycles_mean,latency_cycles_total\n"
            "7,1,1,0,1.0,1,1.0,1,1.0,1,32.0,32\n"
            "9,2,2,3,2.5,3,1.0,1,1.0,1,80.0,160\n");
  EXPECT_EQ(cli("analyze --pattern 0..31 --csv " + csv).exit_code, 2);
}

}  // namespace
}  // namespace smemsim::test

// sm_NN aliases, the Turing preset and the warning for PTX newer than the arch (issue 16).
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

TEST(ArchTarget, SmAliasesNameTheirPresets) {
  EXPECT_EQ(find_preset("sm_20").name, "fermi-gtx580");
  EXPECT_EQ(find_preset("sm_35").name, "kepler-k20");
  EXPECT_EQ(find_preset("sm_70").name, "volta-v100");
  EXPECT_EQ(find_preset("sm_75").name, "turing-t4");
  EXPECT_EQ(find_preset("sm_86").name, "ampere-a100");
  EXPECT_EQ(find_preset("sm_90").name, "hopper-h100");
  // Turing: c.c. 7.5's 64 KB, 1,024 threads and 16 blocks per SM; 40 SMs on a T4.
  const Arch& t4 = find_preset("turing-t4");
  EXPECT_EQ(t4.memory_bytes, 64u * 1024);
  EXPECT_EQ(t4.sm.max_threads, 1024u);
  EXPECT_EQ(t4.sm.max_ctas, 16u);
  EXPECT_EQ(t4.sm.count, 40u);
  EXPECT_EQ(t4.compute_capability, 75u);
  try {
    find_preset("sm_100");
    ADD_FAILURE() << "sm_100 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("compute capabilities sm_20, sm_35"), std::string::npos)
        << e.what();
  }
}

TEST(ArchTarget, PtxNewerThanTheArchIsNamed) {
  const ptx::Module m = ptx::parse(
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n",
      "k.ptx");
  EXPECT_EQ(exec::target_warning(m, default_arch()),
            "smemsim: warning: k.ptx targets sm_80, newer than arch 'fermi-gtx580' (sm_20): "
            "banks, shared-memory size and atomics are those of the older GPU; "
            "choose --arch ampere-a100");
  EXPECT_NE(exec::target_warning(m, find_preset("turing-t4")).find("choose --arch ampere-a100"),
            std::string::npos);
  EXPECT_EQ(exec::target_warning(m, find_preset("sm_80")), "");
  EXPECT_EQ(exec::target_warning(m, find_preset("hopper-h100")), "");
  EXPECT_EQ(exec::target_warning(m, find_preset("cf11")), "");  // no NVIDIA GPU: no claim
}

TEST(ArchTarget, TheCliWarnsAfterASuccessfulRunOnly) {
  const std::string ptx = test::temp_file("t80.ptx",
                                          ".version 8.0\n.target sm_80\n.address_size 64\n"
                                          ".visible .entry k(.param .u64 p)\n{\n  ret;\n}\n");
  const std::string spec = test::temp_file(
      "t80.toml", "grid = 1\nblock = 32\nargs = [\"b\"]\n[buffers.b]\ntype = \"u32\"\ncount = 1\n");
  // Without --arch the PTX runs on its .target's preset (issue 24); an older one, chosen, warns.
  test::CliResult r = test::cli("run " + ptx + " --launch " + spec + " --arch fermi-gtx580");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("targets sm_80, newer than arch 'fermi-gtx580'"), std::string::npos)
      << r.out;
  r = test::cli("run " + ptx + " --launch " + spec + " --arch sm_80");
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  r = test::cli("run " + ptx + " --launch " + spec + " --json --arch fermi-gtx580");
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  r = test::cli("run " + ptx + " --launch " + spec + " --grid 0 --arch fermi-gtx580");  // one line
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
}

// Issue 47: an arch file keeps its generation (compute_capability): `arch show volta-v100` as a
// file is sm_70, not the default base's sm_20; ampere-a100's file runs an sm_80 kernel silently.
TEST(ArchTarget, ArchFilesKeepTheirComputeCapability) {
  const std::string ptx = test::temp_file("t80b.ptx",
                                          ".version 8.0\n.target sm_80\n.address_size 64\n"
                                          ".visible .entry k(.param .u64 p)\n{\n  ret;\n}\n");
  const std::string spec = test::temp_file(
      "t80b.toml",
      "grid = 1\nblock = 32\nargs = [\"b\"]\n[buffers.b]\ntype = \"u32\"\ncount = 1\n");
  for (const std::string preset : {"volta-v100", "ampere-a100"}) {
    const std::string file = ::testing::TempDir() + "smemsim_cc_" + preset + ".toml";
    ASSERT_EQ(
        test::shell(std::string(SMEMSIM_CLI) + " arch show " + preset + " > " + file).exit_code, 0);
    EXPECT_NE(test::slurp(file).find("compute_capability = " +
                                     std::string(preset == "volta-v100" ? "70" : "80")),
              std::string::npos);
    const test::CliResult r =
        test::cli("run " + ptx + " --launch " + spec + " --arch-file " + file);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    if (preset == "volta-v100")
      EXPECT_NE(r.out.find("newer than arch 'volta-v100' (sm_70)"), std::string::npos) << r.out;
    else
      EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace smemsim

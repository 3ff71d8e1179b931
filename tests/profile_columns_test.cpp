// `profile` shows the position and lock columns only for kernels with shared atomics (issue 10,
// item 6).
#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(ProfileColumns, AtomicColumnsOnlyForKernelsWithAtomics) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const CliResult r = cli("profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" bank  max   cycles  instruction"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" pos  max"), std::string::npos) << r.out;
  SKIP_WITHOUT_NVCC();
  const CliResult h = cli("profile builtin:histogram --bins 64");
  ASSERT_EQ(h.exit_code, 0) << h.out;
  EXPECT_NE(h.out.find(" pos  max   lock  max"), std::string::npos) << h.out;
}

}  // namespace
}  // namespace smemsim::test

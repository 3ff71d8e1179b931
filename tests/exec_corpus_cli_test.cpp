// The real-kernel corpus through the CLI (issue 15): __constant__ coefficients set by a launch
// spec's [symbols.NAME], the note for a constant never set (it read zeros silently before), and the
// errors for a symbol the module lacks or the kernel never reads. Skips without nvcc.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace smemsim::test

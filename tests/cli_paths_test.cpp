// Output options added with issues 10-12 refuse an empty path or a negative count with exit 2 (an
// empty --csv or -o used to write nothing and exit 0).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(CliPaths, EmptyOutputPathsAndNegativeCountsAreErrors) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const std::pair<std::string, std::string> cases[] = {
      {"profile " + ex + "fig5.ptx --launch " + ex + "fig5.launch.toml --csv ''",
       "--csv: empty path"},
      {"analyze --trace /dev/null --csv ''", "--csv: empty path"},
      {"hash search --family bvxor --pattern 0..31 --emit cuda -o ''", "--output: empty path"},
      {"arch import /dev/null -o ''", "--output: empty path"},
      {"study run random-patterns --quick --stop-after -1", "--stop-after: must be at least 1"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
}

// Issue 48, item 1: an output named as one of the command's inputs is refused before any work,
// naming both, and the input is left as it was (it was overwritten, exit 0).
TEST(CliPaths, AnOutputNeverReplacesAnInput) {
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  const std::string ptx = temp_file("keep.ptx", slurp(ex + "fig5.ptx"));
  const std::string spec = temp_file("keep.toml", slurp(ex + "fig5.launch.toml"));
  const std::string spec_writing_ptx =
      temp_file("keep_w.toml", slurp(ex + "fig5.launch.toml") +
                                   "\n[buffers.extra]\ntype = \"u32\"\ncount "
                                   "= 1\nwrite = \"" +
                                   ptx + "\"\n");
  const std::string config = temp_file("keep.config", "-gpgpu_shmem_num_banks 16\n");
  const std::string trace = temp_file("keep.trace", "ld 0 32 64 96\n");
  const std::pair<std::string, std::string> cases[] = {
      {"profile " + ptx + " --launch " + spec + " --html " + ptx,
       "--html '" + ptx + "' is the PTX file this command reads"},
      {"profile " + ptx + " --launch " + spec + " --csv " + spec,
       "--csv '" + spec + "' is the launch spec this command reads"},
      {"profile " + ptx + " --launch " + spec + " --emit-trace " + ptx, "is the PTX file"},
      {"sim " + ptx + " --launch " + spec + " --timeline " + spec, "is the launch spec"},
      {"run " + ptx + " --launch " + spec_writing_ptx,
       "buffer 'extra''s write '" + ptx + "' is the PTX file this command reads"},
      {"launch init " + ptx + " -o " + ptx + " --force", "-o '" + ptx + "' is the PTX file"},
      {"arch import " + config + " -o " + config,
       "-o '" + config + "' is the GPGPU-Sim configuration this command reads"},
      {"hash search --family bvxor --trace " + trace + " --emit cuda -o " + trace,
       "-o '" + trace + "' is the trace this command reads"},
      {"analyze --trace " + trace + " --csv " + trace,
       "--csv '" + trace + "' is the trace this command reads"},
  };
  const std::string ptx_before = slurp(ptx), spec_before = slurp(spec),
                    config_before = slurp(config), trace_before = slurp(trace);
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
  EXPECT_EQ(slurp(ptx), ptx_before);
  EXPECT_EQ(slurp(spec), spec_before);
  EXPECT_EQ(slurp(config), config_before);
  EXPECT_EQ(slurp(trace), trace_before);
}

}  // namespace
}  // namespace smemsim::test

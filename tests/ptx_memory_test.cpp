// Memory per PTX line (issue 48, item 8): a 92 MB PTX of 4 M instructions took 3.25 GB, about 810
// bytes a line. The peak resident memory of the CLI is measured on two generated kernels of the
// same shape, 40,000 and 240,000 instructions, and the difference divided by the 200,000 lines
// between them: what one more line costs, without the program's own few megabytes.
//
// The bounds, from the sizes of what a line keeps (independent of how they are computed):
//   - parsing: the text (about 30 bytes a line here) and a ptx::Instruction (132 bytes: six
//     16-byte operands, and an index for its CUDA source site, which instructions share) while the
//     text is held: at most 190 bytes a line. The tokens of a body are not all held at once (they
//     were about 250 bytes a line).
//   - `run`: the module and the executor's decoded instruction (56 bytes) beside it, 188 bytes:
//     under the 200 (it was 300 with a 188-byte instruction and a 104-byte decoded one).
//   - `sim`: the scheduled copy of the code and the timing's instruction table on top: at most 700
//     (it was 1,740, then 830 with the larger instruction).
// Not run under AddressSanitizer, whose red zones and quarantine change every figure.
#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim {
namespace {

// A kernel of `n` instructions in the mix of a compiled loop body (integer and float arithmetic,
// shared loads and stores, a compare and a guarded store), with 64 distinct immediates as
// compiled code has a few.
std::string big_kernel(int n) {
  std::string t =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n"
      "  .reg .b32 %r<16>;\n  .reg .f32 %f<16>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n"
      "  .shared .align 4 .b8 sm[1024];\n  mov.u64 %rd1, sm;\n";
  t.reserve(std::size_t(n) * 36);
  for (int i = 0; i < n; ++i) {
    const int a = 2 + i % 10, c = i % 64, o = (i % 256) * 4;
    switch (i % 6) {
      case 0:
        t += fmt::format("  add.u32 %r{}, %r1, {};\n", a, c);
        break;
      case 1:
        t += fmt::format("  ld.shared.f32 %f{}, [%rd1+{}];\n", a, o);
        break;
      case 2:
        t += fmt::format("  fma.rn.f32 %f{}, %f1, %f2, %f3;\n", a);
        break;
      case 3:
        t += fmt::format("  setp.lt.u32 %p1, %r{}, {};\n", a, c);
        break;
      case 4:
        t += fmt::format("  @%p1 st.shared.f32 [%rd1+{}], %f{};\n", o, a);
        break;
      default:
        t += fmt::format("  mul.lo.s32 %r{}, %r2, 37;\n", a);
        break;
    }
  }
  return t + "  ret;\n}\n";
}

// Peak resident kilobytes of the CLI run with `args` (its own, from wait4 in tests/tools/peak_rss:
// a CLI forked from this process would also count this process's peak), output discarded.
long peak_kb(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string tool = SMEMSIM_PEAK_RSS, cli = SMEMSIM_CLI;
  argv.push_back(tool.data());
  argv.push_back(cli.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[64];
  for (ssize_t k; (k = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, std::size_t(k));
  close(out[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
    return -1;
  return std::atol(text.c_str());
}

TEST(PtxMemory, ALineCostsUnder190BytesToParse200ToRunAnd700ToSimulate) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "resident memory under AddressSanitizer is not the program's";
#endif
  const std::string small = test::temp_file("mem_small.ptx", big_kernel(40000));
  const std::string large = test::temp_file("mem_large.ptx", big_kernel(240000));
  const std::string spec =
      test::temp_file("mem.toml",
                      "kernel = \"big\"\ngrid = 1\nblock = 32\nargs = [\"out\"]\n"
                      "[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  // The kernel named does not exist: the CLI parses the module and stops (exit 2).
  const std::string none =
      test::temp_file("mem_none.toml",
                      "kernel = \"absent\"\ngrid = 1\nblock = 32\nargs = [\"out\"]\n"
                      "[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  struct Case {
    const char* command;
    const std::string& launch;
    double most;  // bytes a line
  } cases[] = {{"run", none, 190}, {"run", spec, 200}, {"sim", spec, 700}};
  for (const Case& c : cases) {
    const long a = peak_kb({c.command, small, "--launch", c.launch});
    const long b = peak_kb({c.command, large, "--launch", c.launch});
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    const double per_line = double(b - a) * 1024.0 / 200000.0;
    EXPECT_LT(per_line, c.most) << c.command << " with " << c.launch << ": " << a << " KB, then "
                                << b << " KB";
    EXPECT_GT(per_line, 100) << "a line holds at least its instruction: the measure is broken";
  }
}

// A kernel of `n` diamonds: a compare, a branch round one add, its label. Each branch is a block
// end, so the kernel has about 2n basic blocks.
std::string branchy_kernel(int n) {
  std::string t =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n"
      "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n  mov.u32 %r1, %tid.x;\n";
  for (int i = 0; i < n; ++i)
    t += fmt::format("  setp.lt.u32 %p1, %r1, {};\n  @%p1 bra L{};\n  add.u32 %r2, %r2, 1;\nL{}:\n",
                     i % 32, i, i);
  return t + "  ret;\n}\n";
}

// The branches' reconvergence points (exec/cfg.cpp) took a set of post-dominators per block:
// blocks^2 bits, 215 MB for 20,000 branches and 11 GB for 300,000. Now linear: one more diamond
// (three instructions, a label and two blocks) costs what they do, about 860 bytes, and under
// 2,000; the sets would cost 45,000 x 2 x 2 / 8 bytes, 22 KB a diamond, at 45,000 branches.
TEST(PtxMemory, ABranchCostsTheSameInALargeKernel) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "resident memory under AddressSanitizer is not the program's";
#endif
  const std::string small = test::temp_file("br_small.ptx", branchy_kernel(5000));
  const std::string large = test::temp_file("br_large.ptx", branchy_kernel(45000));
  const std::string spec =
      test::temp_file("br.toml",
                      "kernel = \"big\"\ngrid = 1\nblock = 32\nargs = [\"out\"]\n"
                      "[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  const long a = peak_kb({"run", small, "--launch", spec});
  const long b = peak_kb({"run", large, "--launch", spec});
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  const double per_diamond = double(b - a) * 1024.0 / 40000.0;
  EXPECT_LT(per_diamond, 2000) << a << " KB, then " << b << " KB";
}

// The cycle model's caches cost a launch only the lines it reaches (util/zeroed.hpp, issue 49).
// hopper-h100's L2 is 50 MiB in 128-byte lines: 409,600 tags of 8 bytes and records of 48 (an
// LRU stamp, valid and dirty bits, four sector fill times), 22.9 MB if they were written at set-up,
// which they were (one warp's sim peaked 24 MB above its run). A warp that stores one word
// reaches one line of it and one SM's L1: sim's peak stays within 8 MB of run's.
TEST(PtxMemory, AnIdleCacheCostsNoMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "resident memory under AddressSanitizer is not the program's";
#endif
  const std::string ptx = test::temp_file("tiny.ptx",
                                          ".version 7.0\n.target sm_90\n.address_size 64\n"
                                          ".visible .entry tiny(.param .u64 p)\n{\n"
                                          "  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n"
                                          "  ld.param.u64 %rd1, [p];\n"
                                          "  cvta.to.global.u64 %rd2, %rd1;\n"
                                          "  mov.u32 %r1, %tid.x;\n"
                                          "  st.global.u32 [%rd2], %r1;\n  ret;\n}\n");
  const std::string spec =
      test::temp_file("tiny.toml",
                      "kernel = \"tiny\"\ngrid = 1\nblock = 32\nargs = [\"out\"]\n"
                      "[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  const long run = peak_kb({"run", ptx, "--launch", spec, "--arch", "hopper-h100"});
  const long sim = peak_kb({"sim", ptx, "--launch", spec, "--arch", "hopper-h100"});
  ASSERT_GT(run, 0);
  ASSERT_GT(sim, 0);
  EXPECT_LT(sim - run, 8 * 1024) << "run " << run << " KB, sim " << sim << " KB";
}

}  // namespace
}  // namespace smemsim

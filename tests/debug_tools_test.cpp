// Issue 45: printf, assert and the shared-memory race checker, on nvcc's output for
// kernels/debugging.cu (shipped as kernels/ptx/debugging.ptx, so these run without nvcc).
// The expected text is written out from C's printf rules (C11 7.21.6.1), not from the
// implementation: each field's derivation is in the comment beside it.
#include <string>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

const std::string kPtx = std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/debugging.ptx";

std::string spec(const std::string& name, const std::string& text) {
  return temp_file(name, text);
}

// `smemsim COMMAND debugging.ptx --launch SPEC EXTRA` with its stdout alone (the kernel's printf
// output comes first there; stderr is dropped).
CliResult stdout_of(const std::string& command, const std::string& spec_path,
                    const std::string& extra = "") {
  return shell("(" + std::string(SMEMSIM_CLI) + " " + command + " " + kPtx + " --launch " +
               spec_path + extra + " 2>/dev/null)");
}

// Two threads of printf_formats, big = -5000000000, x = 1.5:
//   t=%d          0 / 1
//   neg=%d        -7t-1: -1 / -8
//   u=%u          4000000000 + t (fits an unsigned int)
//   hex=%#x       255t: "0" (the # flag adds no prefix to zero) / "0xff"
//   HEX=%08X      0xBEEF + t, zero-padded to 8: 0000BEEF / 0000BEF0
//   oct=%o        8 + t: 10 / 11
//   w=[%5d]       11t right-aligned in 5: "    0" / "   11"
//   l=[%-4d]      t left-aligned in 4: "0   " / "1   "
//   big=%lld      -5000000000 (64-bit: needs the ll)
//   ubig=%llu     (2^64 - 5000000000) * 3 mod 2^64 = 2^64 - 15000000000 = 18446744058709551616
//   f=%.3f        1.5t: 0.000 / 1.500
//   e=%e          1.5: 1.500000e+00
//   g=%g          1.5/1024 = 0.00146484375, six significant digits: 0.00146484
//   c=%c          'A' + t: A / B
//   s=%s          "str"
//   pct=%%        %
//   p=%p          the first buffer's address, 1 << 40 (docs/exec.md): 0x10000000000
// and printf returns the arguments parsed: 16.
TEST(DebugTools, PrintfFormatsLikeTheGpuRuntime) {
  const std::string s = spec("pf.toml",
                             "kernel = \"printf_formats\"\ngrid = 1\nblock = 2\n"
                             "args = [\"out\", -5000000000, 1.5, \"unused\"]\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 2\n"
                             "write = \"" +
                                 ::testing::TempDir() +
                                 "pf_out.txt\"\n"
                                 "[buffers.unused]\ntype = \"u8\"\ncount = 1\n");
  const CliResult r = stdout_of("run", s);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string expected =
      "t=0 neg=-1 u=4000000000 hex=0 HEX=0000BEEF oct=10 w=[    0] l=[0   ] big=-5000000000 "
      "ubig=18446744058709551616 f=0.000 e=1.500000e+00 g=0.00146484 c=A s=str pct=% "
      "p=0x10000000000\n"
      "t=1 neg=-8 u=4000000001 hex=0xff HEX=0000BEF0 oct=11 w=[   11] l=[1   ] big=-5000000000 "
      "ubig=18446744058709551616 f=1.500 e=1.500000e+00 g=0.00146484 c=B s=str pct=% "
      "p=0x10000000000\n";
  // The kernel's output comes first on stdout, byte for byte, before smemsim's report.
  ASSERT_GE(r.out.size(), expected.size()) << r.out;
  EXPECT_EQ(r.out.substr(0, expected.size()), expected) << r.out;
  EXPECT_EQ(slurp(::testing::TempDir() + "pf_out.txt").substr(0, 6), "16\n16\n");
}

// No arguments (returns 0); %s of a __device__ string and a * width ("[%*d]" with 6, 42:
// "    42"; the star is an argument: 3 parsed).
TEST(DebugTools, PrintfWithoutArgumentsStringsAndStarWidths) {
  const std::string s = spec("pm.toml",
                             "kernel = \"printf_misc\"\ngrid = 1\nblock = 2\nargs = [\"out\"]\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 2\n"
                             "write = \"" +
                                 ::testing::TempDir() + "pm_out.txt\"\n");
  const CliResult r = stdout_of("run", s);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, 36), "no arguments\nshared memory [    42]\n") << r.out;
  EXPECT_EQ(slurp(::testing::TempDir() + "pm_out.txt").substr(0, 4), "0\n3\n");
}

// Widths and precisions are the host printf's, however wide: "%600d" is 599 spaces and 7, "%.700f"
// of 0.5 is "0.5" and 699 zeros.
TEST(DebugTools, PrintfWidthsAreNotCut) {
  const std::string s =
      spec("pw.toml", "kernel = \"printf_wide\"\ngrid = 1\nblock = 1\nargs = []\n");
  const CliResult r = stdout_of("run", s);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string expect = std::string(599, ' ') + "7|0." + "5" + std::string(699, '0') + "|\n";
  EXPECT_EQ(r.out.substr(0, expect.size()), expect);
}

// Under --json the document stays valid: the output goes to stderr and into "printf".
TEST(DebugTools, PrintfUnderJsonAndSim) {
  const std::string s = spec("pj.toml",
                             "kernel = \"printf_misc\"\ngrid = 1\nblock = 2\nargs = [\"out\"]\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 2\n");
  const CliResult r = stdout_of("run", s, " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.front(), '{') << r.out;
  EXPECT_NE(r.out.find("\"output\": \"no arguments\\nshared memory [    42]\\n\""),
            std::string::npos)
      << r.out;
  // The cycle model prints the same lines (its order: the cycle each call issued at).
  const CliResult t = stdout_of("sim", s, " --arch turing-t4");
  ASSERT_EQ(t.exit_code, 0) << t.out;
  EXPECT_NE(t.out.find("no arguments\nshared memory [    42]\n"), std::string::npos) << t.out;
  // 64 blocks on the SMs of a V100, ticked on 1 or 2 threads: the same lines in the same order.
  const std::string many = spec("pt.toml",
                                "kernel = \"printf_formats\"\ngrid = 64\nblock = 64\n"
                                "args = [\"out\", 5, 2.5, \"u\"]\n[buffers.out]\ntype = \"s32\"\n"
                                "count = 64\n[buffers.u]\ntype = \"u8\"\ncount = 1\n");
  std::string first;
  for (const char* threads : {"1", "2"}) {
    const CliResult m =
        stdout_of("sim", many, std::string(" --arch volta-v100 --threads ") + threads);
    ASSERT_EQ(m.exit_code, 0) << m.out;
    const std::string lines = m.out.substr(0, m.out.find("volta-v100"));
    EXPECT_GT(lines.size(), 4096u * 100);  // 4,096 calls of over 100 bytes
    if (first.empty()) first = lines;
    EXPECT_EQ(lines, first) << threads;
  }
}

// The circular buffer keeps the newest output: 40 blocks of printf_misc print 13 + 23 bytes each
// into a 256-byte buffer.
TEST(DebugTools, PrintfBufferKeepsTheNewestOutput) {
  const std::string s = spec("pb.toml",
                             "kernel = \"printf_misc\"\ngrid = 40\nblock = 2\nargs = [\"out\"]\n"
                             "printf_buffer = 256\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 2\n");
  const CliResult r = cli("run " + kPtx + " --launch " + s);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // 80 calls of 13 and 23 bytes alternating (36 a block): 7 blocks (252 bytes) fit; the block
  // before would make 288. So 66 calls were lost and the output starts with a whole block.
  EXPECT_NE(r.out.find("the oldest 66 calls of output were lost"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("no arguments\nshared memory [    42]\n", 0), 0u) << r.out;
  // printf_buffer is checked.
  const CliResult bad = cli("run " + kPtx + " --launch " +
                            spec("pb2.toml",
                                 "kernel = \"printf_misc\"\ngrid = 1\nblock = 2\n"
                                 "args = [\"out\"]\nprintf_buffer = 10\n"
                                 "[buffers.out]\ntype = \"s32\"\ncount = 2\n"));
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("pb2.toml:5: 'printf_buffer' must be"), std::string::npos) << bad.out;
}

// A failing assert stops the launch with the GPU's line: file, line, function, block and
// thread, the expression; exit 2. a = [0, 1, 2, -3, 4, ...]: thread 3 of block 0 fails first.
TEST(DebugTools, FailingAssertNamesExpressionFileLineBlockAndThread) {
  const std::string s = spec("as.toml",
                             "kernel = \"assert_positive\"\ngrid = 2\nblock = 32\n"
                             "args = [\"a\", \"out\"]\n"
                             "[buffers.a]\ntype = \"s32\"\ncount = 64\ninit = \"values\"\n"
                             "values = [0, 1, 2, -3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
                             "17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, "
                             "34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, "
                             "51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 64\n");
  const CliResult r = cli("run " + kPtx + " --launch " + s);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::uint32_t line = source_line("debugging.cu", "assert(a[t] >= 0);");
  ASSERT_GT(line, 0u);
  EXPECT_NE(r.out.find("smemsim: error: debugging.cu:" + std::to_string(line) +
                       ": void assert_positive(const int *, int *): block: [0,0,0], thread: "
                       "[3,0,0] Assertion `a[t] >= 0` failed."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("compile with -DNDEBUG"), std::string::npos) << r.out;
  // With every value positive, the assert costs its compare and the kernel runs.
  const CliResult ok = cli("run " + kPtx + " --launch " +
                           spec("as2.toml",
                                "kernel = \"assert_positive\"\ngrid = 2\nblock = 32\n"
                                "args = [\"a\", \"out\"]\n"
                                "[buffers.a]\ntype = \"s32\"\ncount = 64\n"
                                "init = \"iota\"\n"
                                "[buffers.out]\ntype = \"s32\"\ncount = 64\n"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

std::string race_spec(const std::string& kernel, int grid, int block) {
  return spec(kernel + ".toml", "kernel = \"" + kernel + "\"\ngrid = " + std::to_string(grid) +
                                    "\nblock = " + std::to_string(block) +
                                    "\nargs = [\"out\"]\n[buffers.out]\ntype = \"s32\"\n"
                                    "count = 256\n");
}

// A missing barrier: warp 0 writes slot[t] (the line of `slot[t] = float(t)`), warp 1 reads it
// (`out[t - 32] = slot[t - 32]`) with nothing between: one read-after-write hazard naming both
// lines, found in each of the 3 blocks; exit 1.
TEST(DebugTools, RacecheckFindsAMissingBarrier) {
  const CliResult r = cli("racecheck " + kPtx + " --launch " + race_spec("race_raw", 3, 64));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const std::string w = std::to_string(source_line("debugging.cu", "slot[t] = float(t)"));
  const std::string rd = std::to_string(source_line("debugging.cu", "out[t - 32] = slot[t - 32]"));
  EXPECT_NE(r.out.find("racecheck: 1 shared-memory hazard between warps"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("read after write on shared array 'race_raw::slot'"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("write by one warp:    debugging.cu:" + w), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("then read  by another: debugging.cu:" + rd), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in 3 blocks"), std::string::npos) << r.out;
}

TEST(DebugTools, RacecheckFindsWriteAfterReadAndWriteAfterWrite) {
  CliResult r = cli("racecheck " + kPtx + " --launch " + race_spec("race_war", 1, 64));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("write after read on shared array 'race_war::buf'"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("read  by one warp:    debugging.cu:" +
                       std::to_string(source_line("debugging.cu", "out[t] = buf[t + 32]"))),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("read after write"), std::string::npos) << r.out;  // the barrier orders
  // Four warps write `last`: warps 1, 2, 3 each find the previous warp's write.
  r = cli("racecheck " + kPtx + " --launch " + race_spec("race_waw", 1, 128) + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"write after write\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"accesses\": 3"), std::string::npos) << r.out;
}

// A named barrier orders exactly the warps that take part in it: the consumers' own barrier does
// not order the producers' writes (named_handoff_wrong: a read after write between
// `buf[t] = t * 3` and `out[t - 64] = buf[127 - t]`), barrier 1 between both does (named_handoff);
// cooperative groups' multi-warp tiles synchronize through acquire/release flags (cg_tiles).
TEST(DebugTools, RacecheckFollowsNamedBarriersAndFlags) {
  CliResult r = cli("racecheck " + kPtx + " --launch " + race_spec("named_handoff_wrong", 2, 128));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("read after write on shared array 'named_handoff_wrong::buf'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("in 2 blocks"), std::string::npos) << r.out;
  r = cli("racecheck " + kPtx + " --launch " + race_spec("named_handoff", 2, 128));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = cli("racecheck " + std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/cg_tiles.ptx --launch " +
          race_spec("cg_tile_sums", 1, 256) + " --arch ampere-a100");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("racecheck: no shared-memory hazard"), std::string::npos) << r.out;
}

// Correct kernels report nothing: barriers between the steps, __syncwarp in one warp's tail,
// atomics from every warp on one counter; and the suite's builtins.
TEST(DebugTools, RacecheckIsQuietOnCorrectKernels) {
  const std::string s = spec("rs.toml",
                             "kernel = \"reduce_synced\"\ngrid = 2\nblock = 256\n"
                             "args = [\"in\", \"out\"]\n"
                             "[buffers.in]\ntype = \"s32\"\ncount = 512\ninit = \"iota\"\n"
                             "[buffers.out]\ntype = \"s32\"\ncount = 2\n"
                             "write = \"" +
                                 ::testing::TempDir() + "rs_out.txt\"\n");
  CliResult r = cli("racecheck " + kPtx + " --launch " + s);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("racecheck: no shared-memory hazard"), std::string::npos) << r.out;
  // 0 + ... + 255 = 32640; 256 + ... + 511 = 98176.
  EXPECT_EQ(slurp(::testing::TempDir() + "rs_out.txt"), "32640\n98176\n");
  r = cli("racecheck " + kPtx + " --launch " + race_spec("atomic_count", 2, 128));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // Every builtin of the suite (docs/cli.md's list).
  for (const char* b :
       {"histogram",    "transpose", "reduction", "fwt",    "kmeans",       "hough",
        "atomic_bench", "genindex",  "aes",       "dct8x8", "tm_hashtable", "tm_kmeans",
        "tm_genetic",   "conv",      "haar",      "fft",    "scan_matrix",  "scan_blelloch",
        "grid3d",       "lud",       "nw",        "lavamd", "scalar_prod",  "matmul",
        "srad",         "hotspot",   "backprop",  "gemm",   "attention"}) {
    r = cli(std::string("racecheck builtin:") + b);
    EXPECT_EQ(r.exit_code, 0) << b << "\n" << r.out;
    EXPECT_NE(r.out.find("racecheck: no shared-memory hazard"), std::string::npos) << b << r.out;
  }
}

}  // namespace
}  // namespace smemsim::test

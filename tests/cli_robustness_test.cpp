// Issue 11, hostile and careless input, grouped by command: numbers out of range or meaningless,
// builtin options that would wrap in a kernel's int parameter, launch-spec values that were
// undefined behaviour or unbounded allocations, and study output folders that wrote outside the
// output root or over another run. Each is a one-line error with exit code 2. No nvcc needed.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

void expect_error(const std::string& args, const std::string& message) {
  const CliResult r = cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
}

// CLI11 turned 99999999999999999999 into 2^64 - 1, and `gen` then computed a full pass.
TEST(CliNumbers, OutOfRangeNumbersNameTheOption) {
  expect_error("gen random --space 1024 --count 99999999999999999999 -o /dev/null",
               "--count: 99999999999999999999 is out of range (at most 18446744073709551615)");
  expect_error("gen random --space 1024 --count 10 --seed 99999999999999999999",
               "--seed: 99999999999999999999 is out of range");
  // A uint32 field: too large for it, said so (not "could not convert").
  expect_error("run builtin:reduction --size 99999999999",
               "--size: 99999999999 is out of range for this option");
  expect_error("run builtin:atomic_bench --stride -5", "--stride: -5 is negative");
  expect_error("run builtin:reduction --size 1e3", "--size: '1e3' is not an integer");
  expect_error("sim builtin:reduction --max-cycles 1e999", "--max-cycles");
}

// `gen` computed a full pass before writing anything: a trace of 10^11 warps now starts at once
// (head stops it), and an address outside the memory midway leaves no file behind.
TEST(CliNumbers, GenStreamsAndLeavesNoPartialFile) {
  const CliResult r = shell(fmt::format("timeout {} ", int(120 * kBuildSlowdown)) + SMEMSIM_CLI +
                            " gen random --space 1024 --count 100000000000 | head -c 40");
  EXPECT_EQ(r.out.rfind("smemsim-trace v1 unit=word warp=32\nld ", 0), 0u) << r.out;
  const std::string path = ::testing::TempDir() + "smemsim_partial.trace";
  std::filesystem::remove(path);
  expect_error("gen stride --stride 100000 --count 100 -o " + path, "is outside the memory");
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Zero silently became the driver's default; where it means nothing it is an error.
TEST(CliNumbers, ZeroWhereItMeansNothingIsAnError) {
  for (const std::string& args :
       {"run builtin:reduction --size 0", "run builtin:kmeans --k 0",
        "run builtin:atomic_bench --iterations 0", "run builtin:genindex --repeat 0",
        "gen random --space 1024 --lanes 0", "hash search --pattern 0..31 --banks 0",
        "hash search --pattern 0..31 --addr-bits 0"})
    expect_error(args, "must be at least 1");
}

// Values past the kernel's int parameter wrapped and ran another launch.
TEST(CliNumbers, BuiltinOptionsStayWithinTheKernelsParameters) {
  expect_error("run builtin:genindex --repeat 4294967295",
               "builtin:genindex: --repeat 4294967295 is above its limit of 1048576");
  expect_error("run builtin:atomic_bench --iterations 2147483648",
               "builtin:atomic_bench: --iterations 2147483648 is above its limit of 1048576");
}

const char* kEmpty = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  ret;
}
)";

std::string spec_error(const std::string& name, const std::string& buffer) {
  const std::string ptx = temp_file(name + ".ptx", kEmpty);
  const std::string spec = temp_file(name + ".toml", "args = [\"out\"]\n[buffers.out]\n" + buffer);
  const CliResult r = cli("run " + ptx + " --grid 1 --block 32 --launch " + spec);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  return r.out;
}

// iota with step = nan or 1e300 was undefined behaviour (a double converted to int64) and filled
// the buffer with zeros, exit 0.
TEST(LaunchSpec, IotaFillAndRandomNeedFiniteInRangeNumbers) {
  std::string e = spec_error("nan", "type = \"u32\"\ncount = 4\ninit = \"iota\"\nstep = nan\n");
  EXPECT_NE(e.find("nan.toml:6: 'step' must be a finite number"), std::string::npos) << e;
  e = spec_error("huge", "type = \"s64\"\ncount = 4\ninit = \"iota\"\nstep = 1e300\n");
  EXPECT_NE(e.find("'step' = 1e+300 is outside the 64-bit integer range"), std::string::npos) << e;
  e = spec_error("far", "type = \"s64\"\ncount = 1000\ninit = \"iota\"\nstep = 1e17\n");
  EXPECT_NE(e.find("iota from 0 by 1e+17 over 1000 elements leaves the 64-bit integer range"),
            std::string::npos)
      << e;
  e = spec_error("fill", "type = \"s32\"\ncount = 4\ninit = \"fill\"\nvalue = inf\n");
  EXPECT_NE(e.find("'value' must be a finite number"), std::string::npos) << e;
  // Floats may be anything finite.
  const std::string ptx = temp_file("fok.ptx", kEmpty);
  const std::string ok = temp_file("fok.toml",
                                   "args = [\"out\"]\n[buffers.out]\ntype = \"f64\"\ncount = "
                                   "4\ninit = \"iota\"\nstep = 1e300\n");
  EXPECT_EQ(cli("run " + ptx + " --grid 1 --block 32 --launch " + ok).exit_code, 0);
}

// Values that do not fit the element type were wrapped (300 in a u8) or made infinite (70000 in an
// f16) in silence, and a binary init file longer than its buffer was cut (issue 28).
TEST(LaunchSpec, ValuesThatDoNotFitTheirTypeAreErrors) {
  std::string e = spec_error("u8", "type = \"u8\"\ncount = 4\ninit = \"fill\"\nvalue = 300\n");
  EXPECT_NE(e.find("u8.toml:6: buffer 'out': value = 300 does not fit u8 (-128 to 255)"),
            std::string::npos)
      << e;
  e = spec_error("f16", "type = \"f16\"\ninit = \"values\"\nvalues = [1.0, 70000.0]\n");
  EXPECT_NE(e.find("values[1] = 70000 rounds to infinity in f16 (largest finite 65504)"),
            std::string::npos)
      << e;
  e = spec_error("f32", "type = \"f32\"\ncount = 4\ninit = \"random\"\nmax = 1e300\n");
  EXPECT_NE(e.find("max = 1e+300 rounds to infinity in f32"), std::string::npos) << e;
  e = spec_error("s16", "type = \"s16\"\ncount = 4\ninit = \"iota\"\nstep = 30000\n");
  EXPECT_NE(e.find("the last iota value = 90000 does not fit s16"), std::string::npos) << e;
  const std::string ten = temp_file("ten.bin", "abcdefghij");
  e = spec_error("long", "type = \"u32\"\ncount = 2\ninit = \"file\"\nfile = \"" + ten + "\"\n");
  EXPECT_NE(e.find("has 10 bytes, more than the 2 elements of u32 (8 bytes)"), std::string::npos)
      << e;
  e = spec_error("odd", "type = \"u32\"\ninit = \"file\"\nfile = \"" + ten + "\"\n");
  EXPECT_NE(e.find("has 10 bytes, not a whole number of u32 elements of 4 bytes"),
            std::string::npos)
      << e;
  // Both readings of an integer's bits stay accepted: -1 in a u32, 255 in an s8.
  const std::string ptx = temp_file("fits.ptx", kEmpty);
  const std::string ok = temp_file(
      "fits.toml",
      "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ninit = \"values\"\nvalues = [-1, 7]\n"
      "[buffers.b]\ntype = \"s8\"\ncount = 2\ninit = \"fill\"\nvalue = 255\n");
  EXPECT_EQ(cli("run " + ptx + " --grid 1 --block 32 --launch " + ok).exit_code, 0);
}

// A float where an integer belongs: toml++'s conversion of 2e56 to int64 was undefined behaviour
// (found by spec_fuzz under UBSan); integers are now read exactly.
TEST(LaunchSpec, FloatsWhereIntegersBelongAreErrors) {
  std::string e = spec_error("fcount", "type = \"u32\"\ncount = 2e56\n");
  EXPECT_NE(e.find("'count' must be an integer (2e+56 is a float in TOML"), std::string::npos) << e;
  e = spec_error("fseed", "type = \"u32\"\ncount = 4\ninit = \"random\"\nseed = 1.5\n");
  EXPECT_NE(e.find("'seed' must be a non-negative integer"), std::string::npos) << e;
  // A negative seed was taken modulo 2^64 (issue 28).
  e = spec_error("nseed", "type = \"u32\"\ncount = 4\ninit = \"random\"\nseed = -1\n");
  EXPECT_NE(e.find("'seed' must be a non-negative integer"), std::string::npos) << e;
  const std::string arch = temp_file("farch.toml", "[memory]\nbanks = 2e56\n");
  expect_error("analyze --pattern 0..31 --arch-file " + arch, "key 'memory.banks' must be");
}

// A 25-billion-element buffer was a raw std::bad_alloc with exit 1.
TEST(LaunchSpec, BuffersBeyondTheBudgetAreRefusedBeforeAllocation) {
  const std::string e = spec_error("big", "type = \"u32\"\ncount = 25000000000\n");
  // 25e9 x 4 bytes = 1e11 bytes = 93.13 GiB.
  EXPECT_NE(e.find("big.toml:4: buffer 'out': 25000000000 elements of u32 take 93.1 GiB, which "
                   "puts the spec's buffers above the 4 GiB they may take together"),
            std::string::npos)
      << e;
}

// --max-memory sets the budget: 1,000,000 u32 (4 MB) pass the default and fail under 1M; a text
// file's words are parsed in place and a word with trailing characters is an error, not a prefix.
TEST(LaunchSpec, MaxMemorySetsTheBuffersBudget) {
  const std::string ptx = temp_file("mm.ptx", kEmpty);
  const std::string spec =
      temp_file("mm.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1000000\n");
  const std::string run = "run " + ptx + " --grid 1 --block 32 --launch " + spec;
  EXPECT_EQ(cli(run).exit_code, 0) << cli(run).out;
  EXPECT_EQ(cli(run + " --max-memory 4M").exit_code, 0);
  expect_error(run + " --max-memory 1M",
               "mm.toml:4: buffer 'out': 1000000 elements of u32 take 3.8 MiB, which puts the "
               "spec's buffers above the 1 MiB they may take together (--max-memory)");
  expect_error(run + " --max-memory 1X", "--max-memory: '1X' is not a memory size");
  expect_error("run builtin:reduction --max-memory 0", "--max-memory: must be more than 0 bytes");
  const std::string txt = temp_file("words.txt", "1 2\n3x 4\n");
  const std::string tspec = temp_file(
      "words.toml",
      "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ninit = \"file\"\nfile = \"" + txt + "\"\n");
  expect_error("run " + ptx + " --grid 1 --block 32 --launch " + tspec,
               "value 3 ('3x') is not a number");
}

// Standard output on a full disk exited 0 (analyze --json) or with fmt's "cannot write to file".
TEST(CliMessages, AnUnwritableStandardOutputIsAnError) {
  const auto full = [](const std::string& args) {
    return shell("{ " + std::string(SMEMSIM_CLI) + " " + args + " >/dev/full; }");
  };
  const CliResult g = full("gen stride --stride 2 --count 4");
  EXPECT_EQ(g.exit_code, 2) << g.out;
  EXPECT_NE(g.out.find("standard output: write failed (No space left on device)"),
            std::string::npos)
      << g.out;
  for (const char* args : {"analyze --pattern 0..31 --json", "analyze --pattern 0..31", "hash list",
                           "sim builtin:reduction --json"}) {
    const CliResult r = full(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("smemsim: error: cannot write the output"), std::string::npos)
        << args << "\n"
        << r.out;
  }
}

// init = "file" naming a directory exited 1 with a libstdc++ message.
TEST(LaunchSpec, AFileThatIsADirectoryIsNamed) {
  const std::string e = spec_error(
      "dir", "type = \"u32\"\ninit = \"file\"\nfile = \"" + ::testing::TempDir() + "\"\n");
  EXPECT_NE(e.find("is a directory, not a file"), std::string::npos) << e;
  // A device never ends: /dev/zero would be read until memory runs out.
  const std::string z =
      spec_error("zero", "type = \"u32\"\ninit = \"file\"\nfile = \"/dev/zero\"\n");
  EXPECT_NE(z.find("'/dev/zero' is not a regular file"), std::string::npos) << z;
}

// `study run ... --out ""` wrote to /NAME at the filesystem root.
TEST(StudyOut, EmptyRootAndUnwritableOutputFoldersAreErrors) {
  expect_error("study run random-patterns --quick --no-plots --out ''", "--out: empty path");
  expect_error("study run random-patterns --quick --no-plots --out /",
               "--out: '/' is a filesystem root");
  const std::string file = temp_file("not_a_dir", "x");
  expect_error("study run random-patterns --quick --no-plots --out " + file,
               "cannot create the folder");
  expect_error("study run random-patterns --quick --no-plots --out /proc/smemsim",
               "cannot create the folder");
}

// `study merge ... --out` equal to a shard's root overwrote shard 0.
TEST(StudyOut, MergeRefusesToWriteIntoAShard) {
  const std::string root = ::testing::TempDir() + "smemsim_merge_self";
  for (const char* s : {"", "0", "1"}) std::filesystem::remove_all(root + s);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(cli("study run random-patterns --quick --no-plots --shard " + std::to_string(i) +
                  "/2 --out " + root + std::to_string(i))
                  .exit_code,
              0);
  expect_error("study merge " + root + "0/random-patterns " + root +
                   "1/random-patterns --no-plots --out " + root + "0",
               "would write into the shard folder");
  EXPECT_EQ(cli("study merge " + root + "0/random-patterns " + root +
                "1/random-patterns --no-plots --out " + root + "m")
                .exit_code,
            0);
}

// A study resumed after its input images changed reused stale points: the configuration now carries
// a digest of the images' pixels, so the resume is refused; unchanged images resume.
TEST(StudyOut, ResumeAfterTheImagesChangedIsRefused) {
  const std::string dir = ::testing::TempDir() + "smemsim_imgs";
  std::filesystem::create_directories(dir);
  auto write_pgm = [&](int k) {
    std::string data = "P5\n64 48\n255\n";
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) data += static_cast<char>((x * k + y) % 256);
    FILE* f = std::fopen((dir + "/a.pgm").c_str(), "wb");
    std::fwrite(data.data(), 1, data.size(), f);
    std::fclose(f);
  };
  const std::string out = ::testing::TempDir() + "smemsim_imgs_out";
  std::filesystem::remove_all(out);
  const std::string run =
      "study run histogram --quick --no-plots --set images=" + dir + " --out " + out;
  write_pgm(4);
  ASSERT_EQ(cli(run).exit_code, 0);
  const CliResult again = cli(run);
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already computed"), std::string::npos) << again.out;
  write_pgm(5);
  expect_error(run,
               "holds points of a different configuration (study parameters, sweep, input images");
}

// Two runs on one folder: the second is refused with a clear message (the lock is the kernel's
// flock, so a killed run leaves nothing behind).
TEST(StudyOut, ASecondRunOnTheSameFolderIsRefused) {
  const std::string root = ::testing::TempDir() + "smemsim_lock";
  std::filesystem::remove_all(root);  // points of an earlier run would be refused as stale
  std::filesystem::create_directories(root + "/random-patterns");
  const std::string lock = root + "/random-patterns/.lock";
  const int fd = ::open(lock.c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as a running smemsim holds it
  expect_error("study run random-patterns --quick --no-plots --out " + root,
               "is in use by another smemsim study run");
  ::close(fd);
  EXPECT_EQ(cli("study run random-patterns --quick --no-plots --out " + root).exit_code, 0);
}

// A kernel with a million virtual registers and 1,024 threads, or 600,000 bytes of .local per
// thread, allocated gigabytes (or died of std::bad_alloc) before its first instruction.
TEST(RunLimits, RegistersAndLocalMemoryAreCheckedBeforeAllocating) {
  const std::string regs = temp_file("regs.ptx", R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<1000000>;
  ret;
}
)");
  const std::string spec =
      temp_file("lim.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  expect_error("run " + regs + " --grid 1 --block 1024 --launch " + spec,
               "kernel 'k': 1000000 registers x 1024 threads need 7812 MiB of simulated register "
               "file, above the executor's 256 MiB");
  const std::string local = temp_file("local.ptx", R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 big[600000];
  ret;
}
)");
  expect_error("run " + local + " --grid 1 --block 32 --launch " + spec,
               "kernel 'k' declares 600000 bytes of local memory per thread, above CUDA's 512 KiB");
}

// Long launches report progress (the CLI draws it on a terminal): after every block of run(), and
// every 65,536 cycles of the timing model.
TEST(RunLimits, LaunchesReportProgress) {
  // A dependent loop of 20,000 iterations: over a million cycles on Fermi's latencies.
  const ptx::Module m = ptx::parse(R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 20000;
  @%p1 bra LOOP;
  ret;
}
)",
                                   "k.ptx");
  exec::GlobalMemory mem;
  exec::Launch l;
  l.grid = {5, 1, 1};
  l.block = {32, 1, 1};
  l.args = {exec::Arg::buf(mem.add({"out", exec::ElemType::U32, std::vector<std::uint8_t>(4)}))};
  exec::Executor ex(m, m.kernels.at(0), default_arch(), l, mem);
  std::vector<std::uint64_t> seen;
  ex.set_progress([&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 5u);
    seen.push_back(done);
  });
  ex.run();
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  timing::TimingOptions to;
  std::uint64_t calls = 0;
  to.progress = [&](std::uint64_t, std::uint64_t total) {
    EXPECT_EQ(total, 5u);
    ++calls;
  };
  to.skip_idle = false;
  l.grid = {5, 1, 1};
  timing::GpuSim sim(m, m.kernels.at(0), default_arch(), l, mem, to);
  const timing::TimingStats st = sim.run();
  EXPECT_GT(st.cycles, std::uint64_t{1} << 20);
  EXPECT_EQ(calls, (st.cycles - 1) >> 16);
}

// Messages: an unknown command is named; binary input is echoed escaped (a NUL cut the message);
// a UTF-8 byte-order mark before the header is skipped; a directory given as a trace is named.
TEST(CliMessages, UnknownCommandsBinaryInputBomAndDirectories) {
  expect_error("frobnicate --x", "unknown command 'frobnicate' (commands: analyze, gen, arch");
  const std::string bin = temp_file("bin.trace", std::string("\x01\x02\x03 0 1 2\n"));
  expect_error("analyze --trace " + bin, "field op: '\\x01\\x02\\x03' is not ld, st or atom");
  const std::string nul = temp_file("nul.trace", std::string("ld\0x 0 1\n", 9));
  expect_error("analyze --trace " + nul, "field op: 'ld\\x00x' is not ld, st or atom");
  const std::string bom =
      temp_file("bom.trace", "\xef\xbb\xbfsmemsim-trace v1 unit=word\nld 0 1 2\n");
  const CliResult r = cli("analyze --trace " + bom);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("1 accesses (1 ld"), std::string::npos) << r.out;
  expect_error("analyze --trace " + ::testing::TempDir(), "cannot open trace: it is a directory");
}

// Issue 48, item 6: scripts/slurm-study.sh checked its ranges in bash arithmetic, where
// 18446744073709551617 wraps to 1 and 18446744073709552640 to 1024, so both reached sbatch. The
// text is checked first now (--dry-run: no Slurm needed).
TEST(SlurmScript, RangesAreCheckedOnTheTextNotInWrappingArithmetic) {
  const std::string script = std::string(SMEMSIM_SOURCE_DIR) + "/scripts/slurm-study.sh";
  const std::string tail = std::string(" --dry-run --smemsim ") + SMEMSIM_CLI + " --out " +
                           ::testing::TempDir() + "smemsim_slurm_dry";
  const std::pair<std::string, std::string> cases[] = {
      {"--shards 18446744073709551617", "--shards '18446744073709551617': give 1 to 10000"},
      {"--cpus 18446744073709552640", "--cpus '18446744073709552640': give 1 to 1024"},
      {"--shards 10001", "--shards '10001': give 1 to 10000"},
      {"--cpus 1025", "--cpus '1025': give 1 to 1024"},
      {"--shards 007", "--shards '007': give 1 to 10000"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = shell("bash " + script + " random-patterns " + args + tail);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
  const CliResult ok =
      shell("bash " + script + " random-patterns --shards 10000 --cpus 1024" + tail);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("--array=0-9999"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace smemsim::test

// Issue 48, items 2 and 3: every output is written beside its target and renamed into place only
// when complete. A kernel that fails, or a write that fails midway (a full disk, simulated with the
// shell's `ulimit -f 0`: every write to a regular file fails with EFBIG), leaves the target as it
// was (an older good file stays byte for byte) and no temporary behind, and the message gives the
// operating system's reason.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "test_util.hpp"
#include "util/output_file.hpp"

namespace smemsim::test {
namespace {
namespace fs = std::filesystem;

// A fresh folder of this process for one test.
std::string fresh_dir(const std::string& name) {
  const std::string d =
      ::testing::TempDir() + "smemsim_out_" + name + "_" + std::to_string(::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The names in `dir` that are neither `keep` nor a subfolder: what a failed write left behind.
std::vector<std::string> leftovers(const std::string& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> extra;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory() || std::find(keep.begin(), keep.end(), n) != keep.end()) continue;
    extra.push_back(n);
  }
  return extra;
}

// One block of 32 threads per CTA: a shared load, then a global store to out[32 * ctaid + tid].
// With `count` below 32 x grid the store of block count/32 runs out of bounds, after the earlier
// blocks made shared accesses (a trace and a timeline have something to hold).
const char* kFailingPtx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry failing(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sh[4096];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shl.b32 %r3, %r1, 7;
  mov.u32 %r4, sh;
  add.u32 %r5, %r4, %r3;
  ld.shared.u32 %r6, [%r5];
  mad.lo.u32 %r7, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r7, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

std::string spec_text(int count, const std::string& write = "") {
  std::string s =
      "kernel = \"failing\"\ngrid = 64\nblock = 32\nargs = [\"out\"]\n\n[buffers.out]\n"
      "type = \"u32\"\ncount = " +
      std::to_string(count) + "\n";
  if (!write.empty()) s += "write = \"" + write + "\"\n";
  return s;
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(OutputFile, CommitReplacesAndDiscardLeavesTheTargetAsItWas) {
  const std::string d = fresh_dir("unit");
  const std::string target = d + "/a.txt";
  put(target, "old\n");
  ::chmod(target.c_str(), 0640);
  {
    OutputFile f(target, "--test");
    f.write("half of a new file");
    EXPECT_EQ(slurp(target), "old\n");  // nothing reaches the target before commit
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }  // dropped uncommitted: as an exception would
  EXPECT_EQ(slurp(target), "old\n");
  EXPECT_EQ(leftovers(d, {"a.txt"}), std::vector<std::string>{});
  {
    OutputFile f(target, "--test");
    f.stream() << "new " << 42 << '\n';
    f.commit();
  }
  EXPECT_EQ(slurp(target), "new 42\n");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // a replaced file keeps its permissions
  // A symbolic link is written through: the link stays a link, its file gets the bytes.
  const std::string link = d + "/link.txt";
  fs::create_symlink("a.txt", link);
  write_output_file(link, "--test", std::string(200000, 'x'));  // past the 64 KiB buffer
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(fs::file_size(target), 200000u);
  EXPECT_EQ(leftovers(d, {"a.txt", "link.txt"}), std::vector<std::string>{});
}

TEST(OutputFile, AFolderThatIsMissingOrAFileIsAnErrorBeforeAnyWrite) {
  const std::string d = fresh_dir("unit_bad");
  try {
    OutputFile f(d + "/no/such/folder/x.txt", "--html");
    ADD_FAILURE() << "accepted a missing folder";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--html: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(OutputFile(d, "--html"), InputError);  // a directory
  EXPECT_THROW(OutputFile("/dev/null", "--html"), InputError);
}

// A kernel that fails midway: --emit-trace, --html, --csv and --timeline keep the good files
// they were given (before, the trace and the timeline were opened first, so a failing kernel left
// a partial trace or a truncated JSON in place of a good one).
TEST(CliOutputs, AKernelThatFailsLeavesEveryOutputAsItWas) {
  const std::string d = fresh_dir("failing");
  put(d + "/k.ptx", kFailingPtx);
  put(d + "/bad.toml", spec_text(1024));  // block 32 stores out of bounds
  const std::vector<std::string> outs = {"t.trace", "t.html", "t.csv", "t.json"};
  for (const std::string& o : outs) put(d + "/" + o, "good " + o + "\n");
  const std::string in = "cd " + d + " && " + SMEMSIM_CLI + " ";
  for (const std::string args :
       {"profile k.ptx --launch bad.toml --emit-trace t.trace --html t.html --csv t.csv",
        "sim k.ptx --launch bad.toml --timeline t.json"}) {
    const CliResult r = shell(in + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("out-of-bounds global store"), std::string::npos) << r.out;
  }
  for (const std::string& o : outs) EXPECT_EQ(slurp(d + "/" + o), "good " + o + "\n") << o;
  std::vector<std::string> keep = outs;
  keep.insert(keep.end(), {"k.ptx", "bad.toml"});
  EXPECT_EQ(leftovers(d, keep), std::vector<std::string>{});
  // The same launch with a buffer large enough writes all four.
  put(d + "/good.toml", spec_text(2048));
  ASSERT_EQ(
      shell(in + "profile k.ptx --launch good.toml --emit-trace t.trace --html t.html --csv t.csv")
          .exit_code,
      0);
  ASSERT_EQ(shell(in + "sim k.ptx --launch good.toml --timeline t.json").exit_code, 0);
  EXPECT_NE(slurp(d + "/t.trace").find("# smemsim profile"), std::string::npos);
  EXPECT_NE(slurp(d + "/t.html").find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(slurp(d + "/t.json").find("traceEvents"), std::string::npos);
}

// A full disk for every output option: `ulimit -f 0` in the command's own shell (bash counts in
// KiB; 0 is none at all; standard output and error are pipes, which the limit does not touch).
// Each command fails with exit 2 and the OS's reason, the older file is unchanged and nothing is
// left beside it.
TEST(CliOutputs, AWriteThatFailsLeavesNoPartialFileAndSaysWhy) {
  const std::string d = fresh_dir("full");
  const std::string ex = std::string(SMEMSIM_SOURCE_DIR) + "/docs/examples/";
  put(d + "/k.ptx", kFailingPtx);
  put(d + "/good.toml", spec_text(2048));
  put(d + "/writes.toml", spec_text(2048, "o.txt"));
  put(d + "/g.config", "-gpgpu_shmem_num_banks 16\n");
  put(d + "/r.trace", "ld 0 32 64 96\n");
  const std::vector<std::string> inputs = {"k.ptx", "good.toml", "writes.toml", "g.config",
                                           "r.trace"};
  struct Case {
    std::string args, output, what;
  };
  const Case cases[] = {
      {"profile k.ptx --launch good.toml --html o.html", "o.html", "--html"},
      {"profile k.ptx --launch good.toml --csv o.csv", "o.csv", "--csv"},
      {"profile k.ptx --launch good.toml --emit-trace o.trace", "o.trace", "--emit-trace"},
      {"sim k.ptx --launch good.toml --timeline o.json", "o.json", "--timeline"},
      {"run k.ptx --launch writes.toml", "o.txt", "buffer 'out' (write)"},
      {"launch init k.ptx -o o.toml --force", "o.toml", "-o"},
      {"arch import g.config -o o.toml", "o.toml", "-o"},
      {"hash search --family bvxor --trace r.trace --emit cuda -o o.cu", "o.cu", "-o"},
      {"analyze --trace r.trace --csv o.csv", "o.csv", "--csv"},
      {"gen stride --stride 33 --count 4 -o o.trace", "o.trace", "-o"},
      {"calibrate t4-jia2019 -o o.toml", "o.toml", "-o"},
  };
  for (const Case& c : cases) {
    const std::string out = d + "/" + c.output;
    put(out, "good\n");
    const CliResult r =
        shell("cd " + d + " && bash -c 'ulimit -f 0; exec " + SMEMSIM_CLI + " " + c.args + "'");
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.what + ": cannot write '" + c.output +
                         "': File too large (the file is "
                         "unchanged)"),
              std::string::npos)
        << c.args << ": " << r.out;
    EXPECT_EQ(slurp(out), "good\n") << c.args;
    std::vector<std::string> keep = inputs;
    keep.push_back(c.output);
    EXPECT_EQ(leftovers(d, keep), std::vector<std::string>{}) << c.args;
    fs::remove(out);
    // Without the limit the same command writes its output.
    const CliResult ok = shell("cd " + d + " && " + SMEMSIM_CLI + " " + c.args + " > /dev/null");
    EXPECT_EQ(ok.exit_code, 0) << c.args << ": " << ok.out;
    EXPECT_GT(fs::file_size(out), 0u) << c.args;
    fs::remove(out);
  }
}

// The study runner: a run that cannot write its configuration leaves neither `.lock` nor a
// temporary in its folder (both were left before).
TEST(CliOutputs, AStudyRunThatCannotWriteLeavesNoLockOrTemporary) {
  const std::string d = fresh_dir("study");
  const CliResult r = shell("cd " + d + " && bash -c 'ulimit -f 0; exec " + SMEMSIM_CLI +
                            " study run random-patterns --quick --no-plots --out so'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("File too large"), std::string::npos) << r.out;
  EXPECT_EQ(leftovers(d + "/so/random-patterns", {}), std::vector<std::string>{});
}

// An output that is a hard link to an input is the input (compared by device and inode).
TEST(CliOutputs, AHardLinkToAnInputIsTheInput) {
  const std::string d = fresh_dir("hardlink");
  put(d + "/r.trace", "ld 0 32 64 96\n");
  fs::create_hard_link(d + "/r.trace", d + "/alias.csv");
  const CliResult r =
      shell("cd " + d + " && " + SMEMSIM_CLI + " analyze --trace r.trace --csv alias.csv");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--csv 'alias.csv' is the trace this command reads"), std::string::npos)
      << r.out;
  EXPECT_EQ(slurp(d + "/r.trace"), "ld 0 32 64 96\n");
}

}  // namespace
}  // namespace smemsim::test

// Devices, FIFOs and directories where a file is expected (issue 28, items 1 and 2): an output
// path is refused before any work and never replaced (`gen -o /dev/null` replaced the device node
// with a regular file), an input is refused before it is opened (a FIFO with no writer blocked for
// ever; /dev/zero read until memory ran out), and a small input that is too big says so. Each case:
// exit 2, one line, the path named, well under the `timeout` it runs in.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;

std::string dir() {
  const std::string d = ::testing::TempDir() + "smemsim_special/";
  fs::create_directories(d);
  return d;
}

// A FIFO nobody writes to (opening it for reading would block).
std::string fifo() {
  const std::string p = dir() + "fifo";
  fs::remove(p);
  EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
  return p;
}

// A character device like /dev/null (1, 3), made in the temporary folder: a refusal that failed
// would replace this node, not the system's. Root only; "" otherwise.
std::string null_device() {
  const std::string p = dir() + "null";
  fs::remove(p);
  if (::geteuid() != 0 || ::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) return "";
  return p;
}

void expect_refused(const std::string& args, const std::string& needle) {
  // `timeout 120`: a blocked read or an endless one fails the test instead of hanging it (a hang
  // guard, far above the instant the refusal takes even on a loaded machine).
  const CliResult r = shell(fmt::format("timeout {} ", int(120 * kBuildSlowdown)) +
                            std::string(SMEMSIM_CLI) + " " + args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST(SpecialFiles, InputsThatAreNoFilesAreRefusedAtOnce) {
  const std::string f = fifo();
  expect_refused("analyze --trace " + f, f + ": cannot open trace: it is a FIFO, not a file");
  expect_refused("analyze --pattern 0..31 --arch-file " + f, "it is a FIFO, not a file");
  expect_refused("analyze --pattern 0..31 --arch-file /dev/zero",
                 "/dev/zero: cannot open arch file: it is a character device, not a file");
  expect_refused("run builtin:reduction --arch-file /dev/urandom", "a character device");
  expect_refused("launch init /dev/zero",
                 "/dev/zero: cannot open PTX file: it is a character device");
  const std::string ptx = std::string(SMEMSIM_SOURCE_DIR) + "/tests/examples/k.ptx";
  expect_refused("run " + ptx + " --kernel k --launch /dev/zero",
                 "/dev/zero: cannot open launch spec: it is a character device");
  expect_refused("run " + ptx + " --kernel k --launch " + f, "it is a FIFO");
  expect_refused("arch import /dev/zero", "cannot open GPGPU-Sim configuration");
  expect_refused("analyze --trace " + dir(), "it is a directory");
}

TEST(SpecialFiles, ASmallInputTooBigSaysItsLimit) {
  // An arch file is a page of keys: above 1 MiB it is refused before it is read.
  const std::string big = dir() + "big.toml";
  {
    std::ofstream f(big);
    f << "# " << std::string(std::size_t{2} << 20, 'x') << "\n";
  }
  expect_refused("analyze --pattern 0..31 --arch-file " + big,
                 "the arch file has 2097155 bytes, above the 1 MiB it may have");
}

TEST(SpecialFiles, OutputsThatAreNoFilesAreRefusedAndKept) {
  const std::string f = fifo();
  const std::string trace = dir() + "t.trace";
  ASSERT_EQ(cli("gen linear --count 4 -o " + trace).exit_code, 0);
  expect_refused("gen linear --count 4 -o " + f, "is a FIFO, not a file");
  expect_refused("analyze --trace " + trace + " --csv " + f, "--csv: '" + f + "' is a FIFO");
  expect_refused("profile builtin:reduction --emit-trace " + f, "--emit-trace: '" + f + "'");
  expect_refused("profile builtin:reduction --emit-trace ''", "--emit-trace: empty path");
  expect_refused("sim builtin:reduction --timeline " + f, "--timeline: '" + f + "' is a FIFO");
  EXPECT_TRUE(fs::is_fifo(f));
  const std::string dev = null_device();
  if (dev.empty()) GTEST_SKIP() << "not root: no device node can be made (the FIFO cases ran)";
  expect_refused("gen linear --count 4 -o " + dev, "is a character device, not a file");
  EXPECT_TRUE(fs::is_character_file(dev));  // the node is still a device
  expect_refused("hash search --family bvxor --trace " + trace + " --emit cuda -o " + dev,
                 "--output: '" + dev + "' is a character device");
  // A launch spec's `write` names its file and line.
  const std::string spec = dir() + "w.toml";
  {
    std::ofstream s(spec);
    s << "grid = [1]\nblock = [32]\nargs = [\"out\", \"in\", 32]\n"
      << "[buffers.in]\ntype = \"f32\"\ncount = 64\n"
      << "[buffers.out]\ntype = \"f32\"\ncount = 64\nwrite = \"" << dev << "\"\n";
  }
  const std::string ptx = std::string(SMEMSIM_SOURCE_DIR) + "/tests/examples/k.ptx";
  expect_refused("run " + ptx + " --kernel k --launch " + spec,
                 spec + ":10: buffer 'out': write = '" + dev + "' is a character device");
  EXPECT_TRUE(fs::is_character_file(dev));
}

}  // namespace
}  // namespace smemsim::test

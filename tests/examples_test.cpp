// Issue 10, "what it must show" 4: the README's examples and every `--help` example run as
// written. The examples are read from the real help output (every command and subcommand, found
// through the help's own "Subcommands:" lists) and from README.md's code lines, and each is run by
// bash in a fresh folder where `smemsim` is the built binary (and nvcc the configured one). The
// user's own files the examples name are fixtures from tests/examples/ (k.ptx and k.toml, a
// GPGPU-Sim configuration, kernels to compile); traces they name without making them (big.trace,
// k.trace) are made first by the commands in `setup` below. Examples that make a file another one
// reads run before it, in the order the help pages and the README give them.
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a);
}

bool is_command(const std::string& t) {
  return t.rfind("smemsim ", 0) == 0 || t.rfind("nvcc ", 0) == 0 || t.rfind("for ", 0) == 0;
}

// `t` with the lines its trailing backslashes continue onto.
std::string joined(std::string t, std::istream& in) {
  while (!t.empty() && t.back() == '\\') {
    std::string next;
    if (!std::getline(in, next)) break;
    t.pop_back();
    t += trim(next);
  }
  return t;
}

// The example command lines of one help page: the lines after "Example:"/"Examples...:" that start
// with a command (`\` continuations joined), and the command after an inline "Example: ".
std::vector<std::string> help_examples(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  bool in_examples = false;
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (t.rfind("Example", 0) == 0) {
      in_examples = true;
      const auto colon = t.find(": ");
      if (colon == std::string::npos || !is_command(t.substr(colon + 2))) continue;
      t = t.substr(colon + 2);
    }
    if (!in_examples) continue;
    if (!is_command(t)) {
      in_examples = false;
      continue;
    }
    out.push_back(joined(t, in));
  }
  return out;
}

// "analyze", "gen", ... from a help page's "Subcommands:" list.
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (line.empty()) break;  // the end of the list
    if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
    out.push_back(trim(line).substr(0, trim(line).find(' ')));
  }
  return out;
}

// The README's example lines: indented code lines that run smemsim or nvcc (scripts/, which install
// packages and build, are not examples of the tool).
std::vector<std::string> readme_examples() {
  std::vector<std::string> out;
  std::istringstream in(slurp(std::string(SMEMSIM_SOURCE_DIR) + "/README.md"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    ", 0) != 0) continue;
    std::string t = trim(line);
    if (t.rfind("smemsim ", 0) != 0 && t.rfind("nvcc ", 0) != 0) continue;
    out.push_back(joined(t, in));
  }
  return out;
}

class Examples : public ::testing::Test {
 protected:
  // A fresh folder with the fixtures, `smemsim` on PATH, and the setup commands run.
  void SetUp() override {
    SKIP_WITHOUT_NVCC();  // the examples run the kernel suite's builtins and compile kernels
    dir_ = ::testing::TempDir() + "smemsim_examples_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/bin");
    fs::copy(std::string(SMEMSIM_SOURCE_DIR) + "/tests/examples", dir_);
    fs::create_symlink(SMEMSIM_CLI, dir_ + "/bin/smemsim");
    std::string path = dir_ + "/bin";
#ifdef SMEMSIM_NVCC
    path += ":" + fs::path(SMEMSIM_NVCC).parent_path().string();
#endif
    env_ = "cd '" + dir_ + "' && PATH='" + path + "':\"$PATH\" && ";
    for (const char* setup :
         {"smemsim gen random --space 4096 --count 100000 --seed 3 -o big.trace",
          "smemsim profile k.ptx --kernel k --grid 4 --block 128 --launch k.toml --emit-trace "
          "k.trace > /dev/null"})
      ASSERT_EQ(bash(setup).exit_code, 0) << setup;
  }
  CliResult bash(const std::string& command) const {
    std::string quoted;
    for (const char c : env_ + command)
      quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return shell("bash -c '" + quoted + "'");
  }
  void run_all(const std::vector<std::string>& examples) {
    ASSERT_FALSE(examples.empty());
    for (const std::string& e : examples) {
      const CliResult r = bash(e);
      EXPECT_EQ(r.exit_code, 0) << e << "\n" << r.out;
    }
  }
  std::string dir_, env_;
};

TEST_F(Examples, EveryHelpExampleRunsAsWritten) {
  std::vector<std::string> pages = {""};
  for (std::size_t i = 0; i < pages.size() && i < 100; ++i)  // every command, breadth first
    for (const std::string& sub : subcommands(cli(pages[i] + " --help").out))
      pages.push_back(pages[i].empty() ? sub : pages[i] + " " + sub);
  EXPECT_GE(pages.size(), 25u);
  std::vector<std::string> examples;
  std::set<std::string> seen;
  for (const std::string& page : pages) {
    const std::vector<std::string> mine = help_examples(cli(page + " --help").out);
    EXPECT_FALSE(mine.empty()) << "smemsim " << page << " --help has no example";
    for (const std::string& e : mine)
      if (seen.insert(e).second) examples.push_back(e);
  }
  EXPECT_GE(examples.size(), 60u);
  run_all(examples);
}

TEST_F(Examples, EveryReadmeExampleRunsAsWritten) {
  const std::vector<std::string> examples = readme_examples();
  EXPECT_GE(examples.size(), 15u);
  run_all(examples);
}

}  // namespace
}  // namespace smemsim::test

// Helpers shared by the tests: evaluate a LIST pattern on a preset, run the CLI.
#pragma once

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/pattern_list.hpp"

namespace smemsim::test {

// How many times slower than a release build this build runs (the asan preset: Debug with
// AddressSanitizer and UBSan). A test's time bound is there to catch a hang or a run of minutes,
// not to time the build, so it is scaled by this.
inline constexpr double kBuildSlowdown =
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
    15.0;
#else
    1.0;
#endif

inline AccessResult eval(const std::string& list, Op op = Op::Atomic,
                         const Arch& arch = default_arch()) {
  AccessEvaluator ev(arch);
  return ev.evaluate(parse_pattern_list(list, op, arch.warp_size, arch.memory_words()));
}

inline Arch with(std::string bank_hash, std::string lock_hash, Arch a = default_arch()) {
  a.bank_hash = std::move(bank_hash);
  a.lock_hash = std::move(lock_hash);
  validate(a);
  return a;
}

struct CliResult {
  int exit_code;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line; stderr is merged into the captured output.
inline CliResult shell(const std::string& cmd_line) {
  const std::string cmd = cmd_line + " 2>&1";
  CliResult r{-1, {}};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs the built CLI with `args` (a shell fragment).
inline CliResult cli(const std::string& args) {
  return shell(std::string(SMEMSIM_CLI) + " " + args);
}

// The contents of a file ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file in the temporary directory holding `text`; returns its path.
// Written to a file of this process and renamed into place: CTest runs tests in parallel
// processes, and two tests that write the same file (the same text) must never see it half written
// (TimingCli's two tests read "a module with 0 kernels" once).
inline std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "smemsim_" + name;
  const std::string part = path + ".part" + std::to_string(::getpid());
  FILE* f = std::fopen(part.c_str(), "wb");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  std::rename(part.c_str(), path.c_str());
  return path;
}

}  // namespace smemsim::test

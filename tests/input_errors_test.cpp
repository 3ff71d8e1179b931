// Bad input: each case is a one-line error on stderr, with file:line where a file is involved, and
// exit code 2 (DESIGN.md CLI conventions; issue 2 item 3).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;
using test::temp_file;

void expect_error(const test::CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("smemsim: error: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.out;
  // One line: the message and its newline, nothing else (no stack, no usage dump).
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(InputErrors, MalformedTraceLineNamesFileAndLine) {
  const auto f = temp_file("bad_op.trace", "# header comment\nld 0 1 2\nldx 0 1\n");
  expect_error(cli("analyze --trace " + f), f + ":3: field op: 'ldx'");
  const auto g = temp_file("bad_addr.trace", "ld 0 1 zz 3\n");
  expect_error(cli("analyze --trace " + g), g + ":1: lane 2: 'zz' is not an address");
  const auto h = temp_file("bad_pc.trace", "st pc=x 0 1\n");
  expect_error(cli("analyze --trace " + h), h + ":1: field pc");
}

TEST(InputErrors, AddressBeyondTheMemory) {
  // Fermi: 48 KiB = 12288 words.
  const auto f = temp_file("beyond.trace", "atom 0 1 12288\n");
  expect_error(cli("analyze --trace " + f),
               f + ":1: lane 2: word address 12288 is beyond the memory");
  expect_error(cli("analyze --pattern 0,99999"), "address 99999 is beyond the memory");
  // A byte-unit trace divides by 4 first: byte 49148 is word 12287, the last one.
  const auto ok = temp_file("bytes.trace", "smemsim-trace v1 unit=byte\nld 0 49148\n");
  EXPECT_EQ(cli("analyze --trace " + ok).exit_code, 0);
}

TEST(InputErrors, TooManyLanes) {
  std::string line = "ld";
  for (int i = 0; i < 33; ++i) line += " " + std::to_string(i);
  const auto f = temp_file("lanes.trace", line + "\n");
  expect_error(cli("analyze --trace " + f), f + ":1: more than 32 lanes");
  expect_error(cli("analyze --pattern 0..31,40"), "more than 32 lanes");
  const auto h = temp_file("hdr.trace", "smemsim-trace v1 warp=64\nld 0\n");
  expect_error(cli("analyze --trace " + h), h + ":1: header field warp: 64 lanes exceed");
}

TEST(InputErrors, UnknownArchKeyAndHash) {
  expect_error(cli("analyze --pattern 0 --arch fermi-gtx999"), "unknown arch 'fermi-gtx999'");
  expect_error(cli("analyze --pattern 0 --set memory.bankz=4"), "unknown key 'memory.bankz'");
  expect_error(cli("analyze --pattern 0 --set memory.banks=12"), "arch key 'memory.banks'");
  expect_error(cli("analyze --pattern 0 --set atomics.locks=100000"), "arch key 'atomics.locks'");
  expect_error(cli("analyze --pattern 0 --bank-hash nope"), "unknown hash family 'nope'");
  expect_error(cli("analyze --pattern 0 --model magic"), "unknown atomic model 'magic'");
  const auto t = temp_file("arch.toml", "[memory]\nbanks = 16\nbogus = 3\n");
  expect_error(cli("analyze --pattern 0 --arch-file " + t), t + ":3: unknown key 'memory.bogus'");
  const auto w = temp_file("arch_type.toml", "[memory]\nbanks = \"sixteen\"\n");
  expect_error(cli("analyze --pattern 0 --arch-file " + w), w + ":2: key 'memory.banks' must be");
}

// The keys issue 42 added take only their values, and an empty --arch-file is no silent "none".
TEST(InputErrors, WideAccessSharedFloatIfcvtAndAnEmptyArchFile) {
  expect_error(cli("analyze --pattern 0 --set memory.wide_access=pair"),
               "arch key 'memory.wide_access': 'pair' is not phases, pairs or words");
  expect_error(cli("analyze --pattern 0 --set atomics.shared_float=loop"),
               "arch key 'atomics.shared_float': 'loop' is not native or cas");
  expect_error(cli("analyze --pattern 0 --set sm.ifcvt_slots=0"),
               "key 'sm.ifcvt_slots': 0 is not between 1 and 64");
  expect_error(cli("analyze --pattern 0 --set sm.ifcvt_slots=100000000000000000000"),
               "is not a non-negative integer");
  expect_error(cli("analyze --pattern 0 --set sm.lower=vector,bssy,vectors"),
               "unknown lowering rule 'vectors'");
  expect_error(cli("analyze --pattern 0 --arch-file ''"), "--arch-file: the path is empty");
}

// Issue 47: a typo gets the names it is near, not the whole list; the usual short names work.
TEST(InputErrors, TyposGetTheNearestNamesAndShortNamesWork) {
  expect_error(cli("analyze --pattern 0 --arch volta-v10"),
               "unknown arch 'volta-v10': did you mean 'volta-v100'?");
  expect_error(cli("analyze --pattern 0 --arch a10"), "did you mean 'a100'");
  // An empty or one-letter name is a typo of nothing.
  for (const char* empty : {"''", "x"}) {
    const auto r = cli(std::string("analyze --pattern 0 --arch ") + empty);
    expect_error(r, "unknown arch");
    EXPECT_EQ(r.out.find("did you mean"), std::string::npos) << r.out;
  }
  expect_error(cli("analyze --pattern 0 --set memory.bankz=4"),
               "--set: unknown key 'memory.bankz': did you mean 'memory.banks'?");
  // Nothing near: where to look, in one short line.
  const auto far = cli("analyze --pattern 0 --set zzzzzzzz=1");
  expect_error(far, "unknown key 'zzzzzzzz': `smemsim arch show` lists every key");
  EXPECT_LT(far.out.size(), 120u) << far.out;
  const auto t = temp_file("arch_typo.toml", "[sm]\nl2_latncy = 100\n");
  expect_error(cli("analyze --pattern 0 --arch-file " + t),
               t + ":2: unknown key 'sm.l2_latncy': did you mean 'sm.l2_latency'?");
  for (const std::string& n : {"v100", "t4", "a100", "h100", "sm_80"}) {
    const auto r = cli("arch show " + n + " --json");
    EXPECT_EQ(r.exit_code, 0) << n << ": " << r.out;
  }
  EXPECT_NE(cli("arch show t4 --json").out.find("\"name\": \"turing-t4\""), std::string::npos);
  // Builtins, schedulers and pipelines too; exit 2 with the list still given.
  expect_error(cli("sim builtin:histogrm"),
               "unknown builtin 'histogrm': did you mean 'histogram'? (builtins: histogram,");
  expect_error(cli("sim builtin:histogram --scheduler lrrr"),
               "--scheduler: unknown scheduler 'lrrr': did you mean 'lrr'? (known: lrr,");
  expect_error(cli("sim builtin:histogram --pipeline elastc"),
               "--pipeline: unknown pipeline 'elastc': did you mean 'elastic'?");
  expect_error(cli("sim builtin:zzzzzzzz"), "unknown builtin 'zzzzzzzz' (builtins: histogram,");
}

TEST(InputErrors, EmptyFiles) {
  const auto f = temp_file("empty.trace", "");
  expect_error(cli("analyze --trace " + f), f + ": empty trace");
  const auto c = temp_file("comments.trace", "# nothing here\n\n");
  expect_error(cli("analyze --trace " + c), c + ": empty trace");
  const auto t = temp_file("empty.toml", "");
  expect_error(cli("analyze --pattern 0 --arch-file " + t), t + ": empty arch file");
  expect_error(cli("analyze --trace /nonexistent/x.trace"), "/nonexistent/x.trace: cannot open");
}

TEST(InputErrors, BadUsage) {
  EXPECT_EQ(cli("analyze").exit_code, 2);
  EXPECT_EQ(cli("analyze --pattern 0 --trace x").exit_code, 2);
  EXPECT_EQ(cli("frobnicate").exit_code, 2);
  EXPECT_EQ(cli("analyze --pattern 0 --op load").exit_code, 2);
  expect_error(cli("analyze --pattern 0,,1"), "empty item");
  expect_error(cli("analyze --pattern 5..2"), "runs backwards");
  expect_error(cli("gen stride --stride 1000 --count 2"), "outside the memory");
  // Negative counts were read as 2^64 - 1 (a hang); flag errors are one line too.
  expect_error(cli("gen random --space 10 --count -1"), "--count: must be at least 1");
  expect_error(cli("gen stride --stride -1"), "--stride: must not be negative");
  expect_error(cli("analyze --pattern 0 --bogus"), "--bogus");
  EXPECT_EQ(cli("analyze --help").exit_code, 0);
}

}  // namespace
}  // namespace smemsim

// The hash and classify commands through the CLI: bad input is exit 2 with a clear message.
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/hash_families.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;

void expect_error(const std::string& args, const std::string& words) {
  const auto r = cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("smemsim: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(words), std::string::npos) << args << "\n" << r.out;
}

TEST(HashCli, BadSpecs) {
  expect_error("analyze --pattern 0..31 --bank-hash nosuch", "unknown hash family 'nosuch'");
  expect_error("analyze --pattern 0..31 --bank-hash 'bvxor:k1=0,k2'", "not key=value");
  expect_error("analyze --pattern 0..31 --bank-hash 'bvxor:k1=0,k2=5,mask=64'",
               "wider than the 5-bit index");
  expect_error("analyze --pattern 0..31 --bank-hash 'bv:k=10'", "k=10 is out of range");
  expect_error("analyze --pattern 0..31 --bank-hash 'bvxor:k1=0,k2=14,mask=1'", "k2=14 is out");
  expect_error("analyze --pattern 0..31 --bank-hash 'bits:0,1,2,3'", "4 bits listed");
  expect_error("analyze --pattern 0..31 --bank-hash 'bits:0,1,2,3,3'", "listed twice");
  expect_error("analyze --pattern 0..31 --bank-hash 'bitsxor:0^0,1,2,3,4'", "with itself");
  expect_error("analyze --pattern 0..31 --bank-hash 'bitsxor:0,1,2,3,4^14'", "out of range");
  expect_error("analyze --pattern 0..31 --bank-hash 'xormask:1,2,4,8,0x4000'", "wider than the 14");
  expect_error("hash apply --pattern 0..31 --lock-hash 'bv:k'", "expected bv:k=K");
}

TEST(HashCli, BadSearches) {
  const std::string empty = test::temp_file("empty.trace", "# nothing here\n");
  expect_error("hash search --family bvxor --trace " + empty, "empty");
  const std::string ld = test::temp_file("ld.trace", "ld 0 1 2 3\n");
  expect_error("hash search --family bvxor --trace " + ld + " --op atom", "no shared-memory");
  expect_error("hash search --family nosuch --pattern 0..31", "unknown family 'nosuch'");
  expect_error("hash search --family bvxor --heuristic mih --pattern 0..31", "heuristic 'mih'");
  expect_error("hash search --family bitsxor --heuristic exhaustive --pattern 0..31",
               "does not take heuristic");
  expect_error("hash search --family bv --pattern 0..31 --banks 12", "power of two");
  expect_error("hash search --family bv --pattern 0..31 --emit ptx", "--emit");
  expect_error("hash search --family bits --banks 8 --addr-bits 5 --pattern 27,40", "address 40");
  expect_error("hash count --addr-bits 14 --bank-bits 0", "--bank-bits 0");
}

TEST(HashCli, EmitWorksWhenEveryStrideIsEven) {
  // Stride 2: §5.1's pruning alone would keep only k1 = 1, and no such bvxor is a software
  // bijection; --emit searches the whole space and finds one.
  std::string even;
  for (int a = 0; a < 64; a += 2) even += (even.empty() ? "" : ",") + std::to_string(a);
  for (const char* family : {"bvxor", "xormask"}) {
    const auto r =
        cli(std::string("hash search --family ") + family + " --pattern " + even + " --emit cuda");
    EXPECT_EQ(r.exit_code, 0) << family << "\n" << r.out;
    EXPECT_NE(r.out.find("__device__"), std::string::npos) << family << "\n" << r.out;
  }
}

TEST(HashCli, ListShowsEveryFamily) {
  const auto r = cli("hash list");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s : {"bv:k=K", "bvxor:k1=A,k2=B,mask=M", "bits:i0,i1,...",
                        "bitsxor:0^3,4,1^6,...", "xormask:0x..,0x..,...", "seed 002 §4.2"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(HashCli, SpecsRoundTripAndCoverEveryXorFunction) {
  const IndexGeometry g{5, 14};
  for (const char* s : {"bv:k=3", "bvxor:k1=1,k2=6,mask=3", "bits:4,3,0,1,2",
                        "bitsxor:0^3,4,1^6,2,5", "xormask:0x1f,0x2,0x4,0x8,0x10"}) {
    const auto f = make_index_function(s, g);
    EXPECT_EQ(f->spec(), s);
    // Every XOR-based function is an xormask: the same index on every address.
    const XorMatrix x = *xor_matrix_of(*f);
    const auto m = make_index_function(xormask_spec(x), g);
    for (std::uint32_t a = 0; a < (1u << 14); ++a)
      ASSERT_EQ(f->index(a), m->index(a)) << s << " " << a;
  }
  // 002 §5.1 Fig. 5: k1 = 2, k2 = 8, mask = 7 gives b0 = a2^a8, b1 = a3^a9, b2 = a4^a10, b3 = a5,
  // b4 = a6.
  const auto f = make_index_function("bvxor:k1=2,k2=8,mask=7", g);
  const auto want = make_index_function("bitsxor:2^8,3^9,4^10,5,6", g);
  for (std::uint32_t a = 0; a < (1u << 14); ++a) ASSERT_EQ(f->index(a), want->index(a)) << a;
}

TEST(HashCli, ClassifyCountsAndStrides) {
  std::string s6;
  for (int i = 0; i < 32; ++i) s6 += (i ? "," : "") + std::to_string(6 * i);
  const auto r =
      cli("classify --pattern 0..31 --pattern " + s6 + " --pattern 5,900,3,77,1000,2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"linear\": 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stride\": 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"random\": 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stride\": 6"), std::string::npos) << r.out;
  expect_error("classify", "exactly one of --trace");
}

TEST(HashCli, ApplyReportsAgainstModPerInstruction) {
  // Stride 32 on 32 banks: a 32-way conflict (31) under mod; xor spreads it (seed 000 §IV).
  std::string line;
  for (int i = 0; i < 32; ++i) line += " " + std::to_string(32 * i);
  const std::string t =
      test::temp_file("apply.trace", "ld pc=7" + line + "\nld pc=9 " + "0 1 2 3\n");
  const auto r = cli("hash apply --trace " + t + " --bank-hash xor --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"bank_conflicts\": 31"), std::string::npos) << r.out;  // baseline
  EXPECT_NE(r.out.find("\"bank_conflicts\": 0"), std::string::npos) << r.out;   // hashed
  EXPECT_NE(r.out.find("\"pc\": 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"pc\": 9"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim

namespace smemsim::test {
namespace {

// Emitted code is usable as a file (issue 10 item 1): stdout holds the code alone (the summary is
// on stderr), or -o writes it and stdout keeps the summary; -o without --emit is an error.
TEST(HashCli, EmittedCodeAloneOnStdoutOrInTheOutputFile) {
  const std::string dir = ::testing::TempDir();
  const std::string pat = " --family bvxor --pattern 0,16,32,48,64,80,96,112 ";
  for (const std::string kind : {"cuda", "cute"}) {
    const std::string file = dir + "smemsim_emit_stdout." + kind;
    const CliResult r = shell("(" + std::string(SMEMSIM_CLI) + " hash search" + pat + "--emit " +
                              kind + " > " + file + ")");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("candidates evaluated"), std::string::npos) << r.out;  // stderr
    const std::string code = shell("cat " + file).out;
    EXPECT_EQ(code.rfind("// smemsim:", 0), 0u) << code;
    EXPECT_EQ(code.find("candidates evaluated"), std::string::npos) << code;

    const std::string out = dir + "smemsim_emit_o." + kind;
    const CliResult o = cli("hash search" + pat + "--emit " + kind + " -o " + out);
    ASSERT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("code                 " + out), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("// smemsim:"), std::string::npos) << o.out;
    EXPECT_EQ(shell("cat " + out).out, code);
  }
  const CliResult bad = cli("hash search" + pat + "-o " + dir + "x.cuh");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("-o: give --emit"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace smemsim::test

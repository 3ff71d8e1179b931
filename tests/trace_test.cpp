// smemsim-trace v1: round trips, headers, comments, streaming, and the generators behind `gen`.
#include <gtest/gtest.h>

#include <sstream>

#include "smemsim/error.hpp"
#include "smemsim/patterns.hpp"
#include "smemsim/trace.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

std::vector<WarpAccess> read_all(const std::string& path, TraceLimits lim = {12288, 32}) {
  TraceReader r(path, lim);
  std::vector<WarpAccess> v;
  WarpAccess wa;
  while (r.next(wa)) v.push_back(wa);
  return v;
}

TEST(Trace, ParsesFieldsCommentsAndInactiveLanes) {
  const auto f = test::temp_file("fields.trace",
                                 "# a comment\n\nsmemsim-trace v1 unit=word warp=32\n"
                                 "atom pc=12 warp=3 0 1024 - 7   # trailing comment\n"
                                 "st 5\n");
  const auto v = read_all(f);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].op, Op::Atomic);
  EXPECT_EQ(v[0].pc, 12u);
  EXPECT_EQ(v[0].warp, 3u);
  EXPECT_EQ(v[0].active, 0b1011u);
  EXPECT_EQ(v[0].addr[1], 1024u);
  EXPECT_EQ(v[0].addr[3], 7u);
  EXPECT_EQ(v[1].op, Op::Store);
  EXPECT_EQ(v[1].active_count(), 1);
}

// A field given twice was read as its last value in silence (issue 28 item 5): now an error naming
// the field and the line.
TEST(Trace, AFieldGivenTwiceIsAnError) {
  const auto expect_error = [](const std::string& name, const std::string& text,
                               const std::string& needle) {
    try {
      read_all(test::temp_file(name, text));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("dup1.trace", "smemsim-trace v1 unit=word warp=32 unit=byte\nld 0\n",
               "dup1.trace:1: header field unit is given twice");
  expect_error("dup2.trace", "smemsim-trace v1 warp=32 warp=16\nld 0\n",
               "header field warp is given twice");
  expect_error("dup3.trace", "smemsim-trace v1\nld pc=3 warp=1 pc=4 0 1\n",
               "dup3.trace:2: field pc is given twice");
  expect_error("dup4.trace", "smemsim-trace v1\nld warp=1 warp=2 0 1\n",
               "field warp is given twice");
}

TEST(Trace, ByteUnitDividesByFour) {
  const auto f = test::temp_file("bytes2.trace", "smemsim-trace v1 unit=byte\nld 0 4 8 4096\n");
  const auto v = read_all(f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].addr[3], 1024u);
}

TEST(Trace, HeaderMustComeFirst) {
  const auto f = test::temp_file("late_header.trace", "ld 0\nsmemsim-trace v1\n");
  EXPECT_THROW(read_all(f), InputError);
}

TEST(Trace, WriterReaderRoundTrip) {
  std::vector<WarpAccess> in;
  GenCommon c;
  c.count = 50;
  c.op = Op::Atomic;
  c.memory_words = 12288;
  gen_random(c, 4096, 100, 42, [&](const WarpAccess& wa) { in.push_back(wa); });
  in[3].active &= ~LaneMask{0xF0};  // some inactive lanes in the middle
  in[4].active = 0;                 // and an access with none
  in[5].pc = 77;
  std::ostringstream os;
  TraceWriter w(os, 32);
  for (const auto& wa : in) w.write(wa);
  const auto f = test::temp_file("roundtrip.trace", os.str());
  const auto out = read_all(f);
  ASSERT_EQ(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].active, in[i].active) << i;
    EXPECT_EQ(out[i].pc, in[i].pc) << i;
    EXPECT_EQ(out[i].op, in[i].op) << i;
    for (int l = 0; l < 32; ++l)
      if (in[i].is_active(l)) EXPECT_EQ(out[i].addr[l], in[i].addr[l]) << i << "/" << l;
  }
}

TEST(Trace, LinesLongerThanTheBufferAndNoFinalNewline) {
  std::string text;
  for (int i = 0; i < 40000; ++i) text += "ld 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n";
  text += "st 9";  // no final newline
  const auto f = test::temp_file("big.trace", text);
  const auto v = read_all(f);
  ASSERT_EQ(v.size(), 40001u);
  EXPECT_EQ(v.back().op, Op::Store);
  EXPECT_EQ(v.back().addr[0], 9u);
}

TEST(Generators, RandomIsSeededAndInRange) {
  GenCommon c;
  c.count = 100;
  c.memory_words = 12288;
  std::vector<WarpAccess> a, b, d;
  gen_random(c, 300, 10, 5, [&](const WarpAccess& wa) { a.push_back(wa); });
  gen_random(c, 300, 10, 5, [&](const WarpAccess& wa) { b.push_back(wa); });
  gen_random(c, 300, 10, 6, [&](const WarpAccess& wa) { d.push_back(wa); });
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].addr, b[i].addr);
    differs |= a[i].addr != d[i].addr;
    for (int l = 0; l < 32; ++l) {
      EXPECT_GE(a[i].addr[l], 10u);
      EXPECT_LT(a[i].addr[l], 310u);
    }
  }
  EXPECT_TRUE(differs);
}

TEST(Generators, BlockReproducesTransposeStore) {
  // 002 §3.2.2: tile[tx][ty] with TILE_DIM 16: s = tx*16 + ty; warp 0 reads
  // 0, 16, 32, ..., 240, 1, 17, ..., 241 -- an 8-way bank conflict with 32 banks.
  GenCommon c;
  c.memory_words = 12288;
  BlockParams p;
  p.m = {0, 1, 1, 0};  // (tx) * cols + ty
  p.cols = 16;
  p.block_x = 16;
  std::vector<WarpAccess> v;
  gen_block(c, p, [&](const WarpAccess& wa) { v.push_back(wa); });
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].addr[1], 16u);
  EXPECT_EQ(v[0].addr[15], 240u);
  EXPECT_EQ(v[0].addr[16], 1u);
  EXPECT_EQ(v[0].addr[31], 241u);
  AccessEvaluator ev(default_arch());
  EXPECT_EQ(ev.evaluate(v[0]).degrees.bank, 8);
}

TEST(Generators, GenIndexExampleOf002Sec2) {
  // 002 §2: way = 4, stride = 32 -> [0 32 64 96 4 5 6 ... 31].
  GenCommon c;
  c.memory_words = 12288;
  WarpAccess w;
  gen_eq1(c, 4, 32, [&](const WarpAccess& wa) { w = wa; });
  EXPECT_EQ(w.addr[1], 32u);
  EXPECT_EQ(w.addr[3], 96u);
  EXPECT_EQ(w.addr[4], 4u);
  EXPECT_EQ(w.addr[31], 31u);
}

TEST(Cli, GenThenAnalyzeJson) {
  const std::string f = ::testing::TempDir() + "smemsim_gen_eq1.trace";
  ASSERT_EQ(test::cli("gen eq1 --conflicts 3 --stride 1024 --op atom --count 10 -o " + f).exit_code,
            0);
  const auto r = test::cli("analyze --trace " + f + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"accesses\": 10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"latency_cycles_mean\": 444.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"latency_cycles_total\": 4440"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"bank_conflicts\": 20"), std::string::npos) << r.out;
}

TEST(Cli, PatternJsonHasTheContractFields) {
  const auto r = test::cli("analyze --pattern 0,1024,2..31 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* k : {"\"bank_degree\": 2", "\"position_degree\": 1", "\"lock_degree\": 2",
                        "\"latency_cycles\": 260"})
    EXPECT_NE(r.out.find(k), std::string::npos) << k << " in " << r.out;
}

}  // namespace
}  // namespace smemsim

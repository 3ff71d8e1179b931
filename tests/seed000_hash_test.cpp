// Seed 000 (van den Braak et al., ICCD 2013) §IV-§V: the XOR and ADD hashes for banks and locks.
#include <gtest/gtest.h>

#include "smemsim/conflict.hpp"
#include "smemsim/patterns.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

using test::eval;
using test::with;

Arch four_banks(const std::string& hash) {
  Arch a = default_arch();
  a.banks = 4;
  a.bank_hash = hash;
  validate(a);
  return a;
}

TEST(Seed000Sec4Fig6, Stride5OnFourBanks) {
  // Fig. 6 / §IV: with padding the stride becomes 5: addresses 0, 5, 10, 15 on 4 banks.
  EXPECT_EQ(eval("0,5,10,15", Op::Load, four_banks("mod")).degrees.bank, 1);
  EXPECT_EQ(eval("0,5,10,15", Op::Load, four_banks("xor")).degrees.bank, 4);
  EXPECT_EQ(eval("0,5,10,15", Op::Load, four_banks("add")).degrees.bank, 2);
}

TEST(Seed000Sec5A, XorMovesTheConflictOf256ToBank8) {
  // §V.A: "address 256 of thread 1 now maps to bank 8, creating a bank conflict with thread 8".
  const Arch a = with("xor", "mod");
  ConflictAnalyzer an(a);
  WarpAccess wa = parse_pattern_list("0,256,2..31", Op::Atomic, 32, a.memory_words());
  an.load(wa, 0, 32);
  EXPECT_EQ(an.bank_of(1), 8u);
  EXPECT_EQ(an.bank_lanes(8), (LaneMask{1} << 1) | (LaneMask{1} << 8));
  EXPECT_EQ(an.bank_degree(), 2);
  EXPECT_EQ(eval("0,256,2..31", Op::Load, with("mod", "mod")).degrees.bank, 2);
}

TEST(Seed000Sec5A, XorTurnsThreeWayIntoTwoWay) {
  // §V.A: 0, 256, 512, 3..31: 3-way at bank 0 without a hash; 2-way with it (banks 8 and 16).
  EXPECT_EQ(eval("0,256,512,3..31", Op::Load, with("mod", "mod")).degrees.bank, 3);
  EXPECT_EQ(eval("0,256,512,3..31", Op::Load, with("xor", "mod")).degrees.bank, 2);
  EXPECT_EQ(eval("0,256,512,3..31", Op::Load, with("add", "mod")).degrees.bank, 2);
}

std::vector<WarpAccess> eq1(std::uint32_t conflicts, std::uint64_t stride) {
  std::vector<WarpAccess> v;
  GenCommon c;
  c.op = Op::Atomic;
  c.memory_words = default_arch().memory_words();
  gen_eq1(c, conflicts, stride, [&](const WarpAccess& wa) { v.push_back(wa); });
  return v;
}

TEST(Seed000Sec3Fig5, Eq1Stride256AddsALockConflictEveryFourBankConflicts) {
  // §III, Fig. 5c: "an extra lock conflict appears every four bank conflicts" (mod locks:
  // 256*4=1024).
  AccessEvaluator ev(default_arch());
  for (std::uint32_t c = 1; c <= 32; ++c) {
    const auto r = ev.evaluate(eq1(c, 256)[0]);
    EXPECT_EQ(r.degrees.bank, static_cast<int>(c)) << c;
    EXPECT_EQ(r.degrees.lock, static_cast<int>((c + 3) / 4)) << c;
  }
}

TEST(Seed000Sec3Fig5, Eq1Stride32HasNoLockConflicts) {
  AccessEvaluator ev(default_arch());
  for (std::uint32_t c = 1; c <= 32; ++c) EXPECT_EQ(ev.evaluate(eq1(c, 32)[0]).degrees.lock, 1);
}

TEST(Seed000Sec5A, XorLockHashRemovesEveryLockConflictOfEq1Stride256) {
  // §V.A: "The proposed hash functions remove all lock conflicts in Fig. 5c".
  for (const char* h : {"xor", "add"}) {
    AccessEvaluator ev(with("mod", h));
    for (std::uint32_t c = 1; c <= 32; ++c)
      EXPECT_EQ(ev.evaluate(eq1(c, 256)[0]).degrees.lock, 1) << h << " conflicts=" << c;
  }
}

TEST(Seed000Sec5A, HashesRemoveStride32BankConflicts) {
  // §V.A: "The bank conflicts of Fig. 5b can be removed completely by the proposed hash functions".
  for (const char* h : {"xor", "add"}) {
    AccessEvaluator ev(with(h, h));
    for (std::uint32_t c = 1; c <= 32; ++c)
      EXPECT_EQ(ev.evaluate(eq1(c, 32)[0]).degrees.bank, 1) << h << " conflicts=" << c;
  }
}

TEST(Seed000Sec5A, HashesCannotRemovePositionConflicts) {
  AccessEvaluator ev(with("xor", "xor"));
  for (std::uint32_t c = 1; c <= 32; ++c)
    EXPECT_EQ(ev.evaluate(eq1(c, 0)[0]).degrees.position, static_cast<int>(c));
}

TEST(IndexFunctions, XorAndAddAreTheTableIFormulas) {
  // Independent bit-level derivation: m = 5, address 0b01011'00110 (= 358).
  const auto x = make_index_function("xor", {5, 14});
  const auto a = make_index_function("add", {5, 14});
  const auto m = make_index_function("mod", {5, 14});
  EXPECT_EQ(m->index(358), 0b00110u);
  EXPECT_EQ(x->index(358), 0b00110u ^ 0b01011u);
  EXPECT_EQ(a->index(358), (0b00110u + 0b01011u) & 31u);
  EXPECT_EQ(x->spec(), "xor");
}

}  // namespace
}  // namespace smemsim

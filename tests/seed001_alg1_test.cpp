// Seed 001 (Gómez-Luna et al., TPDS 2013) §2.1: the worked examples of Algorithm 1 on a GTX 580 and
// the rules it generalizes. Each expected value is the paper's number or derived from the paper's
// stated rules (t_base 108, t_position 120, t_bank 32, t_bank-long 152, t_bank-short 64, t_extra
// 32).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim {
namespace {

using test::eval;

constexpr std::int64_t kBase = 108, kPosition = 120, kBankLong = 152, kBankShort = 64, kExtra = 32;

TEST(Seed001Sec214Alg1, LongBankConflict_0_1024_Is260) {
  // 001 §2.1.2: [0, 1024, 2, ..., 31] adds t_bank-long to the base latency.
  EXPECT_EQ(eval("0,1024,2..31").latency, 260);
  EXPECT_EQ(eval("0,1024,2..31").latency, kBase + kBankLong);
}

TEST(Seed001Sec214Alg1, ShortBankConflict_0_32_Is172) {
  // 001 §2.1.2: [0, 32, 2, ..., 31] adds t_bank-short = 2 x t_bank.
  EXPECT_EQ(eval("0,32,2..31").latency, 172);
  EXPECT_EQ(eval("0,32,2..31").latency, kBase + kBankShort);
}

TEST(Seed001Sec214Alg1, ThreeAliased_Is444) {
  // 001 §2.1.2: [0, 1024, 2048, 3, ..., 31] -> t_bank-long + t_bank-long + t_extra.
  EXPECT_EQ(eval("0,1024,2048,3..31").latency, 444);
  EXPECT_EQ(eval("0,1024,2048,3..31").latency, kBase + 2 * kBankLong + kExtra);
}

TEST(Seed001Sec214Alg1, ThreeAliasedPlusShort_Is508) {
  // 001 §2.1.2: [0, 1024, 2048, 32, 4, ..., 31] -> 2 t_bank-long + t_extra + t_bank-short.
  EXPECT_EQ(eval("0,1024,2048,32,4..31").latency, 508);
  EXPECT_EQ(eval("0,1024,2048,32,4..31").latency, kBase + 2 * kBankLong + kExtra + kBankShort);
}

TEST(Seed001Sec214Alg1, SecondAliasChainAddsAnotherExtra) {
  // 001 §2.1.2: [0, 1024, 2048, 32, 1056, 4, ..., 31] ->
  // t_bank-long + t_bank-long + t_extra + t_bank-short + t_bank-short + t_extra. (The paper's list
  // would have 33 lanes as printed; lane 4 holds 1056, so the remaining lanes are 5..31.)
  EXPECT_EQ(eval("0,1024,2048,32,1056,5..31").latency,
            kBase + 2 * kBankLong + kExtra + 2 * kBankShort + kExtra);
}

TEST(Seed001Sec214Alg1, FourLanesOnOneAddress_Is468) {
  // 001 §2.1.1: an n-way position conflict costs (n - 1) x t_position.
  const auto r = eval("0,0,0,0,4..31");
  EXPECT_EQ(r.latency, 468);
  EXPECT_EQ(r.degrees.position, 4);
  EXPECT_EQ(r.degrees.lock, 4);
  EXPECT_EQ(r.degrees.bank, 1);  // one word: a broadcast, not a bank conflict
}

TEST(Seed001Sec211Alg1, PositionConflictsStepByTPosition) {
  // 001 Fig. 2: n threads on one address, no bank conflicts: t_base + (n-1) t_position.
  // Lanes 0..n-1 update word 0; lane l >= n updates word l (its own bank, no aliasing).
  for (int n = 1; n <= 32; ++n) {
    std::string list;
    for (int l = 0; l < 32; ++l) list += (l ? "," : "") + std::to_string(l < n ? 0 : l);
    EXPECT_EQ(eval(list).latency, kBase + (n - 1) * kPosition) << "n = " << n;
  }
}

TEST(Seed001Sec212Alg1, Stride32BankConflictsCostTBankShortEach) {
  // 001 §2.1.2 / Fig. 3 (top): stride 32 keeps all addresses below 1024 (no aliasing), so an m-way
  // bank conflict costs (m - 1) x t_bank-short.
  for (int m = 1; m <= 32; ++m) {
    std::string list;
    for (int l = 0; l < 32; ++l) list += (l ? "," : "") + std::to_string(l < m ? l * 32 : l);
    const auto r = eval(list);
    EXPECT_EQ(r.degrees.lock, 1) << m;
    EXPECT_EQ(r.latency, kBase + (m - 1) * kBankShort) << "m = " << m;
  }
}

TEST(Seed001Sec212Alg1, LoadsAndStoresStepByTBank) {
  // 001 §2.1.2: non-atomic reads and writes pay t_bank per extra conflict level.
  EXPECT_EQ(eval("0..31", Op::Load).latency, default_arch().timing.ld_base);
  EXPECT_EQ(eval("0,32,64,3..31", Op::Load).latency - eval("0..31", Op::Load).latency, 2 * 32);
  EXPECT_EQ(eval("0,32,64,3..31", Op::Store).latency - eval("0..31", Op::Store).latency, 2 * 32);
}

TEST(Seed000Sec3Fsm, ConflictFreeWarpIs118) {
  // 000 §III: "a maximum of 8.5% at a conflict degree of 1 (108 vs. 118 cycles)": 32 + 18 + 36
  // + 32.
  Arch a = default_arch();
  a.atomic_model = "fsm";
  EXPECT_EQ(eval("0..31", Op::Atomic, a).latency, 118);
}

TEST(Seed000Sec3Fsm, PositionConflictRepeatsTheLoop) {
  // Each lock round re-runs Read/Update/Write/Branch: 4 lanes on one word -> 4 x 118.
  Arch a = default_arch();
  a.atomic_model = "fsm";
  EXPECT_EQ(eval("0,0,0,0,4..31", Op::Atomic, a).latency, 4 * 118);
  // A 2-way bank conflict (no aliasing) doubles the Read and the Write: 64 + 18 + 72 + 32.
  EXPECT_EQ(eval("0,32,2..31", Op::Atomic, a).latency, 64 + 18 + 72 + 32);
}

TEST(Degrees, InactiveLanesTakeNoPart) {
  const auto r = eval("0,-,-,-,1024");
  EXPECT_EQ(r.degrees.bank, 2);
  EXPECT_EQ(r.degrees.lock, 2);
  EXPECT_EQ(r.latency, 260);
  EXPECT_EQ(eval("-,-").latency, 0);
}

}  // namespace
}  // namespace smemsim

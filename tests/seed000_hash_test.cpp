// Seed 000 (van den Braak et al., ICCD 2013) §IV-§V: the XOR and ADD hashes for banks and locks.
#include <gtest/gtest.h>

#include "smemsim/conflict.hpp"
#include "smemsim/error.hpp"
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

Arch lock_reading(const std::string& lock_hash, const std::string& bits) {
  Arch a = default_arch();
  a.lock_hash = lock_hash;
  a.lock_hash_bits = bits;
  validate(a);
  return a;
}

TEST(Seed000Sec5A, XorLockHashRemovesEveryLockConflictOfEq1Stride256) {
  // §V.A: "The proposed hash functions remove all lock conflicts in Fig. 5c", under both readings
  // of which lock bits the hash makes. In-bank: word 256 c has bank 0 and lock-within-bank
  // (8 c mod 32) XOR (c / 4), distinct for c < 32 and never 0 but for c = 0; the lanes c' >= C
  // (word c') have banks c' != 0.
  for (const char* bits : {"in-bank", "all"})
    for (const char* h : {"xor", "add"}) {
      AccessEvaluator ev(lock_reading(h, bits));
      for (std::uint32_t c = 1; c <= 32; ++c)
        EXPECT_EQ(ev.evaluate(eq1(c, 256)[0]).degrees.lock, 1)
            << h << " " << bits << " conflicts=" << c;
    }
}

// Seed 000 §IV builds each hash from five bits (ten gates for banks and locks together) and Fig. 3
// puts 32 lock bits in each bank: in-bank keeps word bits 0..4 (the bank) and folds word bits
// 10..14 into lock bits 5..9. All folds word bits 10..19 into lock bits 0..9.
TEST(Seed000Sec4LockHash, InBankFoldsBits10To14IntoTheLockWithinTheBank) {
  const auto in_bank = make_lock_function(lock_reading("xor", "in-bank"));
  const auto all = make_lock_function(lock_reading("xor", "all"));
  // 1024 = bit 10: in-bank lock (bank 0, lock 1 in it) = 32; all: lock 1 (bank 1).
  EXPECT_EQ(in_bank->index(1024), 32u);
  EXPECT_EQ(all->index(1024), 1u);
  // 1056 = bits 10 and 5: in-bank (bank 0, 1 XOR 1 = 0) = 0; all: 32 XOR 1 = 33.
  EXPECT_EQ(in_bank->index(1056), 0u);
  EXPECT_EQ(all->index(1056), 33u);
  // 0b01011'00110'00111 = 11463: bank 7 kept; within 0b00110 XOR 0b01011 = 0b01101.
  EXPECT_EQ(in_bank->index(11463), (0b01101u << 5) | 0b00111u);
  // ... and all: lock bits 0..9 = 0b00110'00111 XOR 0b01011 = 0b00110'01100.
  EXPECT_EQ(all->index(11463), 0b0011001100u);
  // ADD within the bank: (0b00110 + 0b01011) mod 32 = 0b10001.
  EXPECT_EQ(make_lock_function(lock_reading("add", "in-bank"))->index(11463),
            (0b10001u << 5) | 0b00111u);
  // mod is the same function under both readings: word bits 0..9.
  for (std::uint32_t w : {0u, 31u, 1024u, 1056u, 11463u, 12287u}) {
    EXPECT_EQ(make_lock_function(lock_reading("mod", "in-bank"))->index(w), w & 1023u);
    EXPECT_EQ(make_lock_function(lock_reading("mod", "all"))->index(w), w & 1023u);
  }
  std::uint32_t in[3] = {1024, 1056, 11463}, out[3];
  in_bank->index_many(in, out, 3);
  EXPECT_EQ(out[0], 32u);
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], (0b01101u << 5) | 0b00111u);
}

TEST(Seed000Sec4LockHash, TheWholeLockReadingMakesNeighbouringBinsShareALock) {
  // 256 bins replicated 32 times (copy c = lane at c * 256 + bin): lane 0 votes bin 10 (word 10),
  // lane 4 bin 11 (word 4 * 256 + 11 = 1035). All: 1035 XOR (1035 >> 10) = 1034 -> lock 10 = lane
  // 0's lock. In-bank: bank 11, within (32 XOR 1) mod 32 = 1 -> lock 43: no conflict. The other
  // lanes take words 40..42 and 70..96 (locks equal to their words under both readings).
  const std::string list = "10,40,41,42,1035,70..96";
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("xor", "all")).degrees.lock, 2);
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("xor", "in-bank")).degrees.lock, 1);
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("mod", "in-bank")).degrees.lock, 1);
}

TEST(Seed000Sec4LockHash, Fig2PatternUnderEachReading) {
  // 000 Fig. 2: threads 0..9 on words 0, 32, 1, 33, 0, 1024, 1056, 2048, 8, 9, then 10..31.
  // mod: 0, 1024 and 2048 share lock 0 with the second 0: degree 4. In-bank XOR: 1024 -> 32
  // (with 32), 1056 -> 0 (with both 0s), 2048 -> 64: degree 3. All XOR: 1024 -> 1 (with 1),
  // 1056 -> 33 (with 33), 2048 -> 2: degree 2 (the two 0s).
  const std::string list = "0,32,1,33,0,1024,1056,2048,8..31";
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("mod", "in-bank")).degrees.lock, 4);
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("xor", "in-bank")).degrees.lock, 3);
  EXPECT_EQ(eval(list, Op::Atomic, lock_reading("xor", "all")).degrees.lock, 2);
}

TEST(Seed000Sec4LockHash, BadReadingsAreErrors) {
  Arch a = default_arch();
  a.lock_hash_bits = "low";
  EXPECT_THROW(validate(a), InputError);
  a = default_arch();
  a.locks = 32;  // one lock per bank: no lock-within-bank bits for a hash to make
  a.lock_hash = "xor";
  EXPECT_THROW(validate(a), InputError);
  a.lock_hash = "mod";
  EXPECT_NO_THROW(validate(a));
  a.lock_hash = "xor";
  a.lock_hash_bits = "all";
  EXPECT_NO_THROW(validate(a));
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

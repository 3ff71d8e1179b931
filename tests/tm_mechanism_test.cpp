// GPU-LocalTM's mechanisms on their own (seed 003 §3): the transactional masks of a warp against
// 003 Table 1, the Bloom filter against 003 §3.3's worked example, the three detection outcomes,
// false conflicts, and shadow memory restoring an aborted lane's writes.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/tm.hpp"

namespace smemsim::tm {
namespace {

// The 4-lane masks as 003 Table 1 prints them: WI0 leftmost.
std::string bits4(LaneMask m) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (m >> i) & 1 ? '1' : '0';
  return s;
}

Arch si() {
  return find_preset("southern-islands");  // 32 banks (003 Table 2)
}

// The code of 003 Fig. 2 run by a 4-lane wavefront whose masks are a WarpTx. Each line does what
// the figure's comment says; v1 is the work-item id and v2 holds 2 (Table 1's caption). The "if"
// leg writes word 64 + id (no conflict, as the caption assumes); the "else" leg is line 13, where
// WI2 and WI3 conflict: each stores to its own word and then loads the other's (words id and
// id ^ 1, banks 2 and 3), so each finds the other's signature in stage 1 — detected by CtaTm, not
// assumed. Returns Table 1's rows: line, EXEC, TCM, TCM OLD, Mode, Conflicts.
std::vector<std::string> run_fig2() {
  std::vector<std::string> rows;
  WarpTx tx;
  CtaTm cta(si(), 4, 128 * 4);
  std::vector<std::uint8_t> shared(128 * 4, 0);
  LaneMask exec = 0b1111, vcc = 0, s0 = 0;
  bool started = false;
  // Before the first attempt TCM and TCM OLD print as "-", and TCM OLD during the first attempt.
  auto row = [&](int line, Mode mode, const std::string& conflicts = "-") {
    const std::string tcm = started ? bits4(tx.tcm) : "-";
    const std::string old = started && tx.attempts > 1 ? bits4(tx.tcm_old) : "-";
    rows.push_back(std::to_string(line) + " " + bits4(exec) + " " + tcm + " " + old + " " +
                   std::string(mode_name(mode)) + " " + conflicts);
  };
  row(1, Mode::Normal);
  int line = 2;
  for (int guard = 0; guard < 100; ++guard) {
    switch (line) {
      case 2:                            // s_tx_begin
        exec = tx.begin(exec) | tx.tcm;  // EXEC keeps the lanes TCM holds back
        started = true;
        row(2, tx.mode);
        line = 3;
        break;
      case 3: {  // v_cmp_gt_f32 v2, v1: VCC = (2 > id) on the lanes that execute
        vcc = 0;
        const LaneMask run = exec & ~tx.tcm;
        for (int id = 0; id < 4; ++id)
          if ((run >> id) & 1 && 2 > id) vcc |= LaneMask{1} << id;
        line = 4;
        break;
      }
      case 4:  // s_mov_b64 s0, exec
        s0 = exec;
        line = 5;
        break;
      case 5:  // s_and_b64 exec, exec, vcc
        exec &= vcc;
        row(5, tx.mode);
        line = 6;
        break;
      case 6:  // s_cbranch_vccz label0
        line = vcc == 0 ? 10 : 8;
        break;
      case 8: {  // the "if" leg: word 64 + id, no conflict
        std::uint32_t words[4];
        for (std::uint32_t id = 0; id < 4; ++id) words[id] = 64 + id;
        tx.tcm |= cta.access(0, exec & ~tx.tcm, words, 1, shared.data()).conflicted;
        line = 10;
        break;
      }
      case 10:  // s_andn2_b64 exec, s0, exec
        exec = s0 & ~exec;
        row(10, tx.mode);
        line = exec == 0 ? 15 : 13;  // s_cbranch_execz label1
        break;
      case 13: {  // the "else" leg: store word id, then load word id ^ 1
        std::uint32_t own[4], other[4];
        for (std::uint32_t id = 0; id < 4; ++id) {
          own[id] = id;
          other[id] = id ^ 1;
        }
        LaneMask hit = cta.access(0, exec & ~tx.tcm, own, 1, shared.data()).conflicted;
        tx.tcm |= hit;
        const LaneMask second = cta.access(0, exec & ~tx.tcm, other, 1, shared.data()).conflicted;
        tx.tcm |= second;
        hit |= second;
        std::string who;
        for (int id = 0; id < 4; ++id)
          if ((hit >> id) & 1) who += (who.empty() ? "WI" : " and WI") + std::to_string(id);
        row(13, tx.mode, who.empty() ? "-" : who);
        line = 15;
        break;
      }
      case 15:  // s_mov_b64 exec, s0
        exec = s0;
        row(15, tx.mode);
        line = 16;
        break;
      case 16: {  // s_tx_commit: the committing lanes release their records
        const Mode mode = tx.mode;
        cta.commit(0, exec & ~tx.tcm);
        if (tx.commit()) {
          row(16, mode);
          return rows;
        }
        exec = tx.tcm;  // "copying TCM into EXEC ... and returning to the TX.Begin instruction"
        row(16, mode);
        line = 2;
        break;
      }
    }
  }
  ADD_FAILURE() << "the transaction did not commit";
  return rows;
}

// 003 Table 1, row for row (TCM OLD "-" until the first retry; the Conflicts column of lines 13).
TEST(TmTable1, Fig2TransactionReproducesTable1) {
  const std::vector<std::string> expected = {
      "1 1111 - - NORMAL -",
      "2 1111 0000 - TX -",
      "5 1100 0000 - TX -",
      "10 0011 0000 - TX -",
      "13 0011 0011 - TX WI2 and WI3",
      "15 1111 0011 - TX -",
      "16 0011 0011 - TX -",
      "2 0011 0000 0011 TX -",
      "5 0000 0000 0011 TX -",
      "10 0011 0000 0011 TX -",
      "13 0011 0011 0011 TX WI2 and WI3",
      "15 0011 0011 0011 TX -",
      "16 0011 0011 0011 TX -",
      "2 0011 0001 0011 WF Serial. -",
      "5 0000 0001 0011 WF Serial. -",
      "10 0011 0001 0011 WF Serial. -",
      "13 0011 0001 0011 WF Serial. -",
      "15 0011 0001 0011 WF Serial. -",
      "16 0001 0001 0011 WF Serial. -",
      "2 0001 0000 0001 TX -",
      "5 0000 0000 0001 TX -",
      "10 0001 0000 0001 TX -",
      "13 0001 0000 0001 TX -",
      "15 0001 0000 0001 TX -",
      "16 0001 0000 0001 TX -",
  };
  EXPECT_EQ(run_fig2(), expected);
}

// The mode escalates only on an unchanged TCM: wavefront, then work-group serialization; a changed
// TCM returns to TX (003 §3.1).
TEST(TmWarpTx, SerializationEscalatesOnlyOnARepeatedTcm) {
  WarpTx tx;
  EXPECT_EQ(tx.begin(0b1111), 0b1111u);
  tx.tcm = 0b0110;
  ASSERT_FALSE(tx.commit());
  EXPECT_EQ(tx.begin(0b0110), 0b0110u);  // first retry: TCM OLD was empty
  EXPECT_EQ(tx.mode, Mode::Tx);
  tx.tcm = 0b0110;
  ASSERT_FALSE(tx.commit());
  EXPECT_EQ(tx.begin(0b0110), 0b0010u);  // same TCM twice: one lane, the lowest
  EXPECT_EQ(tx.mode, Mode::WavefrontSerial);
  EXPECT_EQ(tx.tcm, 0b0100u);
  tx.tcm = 0b0110;  // the lone lane conflicted with another warp: TCM unchanged again
  ASSERT_FALSE(tx.commit());
  EXPECT_EQ(tx.begin(0b0110), 0b0010u);
  EXPECT_EQ(tx.mode, Mode::WorkgroupSerial);
  tx.tcm = 0b0100;  // lane 1 committed
  ASSERT_FALSE(tx.commit());
  EXPECT_EQ(tx.begin(0b0100), 0b0100u);  // a new TCM: back to TX
  EXPECT_EQ(tx.mode, Mode::Tx);
  EXPECT_TRUE(tx.commit());
  EXPECT_EQ(tx.mode, Mode::Normal);
  EXPECT_EQ(tx.attempts, 5u);
}

// 003 §3.3: "work-item 3 intends to access the memory location 35. This memory location is stored
// in the bank 35 % 32 = 3, and inside this bank it is stored in the position 35 / 32 = 1. Then
// work-item 3 must check the bit 1 % 8 = 1".
TEST(TmBloom, PaperExampleWord35IsBank3Bit1) {
  const Arch a = si();
  EXPECT_EQ(bloom_bank(a, 35), 3u);
  EXPECT_EQ(bloom_bit(a, 35), 1u);
  Arch w = a;
  w.tm.bloom_index = "word";  // the literal "address % 8": 35 % 8 = 3
  EXPECT_EQ(bloom_bit(w, 35), 3u);
  // Position 9 of bank 3 (word 3 + 9 x 32 = 291) aliases position 1 in 8 bits.
  EXPECT_EQ(bloom_bank(a, 291), 3u);
  EXPECT_EQ(bloom_bit(a, 291), 1u);
}

std::uint32_t word_at(const std::vector<std::uint8_t>& s, std::uint32_t w) {
  std::uint32_t v;
  std::memcpy(&v, s.data() + 4 * w, 4);
  return v;
}

// The three stage-1 outcomes and stage 2, with the detector's own view and the counts.
TEST(TmDetect, NewRepeatAndConflictingAccesses) {
  const Arch a = si();
  CtaTm cta(a, 256, 1024 * 4);
  std::vector<std::uint8_t> shared(1024 * 4, 0);
  const Ownership none;
  // Lane 3 of warp 0 = thread 3 accesses word 35: a new access, then a repeated one.
  std::uint32_t words[64] = {};
  words[3] = 35;
  auto r = cta.access(0, LaneMask{1} << 3, words, 1, shared.data());
  EXPECT_EQ(r.conflicted, 0u);
  EXPECT_EQ(cta.owner(35), 3u);
  r = cta.access(0, LaneMask{1} << 3, words, 1, shared.data());
  EXPECT_EQ(r.conflicted, 0u);
  EXPECT_EQ(cta.stats().new_accesses, 1u);
  EXPECT_EQ(cta.stats().repeat_accesses, 1u);
  // Thread 70 (lane 6 of warp 1) on the same word: another thread's signature hits, a true
  // conflict.
  std::uint32_t w1[64] = {};
  w1[6] = 35;
  r = cta.access(64, LaneMask{1} << 6, w1, 1, shared.data());
  EXPECT_EQ(r.conflicted, LaneMask{1} << 6);
  EXPECT_EQ(cta.stats().conflicts_true, 1u);
  // Word 291 (bank 3, position 9 -> bit 1): nobody owns it, yet thread 3's signature has bit 1 of
  // bank 3: a false conflict under bloom, a new access under exact.
  w1[6] = 291;
  r = cta.access(64, LaneMask{1} << 6, w1, 1, shared.data());
  EXPECT_EQ(r.conflicted, LaneMask{1} << 6);
  EXPECT_EQ(cta.stats().conflicts_false, 1u);
  Arch exact = a;
  exact.tm.detector = "exact";
  CtaTm ex(exact, 256, 1024 * 4);
  ex.access(0, LaneMask{1} << 3, words, 1, shared.data());
  r = ex.access(64, LaneMask{1} << 6, w1, 1, shared.data());
  EXPECT_EQ(r.conflicted, 0u);
  EXPECT_EQ(ex.stats().conflicts_false, 0u);
  // After thread 3 commits, word 35 is free for anyone.
  cta.commit(0, LaneMask{1} << 3);
  w1[6] = 35;
  r = cta.access(64, LaneMask{1} << 6, w1, 1, shared.data());
  EXPECT_EQ(r.conflicted, 0u);
  EXPECT_EQ(cta.owner(35), 70u);
}

// Within one bank the lanes are served in ascending order: of two lanes on one word the first
// takes it and the second conflicts; lanes on other banks are unaffected.
TEST(TmDetect, SameWordInOneInstructionTheFirstLaneWins) {
  CtaTm cta(si(), 32, 256);
  std::vector<std::uint8_t> shared(256, 0);
  std::uint32_t words[32];
  for (std::uint32_t l = 0; l < 32; ++l) words[l] = l;
  words[9] = 5;  // lane 9 and lane 5 on word 5
  const auto r = cta.access(0, 0xffffffffu, words, 1, shared.data());
  EXPECT_EQ(r.conflicted, LaneMask{1} << 9);
  EXPECT_EQ(cta.owner(5), 5u);
}

// Eager version management (003 §3.2): the old value is saved before the first write; an abort
// restores every word the lane touched and clears its records, whatever bank they are in.
TEST(TmShadow, AbortRestoresThePreTransactionMemory) {
  const Arch a = si();
  CtaTm cta(a, 64, 512 * 4);
  std::vector<std::uint8_t> shared(512 * 4);
  for (std::uint32_t w = 0; w < 512; ++w) {
    const std::uint32_t v = 1000 + w;
    std::memcpy(shared.data() + 4 * w, &v, 4);
  }
  const std::vector<std::uint8_t> before = shared;
  // Lane 2 writes words 7, 40 and 300 (banks 7, 8, 12); lane 4 writes word 9.
  std::uint32_t words[64] = {};
  for (std::uint32_t w : {7u, 40u, 300u}) {
    words[2] = w;
    words[4] = 9;
    const LaneMask lanes = (LaneMask{1} << 2) | (w == 7 ? LaneMask{1} << 4 : 0);
    ASSERT_EQ(cta.access(0, lanes, words, 1, shared.data()).conflicted, 0u);
    const std::uint32_t v = 7;
    std::memcpy(shared.data() + 4 * w, &v, 4);  // the store the executor would do
  }
  const std::uint32_t nine = 99;
  std::memcpy(shared.data() + 36, &nine, 4);
  EXPECT_EQ(cta.backup(300), 1300u);
  const std::uint32_t cycles = cta.abort(0, LaneMask{1} << 2, shared.data());
  for (std::uint32_t w : {7u, 40u, 300u}) {
    EXPECT_EQ(word_at(shared, w), 1000 + w) << w;
    EXPECT_EQ(cta.owner(w), Ownership::kNone) << w;
  }
  EXPECT_EQ(word_at(shared, 9), 99u);  // lane 4's write stands
  EXPECT_EQ(cta.owner(9), 4u);
  EXPECT_EQ(cta.stats().restored_words, 3u);
  EXPECT_EQ(cycles, 1u);  // one entry per bank, the banks in parallel (003 §4.2)
  std::vector<std::uint8_t> expect = before;
  std::memcpy(expect.data() + 36, &nine, 4);
  EXPECT_EQ(shared, expect);
}

// 003 §4.2's costs: the signature query (1) then, per bank, 2 per new access and 1 per repeated
// one; conflicts add the broadcast's restores; perfect costs nothing.
TEST(TmCosts, AccessCyclesFollowTheSlowestBank) {
  Arch a = si();
  CtaTm cta(a, 128, 256 * 4);
  std::vector<std::uint8_t> shared(256 * 4, 0);
  std::uint32_t words[64];
  // Lanes 0..3 on words 0, 32, 64, 96: all in bank 0, new accesses: 1 + 4 x 2 = 9.
  for (std::uint32_t l = 0; l < 4; ++l) words[l] = 32 * l;
  EXPECT_EQ(cta.access(0, 0b1111, words, 1, shared.data()).cycles, 9u);
  // The same again: repeated accesses, 1 + 4 x 1 = 5.
  EXPECT_EQ(cta.access(0, 0b1111, words, 1, shared.data()).cycles, 5u);
  // Lanes 0..3 of warp 1 (threads 64..67) on one bank each: all conflict (true); the broadcast
  // restores nothing of theirs: 1 + 0.
  EXPECT_EQ(cta.access(64, 0b1111, words, 1, shared.data()).cycles, 1u);
  EXPECT_EQ(cta.commit(0, 0b1111), 1u + 4u);  // 1 + the 4 entries of bank 0
  a.tm.timing = "perfect";
  CtaTm p(a, 128, 256 * 4);
  EXPECT_EQ(p.access(0, 0b1111, words, 1, shared.data()).cycles, 0u);
  EXPECT_EQ(p.commit(0, 0b1111), 0u);
}

TEST(TmShadow, SizeIsDataPlusBackupsPlusOwnerBytes) {
  // 003 §4.3: with 64 KB "the use of GPU-LocalTM reduces the amount of local memory available for
  // a single work-group to a maximum of 29,127 bytes. The same amount of memory is allocated for
  // backups ... and 7282 bytes are used for the ownership records": 29,127 x 2.25 = 65,536.
  EXPECT_EQ(shadow_bytes(29124, 256), 29124u + 7281u);
  EXPECT_LE(29124 + shadow_bytes(29124, 256), 65536u);
  EXPECT_GT(29128 + shadow_bytes(29128, 256), 65536u);
  EXPECT_EQ(shadow_bytes(400, 512), 400u + 200u);  // two owner bytes past 256 threads
}

// A misspelt choice silently meant the default (tm.timing = perfekt timed as paper).
TEST(TmRegistry, ArchKeysRefuseUnknownChoices) {
  for (const char* set : {"tm.timing=perfekt", "tm.bloom_index=adress", "tm.detector=oracle"}) {
    Arch a = si();
    apply_override(a, set);
    EXPECT_THROW(validate(a), InputError) << set;
  }
  Arch ok = si();
  apply_override(ok, "tm.timing=perfect");
  apply_override(ok, "tm.bloom_index=word");
  EXPECT_NO_THROW(validate(ok));
}

TEST(TmRegistry, DetectorsAreListedAndUnknownOnesNamed) {
  ASSERT_EQ(detectors().size(), 2u);
  Arch a = si();
  a.tm.detector = "oracle";
  try {
    make_detector(a, 4);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown detector 'oracle' (known: bloom, exact)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace smemsim::tm

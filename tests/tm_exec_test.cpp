// GPU-LocalTM in the SIMT executor, on hand-written PTX (no nvcc needed): 003 Table 1's
// TX.Begin / conflict / TX.Commit rows from a real kernel, register restore on retries, forward
// progress when every lane conflicts, work-group serialization stalling the other warp, and the
// errors of seed 003 §3 and §4.3.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

const char* kHeader = R"(.version 7.0
.target sm_75
.address_size 64
)";

struct Fixture {
  ptx::Module module;
  GlobalMemory mem;
  Launch launch;

  Fixture(const std::string& body, std::uint32_t threads, std::size_t out_words) {
    module = ptx::parse(std::string(kHeader) + body, "tx.ptx");
    launch.grid = {1, 1, 1};
    launch.block = {threads, 1, 1};
    launch.args = {
        Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(out_words * 4)}))};
  }
  std::vector<std::uint32_t> out() {
    const Buffer& b = mem.get("out");
    std::vector<std::uint32_t> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
};

// 003 Fig. 2 as PTX: an if-then-else inside a transaction. Lanes 0 and 1 take the "if" leg and
// write s[64 + tid]; lanes 2 and 3 take the "else" leg, store s[tid] and load s[tid ^ 1], so each
// finds the other's signature. out[tid] = s[tid], out[4 + tid] = s[64 + tid], out[8 + tid] = the
// loaded value.
const char* kFig2 = R"(
.visible .entry fig2(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 s[128];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  xor.b32 %r5, %r1, 1;
  shl.b32 %r5, %r5, 2;
  add.u32 %r6, %r2, %r5;
  mov.u32 %r7, 77;
  tx.begin;
  setp.lt.u32 %p1, %r1, 2;
  @!%p1 bra ELSE;
  st.shared.u32 [%r4+256], %r1;
  bra.uni END;
ELSE:
  st.shared.u32 [%r4], %r1;
  ld.shared.u32 %r7, [%r6];
END:
  tx.commit;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.shared.u32 %r8, [%r4];
  st.global.u32 [%rd3], %r8;
  ld.shared.u32 %r9, [%r4+256];
  st.global.u32 [%rd3+16], %r9;
  st.global.u32 [%rd3+32], %r7;
  ret;
}
)";

std::string bits4(LaneMask m) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (m >> i) & 1 ? '1' : '0';
  return s;
}

// The executor's events are 003 Table 1's rows of lines 2 (TX.Begin), 13 (the conflict) and 16
// (TX.Commit), attempt for attempt, including the switch to wavefront serialization and the final
// commit. (The mask-level table, every row, is TmTable1 in tm_mechanism_test.cpp.)
TEST(TmExec, Fig2KernelGivesTable1sBeginConflictAndCommitRows) {
  Fixture f(kFig2, 4, 12);
  Executor ex(f.module, f.module.kernels.at(0), find_preset("southern-islands"), f.launch, f.mem);
  std::vector<std::string> rows;
  ex.set_tx_observer([&](const TxEvent& e) {
    const char* kind[] = {"begin", "conflict", "commit"};
    rows.push_back(std::string(kind[int(e.kind)]) + " " + bits4(e.exec) + " " + bits4(e.tcm) + " " +
                   bits4(e.tcm_old) + " " + std::string(tm::mode_name(e.mode)));
  });
  ex.run();
  const std::vector<std::string> expected = {
      "begin 1111 0000 0000 TX",         "conflict 0011 0011 0000 TX",
      "commit 0011 0011 0000 TX",        "begin 0011 0000 0011 TX",
      "conflict 0011 0011 0011 TX",      "commit 0011 0011 0011 TX",
      "begin 0011 0001 0011 WF Serial.", "commit 0001 0001 0011 WF Serial.",
      "begin 0001 0000 0001 TX",         "commit 0001 0000 0001 TX",
  };
  EXPECT_EQ(rows, expected);
  // Lanes 0, 1 committed in the first attempt, lane 2 alone in the third (it loaded s[3], still
  // 0), lane 3 in the fourth (it loaded s[2] = 2). Lanes 0 and 1 kept %r7 = 77.
  const std::vector<std::uint32_t> out = f.out();
  EXPECT_EQ(std::vector<std::uint32_t>(out.begin(), out.begin() + 4),
            (std::vector<std::uint32_t>{0, 0, 2, 3}));
  EXPECT_EQ(std::vector<std::uint32_t>(out.begin() + 4, out.begin() + 8),
            (std::vector<std::uint32_t>{0, 1, 0, 0}));
  EXPECT_EQ(std::vector<std::uint32_t>(out.begin() + 8, out.end()),
            (std::vector<std::uint32_t>{77, 77, 0, 2}));
  const tm::TmStats& st = ex.stats().tm;
  EXPECT_EQ(st.transactions, 1u);
  EXPECT_EQ(st.attempts, 4u);
  // One transaction site: the tx.begin at line 21 (kHeader's 3 lines, a blank line, then the
  // kernel's 17th), with the same counts.
  ASSERT_EQ(ex.stats().tm_sites.size(), 1u);
  EXPECT_EQ(f.module.kernels[0].code[ex.stats().tm_sites[0].first].ptx_line, 21u);
  EXPECT_EQ(ex.stats().tm_sites[0].second.attempts, 4u);
  EXPECT_EQ(ex.stats().tm_sites[0].second.lane_aborts, 4u);
  EXPECT_EQ(st.wf_serial_attempts, 1u);
  EXPECT_EQ(st.lane_commits, 4u);
  EXPECT_EQ(st.lane_aborts, 4u);  // WI2 and WI3, twice
  EXPECT_EQ(st.conflicts_true, 4u);
}

// Every lane increments s[0] inside a transaction and bumps a register (%r9 = 10 + 1) on the way:
// a read-modify-write on one word, the worst case. %r9 must be restored on each retry, s[0] must
// count each lane exactly once, and the threads must finish (forward progress, 003 §3.1).
const char* kCounter = R"(
.visible .entry counter(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  mov.u32 %r9, 10;
  tx.begin;
  add.u32 %r9, %r9, 1;
  ld.shared.u32 %r3, [%r2];
  add.u32 %r3, %r3, 1;
  st.shared.u32 [%r2], %r3;
  tx.commit;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ld.shared.u32 %r4, [%r2];
  st.global.u32 [%rd1+4096], %r4;
  ret;
}
)";

TEST(TmExec, RegistersAreRestoredAndEveryLaneCommitsOnce) {
  Fixture f(kCounter, 64, 1025);
  Executor ex(f.module, f.module.kernels.at(0), default_arch(), f.launch, f.mem);
  ex.run();
  const std::vector<std::uint32_t> out = f.out();
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 11u) << "thread " << t;
  EXPECT_EQ(out[1024], 64u);
  const tm::TmStats& st = ex.stats().tm;
  EXPECT_EQ(st.lane_commits, 64u);
  EXPECT_EQ(st.transactions, 2u);
  // run() executes warp 0 to the end before warp 1: within a warp the lanes queue on the word in
  // lane order, one commit per attempt, and the TCM shrinks each time: 32 attempts, no
  // serialization.
  EXPECT_EQ(st.attempts, 64u);
  EXPECT_EQ(st.wf_serial_attempts + st.wg_serial_attempts, 0u);
}

// A retry restores only the rows the transaction's code names (Impl::tx_rows, issue 49), unless
// that code branches out of the span from TX.Begin to TX.Commit. Here the bump of %r9 sits after
// the kernel's ret, reached by a branch out and back: %r9 is named nowhere in the span, so only
// that rule restores it, and each thread must still store 10 + 1 (one bump by its committing
// attempt), with s[0] counting each lane once.
TEST(TmExec, ARetryRestoresARegisterWrittenOutsideTheTransactionsSpan) {
  // kCounter with the bump moved past the kernel's ret, reached by a branch out and back.
  std::string ptx = kCounter;
  const std::string bump = "  add.u32 %r9, %r9, 1;\n";
  ptx.replace(ptx.find(bump), bump.size(), "  bra.uni BUMP;\nBACK:\n");
  const std::string end = "  ret;\n}";
  ptx.replace(ptx.find(end), end.size(), "  ret;\nBUMP:\n" + bump + "  bra.uni BACK;\n}");
  Fixture f(ptx, 64, 1025);
  Executor ex(f.module, f.module.kernels.at(0), default_arch(), f.launch, f.mem);
  ex.run();
  const std::vector<std::uint32_t> out = f.out();
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 11u) << "thread " << t;
  EXPECT_EQ(out[1024], 64u);
  EXPECT_GT(ex.stats().tm.attempts, ex.stats().tm.transactions);  // it did retry
}

// Work-group serialization (003 §3.1): warp 1 enters its transaction and takes s[0]; warp 0 then
// runs alone. Its 32 lanes conflict on s[0] (attempt 1), again with the same TCM (attempt 2), its
// lone lane 0 still conflicts in wavefront serialization (attempt 3), so attempt 4 runs work-group
// serialized: warp 1's transaction is aborted (its record of s[0] restored) and warp 1 stalls at
// TX.Begin (TxWait) until warp 0's attempt ends. Then both finish with every lane counted once.
TEST(TmExec, WorkgroupSerializationStallsTheOtherWarpAndFinishes) {
  Fixture f(kCounter, 64, 1025);
  Executor ex(f.module, f.module.kernels.at(0), default_arch(), f.launch, f.mem);
  std::vector<std::string> w0;
  bool wg_begun = false;
  ex.set_tx_observer([&](const TxEvent& e) {
    if (e.warp != 0) return;
    const char* kind[] = {"begin", "conflict", "commit"};
    w0.push_back(std::string(kind[int(e.kind)]) + " " + std::string(tm::mode_name(e.mode)));
    if (e.kind == TxEvent::Kind::Begin && e.mode == tm::Mode::WorkgroupSerial) wg_begun = true;
  });
  ex.start_cta(0, 0);
  // Warp 1 up to and including its ld.shared of s[0] (ld.param, cvta, 3 x mov, tx.begin, add, ld).
  for (int i = 0; i < 8; ++i) ex.issue(0, 1);
  for (int i = 0; i < 1000 && !wg_begun; ++i) ex.issue(0, 0);
  ASSERT_TRUE(wg_begun);
  const std::vector<std::string> expected = {
      "begin TX",          "conflict TX",     "commit TX",        "begin TX",
      "conflict TX",       "commit TX",       "begin WF Serial.", "conflict WF Serial.",
      "commit WF Serial.", "begin WG Serial."};
  EXPECT_EQ(w0, expected);
  ASSERT_EQ(ex.state(0, 1), WarpState::Ready);
  ex.issue(0, 1);  // warp 1 was sent back to TX.Begin, where it now waits
  EXPECT_EQ(ex.state(0, 1), WarpState::TxWait);
  for (int step = 0; step < 100000 && !ex.cta_done(0); ++step)
    for (std::uint32_t w = 0; w < 2; ++w)
      if (ex.state(0, w) == WarpState::Ready) ex.issue(0, w);
  ASSERT_TRUE(ex.cta_done(0));
  const std::vector<std::uint32_t> out = f.out();
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 11u) << "thread " << t;
  EXPECT_EQ(out[1024], 64u);
  const tm::TmStats& st = ex.stats().tm;
  EXPECT_EQ(st.lane_commits, 64u);
  EXPECT_GE(st.wg_serial_attempts, 1u);
}

// The cycle model recomputes a CTA's other warps only after an issue that says it moved them
// (IssueResult::moved_others, issue 49): in the scenario above, every issue that changes the other
// warp's state or next instruction must say so, and the two that must (warp 0's work-group
// serialized TX.Begin aborting warp 1, and the end of that attempt releasing warp 1 from TX.Begin)
// do.
TEST(TmExec, AnIssueThatMovesAnotherWarpSaysSo) {
  Fixture f(kCounter, 64, 1025);
  Executor ex(f.module, f.module.kernels.at(0), default_arch(), f.launch, f.mem);
  ex.start_cta(0, 0);
  std::uint32_t moved = 0, aborted = 0, released = 0;
  auto step = [&](std::uint32_t w) {
    const std::uint32_t o = 1 - w;
    const WarpState state = ex.state(0, o);
    const std::uint32_t next = ex.next_index(0, o);
    const IssueResult r = ex.issue(0, w);
    const bool changed = ex.state(0, o) != state || ex.next_index(0, o) != next;
    EXPECT_TRUE(!changed || r.moved_others) << "warp " << w << " at instruction " << r.index;
    moved += r.moved_others;
    aborted += r.moved_others && r.op == ptx::Opcode::TxBegin && ex.next_index(0, o) != next;
    released += r.moved_others && state == WarpState::TxWait && ex.state(0, o) == WarpState::Ready;
  };
  for (int i = 0; i < 8; ++i) step(1);  // warp 1 into its transaction, holding s[0]
  for (int i = 0; i < 1000 && aborted == 0; ++i) step(0);
  EXPECT_EQ(aborted, 1u);
  EXPECT_EQ(moved, 1u);  // no issue before the work-group serialized TX.Begin moved warp 1
  step(1);               // back at TX.Begin, where it waits
  ASSERT_EQ(ex.state(0, 1), WarpState::TxWait);
  for (int i = 0; i < 100000 && !ex.cta_done(0); ++i)
    for (std::uint32_t w = 0; w < 2; ++w)
      if (ex.state(0, w) == WarpState::Ready) step(w);
  ASSERT_TRUE(ex.cta_done(0));
  EXPECT_GE(released, 1u);
}

// Nested transactions are flattened: the inner pair is a no-op, a retry restarts at the outer
// TX.Begin.
TEST(TmExec, NestedTransactionsAreFlattened) {
  std::string nested = kCounter;
  const std::string begin = "  tx.begin;\n";
  nested.replace(nested.find(begin), begin.size(), "  tx.begin;\n  tx.begin;\n");
  const std::string commit = "  tx.commit;\n";
  nested.replace(nested.find(commit), commit.size(), "  tx.commit;\n  tx.commit;\n");
  Fixture f(nested, 32, 1025);
  Executor ex(f.module, f.module.kernels.at(0), default_arch(), f.launch, f.mem);
  ex.run();
  EXPECT_EQ(f.out()[1024], 32u);
  EXPECT_EQ(f.out()[5], 11u);
  EXPECT_EQ(ex.stats().tm.transactions, 1u);
}

std::string error_of(const std::string& body, std::uint32_t threads, const Arch& arch) {
  try {
    Fixture f(body, threads, 1025);
    Executor ex(f.module, f.module.kernels.at(0), arch, f.launch, f.mem);
    ex.run();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

// 003 §3: "Barrier instructions are not allowed within a transaction".
TEST(TmErrors, BarrierInsideATransactionNamesTheLine) {
  const std::string bar = replaced(kCounter, "  tx.commit;\n", "  bar.sync 0;\n  tx.commit;\n");
  const std::string e = error_of(bar, 32, default_arch());
  EXPECT_NE(e.find("tx.ptx:20: barrier inside a transaction"), std::string::npos) << e;
  EXPECT_NE(e.find("`bar.sync 0;`"), std::string::npos) << e;
}

TEST(TmErrors, CommitWithoutBeginAndExitInsideATransaction) {
  std::string e = error_of(replaced(kCounter, "  tx.begin;\n", ""), 32, default_arch());
  EXPECT_NE(e.find("tx.ptx:19: TX.Commit without a TX.Begin"), std::string::npos) << e;
  e = error_of(replaced(kCounter, "  tx.commit;\n", "  ret;\n  tx.commit;\n"), 32, default_arch());
  EXPECT_NE(e.find("exit inside a transaction"), std::string::npos) << e;
}

// 003 §4.3: the shadow memory shares the LDS with the data; a kernel whose data and shadow do not
// fit is refused, saying by how much and how much data would fit (29,124 bytes of 64 KiB).
TEST(TmErrors, SharedDataPlusShadowBeyondTheLdsIsRefused) {
  const std::string big = replaced(kCounter, ".b32 s[64];", ".b32 s[7500];");
  const std::string e = error_of(big, 32, find_preset("southern-islands"));
  EXPECT_NE(
      e.find("kernel 'counter' uses transactions: its 30000 bytes of shared memory need 37500 "
             "more for the shadow memory"),
      std::string::npos)
      << e;
  EXPECT_NE(e.find("67500 bytes in all, 1964 above the 65536 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("at most 29124 bytes of shared data fit"), std::string::npos) << e;
  EXPECT_EQ(error_of(replaced(kCounter, ".b32 s[64];", ".b32 s[7281];"), 32,
                     find_preset("southern-islands")),
            "no error");
}

// tx.begin inside an if whose other side has no transaction, tx.commit after the join: the
// transaction's path ends at the join before its TX.Commit.
TEST(TmErrors, ACommitOutsideTheBeginsBlockIsAnError) {
  const char* k = R"(
.visible .entry split(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra JOIN;
  tx.begin;
JOIN:
  tx.commit;
  ret;
}
)";
  const std::string e = error_of(k, 4, default_arch());
  EXPECT_NE(e.find("the transaction begun at line 12 left the code path it began on"),
            std::string::npos)
      << e;
}

// 003 §2 / Table 2: Southern Islands work-groups have at most 256 work-items.
TEST(TmErrors, SouthernIslandsWorkGroupsHoldAtMost256WorkItems) {
  const std::string e = error_of(kCounter, 512, find_preset("southern-islands"));
  EXPECT_NE(e.find("block 512,1,1 has 512 threads, above the 256 of arch 'southern-islands' "
                   "(sm.max_cta_threads)"),
            std::string::npos)
      << e;
  EXPECT_EQ(error_of(kCounter, 256, find_preset("southern-islands")), "no error");
}

TEST(TmErrors, PredicatedTxInstructionsAreParseErrors) {
  try {
    ptx::parse(
        std::string(kHeader) + replaced(replaced(kCounter, "  tx.begin;", "  @%p1 tx.begin;"),
                                        ".reg .b32", ".reg .pred %p<2>;\n  .reg .b32"),
        "tx.ptx");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be predicated"), std::string::npos) << e.what();
  }
}

// `profile` lists the transaction site; `run --json` has the counts.
TEST(TmExec, ProfileShowsTheTransactionSite) {
  const std::string ptx = test::temp_file("txcount.ptx", std::string(kHeader) + kCounter);
  const std::string spec = test::temp_file(
      "txcount.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1025\n");
  const test::CliResult r = test::cli("profile " + ptx + " --grid 1 --block 64 --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("transactions (GPU-LocalTM, seed 003), per TX.Begin:"), std::string::npos)
      << r.out;
  // Line 15: 2 warp transactions, 64 attempts, 64 lane commits (RegistersAreRestored... above).
  EXPECT_NE(r.out.find("\n 15 -      2       64          0      64 "), std::string::npos) << r.out;
  const test::CliResult j =
      test::cli("run " + ptx + " --grid 1 --block 64 --launch " + spec + " --json");
  EXPECT_NE(j.out.find("\"lane_commits\": 64"), std::string::npos) << j.out;
}

TEST(TmErrors, TheCliExitsWith2) {
  const std::string ptx = test::temp_file(
      "txbar.ptx",
      std::string(kHeader) + replaced(kCounter, "  tx.commit;\n", "  bar.sync 0;\n  tx.commit;\n"));
  const std::string spec = test::temp_file(
      "txbar.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1025\n");
  const test::CliResult r = test::cli("run " + ptx + " --grid 1 --block 32 --launch " + spec);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("barrier inside a transaction"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::exec

// SIMT executor semantics on hand-written PTX (no nvcc needed): divergence and reconvergence at
// the immediate post-dominator, loops with per-lane trip counts, exits inside divergent code,
// bar.sync across warps, special registers, generic addressing, local memory, atomics, stepping
// one warp-instruction at a time, and the errors for bad launches and out-of-bounds accesses.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::exec {
namespace {

const char* kHeader = R"(.version 7.0
.target sm_75
.address_size 64
.file 1 "/src/k.cu"
.file 2 "/usr/local/cuda/include/sm_20_atomic_functions.hpp"
)";

struct Fixture {
  ptx::Module module;
  GlobalMemory mem;
  Launch launch;

  Fixture(const std::string& body, Dim3 grid, Dim3 block) {
    module = ptx::parse(std::string(kHeader) + body, "k.ptx");
    launch.grid = grid;
    launch.block = block;
  }
  std::uint32_t buffer(const std::string& name, std::size_t words, std::uint32_t fill = 0) {
    Buffer b{name, ElemType::U32, std::vector<std::uint8_t>(words * 4)};
    for (std::size_t i = 0; i < words; ++i) std::memcpy(b.bytes.data() + 4 * i, &fill, 4);
    return mem.add(std::move(b));
  }
  std::vector<std::uint32_t> words(const std::string& name) {
    const Buffer& b = mem.get(name);
    std::vector<std::uint32_t> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
  Executor make(const Arch& arch = default_arch()) {
    return Executor(module, module.kernels.at(0), arch, launch, mem);
  }
};

// out[tid] = (tid odd ? 100 : 200) + tid; the two paths reconverge at JOIN.
const char* kDiverge = R"(
.visible .entry diverge(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra EVEN;
  add.u32 %r2, %r2, 100;
  bra.uni JOIN;
EVEN:
  add.u32 %r2, %r2, 200;
JOIN:
  add.u32 %r2, %r2, %r1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

TEST(ExecCore, DivergentPathsReconvergeAtThePostDominator) {
  Fixture f(kDiverge, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32))};
  Executor ex = f.make();
  ex.start_cta(0, 0);
  std::vector<IssueResult> trace;
  while (ex.state(0, 0) == WarpState::Ready) trace.push_back(ex.issue(0, 0));
  EXPECT_TRUE(ex.cta_done(0));
  const auto& code = f.module.kernels[0].code;
  int join_runs = 0;
  for (const IssueResult& r : trace) {
    const std::string text = ptx::to_string(f.module.kernels[0], code[r.index]);
    if (text.find("100") != std::string::npos) EXPECT_EQ(r.active, 0xAAAAAAAAull);  // odd lanes
    if (text.find("200") != std::string::npos) EXPECT_EQ(r.active, 0x55555555ull);  // even lanes
    if (text.find("%r2, %r2, %r1") != std::string::npos) {
      ++join_runs;
      EXPECT_EQ(r.active, 0xFFFFFFFFull);  // reconverged: one execution with every lane
    }
  }
  EXPECT_EQ(join_runs, 1);
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], (t % 2 ? 100u : 200u) + t) << t;
}

// out[tid] = sum of 0..tid-1, a loop whose trip count is the lane's tid; lanes leave one by one.
const char* kLoop = R"(
.visible .entry tri(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
LOOP:
  setp.ge.u32 %p2, %r4, %r1;
  @%p2 bra DONE;
  add.u32 %r5, %r5, %r4;
  add.u32 %r4, %r4, 1;
  bra.uni LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST(ExecCore, LoopsWithPerLaneTripCounts) {
  Fixture f(kLoop, {1, 1, 1}, {40, 1, 1});  // two warps, the second with 8 lanes
  f.launch.args = {Arg::buf(f.buffer("out", 40))};
  Executor ex = f.make();
  CollectConsumer none;
  ex.set_consumer(&none);
  ex.run();
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 40; ++t) EXPECT_EQ(out[t], t * (t - 1) / 2) << t;
  EXPECT_TRUE(none.accesses.empty());  // no shared memory
  // Thread-instructions count active lanes only. Thread t runs 4 before the loop, 5 per trip
  // (setp, @p bra not taken, add, add, bra.uni) for t trips, 2 to leave (setp, @p bra taken) and
  // 4 after DONE: 10 + 5t, summed over t = 0..39.
  std::uint64_t want = 0;
  for (std::uint64_t t = 0; t < 40; ++t) want += 10 + 5 * t;
  EXPECT_EQ(ex.stats().thread_instructions, want);
  EXPECT_EQ(ex.stats().ctas, 1u);
}

// Odd lanes return early; even lanes store. out is pre-filled with 7.
const char* kEarlyExit = R"(
.visible .entry early(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r3, %r1, 1;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra SKIP;
  bra.uni GO;
SKIP:
  ret;
GO:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

TEST(ExecCore, ExitInsideDivergentCode) {
  Fixture f(kEarlyExit, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32, 7))};
  Executor ex = f.make();
  ex.run();
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t % 2 ? 7u : t) << t;
}

// s[t] = 3t; bar.sync; out[t] = s[63 - t]: warp 0 reads what warp 1 wrote.
const char* kBarrier = R"(
.visible .entry bar(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[256];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 3;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  .loc 1 12 3
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r6, 63;
  sub.s32 %r7, %r6, %r1;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r4, %r8;
  .loc 1 14 3
  ld.shared.u32 %r2, [%r9];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

TEST(ExecCore, BarrierSynchronizesTheWarpsOfABlock) {
  Fixture f(kBarrier, {2, 1, 1}, {64, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 64))};
  Executor ex = f.make();
  Profiler prof(f.module, f.module.kernels[0], default_arch());
  ex.set_consumer(&prof);
  ex.run();
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], (63 - t) * 3) << t;
  // Stepping by hand: a warp at the barrier waits until the other one arrives.
  Fixture g(kBarrier, {1, 1, 1}, {64, 1, 1});
  g.launch.args = {Arg::buf(g.buffer("out", 64))};
  Executor e2 = g.make();
  e2.start_cta(0, 0);
  while (e2.state(0, 0) == WarpState::Ready) e2.issue(0, 0);
  EXPECT_EQ(e2.state(0, 0), WarpState::AtBarrier);
  while (e2.issue(0, 1).op != ptx::Opcode::Bar) {
  }
  EXPECT_EQ(e2.state(0, 0), WarpState::Ready);  // released by warp 1's arrival
  EXPECT_EQ(e2.state(0, 1), WarpState::Ready);
  // The profile names the CUDA lines of the .loc directives; two accesses per warp and block.
  const auto rows = prof.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cuda, "k.cu:12");
  EXPECT_EQ(rows[1].cuda, "k.cu:14");
  EXPECT_EQ(rows[0].totals.accesses, 4u);  // 2 warps x 2 blocks
  EXPECT_EQ(rows[0].totals.max_bank_degree, 1);
}

// Special registers of a 2D block of 8x6 threads (48: the second warp has 16 lanes) in a 3x2 grid.
const char* kSpecial = R"(
.visible .entry special(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r6, %nctaid.x;
  mov.u32 %r7, %laneid;
  mov.u32 %r8, %warpid;
  mad.lo.s32 %r9, %r2, %r3, %r1;
  mad.lo.s32 %r10, %r5, %r6, %r4;
  mad.lo.s32 %r11, %r10, 48, %r9;
  shl.b32 %r11, %r11, 2;
  mul.wide.u32 %rd2, %r11, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r7, %r8};
  ret;
}
)";

TEST(ExecCore, SpecialRegisters) {
  Fixture f(kSpecial, {3, 2, 1}, {8, 6, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 6 * 48 * 4))};
  f.make().run();
  const auto out = f.words("out");
  for (std::uint32_t b = 0; b < 6; ++b)
    for (std::uint32_t t = 0; t < 48; ++t) {
      const std::size_t i = (std::size_t(b) * 48 + t) * 4;
      EXPECT_EQ(out[i], t % 8);
      EXPECT_EQ(out[i + 1], t / 8);
      EXPECT_EQ(out[i + 2], t % 32);
      EXPECT_EQ(out[i + 3], t / 32);
    }
}

// Generic addressing of shared memory (cvta.shared + ld/st without a space), vector shared
// accesses, local memory, and 64-bit shared words.
const char* kGeneric = R"(
.visible .entry generic(.param .u64 out)
{
  .local .align 8 .b8 depot[32];
  .shared .align 16 .b8 s[1024];
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd3, %rd4;
  add.u32 %r2, %r1, 1000;
  st.v2.u32 [%rd5], {%r1, %r2};
  add.s64 %rd10, %rd2, %rd4;
  ld.shared.v2.u32 {%r3, %r4}, [%rd10+-0];
  mov.u64 %rd6, depot;
  cvta.local.u64 %rd7, %rd6;
  st.u32 [%rd7+4], %r4;
  ld.local.u32 %r5, [%rd6+4];
  add.u32 %r6, %r3, %r5;
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd9, %rd1, %rd8;
  st.u32 [%rd9], %r6;
  ret;
}
)";

TEST(ExecCore, GenericSharedLocalAndVectorAccesses) {
  Fixture f(kGeneric, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32))};
  Executor ex = f.make();
  CollectConsumer c;
  ex.set_consumer(&c);
  ex.run();
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + t + 1000) << t;
  // st.v2 through a generic address and ld.shared.v2, thread t at words 2t and 2t+1: each is
  // served in two half-warp phases (memory.wide_access = phases), phase p holding threads
  // 16p..16p+15 as slots 2i and 2i+1 = words 32p + 2i, 32p + 2i + 1: slot s is word 32p + s, a
  // conflict-free pass of 32 distinct banks. Nothing for the local and global accesses.
  ASSERT_EQ(c.accesses.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(c.accesses[k].op, k < 2 ? Op::Store : Op::Load);
    EXPECT_EQ(c.accesses[k].active, 0xFFFFFFFFull);
    EXPECT_EQ(c.accesses[k].lanes, 32);
    for (std::uint32_t s = 0; s < 32; ++s) EXPECT_EQ(c.accesses[k].addr[s], 32 * (k % 2) + s);
  }
  EXPECT_NE(c.accesses[0].pc, 0u);  // the PTX line
  // memory.wide_access = words: word k of every thread, words 2t + k (a 2-way conflict each).
  Arch words = default_arch();
  words.wide_access = "words";
  Executor ew = f.make(words);
  CollectConsumer cw;
  ew.set_consumer(&cw);
  ew.run();
  ASSERT_EQ(cw.accesses.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(cw.accesses[k].addr[t], 2 * t + k % 2);
}

// Every atomic operation on one shared and one global word per kind.
const char* kAtomics = R"(
.visible .entry atoms(.param .u64 g)
{
  .shared .align 4 .b8 s[64];
  .reg .b32 %r<40>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [g];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  st.shared.u32 [%r2+4], 1000;
  st.shared.u32 [%r2+8], -1;
  st.shared.u32 [%r2+16], 5;
INIT_DONE:
  bar.sync 0;
  atom.shared.add.u32 %r3, [%r2], %r1;
  atom.shared.min.s32 %r4, [%r2+4], %r1;
  atom.shared.max.u32 %r5, [%r2+12], %r1;
  atom.shared.and.b32 %r6, [%r2+8], -2;
  atom.shared.or.b32 %r7, [%r2+20], %r1;
  atom.shared.xor.b32 %r8, [%r2+24], 1;
  atom.shared.inc.u32 %r9, [%r2+28], 1000;
  atom.shared.dec.u32 %r10, [%r2+32], 1000;
  atom.shared.cas.b32 %r11, [%r2+16], 5, %r1;
  atom.shared.exch.b32 %r12, [%r2+36], %r1;
  cvt.rn.f32.u32 %f1, %r1;
  atom.shared.add.f32 %f2, [%r2+40], %f1;
  red.global.add.u32 [%rd1], %r1;
  atom.global.max.s32 %r13, [%rd1+4], %r1;
  atom.global.cas.b32 %r14, [%rd1+8], 0, %r1;
  atom.global.exch.b32 %r15, [%rd1+12], %r1;
  red.global.add.f32 [%rd1+16], %f1;
  atom.global.inc.u32 %r16, [%rd1+20], 3;
  bar.sync 0;
  @%p1 bra END;
  ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r2];
  ld.shared.v4.u32 {%r24, %r25, %r26, %r27}, [%r2+16];
  ld.shared.v4.u32 {%r28, %r29, %r30, %r31}, [%r2+32];
  st.global.v4.u32 [%rd1+32], {%r20, %r21, %r22, %r23};
  st.global.v4.u32 [%rd1+48], {%r24, %r25, %r26, %r27};
  st.global.v4.u32 [%rd1+64], {%r28, %r29, %r30, %r31};
END:
  ret;
}
)";

TEST(ExecCore, AtomicsOnSharedAndGlobalMemory) {
  std::string body = kAtomics;
  body.insert(body.find("  .reg .b32"), "  .reg .pred %p<2>;\n");
  Fixture f(body, {1, 1, 1}, {64, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("g", 32))};
  Executor ex = f.make();
  ex.run();
  const auto g = f.words("g");
  float fsum;
  // Global: sum of tids, max, cas from 0 succeeds for the first thread in issue order (lane 0 of
  // warp 0, whose value 0 leaves the word 0 so every later cas also succeeds: the last writer is
  // thread 63), exch keeps the last thread's value, f32 sum, inc wraps at 3.
  EXPECT_EQ(g[0], 63u * 64 / 2);
  EXPECT_EQ(g[1], 63u);
  EXPECT_EQ(g[3], 63u);  // exch: threads apply in order (warp 0 lanes 0..31, then warp 1)
  std::memcpy(&fsum, &g[4], 4);
  EXPECT_EQ(fsum, 2016.0f);
  EXPECT_EQ(g[5], 64u % 4);  // inc with limit 3 counts 0,1,2,3,0,...
  // Shared words copied out at g[8..19].
  EXPECT_EQ(g[8 + 0], 2016u);        // add
  EXPECT_EQ(g[8 + 1], 0u);           // min(1000, tids)
  EXPECT_EQ(g[8 + 2], 0xFFFFFFFEu);  // and with ~1
  EXPECT_EQ(g[8 + 3], 63u);          // max
  EXPECT_EQ(g[8 + 4], 0u);           // cas: thread 0 swaps 5 -> 0, no one else matches
  EXPECT_EQ(g[8 + 5], 63u);          // or of 0..63
  EXPECT_EQ(g[8 + 6], 0u);           // 64 xors with 1
  EXPECT_EQ(g[8 + 7], 64u);          // inc below the limit
  EXPECT_EQ(g[8 + 8], 1000u - 63u);  // dec: 0 -> 1000, then 63 decrements
  EXPECT_EQ(g[8 + 9], 63u);          // exch
  std::memcpy(&fsum, &g[8 + 10], 4);
  EXPECT_EQ(fsum, 2016.0f);
}

TEST(ExecCore, SteppingReportsInstructionsAndAccesses) {
  Fixture f(kBarrier, {1, 1, 1}, {64, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 64))};
  Executor ex = f.make();
  ex.start_cta(0, 0);
  std::uint32_t shared = 0, steps = 0;
  while (!ex.cta_done(0)) {
    for (std::uint32_t w = 0; w < ex.warps_per_cta(); ++w) {
      if (ex.state(0, w) != WarpState::Ready) continue;
      const std::uint32_t next = ex.next_index(0, w);
      const IssueResult r = ex.issue(0, w);  // one instruction, round robin
      EXPECT_EQ(r.index, next);
      shared += r.shared_accesses;
      ++steps;
    }
  }
  EXPECT_EQ(shared, 4u);  // one st and one ld per warp
  EXPECT_EQ(ex.stats().warp_instructions, steps);
  EXPECT_EQ(f.words("out")[0], 63u * 3);
}

// ---- errors -----------------------------------------------------------------------------------

const char* kOob = R"(
.visible .entry oob(.param .u64 out)
{
  .shared .align 4 .b8 s[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  .loc 2 80 10, function_name $L__info_string0, inlined_at 1 21 5
  atom.shared.add.u32 %r5, [%r4], 1;
  .loc 1 22 3
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ExecCore, OutOfBoundsSharedAccessNamesPtxAndCudaLineThreadAndBlock) {
  Fixture f(kOob, {2, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 64))};
  const std::string e = error_of([&] { f.make().run(); });
  // s has 16 words: thread 16 of block 0 is the first outside.
  EXPECT_NE(e.find("k.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds shared atomic"), std::string::npos) << e;
  EXPECT_NE(e.find("thread (16,0,0) of block (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("(k.cu:21)"), std::string::npos) << e;  // the inlined_at call site
}

TEST(ExecCore, OutOfBoundsGlobalAccessNamesTheBuffer) {
  Fixture f(kLoop, {1, 1, 1}, {40, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 36))};
  const std::string e = error_of([&] { f.make().run(); });
  EXPECT_NE(e.find("out-of-bounds global store of 4 bytes at byte offset 144 of buffer 'out'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("thread (36,0,0) of block (0,0,0)"), std::string::npos) << e;
}

TEST(ExecCore, LaunchErrors) {
  Fixture f(kLoop, {1, 1, 1}, {32, 1, 1});
  f.buffer("out", 32);
  EXPECT_NE(error_of([&] { f.make(); }).find("takes 1 parameter, the launch gives 0"),
            std::string::npos);
  f.launch.args = {Arg::real(1.5)};
  EXPECT_NE(error_of([&] { f.make(); }).find("needs an integer"), std::string::npos);
  f.launch.args = {Arg::buf(0)};
  f.launch.block = {1025, 1, 1};
  EXPECT_NE(error_of([&] { f.make(); }).find("1..1024"), std::string::npos);
  // Shared memory above the arch's capacity (Fermi: 48 KiB).
  Fixture big(kBarrier, {1, 1, 1}, {64, 1, 1});
  big.launch.args = {Arg::buf(big.buffer("out", 64))};
  big.launch.dynamic_shared_bytes = 48 * 1024;
  const std::string e = error_of([&] { big.make(); });
  EXPECT_NE(e.find("needs 49408 bytes of shared memory per block (256 static + 49152 dynamic)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("49152 bytes of arch 'fermi-gtx580'"), std::string::npos) << e;
  big.launch.dynamic_shared_bytes = 48 * 1024 - 256;  // exactly full: accepted
  EXPECT_EQ(error_of([&] { big.make(); }), "");
}

TEST(ExecCore, ReconvergencePointsOfNestedBranches) {
  // A branch inside a loop and a loop exit: run a warp where every lane takes a different path
  // through if (t & 1) { if (t & 2) a; else b; } c; and check every lane's result.
  const char* body = R"(
.visible .entry nest(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 1;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra C;
  and.b32 %r4, %r1, 2;
  setp.eq.u32 %p2, %r4, 0;
  @%p2 bra B;
  mul.lo.s32 %r2, %r2, 10;
  bra.uni C;
B:
  mul.lo.s32 %r2, %r2, 20;
C:
  add.s32 %r2, %r2, 3;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  Fixture f(body, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32))};
  Executor ex = f.make();
  ex.start_cta(0, 0);
  int c_runs = 0;
  while (ex.state(0, 0) == WarpState::Ready) {
    const IssueResult r = ex.issue(0, 0);
    if (ptx::to_string(f.module.kernels[0], f.module.kernels[0].code[r.index])
            .find("%r2, %r2, 3") != std::string::npos) {
      ++c_runs;
      EXPECT_EQ(r.active, 0xFFFFFFFFull);
    }
  }
  EXPECT_EQ(c_runs, 1);
  const auto out = f.words("out");
  for (std::uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], (t & 1 ? ((t & 2) ? 10u : 20u) : 1u) + 3) << t;
}

}  // namespace
}  // namespace smemsim::exec

namespace smemsim::exec {
namespace {

// bfe, bfi and prmt (nvcc emits them for field packing and address arithmetic), worked from the
// PTX ISA's definitions:
//   bfe.u32 0xF0F01234, pos 4, len 8   = bits 4..11          = 0x23
//   bfe.s32 0xF0F01234, pos 28, len 8  = bits 28..31 = 0xF, then copies of bit 31 = 0xFFFFFFFF
//   bfe.s32 0x00000700, pos 8, len 4   = 0x7, bit 11 = 0      = 7
//   bfi.b32 a 0xAB into 0x11223344 at pos 8, len 8            = 0x1122AB44
//   bfi.b32 a 0xFF into 0 at pos 28, len 8 (clipped at bit 31) = 0xF0000000
//   prmt.b32 a 0x44332211, b 0x88776655, 0x5410: bytes {a0, a1, b0, b1} = 0x66552211
//   prmt.b32 ..., 0x000B: byte 0 = sign of a3 (0x44: 0x00), bytes 1-3 = a0 = 0x11111100
const char* kBits = R"(
.visible .entry bits(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, -252702156;
  bfe.u32 %r3, %r2, 4, 8;
  bfe.s32 %r4, %r2, 28, 8;
  mov.u32 %r5, 1792;
  bfe.s32 %r6, %r5, 8, 4;
  mov.u32 %r7, 287454020;
  bfi.b32 %r8, 171, %r7, 8, 8;
  bfi.b32 %r9, 255, 0, 28, 8;
  mov.u32 %r10, 1144201745;
  mov.u32 %r11, -2005440939;
  prmt.b32 %r12, %r10, %r11, 21520;
  prmt.b32 %r13, %r10, %r11, 11;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r6, %r8};
  st.global.v2.u32 [%rd3+16], {%r9, %r12};
  st.global.u32 [%rd3+24], %r13;
  ret;
}
)";

TEST(ExecCore, BitFieldsAndBytePermute) {
  Fixture f(kBits, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32 * 8))};
  f.make().run();
  const auto out = f.words("out");
  const std::uint32_t want[7] = {0x23,       0xFFFFFFFF, 7,         0x1122AB44,
                                 0xF0000000, 0x66552211, 0x11111100};
  for (std::uint32_t t = 0; t < 32; ++t)
    for (std::uint32_t k = 0; k < 7; ++k) EXPECT_EQ(out[t * 8 + k], want[k]) << t << " " << k;
}

}  // namespace
}  // namespace smemsim::exec

namespace smemsim::exec {
namespace {

// prmt's modes, from the PTX ISA's table of source bytes (d.b3 d.b2 d.b1 d.b0) per mode and
// c[1:0], over {b, a} = bytes 0..7 = 11 22 33 44 55 66 77 88 (a = 0x44332211, b = 0x88776655):
//   f4e  c=1: 4 3 2 1 = 0x55443322     f4e  c=3: 6 5 4 3 = 0x77665544
//   b4e  c=0: 5 6 7 0 = 0x66778811     b4e  c=2: 7 0 1 2 = 0x88112233
//   rc8  c=2: 2 2 2 2 = 0x33333333     ecl  c=1: 3 2 1 1 = 0x44332222
//   ecr  c=2: 2 2 1 0 = 0x33332211     rc16 c=1: 3 2 3 2 = 0x44334433
//   f4e  c=0x105: only c[1:0] = 1 counts = 0x55443322
const char* kPrmtModes = R"(
.visible .entry modes(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r10, 1144201745;
  mov.u32 %r11, -2005440939;
  prmt.b32.f4e %r2, %r10, %r11, 1;
  prmt.b32.f4e %r3, %r10, %r11, 3;
  prmt.b32.b4e %r4, %r10, %r11, 0;
  prmt.b32.b4e %r5, %r10, %r11, 2;
  prmt.b32.rc8 %r6, %r10, %r11, 2;
  prmt.b32.ecl %r7, %r10, %r11, 1;
  prmt.b32.ecr %r8, %r10, %r11, 2;
  prmt.b32.rc16 %r9, %r10, %r11, 1;
  prmt.b32.f4e %r12, %r10, %r11, 261;
  st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd3+16], {%r6, %r7, %r8, %r9};
  st.global.u32 [%rd3+32], %r12;
  ret;
}
)";

TEST(ExecCore, BytePermuteModes) {
  Fixture f(kPrmtModes, {1, 1, 1}, {32, 1, 1});
  f.launch.args = {Arg::buf(f.buffer("out", 32 * 16))};
  f.make().run();
  const auto out = f.words("out");
  const std::uint32_t want[9] = {0x55443322, 0x77665544, 0x66778811, 0x88112233, 0x33333333,
                                 0x44332222, 0x33332211, 0x44334433, 0x55443322};
  for (std::uint32_t t = 0; t < 32; ++t)
    for (std::uint32_t k = 0; k < 9; ++k) EXPECT_EQ(out[t * 16 + k], want[k]) << t << " " << k;
}

}  // namespace
}  // namespace smemsim::exec

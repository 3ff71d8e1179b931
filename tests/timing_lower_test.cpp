// The lowering pass (issue 42, src/lower/): the cycle model times the code as ptxas would emit
// it, the executor still runs the PTX. Each rule is checked twice: which instructions the pass
// marks (a hand-read kernel), and what it does to a chain's cycles against a derivation from the
// keys, with the rule on and off.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "lower/lower.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kMixed = R"(
.visible .entry mixed(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<20>;
  .shared .align 8 .b8 s[2048];
  mov.u32 %r4, s;                 // 0  imm: a symbol's address, an operand of 5; with 1
  mov.u32 %r1, %tid.x;            // 1  a special register: stays
  cvt.u64.u32 %rd1, %r1;          // 2  widening: stays
  cvt.u32.u64 %r2, %rd1;          // 3  cvt (truncation), issues with 6: shl (4) reads it for 6
  shl.b32 %r3, %r2, 3;            // 4  scaled, with 6
  add.s32 %r5, %r4, %r3;          // 5  scaled, with 6: [%r2.X8 + s]
  ld.shared.u64 %rd2, [%r5];      // 6
  mov.f32 %f1, 0f3F800000;        // 7  imm: 1.0, an operand of 8 and 9; with 9 (8 is absorbed)
  mul.f32 %f2, %f1, %f1;          // 8  fma, with 9
  add.f32 %f3, %f2, %f1;          // 9
  mul.rn.f32 %f4, %f3, %f3;       // 10 .rn: stays (PTX ISA: no contraction with a rounding mode)
  add.f32 %f5, %f4, %f3;          // 11
  mul.f32 %f6, %f5, %f5;          // 12 read twice by 13: stays
  add.f32 %f7, %f6, %f6;          // 13
  add.s64 %rd3, %rd2, 16;         // 14 addr, with 15: [%rd2 + 16]
  ld.global.u32 %r6, [%rd3];      // 15
  mul.wide.u32 %rd4, %r6, 4;      // 16 imad, with 17 (IMAD.WIDE on the FMA pipe)
  add.s64 %rd5, %rd4, %rd2;       // 17
  shl.b32 %r7, %r6, 2;            // 18 lea, with 19
  add.s32 %r8, %r7, %r6;          // 19
  mov.u32 %r9, %r8;               // 20 mov, with 21 (which reads %r9)
  st.global.u32 [%rd5], %r9;      // 21
  mul.f32 %f8, %f7, %f7;          // 22 fma candidate, but 23 comes first: stays
  mov.u32 %r10, %clock;           // 23
  add.f32 %f9, %f8, %f7;          // 24
  st.global.f32 [%rd5+4], %f9;    // 25
  ret;                            // 26
}
)";

TEST(Lowering, MarksWhatPtxasMakesFree) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kMixed, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 27u);
  std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<std::uint32_t> with =
      timing::apply_lowering(k, info, lower::parse_rules("all"));
  const std::uint32_t no = ptx::kNone;
  const std::vector<std::uint32_t> expected = {1,  no, no, 6,  6,  6,  no, 9,  9,
                                               no, no, no, no, no, 15, no, 17, no,
                                               19, no, 21, no, no, no, no, no, no};
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(with[i], expected[i]) << "instruction " << i;
  // The IMAD runs on the FMA pipe (its own latency class); the LEA stays on the ALU.
  EXPECT_EQ(info[17].unit, timing::Unit::Imad);
  EXPECT_TRUE(info[17].int_mul);  // at IMAD's rate (sm.lanes_imad), as a mul.lo is
  EXPECT_EQ(info[19].unit, timing::Unit::Alu);
  // The group of 3..6 checks the cvt's source and the load's destination.
  const auto& g = info[3];
  EXPECT_EQ(g.space, timing::Space::Shared);
  auto has = [](const auto& set, std::uint8_t n, std::uint32_t r) {
    for (std::uint8_t i = 0; i < n; ++i)
      if (set[i] == r) return true;
    return false;
  };
  const std::vector<timing::InstInfo> plain = timing::decode_kernel(k);
  EXPECT_TRUE(has(g.src, g.nsrc, plain[3].src[0]));  // %rd1
  EXPECT_TRUE(has(g.dst, g.ndst, plain[6].dst[0]));  // %rd2
  // Each rule alone marks only its own instructions. Alone, lea takes the shl of 4 (the scaled
  // address's, when scaled is on) into its add, and addr the add of 5 into the shared load (its
  // other operand is the symbol's address, an immediate in the shared window: [%r3 + s]).
  const std::vector<std::pair<const char*, std::vector<std::uint32_t>>> alone = {
      {"fma", {8}},       {"imad", {16}}, {"lea", {4, 18}}, {"addr", {5, 14}},
      {"scaled", {4, 5}}, {"cvt", {3}},   {"mov", {20}},    {"imm", {0, 7}}};
  for (const auto& [rule, marked] : alone) {
    std::vector<timing::InstInfo> i1 = plain;
    const auto w1 = timing::apply_lowering(k, i1, lower::parse_rules(rule));
    std::vector<std::uint32_t> got;
    for (std::uint32_t i = 0; i < w1.size(); ++i)
      if (w1[i] != no) got.push_back(i);
    EXPECT_EQ(got, marked) << rule;
  }
}

TEST(Lowering, RulesParseAndRefuseTypos) {
  EXPECT_EQ(lower::to_string(lower::parse_rules("all")),
            "fma,imad,lea,addr,scaled,cvt,mov,imm,ifcvt,lop3,iadd3,vector,schedule,spaces,sincos,"
            "ex2,divide,wide,bssy,aggregate,unroll,balance");
  EXPECT_EQ(lower::to_string(lower::parse_rules("none")), "none");
  EXPECT_EQ(lower::to_string(lower::parse_rules("mov,fma")), "fma,mov");
  try {
    lower::parse_rules("fma,fmad");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'sm.lower': unknown lowering rule 'fmad'"),
              std::string::npos)
        << e.what();
  }
  // A near miss is named: one edit from 'balance'; nothing is offered for a name near none.
  try {
    lower::parse_rules("fma,balanse");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'balanse': did you mean 'balance'?"), std::string::npos)
        << e.what();
  }
  try {
    lower::parse_rules("fma,quux");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lower::parse_rules(""), InputError);
  EXPECT_THROW(lower::parse_rules("fma,,mov"), InputError);
  Arch a = find_preset("volta-v100");
  a.sm.lower = "fused";
  EXPECT_THROW(validate(a), InputError);
  // The seeds' machines time the PTX as written; the modern presets as ptxas emits it: for
  // sm_90 without the scaled shared index (an H200's SASS: LEA, then LDS [R]). Counted innermost
  // loops 4x on all three (rep_ffma's SASS for sm_75, sm_80 and sm_90: 64 FFMAs a trip): unroll.
  EXPECT_EQ(find_preset("fermi-gtx580").sm.lower, "none");
  for (const char* p : {"volta-v100", "ampere-a100"})
    EXPECT_EQ(lower::to_string(lower::parse_rules(find_preset(p).sm.lower)),
              "fma,imad,lea,addr,scaled,cvt,mov,imm,schedule,unroll")
        << p;
  // Turing's sin.approx is FMUL.RZ then MUFU.SIN too (sm_75's SASS of rep_sin, fft, hough).
  EXPECT_EQ(lower::to_string(lower::parse_rules(find_preset("turing-t4").sm.lower)),
            "fma,imad,lea,addr,scaled,cvt,mov,imm,schedule,sincos,unroll");
  // And for sm_90 sin.approx as FMUL.RZ then MUFU.SIN (the same SASS): sincos; global loads
  // hoisted above shared stores and branches round them made predicates (an H100's SASS of
  // conv_rows): spaces and ifcvt; matmul's scalar shared loads as LDS.128 and BSSY/BSYNC round
  // divergent branches (the H200's SASS opcode counts): vector and bssy; an FSETP and two FMULs
  // round each ex2.approx.f32 (the same counts): ex2; a zero stored as RZ and a shared base
  // folded (atomic_bench's SASS): imm; a warp's atomicAdd of one value to one word made one
  // lane's (rep_atomic_conflict's SASS): aggregate; integer adds and moves on the FMA pipe as
  // VIADD and IMAD.MOV (rep_l1_bw_64v's SASS): balance.
  EXPECT_EQ(lower::to_string(lower::parse_rules(find_preset("hopper-h100").sm.lower)),
            "fma,imad,lea,addr,cvt,mov,imm,ifcvt,vector,schedule,spaces,sincos,ex2,divide,bssy,"
            "aggregate,unroll,balance");
}

// wide: a 64-bit integer op that issues is two SASS instructions (the low word, then the high
// word with the carry: IADD3 + IADD3.X, ISETP + ISETP.EX, LEA + LEA.HI.X), so it gets one step
// before it on the ALU; one the lowering made free issues nothing, and one that took in a
// mul.wide is a single IMAD.WIDE. And imad takes in a product several adds read (dct8x8's index,
// offsetting its input before a barrier and its output after), an IMAD.WIDE each as ptxas
// emits: with it the model issues 286,720 warp instructions for dct8x8 where the H200 ran
// 288,768 (294,912 without). Counted by hand below.
TEST(Lowering, WideIntegerOpsAreTwoInstructions) {
  const char* body = R"(
.visible .entry wide(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [out];         // 0  (not an integer op)
  mov.u32 %r1, %tid.x;              // 1
  mad.lo.s32 %r2, %r1, %r1, %r1;    // 2
  mul.wide.s32 %rd2, %r2, 4;        // 3  imad, with 4
  add.s64 %rd3, %rd1, %rd2;         // 4  IMAD.WIDE: one
  add.s64 %rd4, %rd3, 16;           // 5  addr, with 6: none
  ld.global.u32 %r3, [%rd4];        // 6
  add.s64 %rd5, %rd3, %rd1;         // 7  IADD3 + IADD3.X: wide
  setp.lt.u64 %p1, %rd5, %rd1;      // 8  ISETP + ISETP.EX: wide
  shl.b64 %rd6, %rd5, 2;            // 9  lea, with 10
  add.s64 %rd7, %rd6, %rd1;         // 10 LEA + LEA.HI.X: wide
  add.s32 %r4, %r3, 1;              // 11 32 bits: one
  @%p1 st.global.u32 [%rd7], %r4;   // 12
  mul.wide.s32 %rd8, %r4, 4;        // 13 imad, with 14: two adds read it
  add.s64 %rd9, %rd1, %rd8;         // 14 IMAD.WIDE: one
  ld.global.u32 %r5, [%rd9];        // 15
  bar.sync 0;                       // 16
  add.s64 %rd10, %rd7, %rd8;        // 17 IMAD.WIDE again (ptxas multiplies anew): one
  st.global.u32 [%rd10], %r5;       // 18
  ret;                              // 19
}
)";
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + body, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  ASSERT_EQ(k.code.size(), 20u);
  for (const bool absorb : {true, false}) {
    std::vector<timing::InstInfo> info = timing::decode_kernel(k);
    const std::vector<std::uint32_t> with = timing::apply_lowering(
        k, info, lower::parse_rules(absorb ? "fma,imad,lea,addr,wide" : "wide"));
    std::vector<std::size_t> wide;
    for (std::size_t i = 0; i < info.size(); ++i)
      if (info[i].expand == timing::Expand::Wide && (with.empty() || with[i] == ptx::kNone))
        wide.push_back(i);
    // Without the absorbing rules every 64-bit add, setp and shl is two: 4, 5, 7, 8, 9, 10, 14
    // and 17.
    const std::vector<std::size_t> expected =
        absorb ? std::vector<std::size_t>{7, 8, 10}
               : std::vector<std::size_t>{4, 5, 7, 8, 9, 10, 14, 17};
    EXPECT_EQ(wide, expected) << (absorb ? "with the absorbing rules" : "wide alone");
    if (!absorb) continue;
    // The product two adds read is free; each add is an IMAD.WIDE on the FMA pipe.
    EXPECT_EQ(with[13], 14u);
    EXPECT_EQ(info[14].unit, timing::Unit::Imad);
    EXPECT_EQ(info[17].unit, timing::Unit::Imad);
  }
}

// t0 = clock, N links, t1 = clock; out[0] = t1 - t0, out[1] = the chain's value (lane 0).
std::string clocked(const std::string& decl, const std::string& setup,
                    const std::string& (*link)(int, std::string&), int n,
                    const std::string& result) {
  std::string body;
  for (int k = 0; k < n; ++k) {
    std::string s;
    body += link(k, s);
  }
  return ".visible .entry clocked(.param .u64 out)\n{\n  .reg .b32 %r<400>;\n  .reg .b64 "
         "%rd<400>;\n  .reg .f32 %f<400>;\n" +
         decl + setup + "  mov.u32 %r390, %clock;\n" + body +
         "  mov.u32 %r391, %clock;\n  sub.s32 %r392, %r391, %r390;\n"
         "  ld.param.u64 %rd390, [out];\n  cvta.to.global.u64 %rd391, %rd390;\n"
         "  st.global.u32 [%rd391], %r392;\n" +
         result + "  ret;\n}\n";
}

// r = r * m + r as the PTX of a half2 or float chain writes it: mul then add (issue 42's half2
// figure; here f32, whose pipe the presets time with sm.lat_fma).
const std::string& fma_link(int k, std::string& s) {
  s = fmt::format("  mul.f32 %f{0}, %f{1}, %f100;\n  add.f32 %f{2}, %f{0}, %f{1};\n", 2 * k + 200,
                  k == 0 ? 1 : 2 * k + 199, 2 * k + 201);
  return s;
}

// p = s[p] on a u64 array as nvcc writes it: the index truncated, scaled by 8, added to the
// array's address, loaded (issue 42's shared-memory pointer chase).
const std::string& chase_link(int k, std::string& s) {
  s = fmt::format(
      "  cvt.u32.u64 %r{0}, %rd{1};\n  shl.b32 %r{2}, %r{0}, 3;\n  add.s32 %r{3}, %r2, %r{2};\n"
      "  ld.shared.u64 %rd{4}, [%r{3}];\n",
      3 * k + 10, k + 1, 3 * k + 11, 3 * k + 12, k + 2);
  return s;
}

std::string fma_kernel(int n) {
  return clocked("", "  mov.f32 %f1, 0f3F800000;\n  mov.f32 %f100, 0f3F000000;\n", fma_link, n,
                 fmt::format("  st.global.f32 [%rd391+4], %f{};\n", 2 * n + 199));
}

std::string chase_kernel(int n) {
  return clocked(
      "  .shared .align 8 .b8 s[256];\n",
      "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, s;\n  shl.b32 %r3, %r1, 3;\n"
      "  add.s32 %r4, %r2, %r3;\n  xor.b32 %r5, %r1, 1;\n  cvt.u64.u32 %rd1, %r5;\n"
      "  st.shared.u64 [%r4], %rd1;\n  bar.sync 0;\n",
      chase_link, n,
      fmt::format("  cvt.u32.u64 %r393, %rd{};\n  st.global.u32 [%rd391+4], %r393;\n", n + 1));
}

struct ChainRun {
  std::uint32_t cycles = 0, value = 0;
  std::uint64_t warp_instructions = 0, absorbed = 0;
};

ChainRun run(const std::string& body, const std::string& rules, std::uint32_t threads = 1) {
  Arch a = find_preset("volta-v100");
  a.sm.count = 1;
  a.sm.lower = rules;
  TimedKernel k(body, threads, 2);
  const timing::TimingStats s = k.run(a);
  return {k.out()[0], k.out()[1], s.warp_instructions, s.absorbed};
}

// Each link is mul then add on the previous link's result. Off, both wait for their producer:
// 2 x lat_fma a link. With fma the mul is free and issues with its add, which waits for the
// previous add: lat_fma a link. The clock reads add a constant, so the difference of two chain
// lengths gives the cost of a link exactly: (N2 - N1) x cost.
TEST(Lowering, FusedMultiplyAddTakesOneLatencyALink) {
  const std::uint32_t fma = find_preset("volta-v100").sm.lat_fma;  // 4
  const ChainRun on8 = run(fma_kernel(8), "all"), on24 = run(fma_kernel(24), "all");
  const ChainRun off8 = run(fma_kernel(8), "none"), off24 = run(fma_kernel(24), "none");
  EXPECT_EQ(on24.cycles - on8.cycles, 16 * fma);
  EXPECT_EQ(off24.cycles - off8.cycles, 16 * 2 * fma);
  EXPECT_EQ(run(fma_kernel(24), "cvt,mov").cycles, off24.cycles);  // the other rules: no change
  // The PTX still executes as written (x = x * 0.5 + x: 1.5^24), and every instruction counts.
  EXPECT_EQ(on24.value, off24.value);
  float v = 0;
  std::memcpy(&v, &on24.value, 4);
  EXPECT_FLOAT_EQ(v, 16834.112f);
  EXPECT_EQ(on24.warp_instructions, off24.warp_instructions);
  // Each link's mul, and the two constants (1.0 and 0.5: imm, operands of their readers).
  EXPECT_EQ(on24.absorbed, 24u + 2u);
  EXPECT_EQ(off24.absorbed, 0u);
}

// Off, a hop is cvt, shl and add (lat_alu each, dependent) and the load (lat_shared_ld): 3 x 4 +
// 27 = 39 on volta-v100. Lowered, the cvt is the low register, shl + add the address mode
// [R.X8 + s]: a hop is the load's 27, the TITAN V's measured 27.0 (issue 42's first row). One
// thread, so that the 64-bit load is one phase.
TEST(Lowering, SharedChaseHopIsTheLoadAlone) {
  const Arch v = find_preset("volta-v100");
  const ChainRun on8 = run(chase_kernel(8), "all"), on24 = run(chase_kernel(24), "all");
  const ChainRun off8 = run(chase_kernel(8), "none"), off24 = run(chase_kernel(24), "none");
  EXPECT_EQ(off24.cycles - off8.cycles, 16 * (3 * v.sm.lat_alu + v.sm.lat_shared_ld));
  EXPECT_EQ(on24.cycles - on8.cycles, 16 * v.sm.lat_shared_ld);
  // One thread's chase: s[p] = p ^ 1 from p = 1: 24 hops end at 1.
  EXPECT_EQ(on24.value, 1u);
  EXPECT_EQ(on24.value, off24.value);
  // Every hop's cvt, shl and add; the setup's shl (a LEA: its add is not right before the store,
  // so the address mode does not take it) and its mov of the shared base (imm); the result's
  // truncation before its store.
  EXPECT_EQ(on24.absorbed, 3u * 24u + 2u + 1u);
  // Only the address mode: the cvt stays, one lat_alu a hop.
  const ChainRun sc8 = run(chase_kernel(8), "scaled"), sc24 = run(chase_kernel(24), "scaled");
  EXPECT_EQ(sc24.cycles - sc8.cycles, 16 * (v.sm.lat_alu + v.sm.lat_shared_ld));
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// Counts the observer's issues per instruction index (the caller's numbering).
struct IssueCounter final : timing::Observer {
  std::map<std::uint32_t, std::uint64_t> issued;
  void on_issue(std::uint32_t, std::uint32_t, std::uint32_t index, std::uint8_t micro,
                std::uint64_t) override {
    if (!micro) ++issued[index];
  }
  void on_complete(std::uint32_t, std::uint32_t, std::uint32_t, std::uint8_t, std::uint64_t,
                   std::uint64_t) override {}
  void on_stall(std::uint32_t, timing::Stall, std::uint64_t) override {}
};

struct BuiltinRun {
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<timing::TimingStats> stats;
  std::vector<std::map<std::uint32_t, std::uint64_t>> observed;
};

BuiltinRun run_builtin(const std::string& name, const std::string& rules) {
  exec::Workload w = exec::make_builtin(name, {}, SMEMSIM_PTX_DIR);
  Arch a = find_preset("volta-v100");
  a.sm.lower = rules;
  std::vector<std::pair<std::string, exec::Launch>> steps;
  for (const exec::Workload::Step& s : w.pipeline) steps.emplace_back(s.kernel, s.launch);
  if (steps.empty()) steps.emplace_back(w.kernel, w.launch);
  BuiltinRun r;
  for (const auto& [kernel, launch] : steps) {
    IssueCounter counter;
    timing::TimingOptions o;
    o.per_instruction = true;
    o.observer = &counter;
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, kernel), a, launch, w.memory, o);
    r.stats.push_back(sim.run());
    r.observed.push_back(counter.issued);
  }
  if (w.check) EXPECT_EQ(w.check(w.memory), "") << name << " " << rules;
  for (const exec::Buffer& b : w.memory.buffers) r.buffers.push_back(b.bytes);
  return r;
}

// The scheduler reorders each block's instructions and the executor runs the reordered kernel,
// so every suite kernel must give the same outputs, byte for byte, and execute every PTX
// instruction as often; per-instruction statistics and observer events come back in the PTX's
// own numbering (an issue count at a moved index would land on another instruction).
// One warp, between two clock reads (nothing moves across them): four dependent fmas (lat_fma 4
// each) written before two dependent integer adds (lat_alu 4) that do not depend on them.
// As written, in order: fma at t0+1, +5, +9, +13, add at +14, +18; t1 (a mov: the ALU pipe, whose
// 16 lanes the add at +18 holds two cycles) at t0+20.
// Scheduled (the longest path first, then whatever is ready): fma +1, add +2, fma +5, add +6,
// fma +9, fma +13; t1 at t0+14: the adds issue in the fmas' shadow.
TEST(Lowering, SchedulerFillsALatencyShadow) {
  const std::string body = R"(
.visible .entry shadow(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  mov.f32 %f1, 0f3F800000;
  mov.u32 %r1, %tid.x;
  mov.u32 %r10, %clock;
  fma.rn.f32 %f2, %f1, %f1, %f1;
  fma.rn.f32 %f3, %f2, %f1, %f1;
  fma.rn.f32 %f4, %f3, %f1, %f1;
  fma.rn.f32 %f5, %f4, %f1, %f1;
  add.s32 %r2, %r1, 7;
  add.s32 %r3, %r2, 9;
  mov.u32 %r11, %clock;
  sub.s32 %r12, %r11, %r10;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r12;
  st.global.u32 [%rd2+4], %r3;
  st.global.f32 [%rd2+8], %f5;
  ret;
}
)";
  Arch a = find_preset("volta-v100");
  a.sm.count = 1;
  ASSERT_EQ(a.sm.lat_fma, 4u);
  ASSERT_EQ(a.sm.lat_alu, 4u);
  std::vector<std::uint32_t> got[2];
  for (int on = 0; on < 2; ++on) {
    a.sm.lower = on ? "schedule" : "none";
    TimedKernel k(body, 1, 3);
    k.run(a);
    got[on] = k.out();
  }
  EXPECT_EQ(got[0][0], 20u);
  EXPECT_EQ(got[1][0], 14u);
  EXPECT_EQ(got[0][1], got[1][1]);  // 0 + 7 + 9
  EXPECT_EQ(got[1][1], 16u);
  EXPECT_EQ(got[0][2], got[1][2]);
}

TEST(Lowering, ScheduledKernelsComputeTheSameAndReportInPtxOrder) {
  std::uint64_t moved = 0, exact = 0;
  for (const std::string& name : exec::builtin_names()) {
    SCOPED_TRACE(name);
    // Kernels whose results depend on timing (float atomics summed in arrival order, indices
    // handed out by atomics, transactions retried, spins) change with any timing change: as
    // written (`none`) they already differ from `off`. For them the CPU reference check
    // (run_builtin) is the test; the others must match exactly.
    // Known to depend on timing whatever `none` gives: atomic_bench writes the cycles its clock()
    // read; the transactional kernels retry as conflicts happen to fall.
    if (name == "atomic_bench" || name.starts_with("tm_")) continue;
    const BuiltinRun off = run_builtin(name, "fma,imad,lea,addr,scaled,cvt,mov");
    const BuiltinRun plain = run_builtin(name, "none");
    bool timing_independent = plain.buffers == off.buffers;
    for (std::size_t l = 0; l < off.stats.size() && l < plain.stats.size(); ++l)
      timing_independent &= plain.stats[l].warp_instructions == off.stats[l].warp_instructions;
    if (!timing_independent) continue;
    ++exact;
    // The scheduler alone, and with the memory order kept only where state spaces may alias.
    // With vector, the loads it merges are brought together first (its own reordering).
    for (const char* rules : {"fma,imad,lea,addr,scaled,cvt,mov,schedule",
                              "fma,imad,lea,addr,scaled,cvt,mov,schedule,spaces",
                              "fma,imad,lea,addr,scaled,cvt,mov,vector,schedule,spaces"}) {
      SCOPED_TRACE(rules);
      const BuiltinRun on = run_builtin(name, rules);
      EXPECT_EQ(on.buffers, off.buffers);
      ASSERT_EQ(on.stats.size(), off.stats.size());
      for (std::size_t l = 0; l < on.stats.size(); ++l) {
        const auto &x = on.stats[l], &y = off.stats[l];
        EXPECT_EQ(x.warp_instructions, y.warp_instructions);
        EXPECT_EQ(x.thread_instructions, y.thread_instructions);
        ASSERT_EQ(x.instructions.size(), y.instructions.size());
        for (std::size_t i = 0; i < x.instructions.size(); ++i) {
          EXPECT_EQ(x.instructions[i].issued, y.instructions[i].issued) << "instruction " << i;
          const auto it = on.observed[l].find(std::uint32_t(i));
          const std::uint64_t seen = it == on.observed[l].end() ? 0 : it->second;
          // Absorbed instructions have no issue event of their own.
          EXPECT_LE(seen, x.instructions[i].issued) << "instruction " << i;
        }
        moved += x.cycles != y.cycles;
      }
    }
  }
  EXPECT_GT(moved, 0u);   // the scheduler changed something somewhere
  EXPECT_GE(exact, 20u);  // and most of the suite is compared exactly
}

// ex2 on hopper-h100 against the H200's opcode counts (calibration/runs/h100-2026-11-27/
// ncu_opcodes_h200.csv): each ex2.approx.f32 (no .ftz) adds an FSETP and two FMULs.
//   lavamd: 4 ex2 in each round of the inner loop, 6,400 warp-rounds (8 CTAs x 8 neighbour boxes
//   x 4 warps x 25 rounds): 25,600, and the GPU executed 25,600 FSETP and 76,800 FMUL, of which
//   25,600 are the rounds' 4 mul.f32 (76,800 - 25,600 = 2 x 25,600).
//   attention: 4 CTAs of 4 warps, each lane exponentiating its 32 scores (a 16 x 64 strip of a
//   warp, 1,024 scores over 32 lanes): 16 x 32 = 512, and the GPU executed 512 FSETP.
// So the rule adds 3 x 25,600 and 3 x 512 warp instructions; the PTX executed is the same.
TEST(Lowering, Ex2AddsTheFsetpAndFmulsTheGpuExecuted) {
  for (const auto& [name, ex2] : {std::pair{"lavamd", 25'600u}, std::pair{"attention", 512u}}) {
    SCOPED_TRACE(name);
    auto run = [&](bool on) {
      exec::Workload w = exec::make_builtin(name, {}, SMEMSIM_PTX_DIR);
      Arch a = find_preset("hopper-h100");
      if (!on)
        a.sm.lower =
            "fma,imad,lea,addr,cvt,mov,imm,ifcvt,vector,schedule,spaces,sincos,divide,bssy";
      timing::GpuSim sim(w.module, exec::find_kernel(w.module, w.kernel), a, w.launch, w.memory,
                         {});
      const timing::TimingStats s = sim.run();
      EXPECT_EQ(w.check ? w.check(w.memory) : "", "");
      return s;
    };
    const timing::TimingStats with = run(true), without = run(false);
    EXPECT_EQ(with.expanded - without.expanded, 3 * ex2);
    EXPECT_EQ(with.warp_instructions, without.warp_instructions);
    EXPECT_EQ(with.absorbed, without.absorbed);
  }
}

}  // namespace
}  // namespace smemsim::test

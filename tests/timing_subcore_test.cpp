// Exact-cycle tests of the SM's sub-cores and units (issue 25, item 1), derived by hand.
//
// Every test runs on fig4_arch() (timing_pipeline_test.cpp's header gives its timing: an
// instruction issued in cycle c is in IF at c, ID at c+1, EXE at c+2, MEM0 at c+3, MEM1 at c+4,
// writes back at c+5, and a dependent instruction issues at c+6) with the structure each test
// names. Warp slot w runs on sub-core w % sm.subcores; a CTA's warps take slots 0, 1, 2, ...
// The sub-cores advance and issue in an order that starts at sub-core (cycle % subcores).
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

using timing::Stall;

Arch subcore_arch(std::uint32_t subcores, const std::string& scope = "subcore") {
  Arch a = fig4_arch();
  a.sm.subcores = subcores;
  a.sm.unit_scope = scope;
  validate(a);
  return a;
}

// Two warps on two sub-cores issue in the same cycle: each warp's chain runs as it does alone
// (TimingPipeline.DependentAluChainInOneWarp: 0, 6, 12, 18, ret 19, 25 cycles). Two sub-cores x 25
// cycles = 50 issue slots, 10 of them issued.
TEST(TimingSubcore, TwoWarpsOnTwoSubcoresIssueInTheSameCycle) {
  TimedKernel k(kChain, 64);
  Recorder rec;
  const auto s = k.run(subcore_arch(2), &rec);
  const std::uint64_t at[] = {0, 6, 12, 18, 19};
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(rec.issued(0, i), at[i]) << "warp 0, instruction " << i;
    EXPECT_EQ(rec.issued(1, i), at[i]) << "warp 1, instruction " << i;
  }
  EXPECT_EQ(s.cycles, 25u);
  EXPECT_EQ(s.issue[Stall::Issued], 10u);
  std::uint64_t slots = 0;
  for (const auto c : s.issue.cycles) slots += c;
  EXPECT_EQ(slots, 2u * 25);
}

// Three warps on two sub-cores: slots 0 and 2 share sub-core 0, slot 1 has sub-core 1. Warps 0 and
// 1 issue i0 in cycle 0; warp 2 waits for sub-core 0's slot and issues in cycle 1 (loose round
// robin), so its chain runs one cycle later: 1, 7, 13, 19. At 19 sub-core 0 has warp 0's ret and
// warp 2's i3 (TimingPipeline.TwoWarpsInterleaveRoundRobin's situation): round robin after warp 0
// gives warp 2's i3 at 19, warp 0's ret at 20, warp 2's ret at 21. Warp 1, alone on sub-core 1,
// runs as if alone: ret at 19.
TEST(TimingSubcore, TwoWarpsOnOneSubcoreDoNot) {
  TimedKernel k(kChain, 96);
  Recorder rec;
  k.run(subcore_arch(2), &rec);
  EXPECT_EQ(rec.issued(0, 0), 0u);
  EXPECT_EQ(rec.issued(1, 0), 0u);
  EXPECT_EQ(rec.issued(2, 0), 1u);
  EXPECT_EQ(rec.issued(2, 3), 19u);
  EXPECT_EQ(rec.issued(0, 4), 20u);
  EXPECT_EQ(rec.issued(2, 4), 21u);
  EXPECT_EQ(rec.issued(1, 4), 19u);
}

// Four independent ALU instructions and ret in one warp.
const char* kIndependent = R"(
.visible .entry ind(.param .u64 out)
{
  .reg .b32 %r<8>;
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  mov.u32 %r3, 3;
  mov.u32 %r4, 4;
  ret;
}
)";

// A 16-lane ALU takes a 32-thread op every other cycle: the movs issue at 0, 2, 4, 6 and the slot
// waits in 1, 3, 5; ret (the branch unit, no lane limit) issues at 7 and writes back at 12: 13
// cycles. The ALU is busy with the warp's own previous mov, which on the GPU is the stall count
// ptxas puts after it: Nsight Compute's `wait`, not `math_pipe_throttle` (an H200's lavamd, one
// warp a sub-core, FP64 and integer ops back to back, has no math_pipe_throttle at all). With 32
// lanes the same warp issues in 0..4 (ret at 4, 10 cycles).
TEST(TimingSubcore, SixteenLaneUnitTakesAWarpEveryTwoCycles) {
  TimedKernel k(kIndependent, 32);
  Arch a = fig4_arch();
  a.sm.lanes_alu = 16;
  Recorder rec;
  const auto s = k.run(a, &rec, true);
  const std::uint64_t at[] = {0, 2, 4, 6, 7};
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(rec.issued(0, i), at[i]) << "instruction " << i;
  EXPECT_EQ(s.issue[Stall::MathPipeThrottle], 0u);
  EXPECT_EQ(s.issue[Stall::Wait], 3u);
  EXPECT_EQ(rec.stalls.at(1), Stall::Wait);
  EXPECT_EQ(s.instructions[1].warp_states[Stall::Wait], 1u);  // mov 2 waits in cycle 1
  EXPECT_EQ(s.cycles, 13u);

  // Two warps on the one sub-core, round robin, the ALU free every other cycle: warp 0 issues its
  // movs at 0, 4, 8, 12, warp 1 at 2, 6, 10, 14. A warp's second mov waits once on its own first
  // (warp 0 in cycle 1, warp 1 in 3: wait), is passed over once for the other warp (not_selected)
  // and waits once on the other warp's mov (warp 0 in 3, warp 1 in 5: math_pipe_throttle). In
  // cycle 1 the slot reports the other warp's reason: warp 1's first mov finds the ALU held by
  // warp 0's.
  TimedKernel two(kIndependent, 64);
  Recorder r2;
  const auto s2 = two.run(a, &r2, true);
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r2.issued(0, i), 4 * i) << i;
    EXPECT_EQ(r2.issued(1, i), 4 * i + 2) << i;
  }
  EXPECT_EQ(r2.stalls.at(1), Stall::MathPipeThrottle);
  EXPECT_EQ(s2.instructions[0].warp_states[Stall::MathPipeThrottle], 1u);  // warp 1 in cycle 1
  EXPECT_EQ(s2.instructions[0].warp_states[Stall::Wait], 0u);
  EXPECT_EQ(s2.instructions[1].warp_states[Stall::Wait], 2u);
  EXPECT_EQ(s2.instructions[1].warp_states[Stall::MathPipeThrottle], 2u);

  Recorder wide;
  const auto w = k.run(fig4_arch(), &wide);
  EXPECT_EQ(wide.issued(0, 4), 4u);
  EXPECT_EQ(w.cycles, 10u);
  EXPECT_EQ(w.issue[Stall::MathPipeThrottle], 0u);
}

// Both warps load one shared word (a broadcast: one pass) as their second instruction, then three
// independent movs and ret.
const char* kLoadThenMovs = R"(
.visible .entry mio(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sh[128];
  mov.u32 %r1, sh;
  ld.shared.u32 %r2, [%r1];
  mov.u32 %r3, 3;
  mov.u32 %r4, 4;
  mov.u32 %r5, 5;
  ret;
}
)";

// Two sub-cores share the shared-memory port. Each warp issues i0 at 0, its load i1 at 6 (after
// i0's writeback at 5), i2 at 7, i3 at 8. Both loads reach MEM0 in cycle 9, where sub-core 1 goes
// first (9 % 2) and takes the port: warp 1's load passes at 9 and writes back at 11; its i4 issues
// at 9, ret at 10. Warp 0's load stays in EXE (mio_throttle); i2 cannot leave ID, i3 cannot leave
// IF, so sub-core 0's slot stalls at 9 with mio_throttle. At 10 the load passes (written back at
// 12), i4 issues at 10 and ret at 11, which writes back at 16: 17 cycles.
TEST(TimingSubcore, SharedPortBackPressureIsMioThrottle) {
  TimedKernel k(kLoadThenMovs, 64);
  Recorder rec;
  const auto s = k.run(subcore_arch(2), &rec);
  for (std::uint32_t w = 0; w < 2; ++w) {
    EXPECT_EQ(rec.issued(w, 1), 6u) << "warp " << w;
    EXPECT_EQ(rec.issued(w, 3), 8u) << "warp " << w;
  }
  EXPECT_EQ(rec.completed(1, 1), 11u);
  EXPECT_EQ(rec.issued(1, 4), 9u);
  EXPECT_EQ(rec.issued(1, 5), 10u);
  EXPECT_EQ(rec.completed(0, 1), 12u);
  EXPECT_EQ(rec.issued(0, 4), 10u);
  EXPECT_EQ(rec.issued(0, 5), 11u);
  EXPECT_EQ(s.issue[Stall::MioThrottle], 1u);
  EXPECT_EQ(s.cycles, 17u);

  // With one sub-core's worth of port per sub-core there is no contention: a single sub-core
  // (both warps on it) has no mio_throttle at all.
  const auto one = k.run(fig4_arch());
  EXPECT_EQ(one.issue[Stall::MioThrottle], 0u);
}

// An independent ALU and SFU instruction, then ret.
const char* kAluSfu = R"(
.visible .entry dual(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  mov.u32 %r1, 1;
  sin.approx.f32 %f1, %f2;
  ret;
}
)";

// Fermi-style dual issue (unit_scope = sm): the two sub-cores' schedulers share one 32-lane ALU
// and one 8-lane SFU (a 32-thread op holds it 4 cycles). Cycle 0: sub-core 0 issues warp 0's mov;
// warp 1's mov finds the ALU taken in this very cycle (dispatch). Cycle 1 (sub-core 1 first): warp
// 1's mov takes the ALU and warp 0's sin the SFU: two instructions to two unit groups in one cycle.
// Cycle 2: warp 0's ret; warp 1's sin waits for the SFU (taken up to lane-cycle 8 + 32 = 40, free
// from cycle 5: math_pipe_throttle at 2, 3, 4) and issues at 5, its ret at 6, written back at 11:
// 12 cycles.
TEST(TimingSubcore, FermiDualIssueToDifferentUnitGroups) {
  TimedKernel k(kAluSfu, 64);
  Arch a = subcore_arch(2, "sm");
  a.sm.lanes_sfu = 8;
  Recorder rec;
  const auto s = k.run(a, &rec);
  EXPECT_EQ(rec.issued(0, 0), 0u);
  EXPECT_EQ(rec.issued(1, 0), 1u);
  EXPECT_EQ(rec.issued(0, 1), 1u);
  EXPECT_EQ(rec.issued(0, 2), 2u);
  EXPECT_EQ(rec.issued(1, 1), 5u);
  EXPECT_EQ(rec.issued(1, 2), 6u);
  EXPECT_EQ(s.issue[Stall::Dispatch], 1u);
  EXPECT_EQ(s.issue[Stall::MathPipeThrottle], 3u);
  EXPECT_EQ(s.cycles, 12u);

  // Each sub-core with its own units (Volta's processing blocks): both movs at 0, both sins at 1.
  Arch own = subcore_arch(2);
  own.sm.lanes_sfu = 8;
  Recorder r2;
  k.run(own, &r2);
  EXPECT_EQ(r2.issued(1, 0), 0u);
  EXPECT_EQ(r2.issued(1, 1), 1u);
}

// Two independent m16n8k16 mma (2,048 multiply-adds each) and ret.
const char* kTwoMma = R"(
.visible .entry tc(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f9,%f10,%f11,%f12}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};
  ret;
}
)";

// A tensor unit of 256 FP16 multiply-adds per cycle holds an m16n8k16 (16 x 8 x 16 = 2,048) for 8
// cycles: the second mma issues at 8 (waiting 1..7 for the unit its own first mma holds: `wait`,
// as for the 16-lane ALU above), ret at 9. An mma's latency is lat_tensor
// (6) + 8 - 1 = 13: the first writes back at 12, the second at 8 + 12 = 20: 21 cycles. Without a
// tensor core (tensor_fmas = 0) an mma issues like an ALU instruction: 0, 1, ret 2.
TEST(TimingSubcore, TensorUnitHoldsAnMmaForItsShape) {
  TimedKernel k(kTwoMma, 32);
  Arch a = fig4_arch();
  a.sm.tensor_fmas = 256;
  a.sm.lat_tensor = 6;
  Recorder rec;
  const auto s = k.run(a, &rec);
  EXPECT_EQ(rec.issued(0, 0), 0u);
  EXPECT_EQ(rec.issued(0, 1), 8u);
  EXPECT_EQ(rec.issued(0, 2), 9u);
  EXPECT_EQ(rec.completed(0, 0), 12u);
  EXPECT_EQ(rec.completed(0, 1), 20u);
  EXPECT_EQ(s.issue[Stall::Wait], 7u);
  EXPECT_EQ(s.issue[Stall::MathPipeThrottle], 0u);
  EXPECT_EQ(s.cycles, 21u);

  Recorder plain;
  k.run(fig4_arch(), &plain);
  EXPECT_EQ(plain.issued(0, 1), 1u);
  EXPECT_EQ(plain.issued(0, 2), 2u);
}

// Volta's tensor steps (sm.tensor_step_fmas): an m16n8k16 holds a 256-FMA unit 8 cycles as
// before, but it is ready lat_tensor after its last step starts. Steps of 512 FMAs with an f32
// accumulator are 2 cycles: the first mma is ready 6 + 8 - 2 = 12 cycles after issue, one cycle
// sooner than with steps of one cycle (13, above): it writes back at 11, the second (issued at 8)
// at 19, and the kernel takes 20 cycles. With an f16 accumulator a step does twice the work, 4
// cycles: ready 6 + 8 - 4 = 10 after issue.
TEST(TimingSubcore, TensorStepsMakeTheResultReadyAfterTheLastStepStarts) {
  Arch a = fig4_arch();
  a.sm.tensor_fmas = 256;
  a.sm.lat_tensor = 6;
  a.sm.tensor_step_fmas = 512;
  {
    TimedKernel k(kTwoMma, 32);
    Recorder rec;
    const auto s = k.run(a, &rec);
    EXPECT_EQ(rec.issued(0, 1), 8u);  // the unit is still held 8 cycles an mma
    EXPECT_EQ(rec.completed(0, 0), 11u);
    EXPECT_EQ(rec.completed(0, 1), 19u);
    EXPECT_EQ(s.cycles, 20u);
  }
  // The same two mma with f16 accumulators: D and C are two .b32 registers each (f16x2 pairs).
  const char* kTwoMmaF16 = R"(
.visible .entry tc(.param .u64 out)
{
  .reg .b32 %r<16>;
  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r10,%r11}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r14,%r15};
  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r12,%r13}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r14,%r15};
  ret;
}
)";
  TimedKernel k(kTwoMmaF16, 32);
  Recorder rec;
  k.run(a, &rec);
  EXPECT_EQ(rec.issued(0, 1), 8u);
  EXPECT_EQ(rec.completed(0, 0), 9u);  // issued at 0, ready 10 later: writes back at 9
  EXPECT_EQ(rec.completed(0, 1), 17u);
}

// The tensor unit's interval for the other element types (issue 27), at the A100 whitepaper's dense
// peak ratios to FP16 (Table 1: INT8 2x, INT4 4x, binary 16x, FP64 1/16) and 256 FP16
// multiply-adds per cycle: the second of two independent mma issues when the first frees the unit.
//   s8 m16n8k32:   16*8*32 = 4,096 / 2   = 2,048 -> 8 cycles
//   s4 m16n8k64:   16*8*64 = 8,192 / 4   = 2,048 -> 8
//   b1 m16n8k256: 16*8*256 = 32,768 / 16 = 2,048 -> 8
//   f64 m8n8k4:      8*8*4 = 256 * 16    = 4,096 -> 16
//   f16 m8n8k4: four quad-pair products of 8*8*4: 1,024 -> 4
TEST(TimingSubcore, TensorUnitIntervalFollowsTheElementType) {
  const std::pair<std::string, std::uint64_t> cases[] = {
      {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, "
       "{%r9,%r10}, {%r11,%r12,%r13,%r14};",
       8},
      {"mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, "
       "{%r9,%r10}, {%r11,%r12,%r13,%r14};",
       8},
      {"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r1,%r2,%r3,%r4}, "
       "{%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};",
       8},
      {"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1,%fd2}, {%fd3}, {%fd4}, {%fd5,%fd6};",
       16},
      {"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, "
       "{%r5,%r6}, {%r7,%r8}, {%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16};",
       4},
  };
  for (const auto& [mma, interval] : cases) {
    // Two independent copies: the second writes other registers (%r21.., %fd11.., %f21..).
    std::string second = mma;
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"{%r1,%r2,%r3,%r4}", "{%r21,%r22,%r23,%r24}"},
          {"{%fd1,%fd2}", "{%fd11,%fd12}"},
          {"{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}", "{%f21,%f22,%f23,%f24,%f25,%f26,%f27,%f28}"}})
      if (const auto at = second.find(from); at != std::string::npos)
        second.replace(at, from.size(), to);
    const std::string kernel = R"(
.visible .entry tc(.param .u64 out)
{
  .reg .b32 %r<32>;
  .reg .f32 %f<32>;
  .reg .f64 %fd<16>;
  )" + mma + "\n  " + second + "\n  ret;\n}\n";
    TimedKernel k(kernel, 32);
    Arch a = fig4_arch();
    a.sm.tensor_fmas = 256;
    a.sm.lat_tensor = 6;
    Recorder rec;
    k.run(a, &rec);
    EXPECT_EQ(rec.issued(0, 0), 0u) << mma;
    EXPECT_EQ(rec.issued(0, 1), interval) << mma;
  }
}

TEST(TimingSubcore, BadStructureIsRefusedNamingTheKey) {
  Arch a = fig4_arch();
  a.sm.subcores = 5;  // 48 warp slots
  try {
    validate(a);
    ADD_FAILURE() << "5 sub-cores over 48 warp slots accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.subcores"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("48"), std::string::npos) << e.what();
  }
  a = fig4_arch();
  a.sm.lanes_fma = 0;
  EXPECT_THROW(validate(a), InputError);
  a = fig4_arch();
  a.sm.unit_scope = "cluster";
  EXPECT_THROW(validate(a), InputError);
  a = fig4_arch();
  a.sm.lat_tensor = 3;  // shorter than the 6-cycle pipeline
  EXPECT_THROW(validate(a), InputError);
  a = fig4_arch();
  a.sm.tensor_step_fmas = 256;  // steps of a tensor unit the SM does not have
  try {
    validate(a);
    ADD_FAILURE() << "tensor steps without a tensor unit accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.tensor_step_fmas"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// 16 independent integer adds (ALU pipe) and 16 independent f32 adds (FMA pipe), interleaved.
std::string alu_bound_kernel() {
  std::string body = R"(
.visible .entry alu(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .f32 %f<40>;
  mov.u32 %r1, %tid.x;
  mov.f32 %f1, 0f3F800000;
)";
  for (int i = 2; i < 18; ++i) {
    body += "  add.u32 %r" + std::to_string(i) + ", %r1, " + std::to_string(i) + ";\n";
    body += "  add.f32 %f" + std::to_string(i) + ", %f1, %f1;\n";
  }
  return body + "  ret;\n}\n";
}

// The issue's claim: an ALU-bound kernel with many warps passes one warp-instruction per cycle per
// SM on volta-v100 (four processing blocks, each issuing one per cycle; an ALU and an FMA pipe of
// 16 lanes each, so a block alternating the two issues every cycle). It cannot pass four (one per
// block). The same SM with one issue slot (sm.subcores = 1) stays at or below one.
TEST(TimingSubcore, AluBoundKernelPassesOneInstructionPerCycleOnVolta) {
  TimedKernel k(alu_bound_kernel(), 1024);
  Arch volta = find_preset("volta-v100");
  volta.sm.count = 1;
  const auto s = k.run(volta);
  const double ipc = double(s.warp_instructions) / double(s.cycles);
  EXPECT_GT(ipc, 1.0);
  EXPECT_LE(ipc, 4.0);
  EXPECT_EQ(s.warp_instructions, 32u * 35);  // 32 warps x (2 movs + 32 adds + ret)

  Arch one = volta;
  one.sm.subcores = 1;
  const auto t = k.run(one);
  EXPECT_LE(double(t.warp_instructions) / double(t.cycles), 1.0);
  EXPECT_GT(t.cycles, s.cycles);
}

}  // namespace
}  // namespace smemsim::test

// The lowering rule vector (issue 42, src/lower/vector.hpp) and the packing rule of wide shared
// loads (memory.wide_access = pairs). ptxas for sm_90 issues matmul's sixteen scalar loads of
// As[ty][k] as four LDS.128, and an H200 serves each in 2 wavefronts, not 4: lanes 0-15 read one
// 16-byte chunk and lanes 16-31 another (calibration/runs/h100-2026-11-26/ncu.csv: 12,288 load
// wavefronts for 10,240 LDS, of which the 8,192 scalar loads of Bs take one each; NVIDIA's forum
// answer for cc 7.x, forums.developer.nvidia.com/t/77228, gives the rule: lanes n and n^1, or n
// and n^2, on the same address). Each expectation is worked out by hand in its comment.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/schedule.hpp"
#include "lower/vector.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/workloads.hpp"
#include "timing/inst_info.hpp"
#include "timing/smem_unit.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// One instruction per line, numbered in the comments (Kernel::code indices).
const char* kLoads = R"(
.visible .entry loads(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .f32 %f<40>;
  .shared .align 4 .b8 tile[1024];
  mov.u32 %r1, %tid.x;            // 0
  mov.u32 %r2, tile;              // 1  16: a shared variable (ptxas places it)
  shl.b32 %r3, %r1, 6;            // 2  64: tid is unknown, times 64
  add.s32 %r4, %r2, %r3;          // 3  16 = min(16, 64)
  shl.b32 %r5, %r1, 2;            // 4  4
  add.s32 %r6, %r2, %r5;          // 5  4
  ld.shared.f32 %f1, [%r4];       // 6  group {6, 8, 11, 12}: r4 + 0, 4, 8, 12, 16-aligned
  add.f32 %f20, %f1, %f1;         // 7  reads the first load's result: the others pass it
  ld.shared.f32 %f2, [%r4+4];     // 8
  ld.shared.f32 %f3, [%r6+4];     // 9  r6 is only 4-aligned: {9, 10} is no group
  ld.shared.f32 %f4, [%r6+8];     // 10
  ld.shared.f32 %f5, [%r4+8];     // 11
  ld.shared.f32 %f6, [%r4+12];    // 12
  ld.shared.f32 %f7, [%r4+24];    // 13 group {13, 14}: 8 bytes (r4 + 16 and + 20 are not read)
  ld.shared.f32 %f8, [%r4+28];    // 14
  ld.shared.f32 %f9, [%r4+32];    // 15 + 32 and + 36 would pair, but a shared store is between
  st.shared.f32 [%r6], %f20;      // 16
  ld.shared.f32 %f10, [%r4+36];   // 17
  ld.shared.f32 %f11, [%r4+48];   // 18 + 48 and + 52: the mov writes f12 between them
  mov.f32 %f12, 0f00000000;       // 19
  ld.shared.f32 %f12, [%r4+52];   // 20
  mul.lo.s32 %r7, %r1, 24;        // 21 8: 24 = 8 x 3
  mad.lo.s32 %r8, %r1, 24, %r2;   // 22 8 = min(8, 16)
  mov.u32 %r9, tile;              // 23 written twice: min(16, min(16, 48)) = 16
  add.s32 %r9, %r9, 48;           // 24
  ret;                            // 25
}
)";

TEST(LoweringVector, AlignmentFromHowAnAddressWasMade) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kLoads, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<std::uint32_t> a = lower::known_alignment(k, timing::reg_uses(info));
  auto reg = [&](const char* name) {
    for (std::size_t r = 0; r < k.regs.size(); ++r)
      if (k.regs[r].name == name) return a[r];
    ADD_FAILURE() << name;
    return 0u;
  };
  EXPECT_EQ(reg("%r1"), 1u);
  EXPECT_EQ(reg("%r2"), 16u);
  EXPECT_EQ(reg("%r3"), 64u);
  EXPECT_EQ(reg("%r4"), 16u);
  EXPECT_EQ(reg("%r6"), 4u);
  EXPECT_EQ(reg("%r7"), 8u);
  EXPECT_EQ(reg("%r8"), 8u);
  EXPECT_EQ(reg("%r9"), 16u);
}

TEST(LoweringVector, GroupsAndTheOrderThatBringsThemTogether) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kLoads, "t.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const auto uses = timing::reg_uses(info);
  EXPECT_EQ(lower::vector_groups(k, uses),
            (std::vector<std::vector<std::uint32_t>>{{6, 8, 11, 12}, {13, 14}}));
  // The later members move up behind the first; the rest keep their order.
  std::vector<std::uint32_t> want = {0, 1, 2, 3, 4, 5, 6, 8, 11, 12, 7, 9, 10};
  for (std::uint32_t i = 13; i < k.code.size(); ++i) want.push_back(i);
  EXPECT_EQ(lower::vector_order(k, uses), want);
  // In that order the lowering absorbs 6, 8 and 11 into 12 and 13 into 14 (and nothing else).
  const ptx::Kernel moved = lower::reordered(k, want);
  std::vector<timing::InstInfo> minfo = timing::decode_kernel(moved);
  const auto with = timing::apply_lowering(moved, minfo, lower::parse_rules("vector"));
  std::vector<std::uint32_t> absorbed;  // positions in the moved kernel
  for (std::uint32_t i = 0; i < with.size(); ++i)
    if (with[i] != ptx::kNone) absorbed.push_back(i);
  EXPECT_EQ(absorbed, (std::vector<std::uint32_t>{6, 7, 8, 13}));
  EXPECT_EQ(with[6], 9u);
  EXPECT_EQ(with[13], 14u);
  EXPECT_TRUE(minfo[9].merged_words);
  EXPECT_EQ(minfo[9].ndst, 4);  // the group's four results wait for the one load
}

// Stores (ptxas's STS.64 / STS.128: grid3d's pairs and scan_blelloch's, 1,536 -> 768 and 616 ->
// 552 shared stores as on the H200, calibration/runs/h100-2026-11-26/ncu.csv): a group gathers at
// its last member, the earlier ones moving down past what neither reads nor writes shared memory
// nor changes their values.
const char* kStores = R"(
.visible .entry stores(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .f32 %f<10>;
  .shared .align 4 .b8 tile[1024];
  mov.u32 %r1, %tid.x;            // 0
  mov.u32 %r2, tile;              // 1  16
  shl.b32 %r3, %r1, 6;            // 2  64
  add.s32 %r4, %r2, %r3;          // 3  16
  mov.f32 %f1, 0f3F800000;        // 4
  st.shared.f32 [%r4], %f1;       // 5  group {5, 7}: + 0 and + 4, 8-aligned
  add.f32 %f2, %f1, %f1;          // 6  makes the second value: the first store moves below it
  st.shared.f32 [%r4+4], %f2;     // 7
  st.shared.f32 [%r4+8], %f1;     // 8  + 8 and + 12: a shared load between
  ld.shared.f32 %f3, [%r4+32];    // 9
  st.shared.f32 [%r4+12], %f2;    // 10
  st.shared.f32 [%r4+16], %f1;    // 11 + 16 and + 20: f1 changes between
  mov.f32 %f1, 0f40000000;        // 12
  st.shared.f32 [%r4+20], %f2;    // 13
  st.shared.f32 [%r4+24], %f2;    // 14 + 24 is stored again at 15: 14 stays before it
  st.shared.f32 [%r4+24], %f1;    // 15 group {15, 16}
  st.shared.f32 [%r4+28], %f1;    // 16
  ret;                            // 17
}
)";

TEST(LoweringVector, StoresGatherAtTheirLastMember) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kStores, "s.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const auto uses = timing::reg_uses(info);
  EXPECT_EQ(lower::vector_groups(k, uses),
            (std::vector<std::vector<std::uint32_t>>{{5, 7}, {15, 16}}));
  std::vector<std::uint32_t> want = {0, 1, 2, 3, 4, 6, 5, 7};
  for (std::uint32_t i = 8; i < k.code.size(); ++i) want.push_back(i);
  EXPECT_EQ(lower::vector_order(k, uses), want);
  // In that order 5 (now at 6) issues with 7, and 15 with 16: one wide store each.
  const ptx::Kernel moved = lower::reordered(k, want);
  std::vector<timing::InstInfo> minfo = timing::decode_kernel(moved);
  const auto with = timing::apply_lowering(moved, minfo, lower::parse_rules("vector"));
  std::vector<std::uint32_t> absorbed;
  for (std::uint32_t i = 0; i < with.size(); ++i)
    if (with[i] != ptx::kNone) absorbed.push_back(i);
  EXPECT_EQ(absorbed, (std::vector<std::uint32_t>{6, 15}));
  EXPECT_EQ(with[6], 7u);
  EXPECT_EQ(with[15], 16u);
  EXPECT_TRUE(minfo[7].merged_words);
  EXPECT_TRUE(minfo[7].store);
}

// Doubles (lavamd's rows of four): two 8-byte loads or stores at offsets 16k and 16k + 8 from a
// 16-byte-aligned base are one LDS.128 / STS.128; a pair that starts at + 8 is not aligned to its
// 16 bytes, and an 8-byte base pairs nothing (an 8-byte group would be one double).
const char* kDoubles = R"(
.visible .entry doubles(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .f64 %fd<10>;
  .shared .align 8 .b8 rows[3200];
  mov.u32 %r1, %tid.x;            // 0
  mov.u32 %r2, rows;              // 1  16
  shl.b32 %r3, %r1, 5;            // 2  32
  add.s32 %r4, %r2, %r3;          // 3  16
  shl.b32 %r5, %r1, 3;            // 4  8
  add.s32 %r6, %r2, %r5;          // 5  8
  ld.shared.f64 %fd1, [%r4];      // 6  group {6, 7}
  ld.shared.f64 %fd2, [%r4+8];    // 7
  ld.shared.f64 %fd3, [%r4+24];   // 8  + 24 and + 32: the pair would start at + 24, not 16-aligned
  ld.shared.f64 %fd4, [%r4+32];   // 9
  ld.shared.f64 %fd5, [%r6];      // 10 r6 is only 8-aligned: {10, 11} is no group
  ld.shared.f64 %fd6, [%r6+8];    // 11
  st.shared.f64 [%r4+48], %fd1;   // 12 group {12, 13}: + 48 and + 56
  st.shared.f64 [%r4+56], %fd2;   // 13
  ret;                            // 14
}
)";

TEST(LoweringVector, PairsOfDoublesAreOneSixteenByteAccess) {
  const ptx::Module m = ptx::parse(std::string(kTimingHeader) + kDoubles, "d.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const auto uses = timing::reg_uses(info);
  EXPECT_EQ(lower::vector_groups(k, uses),
            (std::vector<std::vector<std::uint32_t>>{{6, 7}, {12, 13}}));
  // Adjacent already: nothing moves, and the lowering absorbs 6 into 7 and 12 into 13.
  EXPECT_TRUE(lower::vector_order(k, uses).empty());
  std::vector<timing::InstInfo> minfo = info;
  const auto with = timing::apply_lowering(k, minfo, lower::parse_rules("vector"));
  EXPECT_EQ(with[6], 7u);
  EXPECT_EQ(with[12], 13u);
  EXPECT_TRUE(minfo[7].merged_words);
  EXPECT_EQ(minfo[7].ndst, 2);
  for (std::uint32_t i : {8u, 9u, 10u, 11u}) EXPECT_EQ(with[i], ptx::kNone) << i;
}

// builtin:lavamd (2^3 boxes of 100 particles: 8 CTAs of 128 threads, 4 warps each, the fourth
// with lanes 96-99) on hopper-h100 against the GPU's counts of the same launch. Worked out from
// the PTX: every CTA visits its box's 8 neighbours (all in range), and every warp issues, per
// neighbour, the 4 stores of rB's row and qB's one, the 4 loads of rA's row, and 25 rounds of
// the inner loop (100 particles, unrolled 4 times) of 16 loads from rB and 4 from qB; before
// that, the 4 stores of rA's row once. 8 x 8 x 4 = 256 warp-neighbours:
//   PTX: ld.shared 256 x (4 + 25 x 20) = 129,024; st.shared 32 x 4 + 256 x 5 = 1,408.
//   Pairs (every row is 32 bytes from a 16-byte-aligned variable; the loop's pointers advance by
//   128 and 32): LDS 64,512; STS 32 x 2 + 256 x 2 + 256 (qB's store has no partner) = 832.
// The H200's SASS executed 64,512 LDS and 832 STS (calibration/runs/h100-2026-11-27/
// ncu_opcodes_h200.csv), and the H100 served them in 115,200 load and 4,048 store wavefronts of
// which 1,536 and 1,728 were bank conflicts (h100-2026-11-26/ncu.csv): the model's passes.
TEST(LoweringVector, LavamdIssuesTheSharedAccessesTheGpuExecuted) {
  auto run = [](bool vector) {
    exec::Workload w = exec::make_builtin("lavamd", {}, SMEMSIM_PTX_DIR);
    Arch a = find_preset("hopper-h100");
    if (!vector)
      a.sm.lower = "fma,imad,lea,addr,cvt,mov,imm,ifcvt,schedule,spaces,sincos,divide,bssy";
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, w.kernel), a, w.launch, w.memory, {});
    const timing::TimingStats s = sim.run();
    EXPECT_EQ(w.check ? w.check(w.memory) : "", "") << vector;
    return s;
  };
  const timing::TimingStats on = run(true), off = run(false);
  EXPECT_EQ(off.units.smem_accesses, 129'024u + 1'408u);
  EXPECT_EQ(on.units.smem_accesses, 64'512u + 832u);
  EXPECT_EQ(on.absorbed - off.absorbed, (129'024u - 64'512u) + (1'408u - 832u));
  EXPECT_EQ(on.warp_instructions, off.warp_instructions);  // the PTX executed is the same
  EXPECT_EQ(on.units.smem_passes, 115'200u + 4'048u);
  EXPECT_EQ(on.units.bank_conflict_passes, 1'536u + 1'728u);
}

// The executor's wavefronts of one ld.shared.v4.f32 by a warp whose lane t reads byte `addr(t)`.
std::vector<int> v4_phases(const std::string& addr_ptx, const char* wide_access) {
  const std::string ptx = std::string(kTimingHeader) + R"(
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .f32 %f<6>;
  .shared .align 16 .b8 sm[4096];
  mov.u32 %r1, %tid.x;
)" + addr_ptx + R"(
  mov.u32 %r2, sm;
  add.u32 %r4, %r2, %r3;
  ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r4];
  ret;
}
)";
  const ptx::Module m = ptx::parse(ptx, "w.ptx");
  Arch a = find_preset("hopper-h100");
  a.wide_access = wide_access;
  exec::GlobalMemory mem;
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  exec::Executor ex(m, m.kernels.at(0), a, launch, mem);
  exec::CollectConsumer c;
  ex.set_consumer(&c);
  ex.run();
  AccessEvaluator ev(a);
  std::vector<int> degrees;
  for (const WarpAccess& wa : c.accesses) degrees.push_back(ev.evaluate(wa).degrees.bank);
  return degrees;
}

TEST(WideLoadPairs, PairedLanesTakeHalfTheWavefronts) {
  // Lanes 0-15 read bytes 0-15, lanes 16-31 bytes 32-47 (t / 16 x 32; the forum's pattern 2 and
  // matmul's As): lanes n and n^1 agree, so half-warps: lanes 0-15 are one chunk (banks 0-3),
  // 16-31 another (banks 8-11): 2 phases of degree 1. Without the rule, quarter-warps: 4.
  const std::string halves = "  shr.u32 %r5, %r1, 4;\n  shl.b32 %r3, %r5, 5;";
  EXPECT_EQ(v4_phases(halves, "pairs"), (std::vector<int>{1, 1}));
  EXPECT_EQ(v4_phases(halves, "phases"), (std::vector<int>{1, 1, 1, 1}));
  // Every lane its own 16 bytes (t x 16): no pair agrees, quarter-warps of 8 lanes x 16 bytes =
  // banks 0-31 once: 4 phases of degree 1 either way (512 bytes need 4 x 128).
  const std::string own = "  shl.b32 %r3, %r1, 4;";
  EXPECT_EQ(v4_phases(own, "pairs"), (std::vector<int>{1, 1, 1, 1}));
  // Lane t at (t % 16) x 32 (the forum's pattern 1): lanes t and t + 16 agree, but neither n^1
  // nor n^2 does: quarter-warps; lanes 0-7 read bytes 0, 32, ..., 224, banks 0-3, 8-11, 16-19,
  // 24-27, 0-3, ...: each bank twice, degree 2, 4 phases: 8 wavefronts as that GPU counted.
  const std::string strided = "  and.b32 %r5, %r1, 15;\n  shl.b32 %r3, %r5, 5;";
  EXPECT_EQ(v4_phases(strided, "pairs"), (std::vector<int>{2, 2, 2, 2}));
  // All lanes on one address: pairs agree; half-warps, one chunk each: 2 (the forum: 4 -> 2).
  EXPECT_EQ(v4_phases("  mov.u32 %r3, 0;", "pairs"), (std::vector<int>{1, 1}));
}

TEST(WideLoadPairs, TheCycleModelsMergedRecordFollowsTheSameRule) {
  const Arch a = find_preset("hopper-h100");
  const timing::SharedMemoryUnit smu(a);
  timing::AccessRecord rec;
  rec.words = 4;
  rec.active = lanes_mask(32);
  // As[ty][k..k+3] for ty = t / 16 (matmul: rows of 16 words): words 16 (t / 16) + k.
  for (int k = 0; k < 4; ++k)
    for (int l = 0; l < 32; ++l)
      rec.addr[std::size_t(k)][std::size_t(l)] = WordAddr(16 * (l / 16) + k);
  rec.paired = true;
  EXPECT_EQ(smu.plan(rec, rec.active, 0, 32).passes, 2u);  // half-warps, one chunk each
  rec.paired = false;
  EXPECT_EQ(smu.plan(rec, rec.active, 0, 32).passes, 4u);  // quarter-warps
}

// builtin:matmul (n = 64, 16 x 16 tiles, 4 x 4 CTAs of 8 warps) on hopper-h100: each of a warp's
// 4 tile steps reads As[ty][0..15] as four groups of four loads, so the rule absorbs 12 loads a
// step: 128 warps x 4 x 12 = 6,144 warp instructions fewer issue (the H200's SASS: 10,240 LDS
// for the model's 16,384 scalar loads, 6,144 fewer). The outputs and the executed instructions
// do not change.
TEST(LoweringVector, MatmulIssuesTheLoadsPtxasMerges) {
  auto run = [](const char* extra, std::uint64_t& absorbed) {
    exec::Workload w = exec::make_builtin("matmul", {}, SMEMSIM_PTX_DIR);
    Arch a = find_preset("hopper-h100");
    a.sm.lower =
        std::string("fma,imad,lea,addr,cvt,mov,ifcvt,schedule,spaces,sincos,divide") + extra;
    a.wide_access = "pairs";
    timing::TimingOptions o;
    o.per_instruction = true;
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, w.kernel), a, w.launch, w.memory, o);
    const timing::TimingStats s = sim.run();
    EXPECT_EQ(w.check ? w.check(w.memory) : "", "") << extra;
    absorbed = s.absorbed;
    return s;
  };
  std::uint64_t with = 0, without = 0;
  const timing::TimingStats on = run(",vector", with), off = run("", without);
  EXPECT_EQ(on.warp_instructions, off.warp_instructions);
  EXPECT_EQ(with - without, 6144u);
  ASSERT_EQ(on.instructions.size(), off.instructions.size());
  for (std::size_t i = 0; i < on.instructions.size(); ++i)
    EXPECT_EQ(on.instructions[i].issued, off.instructions[i].issued) << i;
  EXPECT_LT(on.cycles, off.cycles);
}

}  // namespace
}  // namespace smemsim::test

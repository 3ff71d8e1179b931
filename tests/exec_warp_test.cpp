// Issue 15 on hand-written PTX (no nvcc needed): warp intrinsics (shfl.sync in its four modes with
// segment widths, vote.sync, match.sync, redux.sync, activemask, bar.warp.sync, WARP_SZ), their
// member-mask errors, 32-bit address wrap-around, and modules whose other kernels use instructions
// or device functions the executor does not run.
//
// Expected values come from the PTX ISA's definitions worked by hand for the lanes checked, not
// from the executor's code: e.g. a shfl.down sum of 1..32 leaves 528 in lane 0, and lane 31, whose
// partner is always out of range, doubles its 32 five times to 1024.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::exec {
namespace {

const char* kHeader = R"(.version 7.0
.target sm_75
.address_size 64
)";

// One kernel `k(.param .u64 out)` whose body computes %r9 (and maybe %r10) per thread; the epilogue
// stores out[tid] = %r9 and out[64 + tid] = %r10.
std::string kernel(const std::string& body) {
  return std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r10, 0;
)" + body +
         R"(
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  st.global.u32 [%rd3+256], %r10;
  ret;
}
)";
}

struct Lanes {
  std::vector<std::uint32_t> out, second;
};

Lanes run(const std::string& ptx, std::uint32_t threads = 32, const Arch& arch = default_arch()) {
  const ptx::Module m = ptx::parse(ptx, "w.ptx");
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {threads, 1, 1};
  launch.args.push_back(
      Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(128 * 4)})));
  Executor ex(m, m.kernels.at(0), arch, launch, mem);
  ex.run();
  const Buffer& b = mem.get("out");
  Lanes r;
  r.out.resize(64);
  r.second.resize(64);
  std::memcpy(r.out.data(), b.bytes.data(), 256);
  std::memcpy(r.second.data(), b.bytes.data() + 256, 256);
  return r;
}

std::string error_of(const std::string& ptx, std::uint32_t threads = 32,
                     const Arch& arch = default_arch()) {
  try {
    run(ptx, threads, arch);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ExecWarp, ShflDownReductionAndItsPredicate) {
  // __shfl_down_sync(~0, v, o) for o = 16, 8, 4, 2, 1 on v = lane + 1: lane 0 sums 1..32 = 528.
  // A lane whose partner l + o is past 31 receives its own value (PTX: j = lane when !pval), so
  // lane 31 doubles 32 five times: 1024. The first step's predicate is lane + 16 <= 31: lanes 0-15.
  const Lanes r = run(kernel(R"(
  add.u32 %r9, %r1, 1;
  shfl.sync.down.b32 %r2|%p1, %r9, 16, 31, -1;
  add.u32 %r9, %r9, %r2;
  selp.u32 %r10, 1, 0, %p1;
  shfl.sync.down.b32 %r2, %r9, 8, 31, -1;
  add.u32 %r9, %r9, %r2;
  shfl.sync.down.b32 %r2, %r9, 4, 31, -1;
  add.u32 %r9, %r9, %r2;
  shfl.sync.down.b32 %r2, %r9, 2, 31, -1;
  add.u32 %r9, %r9, %r2;
  shfl.sync.down.b32 %r2, %r9, 1, 31, -1;
  add.u32 %r9, %r9, %r2;
)"));
  EXPECT_EQ(r.out[0], 528u);
  EXPECT_EQ(r.out[31], 1024u);
  for (std::uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.second[l], l < 16 ? 1u : 0u) << l;
}

TEST(ExecWarp, ShflIdxUpAndBflyWithSegments) {
  // __shfl_sync(~0, v, 5, 8): c = ((32 - 8) << 8) | 31 = 0x181f, so lane l reads lane
  // (l & ~7) | 5. __shfl_up_sync(~0, v, 1, 8): c = 0x1800; the first lane of each 8-lane segment
  // keeps its value. __shfl_xor_sync(~0, v, 1): lane l reads lane l ^ 1.
  const Lanes idx = run(kernel(R"(
  mul.lo.u32 %r2, %r1, 10;
  shfl.sync.idx.b32 %r9, %r2, 5, 0x181f, -1;
  shfl.sync.up.b32 %r10, %r2, 1, 0x1800, -1;
)"));
  const Lanes bfly = run(kernel(R"(
  mul.lo.u32 %r2, %r1, 10;
  shfl.sync.bfly.b32 %r9, %r2, 1, 31, -1;
)"));
  for (std::uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(idx.out[l], ((l & ~7u) | 5u) * 10) << l;
    EXPECT_EQ(idx.second[l], (l % 8 == 0 ? l : l - 1) * 10) << l;
    EXPECT_EQ(bfly.out[l], (l ^ 1u) * 10) << l;
  }
}

TEST(ExecWarp, VoteBallotAnyAllUni) {
  // Odd lanes vote yes: ballot 0xaaaaaaaa; any 1, all 0, uni 0; !p all 0 too; a uniform vote is
  // uni.
  const Lanes r = run(kernel(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  vote.sync.ballot.b32 %r9, %p1, -1;
  vote.sync.any.pred %p2, %p1, -1;
  vote.sync.all.pred %p3, !%p1, -1;
  vote.sync.uni.pred %p4, %p1, -1;
  setp.lt.u32 %p5, %r1, 64;
  vote.uni.pred %p6, %p5;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 2, 0, %p3;
  selp.u32 %r5, 4, 0, %p4;
  selp.u32 %r6, 8, 0, %p6;
  or.b32 %r10, %r3, %r4;
  or.b32 %r10, %r10, %r5;
  or.b32 %r10, %r10, %r6;
)"));
  for (std::uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.out[l], 0xaaaaaaaau);
    EXPECT_EQ(r.second[l], 1u | 8u) << l;
  }
}

TEST(ExecWarp, MatchAnyAllAndRedux) {
  // match.any on lane / 4: lane l gets the four lanes of its group, 0xf << (4 * (l / 4)).
  // match.all on lane / 4 fails (0, p = 0); on a constant it gives the full mask and p = 1.
  // redux: add of lane ids 0..31 = 496; min.s32 of lane - 10 = -10; max.u32 31; or 31; and 0;
  // xor of 0..31 = 0 (each bit is set in 16 lanes).
  const Lanes m = run(kernel(R"(
  shr.u32 %r2, %r1, 2;
  match.any.sync.b32 %r9, %r2, -1;
  match.all.sync.b32 %r3|%p1, %r2, -1;
  mov.u32 %r4, 7;
  match.all.sync.b32 %r5|%p2, %r4, -1;
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 2, 0, %p2;
  add.u32 %r10, %r6, %r7;
  add.u32 %r10, %r10, %r3;
  xor.b32 %r5, %r5, -1;
  add.u32 %r10, %r10, %r5;
)"));
  for (std::uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(m.out[l], 0xfu << (4 * (l / 4))) << l;
    EXPECT_EQ(m.second[l], 2u) << l;  // p1 = 0, p2 = 1, %r3 = 0, ~0xffffffff = 0
  }
  const Lanes r = run(kernel(R"(
  redux.sync.add.u32 %r9, %r1, -1;
  sub.s32 %r2, %r1, 10;
  redux.sync.min.s32 %r10, %r2, -1;
)"));
  EXPECT_EQ(r.out[7], 496u);
  EXPECT_EQ(std::int32_t(r.second[7]), -10);
  const Lanes b = run(kernel(R"(
  redux.sync.max.u32 %r2, %r1, -1;
  redux.sync.or.b32 %r3, %r1, -1;
  redux.sync.and.b32 %r4, %r1, -1;
  redux.sync.xor.b32 %r5, %r1, -1;
  shl.b32 %r3, %r3, 8;
  shl.b32 %r4, %r4, 16;
  or.b32 %r9, %r2, %r3;
  or.b32 %r9, %r9, %r4;
  mov.u32 %r10, %r5;
)"));
  EXPECT_EQ(b.out[3], 31u | (31u << 8));
  EXPECT_EQ(b.second[3], 0u);
}

TEST(ExecWarp, ActivemaskSyncwarpAndWarpSize) {
  // In the odd lanes' branch activemask is 0xaaaaaaaa; outside it, after reconvergence, all 32.
  const Lanes r = run(kernel(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  activemask.b32 %r9;
  bra.uni JOIN;
EVEN:
  mov.u32 %r9, WARP_SZ;
JOIN:
  bar.warp.sync -1;
  activemask.b32 %r10;
)"));
  for (std::uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.out[l], l % 2 ? 0xaaaaaaaau : 32u) << l;
    EXPECT_EQ(r.second[l], 0xffffffffu) << l;
  }
  // A 48-thread block: warp 1 has lanes 0-15 only; the full mask names no missing live lane.
  const Lanes p = run(kernel("  redux.sync.add.u32 %r9, 1, -1;\n  activemask.b32 %r10;"), 48);
  EXPECT_EQ(p.out[0], 32u);
  EXPECT_EQ(p.out[40], 16u);
  EXPECT_EQ(p.second[40], 0xffffu);
}

TEST(ExecWarp, MemberMaskErrors) {
  // Odd lanes only reach the shuffle: the even member lanes never arrive.
  std::string e = error_of(kernel(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 shfl.sync.bfly.b32 %r9, %r1, 1, 31, -1;
)"));
  EXPECT_NE(e.find("w.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("member lanes 0x55555555 are live but do not execute it"), std::string::npos)
      << e;
  // A lane outside the member mask.
  e = error_of(kernel("  vote.sync.ballot.b32 %r9, %p1, 0xffff;"));
  EXPECT_NE(e.find("lane 16 executes it but is not in the member mask 0x0000ffff"),
            std::string::npos)
      << e;
  // A lane whose own mask leaves it out (the mask is the lane id: lane 0 gives 0).
  e = error_of(kernel("  redux.sync.add.u32 %r9, %r1, %r1;"));
  EXPECT_NE(e.find("lane 0 executes it but is not in the member mask 0x00000000"),
            std::string::npos)
      << e;
  // Masks that name each other but differ: lane l gives (1 << l) | 1, so lane 1 (0x3) names lane
  // 0, whose mask is 0x1. (Disjoint masks each group agrees on are fine: ExecWarp's tiles.)
  e = error_of(
      kernel("  shl.b32 %r3, 1, %r1;\n  or.b32 %r3, %r3, 1;\n  redux.sync.add.u32 %r9, %r1, %r3;"));
  EXPECT_NE(e.find("the member mask differs between lanes 1 (0x00000003) and 0 (0x00000001)"),
            std::string::npos)
      << e;
  // Warp intrinsics are 32-lane: a 64-lane arch refuses them.
  Arch wide = default_arch();
  wide.warp_size = 64;
  wide.transaction_lanes = 64;
  e = error_of(kernel("  activemask.b32 %r9;"), 64, wide);
  EXPECT_NE(e.find("warp-level instructions on 64-lane warps"), std::string::npos) << e;
}

TEST(ExecWarp, DecodeErrorsNameTheLine) {
  const auto parse_error = [](const std::string& body) {
    try {
      ptx::parse(kernel(body), "w.ptx");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(parse_error("  shfl.sync.down.b32 %r2, %r1, 1, 31;"),
            "w.ptx:12: 'shfl.sync.down.b32' needs 5 operands, got 4");
  EXPECT_EQ(parse_error("  shfl.sync.b32 %r2, %r1, 1, 31, -1;"),
            "w.ptx:12: 'shfl.sync.b32' needs a mode: .up, .down, .bfly or .idx");
  EXPECT_EQ(parse_error("  vote.sync.ballot.pred %p1, %p2, -1;"),
            "w.ptx:12: 'vote.sync.ballot.pred' needs the type .b32");
  EXPECT_EQ(parse_error("  shfl.sync.idx.b32 %r2, %r1, 1, 31, %rd1;"),
            "w.ptx:12: the member mask of 'shfl.sync.idx.b32' must be a 32-bit register or an "
            "immediate, '%rd1' is 64-bit");
  EXPECT_EQ(parse_error("  match.any.sync.b32 %r2|%p1, %r1, -1;"),
            "w.ptx:12: only match.all has a predicate destination (d|p)");
  EXPECT_EQ(parse_error("  redux.sync.inc.u32 %r2, %r1, -1;"),
            "w.ptx:12: 'redux.sync.inc.u32' needs .add, .min, .max, .and, .or or .xor");
  EXPECT_EQ(parse_error("  vote.sync.any.pred %p1, %r1, -1;"),
            "w.ptx:12: operand 2 of 'vote.sync.any.pred' must be a predicate");
}

TEST(ExecWarp, ThirtyTwoBitAddressesWrap) {
  // nvcc's [%r3+68] with a "negative" 32-bit %r3: the hardware adds modulo 2^32, so thread t reads
  // byte 4t + 4, i.e. the word thread t + 1 stored (thread 31 reads word 32, never written: 0).
  // Before the fix the 64-bit sum 2^32 + 4t + 4 was reported out of bounds.
  const Lanes r = run(kernel(R"(
  .shared .align 4 .b8 sm[256];
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 2;
  add.s32 %r2, %r2, %r3;
  st.shared.u32 [%r2], %r1;
  bar.sync 0;
  sub.s32 %r4, %r2, 64;
  ld.shared.u32 %r9, [%r4+68];
)"));
  for (std::uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.out[l], l < 31 ? l + 1 : 0u) << l;
}

TEST(ExecWarp, UnsupportedInstructionsRejectOnlyTheirKernel) {
  // Kernel `uses_call` calls a device function (linked) and uses tex (unsupported); `plain` runs.
  // The module also declares vprintf (.extern .func) as printf-using CUDA does.
  const std::string ptx = std::string(kHeader) + R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [twice_param_0];
  add.u32 %r2, %r1, %r1;
  st.param.b32 [func_retval0+0], %r2;
  ret;
}
.visible .entry uses_call(.param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 3;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  suq.width.b32 %r1, [%r2];
  ret;
}
.visible .entry plain(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 41;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  const ptx::Module m = ptx::parse(ptx, "two.ptx");
  ASSERT_EQ(m.kernels.size(), 2u);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].name, "twice");
  // The call links (twice has a body); the surface query stays unsupported.
  EXPECT_EQ(m.kernels[0].unsupported.size(), 1u);
  EXPECT_EQ(m.kernels[0].functions.size(), 1u);
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  launch.args.push_back(Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(4)})));
  Executor ok(m, m.kernels[1], default_arch(), launch, mem);
  ok.run();
  std::uint32_t v = 0;
  std::memcpy(&v, mem.get("out").bytes.data(), 4);
  EXPECT_EQ(v, 41u);
  try {
    Executor bad(m, m.kernels[0], default_arch(), launch, mem);
    ADD_FAILURE() << "uses_call launched";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "two.ptx:25: unsupported PTX instruction 'suq.width.b32' in kernel "
                 "'uses_call'");
  }
}

}  // namespace
}  // namespace smemsim::exec

// Named barriers in the executor (issue 15, PTX ISA "bar, barrier"): 16 barriers per CTA, thread
// counts in whole warps, bar.arrive, bar.red's reductions, and the errors for a barrier that does
// not exist, a count that is not whole warps or can never be reached, counts that disagree within
// a phase, a barrier number that differs across a warp, and a deadlock between two named barriers.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"

namespace smemsim::exec {
namespace {

// Runs `body` (after `mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5;`: %r2 is the warp) in one block of
// `threads` threads; out is 64 u32 words. Returns the error, or "" and out.
std::string run(const std::string& body, std::uint32_t threads, std::vector<std::uint32_t>* out) {
  const std::string ptx =
      ".version 7.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry k(.param .u64 out)\n{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
      "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n" +
      body + "\n  ret;\n}\n";
  try {
    const ptx::Module m = ptx::parse(ptx, "b.ptx");
    GlobalMemory mem;
    Launch launch;
    launch.grid = {1, 1, 1};
    launch.block = {threads, 1, 1};
    launch.args = {Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(256)}))};
    Executor ex(m, m.kernels.at(0), default_arch(), launch, mem);
    ex.run();
    if (out) {
      out->resize(64);
      std::memcpy(out->data(), mem.get("out").bytes.data(), 256);
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ExecBarrier, BarRedReducesOverTheBlockAndReachesEveryWarp) {
  // 96 threads, predicate tid % 3 == 0: 32 threads hold it; and: no; or: yes. Each thread 0 of a
  // warp stores the three results at 3 * warp.
  std::vector<std::uint32_t> out;
  ASSERT_EQ(
      run("  rem.u32 %r3, %r1, 3;\n  setp.eq.u32 %p1, %r3, 0;\n"
          "  bar.red.popc.u32 %r4, 0, %p1;\n"
          "  bar.red.and.pred %p2, 0, %p1;\n  selp.u32 %r5, 1, 0, %p2;\n"
          "  bar.red.or.pred %p3, 0, %p1;\n  selp.u32 %r6, 1, 0, %p3;\n"
          "  and.b32 %r7, %r1, 31;\n  setp.ne.u32 %p0, %r7, 0;\n  @%p0 bra DONE;\n"
          "  mul.lo.u32 %r8, %r2, 12;\n  cvt.u64.u32 %rd2, %r8;\n  add.u64 %rd3, %rd1, %rd2;\n"
          "  st.global.u32 [%rd3], %r4;\n  st.global.u32 [%rd3+4], %r5;\n"
          "  st.global.u32 [%rd3+8], %r6;\nDONE:",
          96, &out),
      "");
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(out[std::size_t(3 * w)], 32u) << w;
    EXPECT_EQ(out[std::size_t(3 * w + 1)], 0u) << w;
    EXPECT_EQ(out[std::size_t(3 * w + 2)], 1u) << w;
  }
}

TEST(ExecBarrier, MisusedBarriersAreNamed) {
  EXPECT_NE(run("  bar.sync 16;", 64, nullptr)
                .find("barrier 16 does not exist (a CTA has barriers 0..15)"),
            std::string::npos);
  EXPECT_NE(run("  bar.sync 1, 48;", 64, nullptr)
                .find("thread count 48 of barrier 1 is not a positive multiple of the warp size "
                      "(32)"),
            std::string::npos);
  EXPECT_NE(run("  bar.sync 1, 128;", 64, nullptr)
                .find("barrier 1 waits for 128 threads, but the block has 2 warps (64 threads): "
                      "it can never complete"),
            std::string::npos);
  // Warp 0 arrives at barrier 1 with 64 threads, warp 1 without a count.
  EXPECT_NE(run("  setp.eq.u32 %p1, %r2, 0;\n  @%p1 bra W0;\n  bar.sync 1;\n  bra.uni END;\n"
                "W0:\n  bar.sync 1, 64;\nEND:",
                64, nullptr)
                .find("barrier 1 is used with no thread count here, but an earlier warp of this "
                      "phase arrived with 64 threads"),
            std::string::npos);
  EXPECT_NE(run("  bar.sync %r1;", 64, nullptr)
                .find("the barrier number differs across the warp: 0 in lane 0, 1 in lane 1"),
            std::string::npos);
  // Warp 0 waits at barrier 1, warp 1 at barrier 2, each for both warps: a deadlock, named.
  const std::string e =
      run("  setp.eq.u32 %p1, %r2, 0;\n  @%p1 bra W0;\n  bar.sync 2, 64;\n  bra.uni END;\n"
          "W0:\n  bar.sync 1, 64;\nEND:",
          64, nullptr);
  EXPECT_NE(e.find("deadlock"), std::string::npos) << e;
  EXPECT_NE(e.find("waiting at barrier 1 (64 threads: 1 of 2 warps arrived)"), std::string::npos)
      << e;
  EXPECT_NE(e.find("waiting at barrier 2 (64 threads: 1 of 2 warps arrived)"), std::string::npos)
      << e;
}

TEST(ExecBarrier, ABarrierOfPartOfTheBlockLeavesTheOthersRunning) {
  // 96 threads: warps 1 and 2 exchange values through shared memory on barrier 3 (64 threads)
  // while warp 0 never takes part; each of them reads the other's lane value + 100 * warp.
  std::vector<std::uint32_t> out;
  ASSERT_EQ(run("  .shared .align 4 .b8 sh[256];\n"
                "  setp.eq.u32 %p1, %r2, 0;\n  @%p1 bra END;\n"
                "  and.b32 %r3, %r1, 31;\n  mul.lo.u32 %r4, %r2, 100;\n  add.u32 %r5, %r4, %r3;\n"
                "  sub.u32 %r6, %r1, 32;\n  shl.b32 %r7, %r6, 2;\n  mov.u32 %r8, sh;\n"
                "  add.u32 %r9, %r8, %r7;\n  st.shared.u32 [%r9], %r5;\n"
                "  bar.sync 3, 64;\n"
                "  xor.b32 %r10, %r6, 32;\n  shl.b32 %r11, %r10, 2;\n  add.u32 %r12, %r8, %r11;\n"
                "  ld.shared.u32 %r13, [%r12];\n"
                "  setp.ne.u32 %p2, %r3, 0;\n  @%p2 bra END;\n"
                "  mul.wide.u32 %rd2, %r2, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
                "  st.global.u32 [%rd3], %r13;\nEND:",
                96, &out),
            "");
  EXPECT_EQ(out[1], 200u);  // warp 1 lane 0 reads warp 2 lane 0
  EXPECT_EQ(out[2], 100u);
}

}  // namespace
}  // namespace smemsim::exec

// Issue 45, item 4: forms that real library code emits and smemsim used to refuse, each run here on
// a hand-written PTX kernel against a value derived by hand (in the comments): the cache
// qualifiers of ld/st/atom/red, prefetch and createpolicy (CUTLASS 2.x device GEMMs), bmsk
// (libcu++'s cuda::bitmask in CUB's radix sort), the reserved shared memory (cooperative groups'
// block_tile_memory), labels scoped by inline asm's braces (CUTLASS 3's TMA helpers), a float fill
// of -inf (FlashAttention's row maximum); and the messages of a refusal that remains.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

using exec::Arg;
using exec::Buffer;
using exec::ElemType;

// Runs `kernel` of `ptx` on one block of `threads` threads, with u32 buffers (in order: the
// kernel's parameters); returns the buffers after.
std::vector<std::vector<std::uint32_t>> run(const std::string& ptx, const std::string& kernel,
                                            std::uint32_t threads,
                                            std::vector<std::vector<std::uint32_t>> buffers) {
  const ptx::Module m = ptx::parse(ptx, "r.ptx");
  exec::GlobalMemory mem;
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {threads, 1, 1};
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    std::vector<std::uint8_t> bytes(buffers[i].size() * 4);
    std::memcpy(bytes.data(), buffers[i].data(), bytes.size());
    launch.args.push_back(
        Arg::buf(mem.add({"b" + std::to_string(i), ElemType::U32, std::move(bytes)})));
  }
  exec::Executor ex(m, exec::find_kernel(m, kernel), default_arch(), launch, mem);
  ex.run();
  for (std::size_t i = 0; i < buffers.size(); ++i)
    std::memcpy(buffers[i].data(), mem.buffers[i].bytes.data(), buffers[i].size() * 4);
  return buffers;
}

// Every cache qualifier form on one value: eight loads of in[t] (each form once), so out[t] =
// 8 in[t], then an atom and a red add 1 each: 8 in[t] + 2. The policies, prefetches and hints
// change nothing functionally.
const char* kCacheForms = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry forms(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  createpolicy.fractional.L2::evict_last.b64 %rd6, 1.0;
  createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd7, 0.5;
  prefetch.global.L2 [%rd4];
  prefetch.global.L1 [%rd4];
  prefetch.global.L2::evict_last [%rd4];
  prefetchu.L1 [%rd4];
  ld.global.L2::128B.u32 %r2, [%rd4];
  ld.global.L2::64B.u32 %r3, [%rd4];
  ld.global.L2::256B.u32 %r4, [%rd4];
  ld.global.L1::evict_last.u32 %r5, [%rd4];
  ld.global.L1::no_allocate.u32 %r6, [%rd4];
  ld.global.nc.L1::no_allocate.L2::256B.u32 %r7, [%rd4];
  ld.global.L2::cache_hint.u32 %r8, [%rd4], %rd6;
  ld.global.L1::evict_first.L2::cache_hint.L2::128B.u32 %r9, [%rd4], %rd7;
  add.s32 %r10, %r2, %r3;
  add.s32 %r10, %r10, %r4;
  add.s32 %r10, %r10, %r5;
  add.s32 %r10, %r10, %r6;
  add.s32 %r10, %r10, %r7;
  add.s32 %r10, %r10, %r8;
  add.s32 %r10, %r10, %r9;
  st.global.L1::no_allocate.u32 [%rd5], %r2;
  st.global.L2::cache_hint.u32 [%rd5], %r10, %rd6;
  atom.global.add.L2::cache_hint.u32 %r11, [%rd5], 1, %rd6;
  red.global.add.L2::cache_hint.u32 [%rd5], 1, %rd7;
  ret;
}
)";

TEST(Refusals, CacheQualifiersPrefetchAndPoliciesRunAndChangeNothing) {
  std::vector<std::uint32_t> in(32);
  for (std::uint32_t i = 0; i < 32; ++i) in[i] = 3 * i + 1;
  const auto out = run(kCacheForms, "forms", 32, {in, std::vector<std::uint32_t>(32)});
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[1][i], 8 * in[i] + 2) << i;
  // The policy operand is required by .L2::cache_hint and must be a value.
  const std::string bad =
      std::string(kCacheForms)
          .replace(std::string(kCacheForms).find("[%rd4], %rd6;"), 13, "[%rd4];");
  try {
    (void)ptx::parse(bad, "bad.ptx");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 3 operands, got 2"), std::string::npos) << e.what();
  }
}

// bmsk.mode.b32 d, a, b (PTX ISA "bmsk"): b bits from bit a; .wrap takes a and b mod 32, .clamp
// limits them to 32, and bits past 31 are dropped. By hand, (a, b) ->
//   wrap (1, 2): bits 1-2 = 0x6 (the ISA's own example)
//   wrap (0, 32): b mod 32 = 0 -> 0
//   wrap (31, 5): bit 31 only (31 + 5 passes 32) = 0x80000000
//   wrap (36, 4): a mod 32 = 4 -> bits 4-7 = 0xf0
//   clamp (0, 32): all 32 bits = 0xffffffff
//   clamp (4, 40): width 32 from bit 4 -> bits 4-31 = 0xfffffff0
//   clamp (33, 1): past bit 31 -> 0
//   clamp (8, 0): no bits -> 0
const char* kBmsk = R"(.version 7.6
.target sm_75
.address_size 64
.visible .entry masks(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.u32 %r2, [%rd5];
  ld.global.u32 %r3, [%rd6];
  setp.lt.u32 %p1, %r1, 4;
  @%p1 bmsk.wrap.b32 %r4, %r2, %r3;
  @!%p1 bmsk.clamp.b32 %r4, %r2, %r3;
  st.global.u32 [%rd7], %r4;
  ret;
}
)";

TEST(Refusals, BmskMakesTheIsaMasks) {
  const auto out = run(
      kBmsk, "masks", 8,
      {{1, 0, 31, 36, 0, 4, 33, 8}, {2, 32, 5, 4, 32, 40, 1, 0}, std::vector<std::uint32_t>(8)});
  const std::vector<std::uint32_t> expect = {0x6u,        0u,          0x80000000u, 0xf0u,
                                             0xffffffffu, 0xfffffff0u, 0u,          0u};
  EXPECT_EQ(out[2], expect);
  try {
    (void)ptx::parse(
        std::string(kBmsk).replace(std::string(kBmsk).find("bmsk.wrap.b32"), 13, "bmsk.wrap.u32"),
        "b.ptx");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bmsk needs .clamp or .wrap and the type .b32"),
              std::string::npos)
        << e.what();
  }
}

// The reserved shared memory: 1 KiB (_cap), _end - _begin the same, and block_tile_memory's
// scratch at _1 usable: thread t stores t + 100 at word t from there and reads it back.
const char* kReserved = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry reserved(.param .u64 pout)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %reserved_smem_offset_1;
  mov.u32 %r3, %reserved_smem_offset_cap;
  mov.u32 %r4, %reserved_smem_offset_begin;
  mov.u32 %r5, %reserved_smem_offset_end;
  sub.s32 %r6, %r5, %r4;
  shl.b32 %r7, %r1, 2;
  add.s32 %r8, %r2, %r7;
  add.s32 %r9, %r1, 100;
  st.shared.u32 [%r8], %r9;
  bar.sync 0;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r9, %r3};
  st.global.u32 [%rd3+8], %r6;
  ret;
}
)";

TEST(Refusals, ReservedSharedMemoryRegistersGiveAUsableKibibyte) {
  const auto out = run(kReserved, "reserved", 64, {std::vector<std::uint32_t>(4 * 64)});
  for (std::uint32_t t = 0; t < 64; ++t) {
    EXPECT_EQ(out[0][4 * t], t + 100) << t;
    EXPECT_EQ(out[0][4 * t + 1], 1024u) << t;
    EXPECT_EQ(out[0][4 * t + 2], 1024u) << t;
  }
}

// Inline asm pasted twice: each copy's `{ ... LOOP: ... bra LOOP; }` declares LOOP in its own
// braces (PTX scopes labels as it scopes registers), and the body has a LOOP of its own. Each
// inner loop counts to 3; the outer one runs twice: out = 2 * (3 + 3) = 12.
const char* kScopedLabels = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry scoped(.param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 0;
  mov.u32 %r5, 0;
LOOP:
  {
  .reg .b32 i;
  .reg .pred q;
  mov.u32 i, 0;
  LOOP:
  add.s32 i, i, 1;
  add.s32 %r1, %r1, 1;
  setp.lt.u32 q, i, 3;
  @q bra LOOP;
  }
  {
  .reg .b32 i;
  .reg .pred q;
  mov.u32 i, 0;
  LOOP:
  add.s32 i, i, 1;
  add.s32 %r1, %r1, 1;
  setp.lt.u32 q, i, 3;
  @q bra LOOP;
  }
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 2;
  @%p1 bra LOOP;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

TEST(Refusals, LabelsAreScopedByBraces) {
  const auto out = run(kScopedLabels, "scoped", 1, {std::vector<std::uint32_t>(1)});
  EXPECT_EQ(out[0][0], 12u);
  // Two labels of one name in one scope are still an error.
  const std::string dup =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry d()\n{\n"
      "L:\n  ret;\nL:\n  ret;\n}\n";
  try {
    (void)ptx::parse(dup, "d.ptx");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("d.ptx:8: duplicate label 'L'"), std::string::npos)
        << e.what();
  }
}

const char* kCopy = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry copy(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  st.global.f32 [%rd5], %f1;
  ret;
}
)";

// A float buffer filled with -inf (FlashAttention starts its row maximum there), and inf and nan
// in a values list; an integer buffer still refuses them.
TEST(Refusals, FloatFillsTakeInfinitiesAndNan) {
  const std::string ptx = temp_file("copy_inf.ptx", kCopy);
  const std::string out = ::testing::TempDir() + "copy_inf_out.txt";
  CliResult r = cli("run " + ptx + " --grid 1 --block 4 --launch " +
                    temp_file("inf.toml",
                              "args = [\"in\", \"out\"]\n[buffers.in]\ntype = "
                              "\"f32\"\ncount = 4\ninit = \"fill\"\nvalue = -inf\n"
                              "[buffers.out]\ntype = \"f32\"\ncount = 4\nwrite = \"" +
                                  out + "\"\n"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(slurp(out), "-inf\n-inf\n-inf\n-inf\n");
  r = cli("run " + ptx + " --grid 1 --block 4 --launch " +
          temp_file("inf2.toml",
                    "args = [\"in\", \"out\"]\n[buffers.in]\ntype = \"f32\"\ncount = "
                    "4\ninit = \"values\"\nvalues = [inf, -inf, nan, 1.5]\n"
                    "[buffers.out]\ntype = \"f32\"\ncount = 4\nwrite = \"" +
                        out + "\"\n"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(slurp(out), "inf\n-inf\nnan\n1.5\n");
  r = cli("run " + ptx + " --grid 1 --block 4 --launch " +
          temp_file("inf3.toml",
                    "args = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\ncount = "
                    "4\ninit = \"values\"\nvalues = [1, 2, inf, 4]\n"
                    "[buffers.out]\ntype = \"s32\"\ncount = 4\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("inf3.toml:6: buffer 'in': values[2] must be a finite number (the buffer "
                       "holds integers)"),
            std::string::npos)
      << r.out;
}

// An empty struct parameter is `.b8 p[1]` in PTX: `launch init` writes 0 for it, and { bytes = [0]
// } is the same one-byte image; two bytes are too many.
TEST(Refusals, EmptyStructParametersTakeAByteOrAValue) {
  const std::string ptx = temp_file(
      "empty_struct.ptx",
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n"
      "  .param .align 1 .b8 k_param_0[1],\n  .param .u64 k_param_1\n)\n{\n"
      "  .reg .b32 %r<2>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [k_param_1];\n"
      "  cvta.to.global.u64 %rd2, %rd1;\n  mov.u32 %r1, 7;\n  st.global.u32 [%rd2], %r1;\n"
      "  ret;\n}\n");
  const auto spec = [&](const std::string& first) {
    return temp_file("empty_struct.toml", "args = [" + first +
                                              ", \"out\"]\n[buffers.out]\ntype = \"u32\"\n"
                                              "count = 1\n");
  };
  for (const char* first : {"{ bytes = [0] }", "0"}) {
    const CliResult r = cli("run " + ptx + " --grid 1 --block 1 --launch " + spec(first));
    EXPECT_EQ(r.exit_code, 0) << first << "\n" << r.out;
  }
  const CliResult r =
      cli("run " + ptx + " --grid 1 --block 1 --launch " + spec("{ bytes = [0, 1] }"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("the fields take 2 bytes"), std::string::npos) << r.out;
}

// CUB's BlockRadixSort (kernels/cub_sort.cu over the toolkit's CUB; nvcc 13 emits bmsk for its
// digit extraction): each block's 1,024 keys come out as std::sort orders them, and with pairs
// each value follows its key, equal keys keeping their order (a radix sort is stable).
TEST(Refusals, CubBlockRadixSortMatchesStdSort) {
  const ptx::Module m =
      ptx::parse_file(std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/cub_sort.ptx");
  std::mt19937 g(45);
  std::uniform_int_distribution<std::uint32_t> d(0, 3000);  // repeats: stability shows
  std::vector<std::uint32_t> keys(4096);
  for (auto& k : keys) k = d(g);
  for (const bool pairs : {false, true}) {
    exec::GlobalMemory mem;
    exec::Launch launch;
    launch.grid = {4, 1, 1};
    launch.block = {256, 1, 1};
    std::vector<std::uint8_t> kb(keys.size() * 4), vb(keys.size() * 4);
    std::memcpy(kb.data(), keys.data(), kb.size());
    for (std::uint32_t i = 0; i < 4096; ++i) std::memcpy(vb.data() + 4 * i, &i, 4);
    launch.args.push_back(Arg::buf(mem.add({"keys", ElemType::U32, kb})));
    if (pairs) launch.args.push_back(Arg::buf(mem.add({"values", ElemType::S32, vb})));
    exec::Executor ex(m, exec::find_kernel(m, pairs ? "cub_block_sort_pairs" : "cub_block_sort"),
                      default_arch(), launch, mem);
    ex.run();
    const auto* got = mem.buffers[0].as<std::uint32_t>();
    for (std::size_t b = 0; b < 4; ++b) {
      std::vector<std::uint32_t> ref(keys.begin() + b * 1024, keys.begin() + (b + 1) * 1024);
      std::stable_sort(ref.begin(), ref.end());
      for (std::size_t i = 0; i < 1024; ++i) ASSERT_EQ(got[b * 1024 + i], ref[i]) << b << " " << i;
      if (!pairs) continue;
      const auto* idx = mem.buffers[1].as<std::uint32_t>();
      for (std::size_t i = 0; i < 1024; ++i) {
        const std::uint32_t from = idx[b * 1024 + i];
        ASSERT_EQ(keys[from], got[b * 1024 + i]) << b << " " << i;
        ASSERT_EQ(from / 1024, b);
        if (i > 0 && got[b * 1024 + i] == got[b * 1024 + i - 1])
          ASSERT_GT(from, idx[b * 1024 + i - 1]) << "not stable at " << b << " " << i;
      }
    }
  }
}

// Cooperative groups' 64-thread tiles (kernels/cg_tiles.cu): their scratch in the reserved shared
// memory, their two warps waiting for each other in a loop. Tile r of a block holds threads
// 64r .. 64r + 63: its sum is 64 * 64r + (0 + ... + 63) = 4096 r + 2016, plus 1000 r.
TEST(Refusals, CooperativeGroupsMultiWarpTilesRunAndSimulate) {
  const std::string ptx = std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/cg_tiles.ptx";
  const std::string out = ::testing::TempDir() + "cg_tiles_out.txt";
  const std::string spec = temp_file("cg_tiles.toml",
                                     "grid = 2\nblock = 256\nargs = [\"out\"]\n"
                                     "[buffers.out]\ntype = \"s32\"\ncount = "
                                     "512\nwrite = \"" +
                                         out + "\"\n");
  for (const std::string cmd : {"run", "sim"}) {
    std::remove(out.c_str());
    const CliResult r = cli(cmd + " " + ptx + " --launch " + spec + " --arch ampere-a100");
    ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.out;
    std::string expect;
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < 256; ++t)
        expect += std::to_string(4096 * (t / 64) + 2016 + 1000 * (t / 64)) + "\n";
    EXPECT_EQ(slurp(out), expect) << cmd;
  }
}

// A refusal names the kernel in at most 80 characters and counts what else cannot run by
// instruction: two suq and one vabsdiff after the first refusal.
TEST(Refusals, RefusalsNameLongKernelsShortlyAndListTheRest) {
  const std::string name =
      "_Z4kernIN7cutlass4gemm6kernel4GemmINS1_11threadblock" + std::string(120, 'x') + "EEEvv";
  const std::string ptx =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry " + name +
      "()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n  suq.width.b32 %r1, [%rd1];\n"
      "  suq.width.b32 %r2, [%rd1];\n  vabsdiff.u32.u32.u32 %r3, %r1, %r2;\n"
      "  suq.height.b32 %r3, [%rd1];\n  ret;\n}\n";
  const CliResult r = cli("run " + temp_file("long.ptx", ptx) + " --grid 1 --block 1 --launch " +
                          temp_file("long.toml", "args = []\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("(and 3 more: suq ×2, vabsdiff ×1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("..."), std::string::npos) << r.out;
  EXPECT_LT(r.out.size(), 400u) << r.out;
}

}  // namespace
}  // namespace smemsim::test

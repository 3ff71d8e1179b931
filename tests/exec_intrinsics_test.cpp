// Issue 15 item 7 on hand-written PTX: carries (add.cc, addc, sub.cc, subc, mad.cc, madc), bfind,
// fns, dp4a, dp2a, mul24, mad24, sad, testp, copysign. Each expected value is worked by hand from
// the PTX ISA's definition in the comment beside it.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::exec {
namespace {

// Runs `body` (which leaves results in %r9, or a predicate in %p9) once per case on 32 threads and
// returns out[k] = the value case k left in %r9 (per thread `tid` when per_lane).
std::vector<std::uint32_t> run_cases(const std::vector<std::string>& cases, bool per_lane = false) {
  std::string body;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    body += cases[k] + "\n";
    if (per_lane)
      body += "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3+" +
              std::to_string(128 * k) + "], %r9;\n";
    else
      body += "  st.global.u32 [%rd1+" + std::to_string(4 * k) + "], %r9;\n";
  }
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<10>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
)" + body + "  ret;\n}\n";
  const ptx::Module m = ptx::parse(ptx, "i.ptx");
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  const std::size_t words = per_lane ? 32 * cases.size() : cases.size();
  launch.args.push_back(
      Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(words * 4)})));
  Executor ex(m, m.kernels.at(0), default_arch(), launch, mem);
  ex.run();
  std::vector<std::uint32_t> v(words);
  std::memcpy(v.data(), mem.get("out").bytes.data(), words * 4);
  return v;
}

TEST(ExecIntrinsics, CarriesChainAcrossInstructions) {
  const std::vector<std::uint32_t> v = run_cases({
      // 0xffffffff_00000001 + 0x00000001_ffffffff: low 1 + 0xffffffff = 2^32 (0, carry 1) ...
      "  add.cc.u32 %r9, 1, 0xffffffff;",
      // ... high 0xffffffff + 1 + carry = 2^32 + 1: 1
      "  addc.u32 %r9, 0xffffffff, 1;",
      // 2^32 - 1: low 0 - 1 = 0xffffffff with a borrow; high 1 - 0 - borrow = 0
      "  sub.cc.u32 %r9, 0, 1;",
      "  subc.u32 %r9, 1, 0;",
      // addc.cc keeps the chain going: 0xffffffff + 0 + 1 = 2^32 (0, carry 1); then 0 + 0 + 1 = 1
      "  add.cc.u32 %r9, 0xffffffff, 1;\n  addc.cc.u32 %r9, 0xffffffff, 0;",
      "  addc.u32 %r9, 0, 0;",
      // 64-bit: 2^64 - 1 + 1 carries out
      "  add.cc.u64 %rd2, 0xffffffffffffffff, 1;\n  addc.u32 %r9, 7, 0;",
  });
  EXPECT_EQ(v, (std::vector<std::uint32_t>{0u, 1u, 0xffffffffu, 0u, 0u, 1u, 8u}));
}

TEST(ExecIntrinsics, CarryFlagIsPerLaneAndMadCarries) {
  // add.cc tid + 0xffffffff carries in every lane but 0; mad.lo.cc tid * 2^31 + 2^31 carries in the
  // odd lanes, and madc.hi adds that carry to tid * 2^31's high word, tid >> 1.
  const std::vector<std::uint32_t> v = run_cases(
      {"  add.cc.u32 %r2, %r1, 0xffffffff;\n  addc.u32 %r9, 0, 0;",
       "  mad.lo.cc.u32 %r2, %r1, 0x80000000, 0x80000000;\n  madc.hi.u32 %r9, %r1, 0x80000000, 0;"},
      true);
  for (std::uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(v[t], t == 0 ? 0u : 1u) << t;
    EXPECT_EQ(v[32 + t], (t >> 1) + (t & 1)) << t;
  }
}

TEST(ExecIntrinsics, BitFindAndNthSetBit) {
  const std::vector<std::uint32_t> v = run_cases({
      "  bfind.u32 %r9, 0x00010000;",   // bit 16
      "  bfind.s32 %r9, -1;",           // no non-sign bit: 0xffffffff
      "  bfind.s32 %r9, 0xffff0000;",   // negative: highest 0 is bit 15
      "  bfind.shiftamt.u32 %r9, 1;",   // bit 0 is 31 places from the top
      "  bfind.u32 %r9, 0;",            // none
      "  bfind.u64 %r9, 0x100000000;",  // bit 32
      "  fns.b32 %r9, 0x16, 0, 2;",     // set bits 1, 2, 4: the 2nd from bit 0 up is 2
      "  fns.b32 %r9, 0x16, 4, -1;",    // the 1st from bit 4 down is 4 itself
      "  fns.b32 %r9, 0x16, 0, 3;",     // the 3rd up: 4
      "  fns.b32 %r9, 0x16, 0, 4;",     // there is no 4th
      "  fns.b32 %r9, 0x16, 1, 0;",     // offset 0: base itself when set
      "  fns.b32 %r9, 0x16, 3, 0;",     // bit 3 is clear
  });
  EXPECT_EQ(v, (std::vector<std::uint32_t>{16, 0xffffffffu, 15, 31, 0xffffffffu, 32, 2, 4, 4,
                                           0xffffffffu, 1, 0xffffffffu}));
}

TEST(ExecIntrinsics, DotProductsMul24SadTestpCopysign) {
  const std::vector<std::uint32_t> v = run_cases({
      "  dp4a.u32.u32 %r9, 0x01020304, 0x01010101, 10;",    // 4+3+2+1 + 10 = 20
      "  dp4a.s32.s32 %r9, 0xff02ff04, 0x02020202, 0;",     // 2 * (4 - 1 + 2 - 1) = 8
      "  dp4a.s32.u32 %r9, 0xff000000, 0xff000000, 0;",     // -1 * 255 = -255
      "  dp2a.lo.u32.u32 %r9, 0x00030002, 0x04030201, 0;",  // 2*1 + 3*2 = 8
      "  dp2a.hi.u32.u32 %r9, 0x00030002, 0x04030201, 0;",  // 2*3 + 3*4 = 18
      "  mul24.lo.u32 %r9, 0x01000003, 2;",                 // bits above 23 ignored: 3 * 2
      "  mul24.hi.u32 %r9, 0xffffff, 0xffffff;",            // 0xfffffe000001 >> 16
      "  mul24.lo.s32 %r9, 0x00ffffff, 5;",                 // 24-bit -1 times 5 = -5
      "  mad24.lo.u32 %r9, 3, 4, 5;",                       // 17
      "  sad.u32 %r9, 3, 10, 100;",                         // 100 + 7
      "  sad.s32 %r9, -3, 4, 1;",                           // 1 + 7
      "  testp.finite.f32 %p9, 0f3F800000;\n  selp.u32 %r9, 1, 0, %p9;",      // 1.0
      "  testp.infinite.f32 %p9, 0f7F800000;\n  selp.u32 %r9, 1, 0, %p9;",    // +inf
      "  testp.notanumber.f32 %p9, 0f7FC00000;\n  selp.u32 %r9, 1, 0, %p9;",  // nan
      "  testp.number.f32 %p9, 0f7FC00000;\n  selp.u32 %r9, 1, 0, %p9;",      // nan: 0
      "  testp.subnormal.f32 %p9, 0f00000001;\n  selp.u32 %r9, 1, 0, %p9;",   // 1
      "  testp.normal.f32 %p9, 0f00000001;\n  selp.u32 %r9, 1, 0, %p9;",      // 0
      "  copysign.f32 %f1, 0fBF800000, 0f40200000;\n  mov.b32 %r9, %f1;",     // -2.5
  });
  EXPECT_EQ(v, (std::vector<std::uint32_t>{20, 8, 0xffffff01u, 8, 18, 6, 0xfffffe00u, 0xfffffffbu,
                                           17, 107, 8, 1, 1, 1, 0, 1, 0, 0xc0200000u}));
}

TEST(ExecIntrinsics, MalformedFormsAreErrors) {
  const auto error_of = [](const std::string& ins) {
    try {
      ptx::parse(
          ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
          "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n" +
              ins + "\n}\n",
          "m.ptx");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("  add.cc.f32 %r1, %r2, %r3;"),
            "m.ptx:8: 'add.cc.f32': carries need a 32- or 64-bit integer type, without .sat");
  EXPECT_EQ(error_of("  dp4a.u32 %r1, %r2, %r3, %r1;"),
            "m.ptx:8: 'dp4a.u32' needs 2 type modifiers");
  EXPECT_EQ(error_of("  mul24.u32 %r1, %r2, %r3;"), "m.ptx:8: 'mul24.u32' needs .lo or .hi");
  EXPECT_EQ(error_of("  testp.f32 %p1, %r2;"),
            "m.ptx:8: 'testp.f32' needs a test: .finite, .infinite, .number, .notanumber, .normal "
            "or .subnormal");
  EXPECT_EQ(error_of("  bfind.b32 %r1, %r2;"),
            "m.ptx:8: 'bfind.b32' needs .u32, .s32, .u64 or .s64");
}

}  // namespace
}  // namespace smemsim::exec

// The compact forms of a parsed instruction (issue 48, memory per PTX line): a 16-byte operand that
// keeps a 64-bit immediate in two words and a 32-bit address offset, and the CUDA source sites a
// module keeps once for all the instructions that share them. The values below are the literals
// of the PTX text, read back whole: a representation that dropped a bit or a site would change
// them.
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim {
namespace {

std::string module_with(const std::string& body) {
  return ".version 8.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p0)\n{\n"
         "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .f64 %fd<4>;\n"
         "  .shared .align 4 .b8 tile[64];\n" +
         body + "\n  ret;\n}\n";
}

TEST(PtxCompact, ImmediatesKeepAllSixtyFourBits) {
  const ptx::Module m = ptx::parse(module_with("  mov.u64 %rd1, 0xFFFFFFFF00000001;\n"
                                               "  mov.u64 %rd2, -9223372036854775808;\n"
                                               "  mov.u64 %rd3, 0x00000000FFFFFFFF;\n"
                                               "  mov.f64 %fd1, 0d3FF0000000000001;\n"
                                               "  add.s32 %r1, %r2, -1;"),
                                   "k.ptx");
  const auto& c = m.kernels.at(0).code;
  EXPECT_EQ(std::uint64_t(c[0].ops[1].imm()), 0xFFFFFFFF00000001ull);
  EXPECT_EQ(c[1].ops[1].imm(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(c[2].ops[1].imm(), 0xFFFFFFFFll);
  // 1 + 2^-52: the double's low bit is kept.
  EXPECT_EQ(c[3].ops[1].fimm(), 1.0 + 0x1p-52);
  EXPECT_EQ(c[4].ops[2].imm(), -1);
}

TEST(PtxCompact, AnImmediateWithoutAValueIsZero) {
  // A kind set and no value written: 0, as when the value had a field of its own.
  ptx::Operand o;
  o.kind = ptx::OperandKind::ImmInt;
  EXPECT_EQ(o.imm(), 0);
  o.set_imm(-2);
  EXPECT_EQ(o.imm(), -2);
  o.set_imm(std::int64_t{1} << 40);
  EXPECT_EQ(o.imm(), std::int64_t{1} << 40);
}

TEST(PtxCompact, AddressOffsetsAreSignedThirtyTwoBits) {
  // PTX ISA "Addresses as Operands": [reg+immOff] and [var+immOff] take a signed 32-bit offset.
  const ptx::Module m =
      ptx::parse(module_with("  ld.shared.u32 %r1, [%rd1+2147483647];\n"
                             "  ld.shared.u32 %r1, [%rd1-2147483648];\n"
                             "  ld.shared.u32 %r1, [tile+8];\n  mov.u64 %rd2, tile+12;"),
                 "k.ptx");
  const auto& c = m.kernels.at(0).code;
  EXPECT_EQ(c[0].ops[1].imm(), 2147483647);
  EXPECT_EQ(c[1].ops[1].imm(), -2147483648ll);
  EXPECT_EQ(c[2].ops[1].imm(), 8);
  EXPECT_EQ(c[2].ops[1].sym, m.kernels[0].find_symbol("tile"));
  EXPECT_EQ(c[3].ops[1].imm(), 12);
  // One past either end is refused, naming the line (10: the body's first line) and the offset.
  for (const char* body :
       {"  ld.shared.u32 %r1, [%rd1+2147483648];", "  ld.shared.u32 %r1, [%rd1-2147483649];",
        "  mov.u64 %rd2, tile+4294967296;", "  ld.global.u32 %r1, [4294967296];"}) {
    try {
      ptx::parse(module_with(body), "k.ptx");
      ADD_FAILURE() << "parsed: " << body;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("k.ptx:10:"), std::string::npos) << what;
      EXPECT_NE(what.find("does not fit in 32 bits"), std::string::npos) << what;
    }
  }
  // A pass that would make one (a fix, the lowering) gets an error, not a wrapped offset.
  ptx::Operand o;
  o.kind = ptx::OperandKind::Memory;
  EXPECT_THROW(o.set_imm(std::int64_t{1} << 31), InputError);
}

TEST(PtxCompact, InstructionsUnderOneLocShareOneSite) {
  // 200 instructions under two .loc lines, one of them inlined: three sites (none, and the two).
  std::string body = "  .loc 1 5 3\n";
  for (int i = 0; i < 100; ++i) body += "  add.s32 %r1, %r1, 1;\n";
  body += "  .loc 2 40 1, inlined_at 1 6 2\n";
  for (int i = 0; i < 100; ++i) body += "  add.s32 %r1, %r1, 2;\n";
  const std::string text =
      module_with(body) + ".file 1 \"/src/k.cu\"\n.file 2 \"/usr/local/cuda/include/h.hpp\"\n";
  const ptx::Module m = ptx::parse(text, "k.ptx");
  const auto& c = m.kernels.at(0).code;
  ASSERT_EQ(c.size(), 201u);
  EXPECT_EQ(m.sites.size(), 3u);
  EXPECT_EQ(c[0].site, c[99].site);
  EXPECT_NE(c[99].site, c[100].site);
  EXPECT_EQ(m.site(c[0]).loc.line, 5u);
  EXPECT_EQ(m.site(c[150]).loc.file, 2u);
  EXPECT_EQ(m.site(c[150]).inlined_at.line, 6u);  // the header's caller
  EXPECT_EQ(m.site(c[150]).call_site.line, 6u);
  EXPECT_EQ(c[200].site, c[199].site);  // ret
}

}  // namespace
}  // namespace smemsim

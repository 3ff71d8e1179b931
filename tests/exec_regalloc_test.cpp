// Registers sharing rows (exec/regalloc.hpp, issue 49). The rows are derived by hand from each
// kernel's ranges: a register lives from its first to its last mention, widened to any loop it
// meets. The results of every suite kernel are checked elsewhere against CPU references (and the
// cycle-level suite was compared byte for byte before and after); here, what shares and what must
// not.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/regalloc.hpp"
#include "smemsim/ptx.hpp"

namespace {

using namespace smemsim;

ptx::Module parse(const std::string& body, const std::string& regs) {
  return ptx::parse(
      ".version 7.0\n.target sm_70\n.address_size 64\n"
      ".visible .entry k(.param .u64 out)\n{\n" +
          regs + body + "}\n",
      "k.ptx");
}

std::uint32_t reg(const ptx::Kernel& k, const std::string& name) {
  for (std::uint32_t r = 0; r < k.regs.size(); ++r)
    if (k.regs[r].name == name) return r;
  ADD_FAILURE() << "no register " << name;
  return 0;
}

TEST(RegisterRows, StraightLineReusesARowOnceItsValueIsDead) {
  // %r1: instructions 1-2; %r2: 2-3; %r3: 3-4; %rd1: 0-4. %r3 starts after %r1's last mention, so
  // it takes %r1's row; %r2 overlaps both and %rd1 everything: three rows.
  const ptx::Module m = parse(R"(
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 7;
	add.s32 %r2, %r1, 1;
	mul.lo.s32 %r3, %r2, 3;
	st.global.u32 [%rd1], %r3;
	ret;
)",
                              "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n");
  const ptx::Kernel& k = m.kernels.at(0);
  const exec::detail::RegisterRows rows = exec::detail::share_register_rows(k);
  EXPECT_EQ(rows.rows, 3u);
  EXPECT_EQ(rows.row[reg(k, "%r1")], rows.row[reg(k, "%r3")]);
  EXPECT_NE(rows.row[reg(k, "%r1")], rows.row[reg(k, "%r2")]);
  EXPECT_NE(rows.row[reg(k, "%rd1")], rows.row[reg(k, "%r2")]);
  EXPECT_NE(rows.row[reg(k, "%rd1")], rows.row[reg(k, "%r3")]);
}

TEST(RegisterRows, AValueInsideALoopKeepsItsRowForTheWholeLoop) {
  // Instructions 0-9; the loop is 2-6 (the branch at 6 back to $L at 2). %r1 (mentioned 1-4),
  // %p1 (3-6) and %r2 (4-5) each meet the loop, so each lives 2-6 at least: with %rd1 (0-8), four
  // values alive at once in the loop, four rows. %r3 (7-8) starts after the loop and reuses one of
  // the loop's rows, never %rd1's.
  const ptx::Module m = parse(R"(
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0;
$L:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 10;
	mul.lo.s32 %r2, %r1, 2;
	st.global.u32 [%rd1], %r2;
	@%p1 bra $L;
	mov.u32 %r3, 5;
	st.global.u32 [%rd1], %r3;
	ret;
)",
                              "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n");
  const ptx::Kernel& k = m.kernels.at(0);
  const exec::detail::RegisterRows rows = exec::detail::share_register_rows(k);
  const auto r1 = rows.row[reg(k, "%r1")], r2 = rows.row[reg(k, "%r2")],
             p1 = rows.row[reg(k, "%p1")], rd1 = rows.row[reg(k, "%rd1")],
             r3 = rows.row[reg(k, "%r3")];
  EXPECT_NE(r1, r2);
  EXPECT_NE(r1, p1);
  EXPECT_NE(r2, p1);
  EXPECT_NE(rd1, r1);
  EXPECT_NE(rd1, r2);
  EXPECT_NE(rd1, p1);
  EXPECT_NE(rd1, r3);
  EXPECT_EQ(rows.rows, 4u);  // %rd1, %r1, %p1, %r2 at once in the loop; %r3 reuses one
}

TEST(RegisterRows, RegistersNeverMentionedTakeNoRowOfTheirOwn) {
  const ptx::Module m = parse(R"(
	ld.param.u64 %rd1, [out];
	ret;
)",
                              "\t.reg .b32 %r<100>;\n\t.reg .b64 %rd<2>;\n");
  const exec::detail::RegisterRows rows = exec::detail::share_register_rows(m.kernels.at(0));
  EXPECT_EQ(rows.rows, 1u);
}

TEST(RegisterRows, TheAesKernelPacksIntoAFractionOfItsRegisters) {
  // aes_encrypt declares 336 registers (%p<4>, %r<315>, %rd<18>); its rounds are unrolled, so
  // most values live for a few instructions. ptxas gives such a kernel a few dozen.
  const std::string path = std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/aes_tbox.ptx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const ptx::Module m = ptx::parse_file(path);
  const ptx::Kernel* k = nullptr;
  for (const ptx::Kernel& x : m.kernels)
    if (x.name == "aes_encrypt") k = &x;
  ASSERT_NE(k, nullptr);
  const exec::detail::RegisterRows rows = exec::detail::share_register_rows(*k);
  EXPECT_GT(k->regs.size(), 300u);
  EXPECT_LT(rows.rows, k->regs.size() / 4);
  RecordProperty("rows", int(rows.rows));
}

}  // namespace

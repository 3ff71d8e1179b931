// PTX front-end on hand-written modules: the decoded IR (registers, operands, labels, line info).
#include <bit>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/ptx.hpp"

namespace smemsim {
namespace {

using ptx::OperandKind;

constexpr const char* kModule = R"(//
.version 8.0
.target sm_75
.address_size 64

.global .align 4 .u32 table[4] = {1, 2, -3, 0x10};
.extern .shared .align 16 .b8 dyn[];

.visible .entry k(
	.param .u64 k_param_0,
	.param .align 8 .b8 k_param_1[16]
)
.reqntid 64, 2, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<4>;
	.shared .align 4 .b8 tile[1088];
	.loc	1 10 3
	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mov.f32 	%f1, 0f3F800000;
	mov.f64 	%rd2, 0d4000000000000000;
	ld.global.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1+-16];
$L__loop:
	.loc	2 112 3, function_name $L__info_string0, inlined_at 1 25 7
	atom.shared.add.u32 	%r2, [%r1+8], 1;
	red.shared.add.u32 	[tile+4], %r2;
	setp.lt.and.s32 	%p1, %r1, 32, !%p2;
	setp.ne.s32 	%p1|%p2, %r1, %r2;
	{
	.reg .b32 %t<2>;
	mov.u32 	%t1, dyn;
	}
	atom.shared.cas.b32 	%r3, [%r1], %r2, -1;
	cvt.rni.s32.f32 	%r4, %f1;
	@!%p1 bra.uni 	$L__loop;
	mov.u32 	%r5, table;
	ld.global.u32 	%r5, [table+12];
	bar.sync 	0;
	@%p1 bra 	$L__end;
	ret;
$L__end:
}
	.file	1 "/src/k.cu"
	.file	2 "/cuda/include/device_atomic_functions.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
)";

TEST(PtxParse, ModuleDirectivesAndVariables) {
  const ptx::Module m = ptx::parse(kModule, "k.ptx");
  EXPECT_EQ(m.version, "8.0");
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 64u);
  ASSERT_EQ(m.globals.size(), 2u);
  const ptx::Symbol& table = m.globals[0];
  EXPECT_EQ(table.space, ptx::Space::Global);
  EXPECT_EQ(table.size_bytes(), 16u);
  ASSERT_EQ(table.init.size(), 16u);
  std::int32_t v[4];
  std::memcpy(v, table.init.data(), 16);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[2], -3);
  EXPECT_EQ(v[3], 16);
  EXPECT_TRUE(m.globals[1].is_extern);
  EXPECT_EQ(m.globals[1].elements, 0u);
  EXPECT_EQ(m.file_name(1), "/src/k.cu");
  EXPECT_EQ(m.file_name(2), "/cuda/include/device_atomic_functions.hpp");
}

TEST(PtxParse, KernelParamsRegistersAndSymbols) {
  const ptx::Module m = ptx::parse(kModule, "k.ptx");
  ASSERT_EQ(m.kernels.size(), 1u);
  const ptx::Kernel& k = m.kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_TRUE(k.visible);
  EXPECT_EQ(k.reqntid[0], 64u);
  EXPECT_EQ(k.reqntid[1], 2u);
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.symbols[k.params[1]].size_bytes(), 16u);
  EXPECT_EQ(k.symbols[k.params[1]].align, 8u);
  // 3 + 6 + 5 + 4 declared registers, then the 2 of the inner scope: dense numbering.
  ASSERT_EQ(k.regs.size(), 20u);
  EXPECT_EQ(k.regs[0].name, "%p0");
  EXPECT_EQ(k.regs[0].type, ptx::Type::Pred);
  EXPECT_EQ(k.regs[3].name, "%r0");
  EXPECT_EQ(k.regs[9].type, ptx::Type::F32);
  EXPECT_EQ(k.regs[19].name, "%t1");
  const std::uint32_t tile = k.find_symbol("tile");
  ASSERT_NE(tile, ptx::kNone);
  EXPECT_EQ(k.symbols[tile].size_bytes(), 1088u);
  EXPECT_EQ(k.symbols[tile].space, ptx::Space::Shared);
  // Module variables enter the kernel's table when it uses them.
  EXPECT_NE(k.find_symbol("dyn"), ptx::kNone);
  EXPECT_NE(k.find_symbol("table"), ptx::kNone);
  EXPECT_TRUE(k.symbols[k.find_symbol("dyn")].module_level);
}

TEST(PtxParse, InstructionsOperandsAndBranches) {
  const ptx::Module m = ptx::parse(kModule, "k.ptx");
  const ptx::Kernel& k = m.kernels[0];
  ASSERT_EQ(k.code.size(), 18u);
  const auto& c = k.code;

  EXPECT_EQ(c[0].op, ptx::Opcode::Ld);
  EXPECT_EQ(c[0].space, ptx::Space::Param);
  EXPECT_EQ(c[0].ops[1].kind, OperandKind::Memory);
  EXPECT_EQ(c[0].ops[1].sym, k.params[0]);
  EXPECT_EQ(c[1].ops[1].kind, OperandKind::Special);
  EXPECT_EQ(c[1].ops[1].special, ptx::Special::TidX);
  EXPECT_EQ(c[2].ops[1].kind, OperandKind::ImmFloat);
  EXPECT_EQ(c[2].ops[1].fimm(), 1.0);
  EXPECT_EQ(c[3].ops[1].fimm(), 2.0);
  // ld.global.v4.f32 {..}, [%rd1+-16]
  EXPECT_EQ(c[4].vec, 4);
  EXPECT_EQ(c[4].ops[0].kind, OperandKind::Vector);
  EXPECT_EQ(c[4].ops[0].count, 4);
  EXPECT_EQ(k.regs[k.vec(c[4].ops[0], 3)].name, "%f4");
  EXPECT_EQ(c[4].ops[1].imm(), -16);
  EXPECT_EQ(k.regs[c[4].ops[1].reg].name, "%rd1");
  // atom with [reg+offset], line info from .loc with inlined_at.
  EXPECT_EQ(c[5].op, ptx::Opcode::Atom);
  EXPECT_EQ(c[5].atom, ptx::AtomOp::Add);
  EXPECT_EQ(c[5].space, ptx::Space::Shared);
  EXPECT_EQ(c[5].type, ptx::Type::U32);
  EXPECT_EQ(c[5].ops[1].imm(), 8);
  EXPECT_EQ(c[5].ops[2].imm(), 1);
  EXPECT_EQ(c[5].ptx_line, 28u);
  EXPECT_EQ(m.site(c[5]).loc.file, 2u);
  EXPECT_EQ(m.site(c[5]).loc.line, 112u);
  EXPECT_EQ(m.site(c[5]).inlined_at.file, 1u);
  EXPECT_EQ(m.site(c[5]).inlined_at.line, 25u);
  EXPECT_EQ(m.site(c[0]).loc.line, 10u);
  EXPECT_EQ(m.site(c[0]).inlined_at.file, 0u);
  // red to a symbol + offset.
  EXPECT_EQ(c[6].op, ptx::Opcode::Red);
  EXPECT_EQ(c[6].ops[0].sym, k.find_symbol("tile"));
  EXPECT_EQ(c[6].ops[0].imm(), 4);
  // setp with a negated combining predicate, setp with p|q.
  EXPECT_EQ(c[7].cmp, ptx::CmpOp::Lt);
  EXPECT_EQ(c[7].bool_op, ptx::BoolOp::And);
  EXPECT_EQ(c[7].num_ops, 4);
  EXPECT_TRUE(c[7].ops[3].negate);
  EXPECT_TRUE(c[8].has(ptx::kSetpQ));
  EXPECT_EQ(k.regs[c[8].ops[4].reg].name, "%p2");
  EXPECT_EQ(c[9].ops[1].kind, OperandKind::Symbol);
  EXPECT_EQ(c[10].atom, ptx::AtomOp::Cas);
  EXPECT_EQ(c[10].ops[3].imm(), -1);
  EXPECT_EQ(c[11].rounding, ptx::Rounding::Rni);
  EXPECT_EQ(c[11].type, ptx::Type::S32);
  EXPECT_EQ(c[11].type2, ptx::Type::F32);
  // @!%p1 bra.uni $L__loop -> instruction 5; @%p1 bra $L__end -> one past the last instruction.
  EXPECT_EQ(c[12].op, ptx::Opcode::Bra);
  EXPECT_TRUE(c[12].has(ptx::kUni));
  EXPECT_TRUE(c[12].guard_negated);
  EXPECT_EQ(k.regs[c[12].guard].name, "%p1");
  EXPECT_EQ(c[12].ops[0].target, 5u);
  EXPECT_EQ(c[14].ops[1].kind, OperandKind::Memory);
  EXPECT_EQ(c[14].ops[1].imm(), 12);
  EXPECT_EQ(c[15].op, ptx::Opcode::Bar);
  EXPECT_EQ(c[16].ops[0].target, 18u);  // a label after the last instruction: code.size()
  EXPECT_EQ(c[17].op, ptx::Opcode::Ret);
}

TEST(PtxParse, PrintsInstructions) {
  const ptx::Module m = ptx::parse(kModule, "k.ptx");
  const ptx::Kernel& k = m.kernels[0];
  EXPECT_EQ(ptx::to_string(k, k.code[5]), "atom.shared.add.u32 %r2, [%r1+8], 1;");
  EXPECT_EQ(ptx::to_string(k, k.code[12]), "@!%p1 bra.uni @5;");
}

}  // namespace
}  // namespace smemsim

namespace smemsim {
namespace {

// The instruction list of issue 5, one line each: all must decode, in order.
TEST(PtxParse, AcceptsTheIssueInstructionList) {
  const std::string body = R"(
	ld.param.u32 %r1, [p];
	ld.volatile.shared.u32 %r2, [%r1];
	ld.global.nc.v2.f32 {%f1, %f2}, [%rd1+8];
	ld.local.u32 %r2, [%rd1];
	st.global.v2.u32 [%rd1], {%r1, %r2};
	st.shared.u32 [%r1+-4], 7;
	cvta.to.global.u64 %rd1, %rd2;
	cvta.shared.u64 %rd1, %rd2;
	mov.b64 %rd1, %rd2;
	mad.wide.s32 %rd1, %r1, 4, %rd2;
	mul.hi.u32 %r1, %r2, %r3;
	mad.lo.s32 %r1, %r2, %r3, %r1;
	div.full.f32 %f1, %f2, %f3;
	div.u32 %r1, %r2, %r3;
	rem.s32 %r1, %r2, %r3;
	min.ftz.f32 %f1, %f2, %f3;
	max.u32 %r1, %r2, 3;
	abs.s32 %r1, %r2;
	neg.f32 %f1, %f2;
	not.b32 %r1, %r2;
	shl.b64 %rd1, %rd2, 3;
	shr.s32 %r1, %r2, %r3;
	set.lt.u32.s32 %r1, %r2, %r3;
	selp.f32 %f1, %f2, 0f00000000, %p1;
	cvt.rn.sat.f32.f32 %f1, %f2;
	cvt.u16.u32 %rs1, %r1;
	fma.rn.f64 %fd1, %fd2, %fd3, %fd1;
	rcp.approx.ftz.f64 %fd1, %fd2;
	sqrt.approx.f32 %f1, %f2;
	ex2.approx.ftz.f32 %f1, %f2;
	lg2.approx.f32 %f1, %f2;
	red.global.add.f32 [%rd1], %f1;
	atom.global.exch.b64 %rd1, [%rd2], %rd3;
	atom.relaxed.gpu.global.max.s32 %r1, [%rd1], %r2;
	barrier.sync.aligned 0;
	bar.arrive 1, 64;
	membar.gl;
	exit;
	ret.uni;
)";
  const std::string text =
      ".version 8.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry k(.param .u32 p)\n{\n"
      ".reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<4>; .reg .f32 %f<4>;\n"
      ".reg .b64 %rd<4>; .reg .f64 %fd<4>;\n" +
      body + "}\n";
  const ptx::Module m = ptx::parse(text, "list.ptx");
  const auto& c = m.kernels.at(0).code;
  ASSERT_EQ(c.size(), 39u);
  EXPECT_TRUE(c[1].has(ptx::kVolatile));
  EXPECT_EQ(c[2].vec, 2);
  EXPECT_TRUE(c[2].has(ptx::kNc));
  EXPECT_EQ(c[3].space, ptx::Space::Local);
  EXPECT_EQ(c[5].ops[0].imm(), -4);
  EXPECT_TRUE(c[6].has(ptx::kTo));
  EXPECT_FALSE(c[7].has(ptx::kTo));
  EXPECT_EQ(c[9].mode, ptx::MulMode::Wide);
  EXPECT_EQ(c[10].mode, ptx::MulMode::Hi);
  EXPECT_TRUE(c[12].has(ptx::kFull));
  EXPECT_EQ(c[22].type, ptx::Type::U32);
  EXPECT_EQ(c[22].type2, ptx::Type::S32);
  EXPECT_TRUE(c[24].has(ptx::kSat));
  EXPECT_TRUE(c[27].has(ptx::kApprox) && c[27].has(ptx::kFtz));
  EXPECT_EQ(c[31].op, ptx::Opcode::Red);
  EXPECT_EQ(c[31].type, ptx::Type::F32);
  EXPECT_EQ(c[33].atom, ptx::AtomOp::Max);
  EXPECT_EQ(c[34].op, ptx::Opcode::Bar);
  EXPECT_TRUE(c[35].has(ptx::kArrive));
  EXPECT_EQ(c[35].num_ops, 2);
  EXPECT_EQ(c[36].op, ptx::Opcode::Membar);
  EXPECT_EQ(c[37].op, ptx::Opcode::Exit);
}

}  // namespace
}  // namespace smemsim

namespace smemsim {
namespace {

// Inline asm declares scoped registers without the % (`{ .reg .u64 a; ... [a] ... }`, as CUTLASS
// and kernels/ubench.cu do): such a register is an address operand's base, not an unknown symbol.
TEST(PtxParse, ScopedRegisterWithoutPercentAsAnAddress) {
  const ptx::Module m = ptx::parse(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 slot[16];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, slot;
  { .reg .u64 a;
  mad.wide.u32 a, %r2, 16, %rd1;
  cp.async.cg.shared.global [%r1], [a], 16;
  ld.global.u32 %r3, [a+4]; }
  ret;
}
)",
                                   "scoped.ptx");
  const auto& code = m.kernels.at(0).code;
  const ptx::Instruction& cp = code.at(3);
  EXPECT_EQ(cp.ops[1].kind, OperandKind::Memory);
  EXPECT_EQ(cp.ops[1].reg, code.at(2).ops[0].reg);  // mad.wide's destination
  EXPECT_EQ(code.at(4).ops[1].reg, code.at(2).ops[0].reg);
  EXPECT_EQ(code.at(4).ops[1].imm(), 4);
}

}  // namespace
}  // namespace smemsim

namespace smemsim {
namespace {

// Issue 48, item 8: a kernel's code is reserved once from the ';' of its body, not grown by
// doubling (which held the old and the new array at once; an Instruction is about 550 bytes). The
// capacity is the statements of the body: the 10,000 instructions, the 2 declarations and ret.
TEST(PtxParse, AKernelsCodeIsReservedOnceNotGrownByDoubling) {
  std::string text =
      ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry big()\n{\n"
      "  .reg .b32 %r<16>;\n  .reg .pred %p<2>;\n";
  for (int i = 0; i < 10000; ++i)
    text += "  add.u32 %r" + std::to_string(2 + i % 10) + ", %r1, " + std::to_string(i) + ";\n";
  text += "  ret;\n}\n";
  const ptx::Module m = ptx::parse(text, "big.ptx");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].code.size(), 10001u);
  EXPECT_EQ(m.kernels[0].code.capacity(), 10003u);  // doubling would leave 16,384
}

}  // namespace
}  // namespace smemsim

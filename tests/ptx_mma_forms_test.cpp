// The tensor-core forms of issue 27 in the PTX front end: every valid form parses and prints back
// as written; a form the PTX ISA does not define, or with the wrong number of registers, is an
// error naming its line; valid forms the executor does not model (fp8, sparse) fail only their
// kernel.
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim {
namespace {

// A module whose kernel body is line 9 on (%r: 32-bit, %fd: f64 registers).
std::string mma_module_with(const std::string& body) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".visible .entry k(.param .u64 p0)\n{\n"
         "  .reg .b32 %r<40>;\n  .reg .f64 %fd<8>;\n  .reg .f32 %f<10>;\n" +
         body + "\n}\n";
}

std::string printed(const std::string& line) {
  const ptx::Module m = ptx::parse(mma_module_with("  " + line), "snippet.ptx");
  EXPECT_TRUE(m.kernels[0].unsupported.empty()) << m.kernels[0].unsupported[0].message;
  return ptx::to_string(m.kernels[0], m.kernels[0].code[0]);
}

std::string mma_error_of(const std::string& line) {
  try {
    ptx::parse(mma_module_with("  " + line), "snippet.ptx");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << line;
  return {};
}

std::string mma_unsupported_of(const std::string& line) {
  const ptx::Module m = ptx::parse(mma_module_with("  " + line), "snippet.ptx");
  if (m.kernels[0].unsupported.empty()) return "supported";
  return m.kernels[0].unsupported[0].message;
}

TEST(PtxMmaForms, EveryIntegerF64AndVoltaFormParsesAndPrintsBack) {
  for (const std::string line : {
           "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
           "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite {%r1, %r2, %r3, %r4}, "
           "{%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r1, %r2, %r3, %r4};",
           "mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, "
           "%r8}, {%r9, %r10}, {%r1, %r2, %r3, %r4};",
           "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, "
           "{%r5, %r6};",
           "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r1, %r2, %r3, %r4}, {%r5, "
           "%r6, %r7, %r8}, {%r9, %r10}, {%r1, %r2, %r3, %r4};",
           "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, "
           "%fd6};",
           "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, "
           "{%r3}, {%f5, %f6, %f7, %f8};",
           "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32 {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
           "{%r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
           "wmma.load.a.sync.aligned.row.m16n16k16.shared.s8 {%r1, %r2}, [%r3], 32;",
           "wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r1}, [%r3], 128;",
           "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, "
           "{%r4}, {%r5, %r6};",
           "wmma.mma.sync.aligned.row.row.m32n8k16.s32.u8.u8.s32 {%r1, %r2, %r3, %r4, %r5, %r6, "
           "%r7, %r8}, {%r9, %r10, %r11, %r12}, {%r13}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};",
       })
    EXPECT_EQ(printed(line), line);
  // f64 wmma's .rn (the only rounding) is implied and not printed.
  EXPECT_EQ(printed("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn {%fd1, %fd2}, {%fd3}, "
                    "{%fd4}, {%fd5, %fd6};"),
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, "
            "{%fd5, %fd6};");
}

TEST(PtxMmaForms, FormsThePtxIsaDoesNotDefineAreErrors) {
  // b1 without its bit operation; .satfinite on f64; integers at .col.row; s4 A loaded col-major;
  // a wrong register count.
  EXPECT_EQ(
      mma_error_of("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, "
                   "{%r5, %r6};"),
      "snippet.ptx:9: 'mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32': .b1 takes one of "
      ".and.popc or .xor.popc, other types neither");
  EXPECT_NE(mma_error_of("mma.sync.aligned.m8n8k4.row.col.satfinite.f64.f64.f64.f64 {%fd1, %fd2}, "
                         "{%fd3}, {%fd4}, {%fd5, %fd6};")
                .find(".satfinite does not apply to .b1 or .f64"),
            std::string::npos);
  EXPECT_NE(mma_error_of("mma.sync.aligned.m8n8k16.col.row.s32.s8.s8.s32 {%r1, %r2}, {%r3}, {%r4}, "
                         "{%r5, %r6};")
                .find("this shape takes .row.col"),
            std::string::npos);
  EXPECT_NE(mma_error_of("wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%r3];")
                .find("a sub-byte A is row-major"),
            std::string::npos);
  EXPECT_EQ(mma_error_of("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, "
                         "{%r5, %r6}, {%r9, %r10}, {%r1, %r2, %r3, %r4};"),
            "snippet.ptx:9: 'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' needs 4 registers in "
            "its A fragment");
  // s8 at an f16-only shape, f64 with f32 accumulators.
  EXPECT_NE(
      mma_unsupported_of("mma.sync.aligned.m16n8k8.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, "
                         "{%r5}, {%r6}, {%r1, %r2, %r3, %r4};")
          .find("the type combination .s32.s8.s8.s32 at m16n8k8"),
      std::string::npos);
}

TEST(PtxMmaForms, UnmodelledFormsFailOnlyTheirKernel) {
  EXPECT_EQ(
      mma_unsupported_of("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, "
                         "%f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};"),
      "unsupported PTX instruction 'mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32' "
      "(fp8, fp6 and fp4 elements)");
  EXPECT_NE(
      mma_unsupported_of("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, "
                         "%f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4}, "
                         "%r9, 0;")
          .find("sparse"),
      std::string::npos);
  EXPECT_NE(
      mma_unsupported_of("wmma.mma.sync.aligned.row.col.m8n8k4.rz.f64.f64.f64.f64 {%fd1, %fd2}, "
                         "{%fd3}, {%fd4}, {%fd5, %fd6};")
          .find("f64 rounding .rz"),
      std::string::npos);
}

}  // namespace
}  // namespace smemsim

// Issue 15 item 8: kernels are found by their C++ names. nvcc mangles `transposeNaive` into
// _Z14transposeNaivePfS_ii and the template instances of `reduce` into _Z6reduceILj128EEvPfS0_j
// and _Z6reduceILj256EEvPfS0_j (the demangled forms below are c++filt's).
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

std::string entry(const std::string& name) {
  return ".visible .entry " + name + "(.param .u64 p)\n{\n  ret;\n}\n";
}

const std::string kModule = ".version 7.0\n.target sm_75\n.address_size 64\n" +
                            entry("_Z14transposeNaivePfS_ii") + entry("_Z6reduceILj128EEvPfS0_j") +
                            entry("_Z6reduceILj256EEvPfS0_j") + entry("_ZN2ns6kernelEPi") +
                            entry("plain_c_kernel");

TEST(KernelNames, DemangledSignatures) {
  EXPECT_EQ(ptx::demangle("_Z14transposeNaivePfS_ii"), "transposeNaive(float*, float*, int, int)");
  EXPECT_EQ(ptx::demangle("_Z6reduceILj128EEvPfS0_j"),
            "void reduce<128u>(float*, float*, unsigned int)");
  EXPECT_EQ(ptx::demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(ptx::demangle("_Zbroken"), "_Zbroken");
}

TEST(KernelNames, FoundByNameTemplateArgumentsSignatureOrNamespace) {
  const ptx::Module m = ptx::parse(kModule, "names.ptx");
  const auto one = [&](const std::string& q) { return exec::find_kernel(m, q).name; };
  EXPECT_EQ(one("transposeNaive"), "_Z14transposeNaivePfS_ii");
  EXPECT_EQ(one("transposeNaive(float*, float*, int, int)"), "_Z14transposeNaivePfS_ii");
  EXPECT_EQ(one("_Z14transposeNaivePfS_ii"), "_Z14transposeNaivePfS_ii");
  EXPECT_EQ(one("reduce<256u>"), "_Z6reduceILj256EEvPfS0_j");
  EXPECT_EQ(one("reduce< 128u >"), "_Z6reduceILj128EEvPfS0_j");
  EXPECT_EQ(one("ns::kernel"), "_ZN2ns6kernelEPi");
  EXPECT_EQ(one("kernel"), "_ZN2ns6kernelEPi");
  EXPECT_EQ(one("plain_c_kernel"), "plain_c_kernel");
  try {
    exec::find_kernel(m, "reduce");
    ADD_FAILURE() << "an ambiguous name was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "names.ptx: kernel name 'reduce' is ambiguous; give the template arguments, the "
                 "signature or the mangled name of one of: "
                 "void reduce<128u>(float*, float*, unsigned int) [_Z6reduceILj128EEvPfS0_j]; "
                 "void reduce<256u>(float*, float*, unsigned int) [_Z6reduceILj256EEvPfS0_j]");
  }
  try {
    exec::find_kernel(m, "transpose");
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel named 'transpose' (kernels: "
                                         "transposeNaive(float*, float*, int, int) "
                                         "[_Z14transposeNaivePfS_ii], "),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelNames, RunShowsTheDemangledName) {
  const std::string ptx = test::temp_file("names.ptx", kModule);
  const std::string spec = test::temp_file("names.toml",
                                           "args = [\"p\"]\n[buffers.p]\ntype = "
                                           "\"u32\"\ncount = 1\n");
  const auto r =
      test::cli("run " + ptx + " --kernel transposeNaive --grid 1 --block 32 --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("kernel transposeNaive(float*, float*, int, int): grid"), std::string::npos)
      << r.out;
  const auto j = test::cli("run " + ptx + " --kernel 'reduce<128u>' --grid 1 --block 32 --launch " +
                           spec + " --json");
  EXPECT_NE(j.out.find("\"kernel\": \"_Z6reduceILj128EEvPfS0_j\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"kernel_signature\": \"void reduce<128u>(float*, float*, unsigned int)\""),
            std::string::npos)
      << j.out;
  const auto a = test::cli("run " + ptx + " --kernel reduce --grid 1 --block 32 --launch " + spec);
  EXPECT_EQ(a.exit_code, 2) << a.out;
  EXPECT_NE(a.out.find("is ambiguous"), std::string::npos) << a.out;
}

}  // namespace
}  // namespace smemsim

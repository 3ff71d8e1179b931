// Emission (seed 002 §6, §7.2): the emitted software hash, compiled as host C++ (and by nvcc when
// present), must agree with the library's own index function on every address of the memory, and be
// a bijection. Non-bijective configurations must be refused.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "smemsim/emit.hpp"
#include "smemsim/hash_families.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

const IndexGeometry kFermi{5, 14};  // 32 banks, 48 KiB: 14 word-address bits (002 Table 1)

// Three configurations of different forms: bit-vector XOR with k1 = 0 (002 §7.2), bitwise XOR, and
// a general XOR matrix with a five-bit row (__popc).
const char* kSpecs[] = {"bvxor:k1=0,k2=5,mask=7", "bitsxor:0^5,1^6,2,3^9,4",
                        "xormask:0x1f,0x2,0x84,0x8,0x1010"};

XorMatrix matrix(const std::string& spec) {
  return *xor_matrix_of(*make_index_function(spec, kFermi));
}

std::string emitted_functions() {
  std::string code;
  int i = 0;
  for (const char* s : kSpecs) {
    const Emission e = emit_cuda(matrix(s), s, "hash" + std::to_string(i++));
    EXPECT_TRUE(e.ok) << s << ": " << e.reason;
    code += e.code;
  }
  return code;
}

TEST(HashEmit, EveryAddressMatchesTheLibrary) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host c++ compiler";
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "smemsim_emit_check.cpp", exe = dir + "smemsim_emit_check",
                    out = dir + "smemsim_emit_check.txt";
  {
    std::ofstream f(src);
    f << "#include <cstdio>\n#define __device__\n#define __forceinline__ inline\n"
         "static unsigned __popc(unsigned x) { return __builtin_popcount(x); }\n"
      << emitted_functions()
      << "int main() {\n  for (unsigned i = 0; i < (1u << 14); ++i)\n"
         "    std::printf(\"%u %u %u\\n\", hash0(i), hash1(i), hash2(i));\n}\n";
  }
  ASSERT_EQ(std::system(("c++ -std=c++17 -O1 -o " + exe + " " + src).c_str()), 0);
  ASSERT_EQ(std::system((exe + " > " + out).c_str()), 0);
  std::ifstream in(out);
  std::vector<std::unique_ptr<IndexFunction>> fns;
  for (const char* s : kSpecs) fns.push_back(make_index_function(s, kFermi));
  std::vector<std::set<unsigned>> seen(3);
  for (unsigned a = 0; a < (1u << 14); ++a) {
    for (int k = 0; k < 3; ++k) {
      unsigned got = 0;
      ASSERT_TRUE(in >> got) << "address " << a;
      // The library's bank of a is the low 5 bits of the hashed index; the rest is kept.
      EXPECT_EQ(got & 31u, fns[std::size_t(k)]->index(a)) << kSpecs[k] << " address " << a;
      EXPECT_EQ(got & ~31u, a & ~31u) << kSpecs[k] << " address " << a;
      seen[std::size_t(k)].insert(got);
    }
  }
  for (int k = 0; k < 3; ++k) EXPECT_EQ(seen[std::size_t(k)].size(), 1u << 14) << kSpecs[k];
}

TEST(HashEmit, CompilesWithNvcc) {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (std::system((std::string(nvcc) + " --version > /dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "nvcc not present";
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "smemsim_emit.cu";
  {
    std::ofstream f(src);
    f << emitted_functions()
      << "__global__ void k(float* out) {\n  __shared__ float buf[1024];\n"
         "  unsigned i = threadIdx.x;\n  buf[hash0(i)] = i; buf[hash1(i + 256)] = i;\n"
         "  buf[hash2(i + 512)] = i;\n  __syncthreads();\n  out[i] = buf[hash0(i * 16 % "
         "1024)];\n}\n";
  }
  EXPECT_EQ(std::system((std::string(nvcc) + " -c -o " + dir + "smemsim_emit.o " + src).c_str()),
            0);
}

TEST(HashEmit, PaperLavaMdFormWithK1Zero) {
  // 002 §7.2 writes the software hash as shifts, an and and an xor; with k1 = 0 it keeps the index.
  const Emission e = emit_cuda(matrix("bvxor:k1=0,k2=5,mask=7"), "bvxor:k1=0,k2=5,mask=7");
  ASSERT_TRUE(e.ok);
  EXPECT_NE(e.code.find("return i ^ ((i >> 5) & 7u);"), std::string::npos) << e.code;
  EXPECT_NE(e.code.find("__device__ __forceinline__"), std::string::npos);
}

TEST(HashEmit, RefusesNonBijective) {
  // bv:k=3 ignores address bits 0..2: as a software hash indices 0 and 1 would share a word.
  EXPECT_FALSE(matrix("bv:k=3").software_bijective());
  const Emission e = emit_cuda(matrix("bv:k=3"), "bv:k=3");
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.reason.find("not a bijection"), std::string::npos) << e.reason;
  EXPECT_FALSE(emit_cute(matrix("bv:k=3"), "bv:k=3").ok);
}

TEST(HashEmit, CuteSwizzle) {
  // x ^ ((x >> 5) & 7) is Swizzle<3,0,5>; xor (bits 0..4 ^ 5..9) is Swizzle<5,0,5>.
  const auto s = find_cute_swizzle(matrix("bvxor:k1=0,k2=5,mask=7"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->bits, 3);
  EXPECT_EQ(s->base, 0);
  EXPECT_EQ(s->shift, 5);
  const auto x = find_cute_swizzle(matrix("xor"));
  ASSERT_TRUE(x);
  EXPECT_EQ(x->bits, 5);
  EXPECT_EQ(x->shift, 5);
  // mask 14 (bits 1..3) at distance 4: Swizzle<3,1,4> (002 Table 5, transpose).
  const auto t = find_cute_swizzle(matrix("bvxor:k1=0,k2=4,mask=14"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->bits, 3);
  EXPECT_EQ(t->base, 1);
  EXPECT_EQ(t->shift, 4);
  // mask 5 is not contiguous: no swizzle, and the reason says so.
  const Emission e = emit_cute(matrix("bvxor:k1=0,k2=5,mask=5"), "bvxor:k1=0,k2=5,mask=5");
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.reason.find("contiguous"), std::string::npos) << e.reason;
  EXPECT_NE(emit_cute(matrix("xor"), "xor").code.find("cute::Swizzle<5, 0, 5>"), std::string::npos);
}

TEST(HashEmit, CliSearchEmitsBijective) {
  // Transpose store (002 §3.2.2): --emit restricts the search to bijective software hashes.
  std::string list;
  for (int ty = 0; ty < 2; ++ty)
    for (int tx = 0; tx < 16; ++tx)
      list += (list.empty() ? "" : ",") + std::to_string(tx * 16 + ty);
  const auto r = test::cli("hash search --family bvxor --pattern " + list + " --emit cuda --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"bijective\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"conflicts\": 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("__device__ __forceinline__"), std::string::npos) << r.out;
  // A bitwise heuristic answer that is not bijective (stride 8 selects bits 3..7) is refused with
  // the reason, exit 1.
  std::string s8;
  for (int i = 0; i < 32; ++i) s8 += (i ? "," : "") + std::to_string(8 * i);
  const auto b =
      test::cli("hash search --family bits --heuristic givargis --pattern " + s8 + " --emit cuda");
  EXPECT_EQ(b.exit_code, 1) << b.out;
  EXPECT_NE(b.out.find("not a bijection"), std::string::npos) << b.out;
}

}  // namespace
}  // namespace smemsim

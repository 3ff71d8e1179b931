// `smemsim run` and `smemsim profile` through the CLI: builtins, a PTX file with a launch spec,
// JSON, trace emission, and bad input (issue 5 "must show" 6): malformed PTX, an unknown kernel,
// a missing launch argument, a buffer too small, shared memory above the arch's capacity — each a
// clear message with its line and exit code 2.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include "kernel_test_util.hpp"

#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;
using test::temp_file;

// out[i] = in[i] * scale + tid-independent offset via shared memory staging; n elements.
const char* kScalePtx = R"(.version 7.0
.target sm_75
.address_size 64
.file 1 "/src/scale.cu"

.visible .entry scale(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .shared .align 4 .b8 stage[1024];
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra END;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 8 3
  ld.global.u32 %r6, [%rd4];
  shl.b32 %r7, %r2, 2;
  mov.u32 %r8, stage;
  add.s32 %r9, %r8, %r7;
  .loc 1 9 3
  st.shared.u32 [%r9], %r6;
  ld.shared.u32 %r10, [%r9];
  mul.lo.s32 %r11, %r10, 3;
  add.s64 %rd5, %rd1, %rd3;
  .loc 1 11 3
  st.global.u32 [%rd5], %r11;
END:
  ret;
}
)";

std::string spec(int in_count, bool with_n = true) {
  std::ostringstream s;
  s << "grid = [2]\nblock = 128\n";
  s << "args = [\"out\", \"in\"" << (with_n ? ", 256" : "") << "]\n";
  s << "[buffers.in]\ntype = \"u32\"\ncount = " << in_count << "\ninit = \"iota\"\nstart = 5\n";
  s << "[buffers.out]\ntype = \"u32\"\ncount = 256\nwrite = \"" << ::testing::TempDir()
    << "smemsim_scale_out.txt\"\n";
  return s.str();
}

TEST(ExecCli, RunsAPtxFileWithALaunchSpecAndWritesOutputs) {
  const std::string ptx = temp_file("scale.ptx", kScalePtx);
  const std::string toml = temp_file("scale.toml", spec(256));
  const auto r = cli("run " + ptx + " --kernel scale --launch " + toml);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("wrote buffer 'out'"), std::string::npos) << r.out;
  std::ifstream in(::testing::TempDir() + "smemsim_scale_out.txt");
  std::uint64_t v = 0, i = 0;
  for (; in >> v; ++i) ASSERT_EQ(v, (i + 5) * 3) << i;  // iota from 5, times 3
  EXPECT_EQ(i, 256u);
  // The profile names the CUDA lines and reports the staging accesses; --json parses.
  const auto p = cli("profile " + ptx + " --launch " + toml + " --json");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  const auto j = nlohmann::json::parse(p.out);
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["cuda"]["line"], 9);
  EXPECT_TRUE(j["rows"][0]["cuda"]["file"].get<std::string>().ends_with("scale.cu"));
  EXPECT_EQ(j["rows"][0]["ptx"]["file"], ptx);
  EXPECT_EQ(j["rows"][0]["op"], "st");
  EXPECT_EQ(j["rows"][0]["accesses"], 8);  // 2 blocks x 4 warps
  EXPECT_EQ(j["rows"][0]["bank_conflicts"], 0);
  EXPECT_EQ(j["stats"]["ctas"], 2);
}

TEST(ExecCli, BadInputIsExitCode2WithAClearMessage) {
  const std::string ptx = temp_file("scale2.ptx", kScalePtx);
  // Malformed PTX: the parser's file:line.
  std::string broken = kScalePtx;
  broken.replace(broken.find("mul.lo.s32 %r11, %r10, 3;"), 25, "mul.lo.s32 %r11, %r10;");
  const std::string bad = temp_file("broken.ptx", broken);
  auto r = cli("run " + bad + " --kernel scale --launch " + temp_file("s1.toml", spec(256)));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("broken.ptx:31:"), std::string::npos) << r.out;
  // --timing on a builtin of two launches names the builtin (it has no launch file).
  r = cli("profile builtin:srad --timing");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("times one launch; builtin:srad has 2 launches"), std::string::npos)
      << r.out;
  // Unknown kernel name.
  r = cli("run " + ptx + " --kernel nope --launch " + temp_file("s2.toml", spec(256)));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("no kernel named 'nope' (kernels: scale)"), std::string::npos) << r.out;
  // Missing launch argument.
  r = cli("run " + ptx + " --launch " + temp_file("s3.toml", spec(256, false)));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("kernel 'scale' takes 3 parameters, the launch gives 2"), std::string::npos)
      << r.out;
  // No launch spec at all.
  r = cli("run " + ptx + " --grid 1 --block 32");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("needs --launch SPEC.toml"), std::string::npos) << r.out;
  // A buffer too small: thread 72 of block 1 reads element 200 of a 200-element buffer.
  r = cli("run " + ptx + " --launch " + temp_file("s4.toml", spec(200)));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("scale2.ptx:24: out-of-bounds global load of 4 bytes at byte offset 800 of "
                       "buffer 'in' (800 bytes) by thread (72,0,0) of block (1,0,0) (scale.cu:8)"),
            std::string::npos)
      << r.out;
  // Shared memory above the arch's capacity: 1 KiB static + 48 KiB dynamic on Fermi, but not on
  // an arch with 64 KiB.
  const std::string big = temp_file("s5.toml", "dynamic_shared = 49152\n" + spec(256));
  r = cli("run " + ptx + " --launch " + big + " --arch fermi-gtx580");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(
      r.out.find("needs 50176 bytes of shared memory per block (1024 static + 49152 dynamic), "
                 "above the 49152 bytes of arch 'fermi-gtx580'"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(cli("run " + ptx + " --launch " + big + " --arch southern-islands").exit_code, 0);
  // Launch spec errors carry the spec's line.
  r = cli("run " + ptx + " --launch " +
          temp_file("s6.toml",
                    "grid = 1\nblock = 32\nargs = [\"out\", \"missing\", 3]\n"
                    "[buffers.out]\ntype = \"u32\"\ncount = 4\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("s6.toml:3: argument 2: no buffer, texture or tensor map named 'missing'"),
            std::string::npos)
      << r.out;
  r = cli("run " + ptx + " --launch " +
          temp_file("s7.toml",
                    "grid = 1\nblock = 32\nargs = []\n[buffers.out]\ntype = \"u32\"\n"
                    "count = 4\ninit = \"ones\"\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("s7.toml:7: buffer 'out': unknown init 'ones'"), std::string::npos) << r.out;
  // A grid beyond 32 bits is an error, not a silent wrap to 1.
  r = cli("run " + ptx + " --launch " +
          temp_file("s8.toml", "grid = 4294967297\nblock = 32\nargs = []\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("s8.toml:1: 'grid' must be in 1..4294967295"), std::string::npos) << r.out;
  // Values that do not fit their parameter (issue 28): true/false for an integer, 1e300 for an
  // f32 (kernels/ubench.cu's ubench_fma takes one), instead of a silent 1 or infinity.
  r = cli("run " + ptx + " --launch " +
          temp_file("s9.toml",
                    "grid = 1\nblock = 32\nargs = [\"in\", \"out\", true]\n"
                    "[buffers.in]\ntype = \"s32\"\ncount = 32\n"
                    "[buffers.out]\ntype = \"s32\"\ncount = 32\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("true is for a bool (8-bit) parameter; give a number"), std::string::npos)
      << r.out;
  r = cli("run " + std::string(SMEMSIM_SOURCE_DIR) +
          "/kernels/ptx/ubench.ptx --kernel ubench_fma --launch " +
          temp_file("s10.toml",
                    "grid = 1\nblock = 32\nargs = [\"out\", 1e300]\n"
                    "[buffers.out]\ntype = \"u32\"\ncount = 2\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("1e+300 does not fit (the largest .f32 is 3.402823e+38)"), std::string::npos)
      << r.out;
  r = cli("run builtin:nope");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown builtin 'nope' (builtins: histogram,"), std::string::npos) << r.out;
}

TEST(ExecCli, BuiltinsSayTheyMatchTheReference) {
  auto r = cli("run builtin:histogram --bins 256 --replication 32 --mapping cyclic --padding 1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("result: matches the CPU reference (bit-exact)"), std::string::npos)
      << r.out;
  r = cli("run builtin:fwt --log2n 9 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["reference"]["matches"], true);
  EXPECT_NE(j["reference"]["tolerance"].get<std::string>().find("1e-5"), std::string::npos);
  r = cli("run builtin:transpose --block 8,8");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--block 16,16"), std::string::npos) << r.out;
  r = cli("run builtin:genindex --way 32 --stride 256");  // 31 * 256 is past the 4096 words
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("out-of-bounds shared load"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("genindex.cu:"), std::string::npos) << r.out;
}

TEST(ExecCli, ProfileEmitsATraceThatAnalyzeReads) {
  const std::string trace = ::testing::TempDir() + "smemsim_transpose.trace";
  const auto r = cli("profile builtin:transpose --emit-trace " + trace + " --stats");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("thread-instructions/s"), std::string::npos) << r.out;
  // 64x64: 16 blocks x 8 warps x (one st + one ld).
  EXPECT_NE(r.out.find("wrote 256 accesses"), std::string::npos) << r.out;
  const auto a = cli("analyze --trace " + trace + " --json");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  const auto j = nlohmann::json::parse(a.out);
  // Half the accesses (the store phase's loads) are 8-way: 128 x 7 conflicts.
  EXPECT_EQ(j["totals"]["accesses"], 256);
  EXPECT_EQ(j["totals"]["bank_conflicts"], 128 * 7);
  // Same launch, same profile (determinism through the CLI).
  const auto p1 = cli("profile builtin:kmeans --json"), p2 = cli("profile builtin:kmeans --json");
  ASSERT_EQ(p1.exit_code, 0) << p1.out;
  auto strip = [](nlohmann::json x) {
    x["stats"].erase("seconds");
    return x;
  };
  EXPECT_EQ(strip(nlohmann::json::parse(p1.out)), strip(nlohmann::json::parse(p2.out)));
}

}  // namespace
}  // namespace smemsim

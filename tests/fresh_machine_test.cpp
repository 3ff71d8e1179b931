// A fresh machine (issue 24): the builtins run from the shipped PTX with no nvcc and no
// environment; a PTX file runs on the preset of its .target and says so first; `launch init`
// writes defaults that do something (outputs zeroed, sizes from the buffers' counts).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "smemsim_fresh_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// The command's stdout alone (stderr dropped), its exit code.
CliResult stdout_of(const std::string& args) {
  return shell("{ " + std::string(SMEMSIM_CLI) + " " + args + " 2>/dev/null; }");
}

TEST(FreshMachine, BuiltinsRunWithoutNvccOrEnvironment) {
  // nvcc's folder off PATH, no SMEMSIM_PTX_DIR, an empty HOME: the PTX comes from kernels/ptx.
  const std::string home = ::testing::TempDir() + "smemsim_fresh_home";
  fs::create_directories(home);
  const std::string env =
      "env -u SMEMSIM_PTX_DIR -u SMEMSIM_IMAGE_DIR -u XDG_CACHE_HOME HOME=" + home +
      " PATH=/usr/bin:/bin ";
  const CliResult r =
      shell(env + SMEMSIM_CLI + " sim builtin:atomic_bench --conflicts 1 --stride 32");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Seed 000 §III: one lane alone in its bank, the atomic's clock() time on the GTX 580: 118.
  EXPECT_NE(r.out.find("clock() in the kernel: 118 cycles"), std::string::npos) << r.out;
  EXPECT_EQ(exec::suite_ptx_dir(), std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx");
}

TEST(FreshMachine, MissingSuitePtxNamesTheScript) {
  const CliResult r = cli("run builtin:reduction --ptx-dir /nonexistent-smemsim-ptx");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("kernels/ptx/reduction.ptx (scripts/gen-ptx.sh makes it from "
                       "kernels/reduction.cu)"),
            std::string::npos)
      << r.out;
}

TEST(FreshMachine, PresetForTarget) {
  // The sm_NN aliases of presets.cpp: each GPU generation's compute capability.
  EXPECT_EQ(preset_for_target("sm_75").name, "turing-t4");
  EXPECT_EQ(preset_for_target("sm_75").note, "");
  EXPECT_EQ(preset_for_target("sm_70").name, "volta-v100");
  EXPECT_EQ(preset_for_target("sm_80").name, "ampere-a100");
  EXPECT_EQ(preset_for_target("sm_86").name, "ampere-a100");
  EXPECT_EQ(preset_for_target("sm_90").name, "hopper-h100");
  EXPECT_EQ(preset_for_target("sm_90a").name, "hopper-h100");  // the feature suffix
  EXPECT_EQ(preset_for_target("sm_20").name, "fermi-gtx580");
  EXPECT_EQ(preset_for_target("sm_35").name, "kepler-k20");
  // Pascal (sm_61) has no preset: Kepler is the newest older one, and the note says so.
  const TargetPreset pascal = preset_for_target("sm_61");
  EXPECT_EQ(pascal.name, "kepler-k20");
  EXPECT_EQ(pascal.note, "no preset models sm_61; kepler-k20 (sm_37) is the newest older one");
  EXPECT_EQ(preset_for_target("sm_120").name, "hopper-h100");
  EXPECT_NE(preset_for_target("sm_120").note, "");
  // Older than every preset, or not sm_NN: no preset, a note.
  EXPECT_EQ(preset_for_target("sm_10").name, "");
  EXPECT_NE(preset_for_target("sm_10").note, "");
  EXPECT_EQ(preset_for_target("compute_70").name, "");
  EXPECT_EQ(preset_for_target("sm_").name, "");
  EXPECT_EQ(preset_for_target("sm_75xy").name, "");
}

TEST(FreshMachine, PtxRunsOnThePresetOfItsTarget) {
  const std::string dir = std::string(SMEMSIM_SOURCE_DIR) + "/tests/examples/";
  // k.ptx is compiled with -arch=sm_75 (tests/examples/k.cu): turing-t4, said on line 1.
  const std::string base =
      "profile " + dir + "k.ptx --kernel k --grid 2 --block 128 --launch " + dir + "k.toml";
  CliResult r = cli(base);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(first_line(r.out),
            "arch turing-t4: the preset for k.ptx's .target sm_75 (--arch NAME for another)");
  EXPECT_NE(r.out.find("turing-t4:"), std::string::npos) << r.out;  // the arch summary
  // An explicit --arch is kept, without the line (and with the warning that the GPU is older).
  r = stdout_of(base + " --arch fermi-gtx580");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(first_line(r.out).rfind("arch ", 0), std::string::npos) << r.out;
  EXPECT_EQ(first_line(r.out).rfind("fermi-gtx580:", 0), 0u) << r.out;
  // A builtin keeps its seed's preset (the suite is compiled for sm_75, run on the GTX 580).
  r = cli("run builtin:reduction");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("arch turing-t4"), std::string::npos) << r.out;
  // Under --json the document names the preset and stays alone on stdout and stderr.
  const CliResult j =
      cli("run " + dir + "k.ptx --kernel k --grid 2 --block 128 --launch " + dir + "k.toml --json");
  ASSERT_EQ(j.exit_code, 0) << j.out;
  EXPECT_EQ(j.out.front(), '{') << j.out;
  EXPECT_NE(j.out.find("\"name\": \"turing-t4\""), std::string::npos) << j.out;
  // An error stays the only line.
  r = cli(base + " --grid 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out.find("arch turing-t4"), std::string::npos) << r.out;
}

TEST(FreshMachine, TargetWithoutPresetSaysWhich) {
  // sm_61 (Pascal): no preset of its own; the nearest older one, named on line 1.
  const std::string ptx = write_temp("pascal.ptx",
                                     ".version 7.0\n.target sm_61\n.address_size 64\n"
                                     ".visible .entry k()\n{\n  ret;\n}\n");
  const std::string spec = write_temp("pascal.toml", "grid = [1]\nblock = [32]\nargs = []\n");
  const CliResult r = cli("run " + ptx + " --launch " + spec);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;  // the line said it all
  EXPECT_EQ(first_line(r.out),
            "arch kepler-k20: smemsim_fresh_pascal.ptx's .target sm_61: no preset models sm_61; "
            "kepler-k20 (sm_37) is the newest older one (--arch NAME for another)");
}

// copy(const float* in, float* out, int n): out[i] = in[i] for i < n, written by hand as nvcc
// would (the thread index i = ctaid.x * ntid.x + tid.x compared with n, then the addresses).
const char* kCopy = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry _Z4copyPKfPfi(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.s32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.f32 %f1, [%rd6];
  add.s64 %rd7, %rd4, %rd5;
  st.global.f32 [%rd7], %f1;
DONE:
  ret;
}
)";

// hist(const int* v, int* bins, int n): atomicAdd(&bins[v[i] & 15], 1) for i < n.
const char* kHist = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry _Z4histPKiPii(.param .u64 v, .param .u64 bins, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<9>; .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [v];
  ld.param.u64 %rd2, [bins];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r6, [%rd5];
  and.b32 %r7, %r6, 15;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r7, 4;
  add.s64 %rd8, %rd6, %rd7;
  atom.global.add.u32 %r8, [%rd8], 1;
DONE:
  ret;
}
)";

// mm(const float* a, float* c, int n): c[row * n + col] = a[col * n + row], 2D (%tid.y, %ctaid.y).
const char* kTranspose = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry _Z2mmPKfPfi(.param .u64 a, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<2>; .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %ntid.y;
  mov.u32 %r4, %tid.y;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r8, %tid.x;
  mad.lo.s32 %r9, %r6, %r7, %r8;
  setp.ge.s32 %p1, %r5, %r1;
  setp.ge.s32 %p2, %r9, %r1;
  or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  mad.lo.s32 %r10, %r9, %r1, %r5;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  mad.lo.s32 %r11, %r5, %r1, %r9;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.s32 %rd7, %r11, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f1;
DONE:
  ret;
}
)";

TEST(FreshMachine, LaunchInitDefaultsDoSomething) {
  const ptx::Module m = ptx::parse(kCopy, "copy.ptx");
  const std::string s = exec::launch_spec_skeleton(m, m.kernels[0], "copy.ptx", "copy.toml");
  // Every parameter commented with its C++ type; the one only written is zero-filled, the one
  // read random; n, compared with the thread index, is the buffers' count, and the grid covers it
  // (1,024 elements / 256 threads).
  EXPECT_NE(s.find("  \"p0\",                         # 1: float const*: read by the kernel "
                   "(input)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  \"p1\",                         # 2: float*: written by the kernel (output)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  1024,                         # 3: int: guessed, a size: compared with a "
                   "thread index (1,024 elements)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("grid = [4]"), std::string::npos) << s;
  const auto p1 = s.find("[buffers.p1]");
  ASSERT_NE(p1, std::string::npos) << s;
  EXPECT_NE(s.find("init = \"zeros\"", p1), std::string::npos) << s;
  EXPECT_NE(s.substr(s.find("[buffers.p0]"), p1 - s.find("[buffers.p0]")).find("init = \"random\""),
            std::string::npos)
      << s;

  EXPECT_NE(s.find("count = 2048"), std::string::npos) << s;  // room for a stencil's halo

  // Run as written: n = 1,024 elements copied by the 4 x 256 threads, the rest of out still 0.
  const std::string ptx = write_temp("copy.ptx", kCopy);
  std::string spec_text = s;
  spec_text.replace(spec_text.find("# write = \"p0.txt\""), 18,
                    "write = \"" + ::testing::TempDir() + "smemsim_fresh_in.txt\"");
  spec_text.replace(spec_text.find("# write = \"p1.txt\""), 18,
                    "write = \"" + ::testing::TempDir() + "smemsim_fresh_out.txt\"");
  const std::string spec = write_temp("copy.toml", spec_text);
  const CliResult r = cli("run " + ptx + " --launch " + spec);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::istringstream in(slurp(::testing::TempDir() + "smemsim_fresh_in.txt"));
  std::istringstream out(slurp(::testing::TempDir() + "smemsim_fresh_out.txt"));
  std::string a, b;
  int n = 0, zeros = 0;
  for (; std::getline(in, a) && std::getline(out, b); ++n) {
    if (n < 1024)
      ASSERT_EQ(a, b) << "element " << n;
    else
      zeros += b == "0";
  }
  EXPECT_EQ(n, 2048);
  EXPECT_EQ(zeros, 1024);
}

TEST(FreshMachine, LaunchInitAtomicOutputAndTwoDimensions) {
  const ptx::Module h = ptx::parse(kHist, "hist.ptx");
  const std::string hs = exec::launch_spec_skeleton(h, h.kernels[0], "hist.ptx");
  // The bins are only updated by atomics: an output, zeroed (random bins would corrupt it).
  EXPECT_NE(hs.find("# 2: int*: written by the kernel (output)"), std::string::npos) << hs;
  EXPECT_NE(hs.find("init = \"zeros\"", hs.find("[buffers.p1]")), std::string::npos) << hs;

  const ptx::Module t = ptx::parse(kTranspose, "mm.ptx");
  const std::string ts = exec::launch_spec_skeleton(t, t.kernels[0], "mm.ptx");
  // 2D: 16 x 16 blocks, a 2 x 2 grid, n = 32 (32 x 32 = the 1,024 elements).
  EXPECT_NE(ts.find("block = [16, 16]"), std::string::npos) << ts;
  EXPECT_NE(ts.find("grid = [2, 2]"), std::string::npos) << ts;
  EXPECT_NE(ts.find("  32,                           # 3: int: guessed, a size"), std::string::npos)
      << ts;
  const std::string ptx = write_temp("mm.ptx", kTranspose);
  const std::string spec = write_temp("mm.toml", ts);
  const CliResult r = cli("run " + ptx + " --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
}  // namespace smemsim::test

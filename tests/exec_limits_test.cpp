// Issue 11: a kernel that never finishes is an error under `run` and `profile`, not a hang (the
// step limit, --max-steps, default 10^9 warp-instructions, names the unfinished warps, their PTX
// and CUDA lines and what they wait for), and CUDA's launch limits are checked. No nvcc needed.
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

// Warp 0 waits at the barrier (line 16) that warp 1, spinning at lines 13-14, never reaches.
const char* kSpin = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry spin(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
LOOP:
  add.s32 %r2, %r2, 1;
  bra LOOP;
WAIT:
  bar.sync 0;
  ret;
}
)";

TEST(ExecLimits, StepLimitNamesTheStuckWarps) {
  const ptx::Module m = ptx::parse(kSpin, "spin.ptx");
  exec::GlobalMemory mem;
  exec::Launch l;
  l.grid = {1, 1, 1};
  l.block = {64, 1, 1};
  l.args = {exec::Arg::buf(mem.add({"out", exec::ElemType::U32, std::vector<std::uint8_t>(4)}))};
  exec::Executor ex(m, m.kernels.at(0), default_arch(), l, mem);
  ex.set_max_steps(5000);
  try {
    ex.run();
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("did not finish within 5000 warp-instructions (--max-steps)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("warp 0 of block (0,0,0) at spin.ptx:16 `bar.sync 0;`, waiting at barrier "
                       "0 (1 of 2 warps arrived)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("warp 1 of block (0,0,0) at spin.ptx:1"), std::string::npos) << msg;
  }
}

TEST(ExecLimits, RunAndProfileStopWithExitCode2) {
  const std::string ptx = temp_file("spin.ptx", kSpin);
  const std::string spec =
      temp_file("spin.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  for (const std::string cmd : {"run", "profile"}) {
    const CliResult r =
        cli(cmd + " " + ptx + " --grid 1 --block 64 --launch " + spec + " --max-steps 10000");
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("waiting at barrier 0"), std::string::npos) << cmd << ": " << r.out;
  }
  EXPECT_EQ(
      cli("run " + ptx + " --grid 1 --block 64 --launch " + spec + " --max-steps 0").exit_code, 2);
}

// CUDA's launch limits (block x, y <= 1024, z <= 64, at most 1,024 threads; grid x <= 2^31 - 1,
// y, z <= 65,535) are errors naming the shape, for run and sim alike.
TEST(ExecLimits, CudaLaunchLimits) {
  const std::string ptx = temp_file("limits.ptx", kSpin);
  const std::string spec =
      temp_file("limits.toml", "args = [\"out\"]\n[buffers.out]\ntype = \"u32\"\ncount = 1\n");
  const std::pair<std::string, std::string> cases[] = {
      {"--grid 2147483648 --block 64", "grid 2147483648,1,1 exceeds CUDA's limits"},
      {"--grid 65536,65536,65536 --block 64", "grid 65536,65536,65536 exceeds"},
      {"--grid 1,65536 --block 64", "grid 1,65536,1 exceeds"},
      {"--grid 1 --block 1,1,128", "block 1,1,128 exceeds CUDA's limits x, y <= 1024, z <= 64"},
      {"--grid 1 --block 64,32", "block 64,32,1 has 2048 threads; 1..1024 are allowed"},
  };
  for (const std::string cmd : {"run", "sim"})
    for (const auto& [shape, words] : cases) {
      const CliResult r = cli(cmd + " " + ptx + " " + shape + " --launch " + spec);
      EXPECT_EQ(r.exit_code, 2) << cmd << " " << shape << ": " << r.out;
      EXPECT_NE(r.out.find(words), std::string::npos) << cmd << " " << shape << ": " << r.out;
    }
}

}  // namespace
}  // namespace smemsim::test

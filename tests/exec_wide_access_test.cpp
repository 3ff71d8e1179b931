// Issue 15 item 11: shared accesses wider than 4 bytes per lane are served in phases, as the
// hardware does (CUDA C++ Programming Guide, "Shared Memory": 64-bit accesses by half-warps,
// 128-bit by quarter-warps on 4-byte banks; Kepler's 8-byte banks hold a 64-bit word in one bank
// unit), so .v2/.v4 loads that Nsight Compute reports conflict-free are conflict-free here too.
// Each expectation is worked by hand in its comment; memory.wide_access = words gives the
// per-word reading smemsim used before.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/ptx.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

struct Passes {
  std::size_t accesses = 0;
  std::vector<int> degrees;  // bank degree of each access, in order
};

// Thread t loads a .vN.f32 at byte (t << shift) of a shared array, on `threads` threads.
Passes load(int vec, int shift, const Arch& arch, std::uint32_t threads = 32) {
  const std::string regs = vec == 2 ? "{%f1, %f2}" : "{%f1, %f2, %f3, %f4}";
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<6>;
  .reg .f32 %f<6>;
  .shared .align 16 .b8 sm[4096];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, )" + std::to_string(shift) +
                          R"(;
  add.u32 %r4, %r2, %r3;
  ld.shared.v)" + std::to_string(vec) +
                          ".f32 " + regs + ", [%r4];\n  ret;\n}\n";
  const ptx::Module m = ptx::parse(ptx, "w.ptx");
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {threads, 1, 1};
  Executor ex(m, m.kernels.at(0), arch, launch, mem);
  CollectConsumer c;
  ex.set_consumer(&c);
  ex.run();
  AccessEvaluator ev(arch);
  Passes p;
  p.accesses = c.accesses.size();
  for (const WarpAccess& wa : c.accesses) p.degrees.push_back(ev.evaluate(wa).degrees.bank);
  return p;
}

Arch with_words(Arch a) {
  a.wide_access = "words";
  return a;
}

TEST(ExecWideAccess, HalfAndQuarterWarpPhasesOnFourByteBanks) {
  const Arch fermi = default_arch();
  // v2, 8 bytes per thread: half-warp t0..t15 covers words 0..31, one pass each: 2 passes.
  // Per word (the old reading): word k of thread t is 2t + k, 16 distinct banks, 2-way: 2 x 2.
  Passes p = load(2, 3, fermi);
  EXPECT_EQ(p.degrees, (std::vector<int>{1, 1}));
  EXPECT_EQ(load(2, 3, with_words(fermi)).degrees, (std::vector<int>{2, 2}));
  // v4, 16 bytes per thread: quarter-warps of 8 threads x 4 words = 32 words: 4 passes of degree
  // 1. Per word: 4t + k over 32 threads hits 8 banks 4 times: 4 x 4-way.
  EXPECT_EQ(load(4, 4, fermi).degrees, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(load(4, 4, with_words(fermi)).degrees, (std::vector<int>{4, 4, 4, 4}));
  // v2 at a 16-byte stride: a half-warp touches words 4t, 4t + 1 for t < 16 = 0, 1, 4, 5, ...,
  // 61: banks 0, 1, 4, 5, ..., 28, 29 twice each: 2 phases of degree 2.
  EXPECT_EQ(load(2, 4, fermi).degrees, (std::vector<int>{2, 2}));
  // Eight threads: one phase only (the second half-warp has no active lane).
  p = load(2, 3, fermi, 8);
  EXPECT_EQ(p.accesses, 1u);
  EXPECT_EQ(p.degrees, (std::vector<int>{1}));
}

TEST(ExecWideAccess, EightByteBanksServeSixtyFourBitsPerLane) {
  Arch k20 = find_preset("kepler-k20");
  ASSERT_EQ(k20.bank_width_bytes, 8u);
  // v2 = one 8-byte bank unit per thread: the whole warp in one pass over 32 banks.
  EXPECT_EQ(load(2, 3, k20).degrees, (std::vector<int>{1}));
  // v4 = two units per thread: half-warps of 16 threads x 2 units = 32 banks: 2 passes.
  EXPECT_EQ(load(4, 4, k20).degrees, (std::vector<int>{1, 1}));
}

TEST(ExecWideAccess, ProfileAndSettingAgree) {
  // The arch key is validated and reaches the executor through --set.
  EXPECT_THROW(
      [] {
        Arch a = default_arch();
        a.wide_access = "lanes";
        validate(a);
      }(),
      InputError);
  const test::CliResult r = test::cli("arch show --set memory.wide_access=words");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("wide_access = 'words'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::exec

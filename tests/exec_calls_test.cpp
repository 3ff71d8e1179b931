// Issue 15 item 5: device functions (.func, call with .param passing, return values, recursion),
// on nvcc's output for tests/corpus/device_calls.cu and on hand-written PTX. Expected values come
// from the kernel's definition (fib(n) by its recurrence, written out below).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;

int fib(int n) {
  int a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const int t = a + b;
    a = b;
    b = t;
  }
  return a;
}

TEST(ExecCalls, NoinlineFunctionsWithRecursionAndDivergence) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(128, 0, 40, 21);
  Launcher l("device_calls");
  l.buffer("in", in).buffer("out", Ints(128));
  l.raw("f", std::vector<float>(128), ElemType::F32).buffer("total", Ints{0});
  l.run("device_calls", 2, 64);
  const Ints out = l.get("out");
  const auto f = l.got<float>("f");
  int total = 0;
  for (int i = 0; i < 128; ++i) {
    const int v = in[std::size_t(i)];
    total += v;
    EXPECT_EQ(out[std::size_t(i)], v * v + i + ((v & 1) ? fib(v & 15) : 0)) << i;
    EXPECT_EQ(f[std::size_t(i)], 1.5f * float(v)) << i;  // lerp(v, 2v, 0.5)
  }
  EXPECT_EQ(l.get("total")[0], total);
  // The functions were linked into the kernel once each.
  EXPECT_EQ(l.module.kernels.at(0).functions.size(), 4u);
}

const char* kRecursive = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) down(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [n];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.u32 %r2, %r1, 1;
  {
  .param .b32 a;
  st.param.b32 [a+0], %r2;
  .param .b32 b;
  call.uni (b), down, (a);
  ld.param.b32 %r3, [b+0];
  }
  add.u32 %r1, %r1, %r3;
DONE:
  st.param.b32 [r+0], %r1;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [n];
  {
  .param .b32 a;
  st.param.b32 [a+0], %r1;
  .param .b32 b;
  call.uni (b), down, (a);
  ld.param.b32 %r2, [b+0];
  }
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

std::string run_down(std::uint32_t n, std::uint32_t& result) {
  const ptx::Module m = ptx::parse(kRecursive, "rec.ptx");
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  launch.args = {Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(4)})),
                 Arg::integer(n)};
  try {
    Executor ex(m, m.kernels.at(0), default_arch(), launch, mem);
    ex.run();
  } catch (const InputError& e) {
    return e.what();
  }
  std::memcpy(&result, mem.get("out").bytes.data(), 4);
  return "";
}

TEST(ExecCalls, RecursionKeepsEachFramesRegistersAndStopsAtTheDepthLimit) {
  // down(n) = n + down(n - 1), down(0) = 0: n (n + 1) / 2. Each level's %r1 must survive the call
  // below it (the call saves and restores the function's registers).
  std::uint32_t r = 0;
  EXPECT_EQ(run_down(10, r), "");
  EXPECT_EQ(r, 55u);
  EXPECT_EQ(run_down(1000, r), "");
  EXPECT_EQ(r, 500500u);
  const std::string e = run_down(5000, r);
  EXPECT_NE(e.find("call depth above 1024 (unbounded recursion?) calling 'down'"),
            std::string::npos)
      << e;
  // The cycle-level model times calls: `call` and a function's `ret` are control instructions,
  // and the recursion gives the same sum as the functional run.
  const ptx::Module m = ptx::parse(kRecursive, "rec.ptx");
  GlobalMemory mem;
  Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  launch.args = {Arg::buf(mem.add({"out", ElemType::U32, std::vector<std::uint8_t>(4)})),
                 Arg::integer(10)};
  timing::GpuSim sim(m, m.kernels.at(0), default_arch(), launch, mem, {});
  const timing::TimingStats& st = sim.run();
  std::memcpy(&r, mem.get("out").bytes.data(), 4);
  EXPECT_EQ(r, 55u);
  // 10 calls and 11 returns at least: the warp issued every instruction of each level.
  EXPECT_GT(st.warp_instructions, 21u);
  EXPECT_GT(st.cycles, st.warp_instructions);
}

TEST(ExecCalls, UndefinedFunctionsAndWrongArgumentsAreNamed) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) puts(.param .b64 f, .param .b64 a);
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.func (.param .b32 r) one(.param .b32 x)
{
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<2>;
  {
  .param .b64 f;
  .param .b64 a;
  .param .b32 r;
  call.uni (r), puts, (f, a);
  }
  {
  .param .b32 r;
  call.uni (r), one, ();
  }
  {
  .param .b64 f;
  .param .b32 r;
  call.uni (r), vprintf, (f);
  }
  ret;
}
)";
  const ptx::Module m = ptx::parse(ptx, "u.ptx");
  ASSERT_EQ(m.kernels[0].unsupported.size(), 3u);
  EXPECT_EQ(m.kernels[0].unsupported[0].line, 17u);
  EXPECT_NE(m.kernels[0].unsupported[0].message.find(
                "call to 'puts', which has no body in the module (a library function: of those "
                "only vprintf, printf's, and __assertfail, assert's, are built in)"),
            std::string::npos)
      << m.kernels[0].unsupported[0].message;
  EXPECT_EQ(m.kernels[0].unsupported[1].message,
            "call to 'one' with 0 arguments and 1 return value; it takes 1 and returns 1");
  // printf and assert are built in (tests/debug_tools_test.cpp), with nvcc's arguments.
  EXPECT_EQ(m.kernels[0].unsupported[2].message,
            "call to 'vprintf' with 1 argument: nvcc's vprintf takes 2 and returns 1");
}

}  // namespace
}  // namespace smemsim::exec

// An f32 division's slow path (sm.lower's divide; src/timing/expand.cpp, DivF32Slow;
// Executor::fdiv_slow): ptxas's div.rn.f32 checks its operands (FCHK) and calls a subroutine when
// a lane's dividend or divisor is zero, subnormal, infinite or NaN. The warp then issues the
// call's 34 instructions more (fft_dit's SASS for sm_90, a zero dividend's path).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "test_util.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// Each thread divides (tid == zero_lane ? 0 : tid + 1) by 3, a register (zero_lane < 0: no lane
// divides 0). A division by an immediate is not expanded.
std::string divide(int zero_lane) {
  return fmt::format(R"(
.visible .entry divide(.param .u64 out)
{{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .pred %p<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  setp.eq.s32 %p1, %r1, {};
  selp.u32 %r3, 0, %r2, %p1;
  cvt.rn.f32.u32 %f1, %r3;
  and.b32 %r4, %r1, 0;
  add.u32 %r5, %r4, 3;
  cvt.rn.f32.u32 %f2, %r5;
  div.rn.f32 %f3, %f1, %f2;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd3, %rd2, %rd3;
  st.global.f32 [%rd3], %f3;
  ret;
}}
)",
                     zero_lane);
}

timing::TimingStats run(int zero_lane, std::uint32_t threads) {
  TimedKernel k(divide(zero_lane), threads, threads);
  return k.run(find_preset("hopper-h100"));
}

// One lane of one warp divides zero: that warp issues 34 more (expanded), no other does; the
// quotient is still the division's (0 there, (t + 1) / 3 elsewhere).
TEST(DivideSlowPath, AZeroDividendCallsTheSubroutine) {
  const timing::TimingStats none = run(-1, 128), one = run(37, 128), two = run(5, 32);
  EXPECT_EQ(one.expanded, none.expanded + 34);               // warp 1 (lanes 32-63) has lane 37
  EXPECT_EQ(one.warp_instructions, none.warp_instructions);  // the PTX is the same
  EXPECT_GT(one.cycles, none.cycles);
  const timing::TimingStats w1 = run(-1, 32);
  EXPECT_EQ(two.expanded, w1.expanded + 34);
}

// fft_dit divides -pi (t mod half) by half in each of its 9 stages, 8 CTAs of 8 warps: 576 warp
// divisions. A warp takes the slow path when one of its lanes has t mod half = 0 (a zero
// dividend): every warp in the six stages with half <= 32 (384), 4, 2 and 1 of a CTA's 8 warps
// with half = 64, 128, 256 (32, 16, 8): 440, the H200's CALL count for the launch
// (calibration/runs/h100-2026-11-27/ncu_opcodes_h200.csv: CALL 440, RET 440, FCHK 576). With them
// the model's lowered count meets the H200's 58,152 SASS instructions (it was 43,200: 0.74).
TEST(DivideSlowPath, FftTakesItWhereTheH200Did) {
  const auto r = cli("sim builtin:fft --arch hopper-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& low = doc.at("timing").at("lowered");
  const auto lowered = low.at("warp_instructions").get<std::uint64_t>();
  EXPECT_EQ(lowered, 43200u + 440u * 34u);
  EXPECT_LT(std::abs(double(lowered) / 58152 - 1), 0.01) << lowered;
}

}  // namespace
}  // namespace smemsim::test

// What the lowering tests share (lower_spaces_test.cpp, lower_ifcvt_test.cpp, lower_imm_test.cpp,
// lower_iadd3_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "lower/lower.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {

// A one-thread kernel that writes its clock span to out[0] (its global loads at least 128 bytes
// apart, in 80 words), run on hopper-h100's SM under sm.lower `without` and then `with`: the
// second must save one global load's latency, at least sm.global_latency (the memory's part of
// it) and at most the whole load path (lat_shared_ld + global_latency), a branch that no longer
// issues with its guard's wait (lat_branch + guard_delay) and a few cycles of issue.
inline void expect_one_load_latency_saved(const std::string& body, const char* without,
                                          const char* with) {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  std::uint32_t span[2];
  for (int on = 0; on < 2; ++on) {
    a.sm.lower = on ? with : without;
    TimedKernel k(body, 1, 80);
    k.run(a);
    span[on] = k.out()[0];
  }
  const std::uint32_t saved = span[0] - span[1];
  EXPECT_GE(saved, a.sm.global_latency) << span[0] << " " << span[1];
  EXPECT_LE(saved,
            a.sm.lat_shared_ld + a.sm.global_latency + a.sm.lat_branch + a.sm.guard_delay + 8)
      << span[0] << " " << span[1];
}

// The instructions of `k` that the rules absorb (each is free, issuing with a later one).
inline std::vector<std::uint32_t> absorbed_by(const ptx::Kernel& k, const char* rules) {
  std::vector<timing::InstInfo> info = timing::decode_kernel(k);
  const std::vector<std::uint32_t> with =
      timing::apply_lowering(k, info, lower::parse_rules(rules));
  std::vector<std::uint32_t> marked;
  for (std::uint32_t i = 0; i < with.size(); ++i)
    if (with[i] != ptx::kNone) marked.push_back(i);
  return marked;
}

}  // namespace smemsim::test

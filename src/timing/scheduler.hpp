// Warp schedulers (DESIGN.md "The cycle-level layer"): one interface, implementations chosen by
// name from timing::schedulers(). Each cycle the SM hands the scheduler the warps that may issue;
// the scheduler sees each warp's age and next instruction class (memory, shared memory, other),
// which seed 004 §4.2's bank-conflict-aware scheduler (issue 12) needs.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <string_view>

#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"

namespace smemsim::timing {

// A set of SM warp slots (at most 128, the largest sm.max_warps).
struct WarpMask {
  std::array<std::uint64_t, 2> bits{};
  void set(std::uint32_t w) { bits[w >> 6] |= std::uint64_t{1} << (w & 63); }
  void clear(std::uint32_t w) { bits[w >> 6] &= ~(std::uint64_t{1} << (w & 63)); }
  bool test(std::uint32_t w) const { return (bits[w >> 6] >> (w & 63)) & 1; }
  bool any() const { return bits[0] | bits[1]; }
  WarpMask operator&(const WarpMask& o) const {
    return WarpMask{{bits[0] & o.bits[0], bits[1] & o.bits[1]}};
  }
  bool operator==(const WarpMask&) const = default;
  // The first member at or after `from`, cyclically over [0, n); -1 when empty.
  int next_from(std::uint32_t from, std::uint32_t n) const;
  template <typename F>
  void each(F&& f) const {
    for (std::uint32_t k = 0; k < 2; ++k)
      for (std::uint64_t b = bits[k]; b; b &= b - 1)
        f(k * 64 + static_cast<std::uint32_t>(std::countr_zero(b)));
  }
};

class SchedulerView {
 public:
  virtual ~SchedulerView() = default;
  virtual std::uint32_t warp_slots() const = 0;
  virtual std::uint64_t age(std::uint32_t warp) const = 0;  // dispatch order: smaller is older
  virtual NextClass next_class(std::uint32_t warp) const = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // One of `eligible` (non-empty), chosen by the policy.
  virtual std::uint32_t pick(const WarpMask& eligible, const SchedulerView& view) = 0;
  // The warp the SM issued this cycle.
  virtual void issued(std::uint32_t warp) = 0;
};

// The policy of sm.scheduler; for bank-aware ones, the baseline policy sm.bank_aware_base (the SM
// adds the ready-signal masking of 004 Fig. 7, bank_aware.hpp).
std::unique_ptr<Scheduler> make_scheduler(const SmConfig& sm);

}  // namespace smemsim::timing

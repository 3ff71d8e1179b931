// Global memory of one SM, deliberately simple (docs/timing.md "Global memory"): an instruction's
// lanes are coalesced into 32-byte sectors (exec::IssueResult::global_sectors); the SM's requests
// queue (32 entries) and leave at sm.global_bytes_per_cycle; a load's data returns
// sm.global_latency cycles after its last sector left, an atomic's after sm.global_atomic_latency,
// and competes for writeback; a store is done when its last sector left. No caches, no DRAM banks,
// no interconnect contention between SMs. Returning data goes to the writeback port of the sub-core
// that sent the request (sm.subcores): one return queue per sub-core.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "smemsim/arch.hpp"

namespace smemsim::timing {

class GlobalMemoryUnit {
 public:
  enum class Kind : std::uint8_t { Load, Store, Atomic };
  static constexpr std::size_t kQueue = 32;

  explicit GlobalMemoryUnit(const SmConfig& sm)
      : bytes_(sm.global_bytes_per_cycle),
        load_latency_(sm.global_latency),
        atomic_latency_(sm.global_atomic_latency),
        returns_(sm.subcores) {}

  bool can_send() const { return queue_.size() < kQueue; }
  // `sub`: the sub-core whose writeback port takes the returning data.
  void send(std::uint32_t op, std::uint32_t sectors, Kind kind, std::uint32_t sub = 0) {
    queue_.push_back({op, sectors, kind, sub});
  }
  // Moves this cycle's bytes; calls stored(op) for every store whose last sector left.
  template <typename F>
  void tick(std::uint64_t now, F&& stored) {
    // Bytes accrue every cycle, also the ones the GPU skipped, up to one sector's worth of slack.
    const std::uint64_t elapsed = now - last_;
    last_ = now;
    credit_ = std::min<std::uint64_t>(credit_ + bytes_ * std::min<std::uint64_t>(elapsed, 64),
                                      bytes_ + 32);
    while (!queue_.empty()) {
      Request& r = queue_.front();
      while (r.sectors && credit_ >= 32) {
        credit_ -= 32;
        --r.sectors;
      }
      if (r.sectors) break;
      if (r.kind == Kind::Store)
        stored(r.op);
      else
        (r.kind == Kind::Load ? returns_[r.sub].loads : returns_[r.sub].atomics)
            .push_back({r.op, now + (r.kind == Kind::Load ? load_latency_ : atomic_latency_)});
      queue_.pop_front();
    }
  }
  bool return_ready(std::uint64_t now, std::uint32_t sub = 0) const {
    const Returns& q = returns_[sub];
    return (!q.loads.empty() && q.loads.front().at <= now) ||
           (!q.atomics.empty() && q.atomics.front().at <= now);
  }
  // The earliest ready return to `sub` (loads before atomics on a tie).
  std::uint32_t pop_return(std::uint64_t now, std::uint32_t sub = 0) {
    Returns& r = returns_[sub];
    auto& q = (!r.loads.empty() && r.loads.front().at <= now &&
               (r.atomics.empty() || r.loads.front().at <= r.atomics.front().at))
                  ? r.loads
                  : r.atomics;
    const std::uint32_t op = q.front().op;
    q.pop_front();
    return op;
  }
  bool empty() const {
    if (!queue_.empty()) return false;
    for (const Returns& r : returns_)
      if (!r.loads.empty() || !r.atomics.empty()) return false;
    return true;
  }
  // The cycle something here next changes on its own (for skipping idle cycles); ~0 when idle.
  std::uint64_t next_event(std::uint64_t now) const {
    if (!queue_.empty()) return now + 1;
    std::uint64_t t = ~std::uint64_t{0};
    for (const Returns& r : returns_) {
      if (!r.loads.empty()) t = std::min(t, r.loads.front().at);
      if (!r.atomics.empty()) t = std::min(t, r.atomics.front().at);
    }
    return t;
  }

 private:
  struct Request {
    std::uint32_t op;
    std::uint32_t sectors;
    Kind kind;
    std::uint32_t sub;
  };
  struct Return {
    std::uint32_t op;
    std::uint64_t at;
  };
  std::uint64_t bytes_;
  std::uint64_t load_latency_, atomic_latency_;
  std::uint64_t credit_ = 0;
  std::uint64_t last_ = ~std::uint64_t{0};  // cycle of the last tick (the first adds one cycle)
  struct Returns {
    std::deque<Return> loads, atomics;
  };
  std::deque<Request> queue_;
  std::vector<Returns> returns_;  // per sub-core
};

}  // namespace smemsim::timing

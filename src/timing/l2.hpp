// One L2 every SM shares (issue 44, docs/timing.md "The shared L2"): sm.l2_slices slices, each
// a sectored cache of l2_bytes / l2_slices (cache.hpp, write-back) with its own data path, behind
// sm.dram_channels DRAM channels. A request that leaves an SM's queue (global_mem.hpp) is served
// here at the end of the cycle, in SM order (GpuSim's commit), so the order the slices see is
// the same on every thread count; during a cycle the SMs only read a slice's backlog (accepts).
//
// Time is kept in 1/kTick cycles: a slice takes 32 / rate cycles a sector, a channel the same
// for its rate, and each keeps when it is next free. A sector waits for its slice, then (a load
// the slice misses, or a dirty line the slice evicts) for its slice's channel; its data is back
// sm.l2_latency after its slice took it (a hit) or sm.global_latency after its channel did (a
// miss): unloaded, the latencies of the chases that calibrate them. A slice whose channel holds
// more than sm.dram_queue_sectors waits for it, and an SM may not send a sector to a slice that
// holds more than sm.l2_queue_sectors: the back-pressure that makes a stream of stores run at
// the DRAM's rate. An atomic is executed at its slice: a sector's atomics of every SM one after
// another, sm.l2_atomic_cycles a lane on its busiest word, the last returning
// sm.global_atomic_latency after its turn.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "smemsim/arch.hpp"
#include "timing/cache.hpp"

namespace smemsim::timing {

class SharedL2 {
 public:
  static constexpr std::uint64_t kTick = 256;  // fractions of a cycle the clocks count
  enum class Access : std::uint8_t { Load, LoadAgain, Store, Atomic };  // LoadAgain: .cv

  // `share`: the launch is one of `share` alike running on the GPU's other SMs at once
  // (TimingOptions::l2_share): each slice gives it 1 / share of its lines and of its rate, each
  // DRAM channel 1 / share of its rate.
  SharedL2(const SmConfig& sm, std::uint32_t share = 1);
  bool on() const { return !slices_.empty(); }

  // Sector ranges [first, second) that start in the L2 (TimingOptions::warm_l2).
  void set_resident(const std::vector<std::pair<std::uint64_t, std::uint64_t>>* r) {
    resident_ = r && !r->empty() ? r : nullptr;
  }
  std::uint32_t slice_of(std::uint64_t sector) const;
  // Whether an SM may send a sector to `slice` in cycle `now`: its waiting sectors are fewer than
  // sm.l2_queue_sectors (read by SMs during the cycle; changed only by serve).
  bool accepts(std::uint32_t slice, std::uint64_t now) const {
    return slices_[slice].free <= (now * kTick) + slice_queue_;
  }

  struct Served {
    std::uint64_t at = 0;    // the cycle the data is back at the SM (loads and atomics)
    std::uint32_t hits = 0;  // the sectors the L2 held
  };
  // The sectors of one request that left an SM at cycle `now`. `same`: an atomic's most lanes on
  // one word.
  Served serve(const std::uint64_t* sec, std::uint32_t n, Access kind, std::uint32_t same,
               std::uint64_t now);

 private:
  struct Slice {
    SectorCache tags;
    std::uint64_t free = 0;  // in ticks: when its data path is next free
  };
  // The channel behind `slice` takes `sectors` sectors no earlier than tick `t`: returns the tick
  // it starts them, and holds the slice back where the channel's queue is full.
  std::uint64_t to_dram(std::uint32_t slice, std::uint32_t sectors, std::uint64_t t);
  bool resident(std::uint64_t x) const {
    if (!resident_) return false;
    for (const auto& [lo, hi] : *resident_)
      if (x >= lo && x < hi) return true;
    return false;
  }

  util::Zeroed<std::uint64_t> tag_block_;       // every slice's tags
  util::Zeroed<SectorCache::Line> line_block_;  // and their lines' records
  std::vector<Slice> slices_;
  std::vector<std::uint64_t> channels_;                // in ticks: when each channel is next free
  std::uint64_t slice_cost_ = 0, channel_cost_ = 0;    // ticks a sector
  std::uint64_t slice_queue_ = 0, channel_queue_ = 0;  // ticks of waiting sectors allowed
  std::uint64_t l2_latency_ = 0, dram_latency_ = 0, atomic_latency_ = 0, atomic_serial_ = 0;
  std::uint32_t shift_ = 0;  // the xor hash's fold width (0: mod)
  // An atomic sector's next free tick at its slice's atomic unit (pruned of the past ones).
  std::unordered_map<std::uint64_t, std::uint64_t> atomic_free_;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>* resident_ = nullptr;
};

}  // namespace smemsim::timing

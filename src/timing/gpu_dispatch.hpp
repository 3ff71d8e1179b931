// Which CTA starts on which SM, and when (gpu_dispatch.cpp): the dispatcher's rate, one CTA per
// SM per cycle in rotating order, clusters placed whole on one GPC (issue 46), and the set of
// awake SMs the cycle loop ticks (issue 31).
#pragma once

#include <cstdint>
#include <vector>

#include "timing/gpu_impl.hpp"

namespace smemsim::timing {

struct GpuSim::Impl::Dispatcher {
  Dispatcher(Impl& im, std::uint64_t total);

  // The earliest cycle CTA k may start (sm.launch_cycles, sm.dispatch_ctas per dispatch_cycles).
  std::uint64_t at(std::uint64_t k) const;
  // The next CTA's (or cluster's last CTA's) start cycle: a CTA still to dispatch waits for it.
  std::uint64_t next_at() const { return at(next_cta + csize - 1); }
  bool left() const { return next_cta < total; }
  // Starts this cycle's CTAs (im.cycle); no SM takes more than one a cycle.
  void dispatch();
  // After the tick and its commit: the SMs gone to sleep (`asleep`: one may have) stop ticking.
  void after_tick(bool asleep);
  // At the end: the idle cycles of the SMs asleep since.
  void finish();

  Impl& im;
  std::uint64_t total;         // the CTAs to time (all, or --sample-ctas' share)
  std::uint64_t next_cta = 0;  // dispatched so far
  // Only awake SMs tick: an SM with nothing resident and nothing in flight is asleep, and its
  // sub-cores' idle slots are counted in one go when it wakes or at the end. `awake` is in SM
  // order, the order every SM used to tick in, so cycles, stats and side effects are the same.
  std::vector<std::uint32_t> awake;
  std::uint64_t last_tick = 0;  // the cycle of the last ticks (an SM's clock between ticks)
  bool saturated = false;       // no SM could take a CTA, and none has retired one since
  std::uint32_t csize = 1;      // CTAs per cluster

 private:
  void wake(std::uint32_t i);
  bool dispatch_clusters();
  std::uint64_t cluster_cta(std::uint64_t c, std::uint32_t r) const;

  std::uint64_t age = 0;      // warps started so far (the warps' ages, oldest first)
  std::size_t start = 0;      // the SM that gets the first look at the next CTA
  std::size_t start_gpc = 0;  // the GPC that gets the first look at the next cluster
  exec::Dim3 kc;              // the cluster's shape
  std::vector<std::uint64_t> asleep_from;
  std::vector<char> is_awake;
  std::vector<char> took_now;  // per SM: took a CTA this cycle (clusters)
  std::vector<std::uint32_t> chosen;
};

}  // namespace smemsim::timing

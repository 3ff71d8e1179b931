// CTA dispatch to SMs as their resources free (docs/timing.md "CTA dispatch", "Clusters").
#include "timing/gpu_dispatch.hpp"

#include <algorithm>

namespace smemsim::timing {

GpuSim::Impl::Dispatcher::Dispatcher(Impl& i, std::uint64_t t)
    : im(i),
      total(t),
      kc{std::max(1u, i.kernel.cluster[0]), std::max(1u, i.kernel.cluster[1]),
         std::max(1u, i.kernel.cluster[2])},
      asleep_from(i.sms.size(), 0),
      is_awake(i.sms.size(), 0) {
  csize = kc.count();
  if (csize > 1) took_now.resize(i.sms.size());
}

std::uint64_t GpuSim::Impl::Dispatcher::at(std::uint64_t k) const {
  const SmConfig& smc = im.arch.sm;
  if (!smc.dispatch_ctas) return smc.launch_cycles;
  // The launch's fixed cost, then the dispatcher's rate: k x cycles / ctas without overflow.
  const std::uint64_t c = smc.dispatch_ctas, d = smc.dispatch_cycles;
  return smc.launch_cycles + k / c * d + k % c * d / c;
}

void GpuSim::Impl::Dispatcher::wake(std::uint32_t i) {
  if (!im.sms[i]) {
    im.sms[i] = std::make_unique<Sm>(i, im.ctx);
    im.attach(i);
  }
  im.sms[i]->add_idle(im.cycle - asleep_from[i], last_tick);
  is_awake[i] = 1;
  awake.insert(std::lower_bound(awake.begin(), awake.end(), i), i);
}

void GpuSim::Impl::Dispatcher::dispatch() {
  if (next_cta >= total || saturated || next_at() > im.cycle) return;
  if (csize > 1) {
    saturated = !dispatch_clusters();  // until a CTA retires, no GPC can take a cluster
    return;
  }
  // At most one CTA per SM per cycle, SMs in rotating order: this cycle's pass visits each SM
  // once from `first`; the next cycle's starts after the last SM that took one.
  const std::size_t n = im.sms.size(), first = start;
  bool took = false;
  for (std::size_t k = 0; k < n && next_cta < total && at(next_cta) <= im.cycle; ++k) {
    const auto i = std::uint32_t((first + k) % n);
    if (im.sms[i] && !im.sms[i]->can_take()) continue;  // an SM not built yet is empty
    if (!is_awake[i]) wake(i);
    im.sms[i]->start_cta(next_cta++, age, im.cycle);
    age += im.ctx.warps_per_cta;
    start = (first + k + 1) % n;
    took = true;
  }
  saturated = !took;  // until a CTA retires, no SM can take one
}

// Cluster c (x fastest over the grid of clusters), rank r (x fastest within the cluster): its CTA.
std::uint64_t GpuSim::Impl::Dispatcher::cluster_cta(std::uint64_t c, std::uint32_t r) const {
  const exec::Dim3& g = im.launch.grid;
  const std::uint64_t cx = g.x / kc.x, cy = g.y / kc.y;
  const std::uint64_t x = c % cx * kc.x + r % kc.x;
  const std::uint64_t y = c / cx % cy * kc.y + r / kc.x % kc.y;
  const std::uint64_t z = c / (cx * cy) * kc.z + r / (kc.x * kc.y);
  return x + g.x * (y + std::uint64_t(g.y) * z);
}

// Clusters (issue 46): a cluster's CTAs start together, in one cycle, on different SMs of one
// GPC (SM i is in GPC i / sm.gpc_sms) that each have room; the GPCs are tried in rotating order,
// the next cluster's search starting after the GPC that took the last one, and an SM takes at
// most one CTA a cycle. Cluster c is dispatched c-th, its CTAs in rank order.
bool GpuSim::Impl::Dispatcher::dispatch_clusters() {
  const std::size_t n = im.sms.size(), per = im.arch.sm.gpc_sms, gpcs = (n + per - 1) / per;
  std::fill(took_now.begin(), took_now.end(), 0);
  bool took = false;
  while (next_cta < total && next_at() <= im.cycle) {
    bool placed = false;
    for (std::size_t j = 0; j < gpcs && !placed; ++j) {
      const std::size_t g = (start_gpc + j) % gpcs;
      chosen.clear();
      for (std::size_t i = g * per; i < std::min(n, (g + 1) * per) && chosen.size() < csize; ++i)
        if (!took_now[i] && (!im.sms[i] || im.sms[i]->can_take()))
          chosen.push_back(std::uint32_t(i));
      if (chosen.size() < csize) continue;
      const std::uint64_t c = next_cta / csize;
      for (std::uint32_t r = 0; r < csize; ++r) {
        const std::uint32_t i = chosen[r];
        if (!is_awake[i]) wake(i);
        im.sms[i]->start_cta(cluster_cta(c, r), age, im.cycle);
        age += im.ctx.warps_per_cta;
        took_now[i] = 1;
      }
      next_cta += csize;
      start_gpc = (g + 1) % gpcs;
      placed = took = true;
    }
    if (!placed) break;
  }
  return took;
}

void GpuSim::Impl::Dispatcher::after_tick(bool asleep) {
  if (asleep)
    std::erase_if(awake, [&](std::uint32_t i) {
      // An SM that ran ahead is asleep now if its tick of this cycle left it so.
      if (im.is_ahead(i) ? !(im.ahead_flags(i) & Impl::kAheadAsleep) : !im.sms[i]->asleep())
        return false;
      is_awake[i] = 0;
      asleep_from[i] = im.cycle + 1;
      return true;
    });
  last_tick = im.cycle;
}

void GpuSim::Impl::Dispatcher::finish() {
  for (std::uint32_t i = 0; i < im.sms.size(); ++i)
    if (!is_awake[i] && im.sms[i]) im.sms[i]->add_idle(im.cycle - asleep_from[i], last_tick);
}

}  // namespace smemsim::timing

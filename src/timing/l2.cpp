// The shared L2 (l2.hpp).
#include "timing/l2.hpp"

#include <algorithm>
#include <bit>

namespace smemsim::timing {

SharedL2::SharedL2(const SmConfig& sm, std::uint32_t share) {
  if (!sm.l2_slices || !sm.l2_bytes || !sm.l2_slice_bytes_per_cycle) return;
  // A share of the GPU: the other launches' requests, spread over every slice, leave this one
  // 1 / share of the L2 as if it were share times fewer slices (at least one) of the same
  // total rate; the lines of one launch alone would load a few slices unevenly where the GPU's
  // every SM loads all of them evenly.
  const std::uint64_t sh = share ? share : 1;
  const std::uint64_t all = sm.l2_slices, n = std::max<std::uint64_t>(all / sh, 1);
  slices_.resize(n);
  // The slices' lines in one block (util/zeroed.hpp): one allocation, whose pages a launch never
  // reaches cost it nothing.
  const std::uint64_t bytes = sm.l2_bytes / sh / n;
  const std::size_t per = SectorCache::lines_for(bytes, sm.l2_ways);
  tag_block_.reset(per * n);
  line_block_.reset(per * n);
  for (std::size_t i = 0; i < n; ++i) {
    const SectorCache::Block b{per ? &tag_block_[i * per] : nullptr,
                               per ? &line_block_[i * per] : nullptr};
    slices_[i].tags.configure_ways(bytes, sm.l2_ways, n, b);
  }
  channels_.assign(std::clamp<std::uint64_t>(sm.dram_channels * n / all, 1, n), 0);
  // A sector's ticks: 32 bytes at the rate. The slices' rate is all x l2_slice_bytes_per_cycle /
  // share; the DRAM's the GPU's, sm.dram_bytes_per_cycle (else sm.global_bytes_per_cycle x
  // sm.count), / share; each split evenly.
  slice_cost_ =
      std::max<std::uint64_t>(32 * kTick * sh * n / (all * sm.l2_slice_bytes_per_cycle), 1);
  const std::uint64_t dram =
      sm.dram_bytes_per_cycle ? sm.dram_bytes_per_cycle
                              : std::uint64_t(sm.global_bytes_per_cycle) * std::max(sm.count, 1u);
  channel_cost_ = std::max<std::uint64_t>(32 * kTick * sh * channels_.size() / dram, 1);
  slice_queue_ = slice_cost_ * sm.l2_queue_sectors;
  channel_queue_ = channel_cost_ * sm.dram_queue_sectors;
  l2_latency_ = sm.l2_latency;
  dram_latency_ = sm.global_latency;
  atomic_latency_ = sm.global_atomic_latency;
  atomic_serial_ = sm.l2_atomic_cycles;
  shift_ = sm.l2_hash == "mod" ? 0 : std::max(1, int(std::bit_width(n - 1)));
}

std::uint32_t SharedL2::slice_of(std::uint64_t sector) const {
  std::uint64_t line = sector / SectorCache::kSectors;
  if (shift_) line ^= (line >> shift_) ^ (line >> (2 * shift_));
  return std::uint32_t(line % slices_.size());
}

std::uint64_t SharedL2::to_dram(std::uint32_t slice, std::uint32_t sectors, std::uint64_t t) {
  const std::size_t ch = std::size_t(slice) * channels_.size() / slices_.size();
  const std::uint64_t start = std::max(channels_[ch], t);
  channels_[ch] = start + sectors * channel_cost_;
  // The channel's queue is full: the slice waits until it has room again.
  if (channels_[ch] > t + channel_queue_)
    slices_[slice].free = std::max(slices_[slice].free, channels_[ch] - channel_queue_);
  return start;
}

SharedL2::Served SharedL2::serve(const std::uint64_t* sec, std::uint32_t n, Access kind,
                                 std::uint32_t same, std::uint64_t now) {
  Served r;
  const std::uint64_t t0 = now * kTick;
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t x = sec[i];
    const std::uint32_t s = slice_of(x);
    Slice& sl = slices_[s];
    const std::uint64_t start = std::max(sl.free, t0);
    sl.free = start + slice_cost_;
    std::uint64_t ready = 0;
    bool hit = false;
    if (kind == Access::LoadAgain) {  // .cv: memory again, nothing allocated
      sl.tags.invalidate(x);
    } else {
      hit = sl.tags.access(x, true, kind != Access::Load);
      // A dirty line the allocation pushed out is written to DRAM (its slice's channel).
      if (const std::uint32_t d = sl.tags.evicted_dirty()) to_dram(s, d, start);
    }
    if (kind == Access::Store) continue;
    if (kind == Access::Atomic) {
      // The sector's atomics, of every SM, one after another at the slice.
      std::uint64_t& f = atomic_free_[x];
      const std::uint64_t begin = std::max(start, f);
      f = begin + atomic_serial_ * std::max<std::uint64_t>(same, 1) * kTick;
      ready = begin + (atomic_serial_ * (same > 1 ? same - 1 : 0) + atomic_latency_) * kTick;
    } else if (hit || (kind == Access::Load && resident(x))) {
      ++r.hits;
      // A line whose fill from DRAM is still on its way (another request missed it): its data
      // comes with that fill.
      ready = std::max(start + l2_latency_ * kTick, hit ? sl.tags.last_fill() : 0);
    } else {
      ready = to_dram(s, 1, start) + dram_latency_ * kTick;
      if (kind == Access::Load) sl.tags.set_last_fill(ready);
    }
    at = std::max(at, ready);
  }
  if (atomic_free_.size() > 65536)  // forget the sectors whose turn has passed
    std::erase_if(atomic_free_, [&](const auto& e) { return e.second <= t0; });
  r.at = (at + kTick - 1) / kTick;
  return r;
}

}  // namespace smemsim::timing

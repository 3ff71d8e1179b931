// What the SM's warps wait on asynchronously (sm.hpp): cp.async's groups, and an
// mbarrier.try_wait's suspended threads.
#include <algorithm>

#include "smemsim/exec.hpp"
#include "timing/sm.hpp"

namespace smemsim::timing {

// cp.async's and wgmma's groups (PTX ISA, cp.async.commit_group / wait_group, wgmma.commit_group
// / wait_group): an op joins the warp's open group of its kind; a commit closes it; wait_group N
// holds the warp's next instruction until no more than the N newest committed groups have ops
// outstanding (recompute: Stall::Memory, Nsight's long_scoreboard). A group without ops is done
// at once.
std::uint32_t Sm::AsyncGroups::join() {
  const std::uint32_t g = commits;
  if (left.empty()) first = g;
  while (first + left.size() <= g) left.push_back(0);
  ++left[g - first];
  return g;
}

void Sm::AsyncGroups::done(std::uint32_t group) {
  --left[group - first];
  drop();
}

// Drops the committed groups at the front that have no op left (a group whose ops were all done
// before its commit is dropped at the commit: a short wgmma is done before the next instruction).
void Sm::AsyncGroups::drop() {
  std::size_t n = 0;
  while (n < left.size() && left[n] == 0 && first < commits) {
    ++n;
    ++first;
  }
  left.erase(left.begin(), left.begin() + std::ptrdiff_t(n));
}

void Sm::async_issue(Warp& wp, Inflight& in, const InstInfo& info) {
  AsyncGroups& g = wp.groups[info.async_kind];
  in.async_kind = info.async_kind;
  if (info.async_copy || info.wgmma) in.async_group = std::int32_t(g.join());
  if (info.async_commit) {
    ++g.commits;
    g.drop();
  }
  if (info.async_wait) g.until = g.commits - std::min(info.async_keep, g.commits);
}

// A wgmma.mma_async (issue 46) has read its operands from shared memory by `now` (its passes
// went through the MIO path as a load's). The warp's sub-core's tensor core multiplies the
// warp's 16 rows: 16 x N x K of the warpgroup's 64 x N x K at sm.wgmma_fmas a cycle (type ratios
// as mma's), and no product holds it fewer than sm.lat_wgmma cycles (its pipeline: a chain of
// small products into one accumulator goes no faster). It starts at the instruction's issue or
// when the tensor core has finished the warp's earlier products, whichever is later; the reads
// stream into the multiply as it goes, so the product, and then its group's count, is done when
// both are.
void Sm::wgmma_done(std::uint32_t w, const Inflight& in, std::uint64_t now) {
  Warp& wp = warps_[w];
  const InstInfo& info = (*ctx_.info)[in.index];
  const std::uint64_t rate = arch_.sm.wgmma_fmas ? arch_.sm.wgmma_fmas : 1;
  const std::uint64_t cycles =
      std::max<std::uint64_t>((info.tensor_work / 4 + rate - 1) / rate, arch_.sm.lat_wgmma);
  // The tensor core of the warp's rank in its warpgroup: a warpgroup's four warps use four (the
  // GPU places them on the four sub-cores), wherever the model's slots put them.
  std::uint64_t& free = wg_free_[wp.exec_warp % wg_free_.size()];
  free = std::max(in.issued, free) + cycles;
  const std::uint64_t at = std::max(free, now);
  const auto group = std::uint32_t(in.async_group);
  if (at <= now) return wp.groups[1].done(group);
  wp.wg_pending.emplace_back(at, group);
  wake_at(at, w);
}

void Sm::wgmma_land(Warp& wp, std::uint64_t now) {
  std::size_t keep = 0;
  for (const auto& [at, group] : wp.wg_pending) {
    if (at <= now)
      wp.groups[1].done(group);
    else
      wp.wg_pending[keep++] = {at, group};
  }
  wp.wg_pending.resize(keep);
}

// Suspended try_waits whose phase has completed since (an arrival issued, a bulk copy landed:
// both happen in this SM's ticks), and barrier.cluster.waits whose phase has (an arrival on
// another SM of the cluster, issue 46), or whose time limit has passed, complete.
bool Sm::resume_waits(std::uint64_t now) {
  bool any = false;
  std::size_t k = 0;
  while (k < suspended_.size()) {
    const std::uint32_t id = suspended_[k];
    Inflight& in = inflight_.items[id];
    Warp& wp = warps_[in.warp];
    if (ex_->retry_wait(wp.exec_slot, wp.exec_warp, in.index, in.wait_lanes) ||
        now >= in.resume_by) {
      // A barrier.cluster.wait that resumed has moved its warp on (a try_wait had at its issue).
      wp.exec_next = ex_->next_index(wp.exec_slot, wp.exec_warp);
      note_next(wp);
      in.suspended = false;
      suspended_.erase(suspended_.begin() + std::ptrdiff_t(k));
      complete(id, now);
      any = true;
    } else {
      ++k;
    }
  }
  return any;
}

}  // namespace smemsim::timing

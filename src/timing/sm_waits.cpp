// What the SM's warps wait on asynchronously (sm.hpp): cp.async's groups, and an
// mbarrier.try_wait's suspended threads.
#include <algorithm>

#include "smemsim/exec.hpp"
#include "timing/sm.hpp"

namespace smemsim::timing {

// cp.async's groups (PTX ISA, cp.async.commit_group / wait_group): a copy joins the warp's open
// group; a commit closes it; wait_group N holds the warp's next instruction until no more than the
// N newest committed groups have copies outstanding (recompute: Stall::Memory, Nsight's
// long_scoreboard). A group without copies is done at once.
void Sm::async_issue(Warp& wp, Inflight& in, const InstInfo& info) {
  if (info.async_copy) {
    const std::uint32_t g = wp.async_commits;
    in.async_group = std::int32_t(g);
    if (wp.async_left.empty()) wp.async_first = g;
    while (wp.async_first + wp.async_left.size() <= g) wp.async_left.push_back(0);
    ++wp.async_left[g - wp.async_first];
  }
  if (info.async_commit) ++wp.async_commits;
  if (info.async_wait)
    wp.async_until = wp.async_commits - std::min(info.async_keep, wp.async_commits);
}

void Sm::async_done(Warp& wp, std::uint32_t group) {
  --wp.async_left[group - wp.async_first];
  std::size_t done = 0;
  while (done < wp.async_left.size() && wp.async_left[done] == 0 &&
         wp.async_first < wp.async_commits) {
    ++done;
    ++wp.async_first;
  }
  wp.async_left.erase(wp.async_left.begin(), wp.async_left.begin() + std::ptrdiff_t(done));
}

// Suspended try_waits whose phase has completed since (an arrival issued, a bulk copy landed:
// both happen in this SM's ticks), or whose time limit has passed, complete.
bool Sm::resume_waits(std::uint64_t now) {
  bool any = false;
  std::size_t k = 0;
  while (k < suspended_.size()) {
    const std::uint32_t id = suspended_[k];
    Inflight& in = inflight_.items[id];
    const Warp& wp = warps_[in.warp];
    if (ex_->retry_wait(wp.exec_slot, wp.exec_warp, in.index, in.wait_lanes) ||
        now >= in.resume_by) {
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

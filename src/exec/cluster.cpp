// Thread-block clusters (issue 46; PTX ISA "mapa", "barrier.cluster"; docs/exec.md "Clusters"):
// the CTAs of a cluster run together (run() starts them together in one executor; the cycle
// model on the SMs of one GPC, each with its executor), each reads and writes the others' shared
// memory through addresses that carry the CTA's rank (kClusterRankShift), and they meet at the
// cluster barrier. The board every executor of a launch shares (ClusterBoard) holds each
// resident cluster's CTAs and barrier; a CTA leaves it when it exits.
//   mapa       d = a with rank + 1 in bits 24 and up; a generic address keeps its shared window
//   barrier.cluster.arrive  the warp's live threads arrive in the cluster's current phase
//   barrier.cluster.wait    the warp waits until the phase it arrived in has completed (every
//              live thread of the cluster arrived); a wait without an arrival is an error
// Warps arrive and wait whole (.aligned is how CUDA's cluster.sync() compiles); the cluster's
// record holds the barrier's count and phase.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <mutex>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {

namespace {

// The live threads of the cluster: what a phase waits for.
std::uint64_t cluster_threads(const ClusterRec& c) {
  std::uint64_t n = 0;
  for (const Cta* p : c.ctas)
    if (p)
      for (const Warp& w : p->warps)
        if (w.state != WarpState::Done) n += std::uint64_t(std::popcount(w.live));
  return n;
}

}  // namespace

void cluster_join(Impl& im, Cta& cta) {
  const Dim3& k = im.cluster;
  const Dim3& g = im.launch.grid;
  // The cluster's linear index, x fastest over the grid of clusters.
  const std::uint64_t gx = g.x / k.x, gy = g.y / k.y;
  const std::uint64_t index = cta.id.x / k.x + gx * (cta.id.y / k.y + gy * (cta.id.z / k.z));
  std::lock_guard<std::mutex> hold(im.board->lock);
  ClusterRec& c = im.board->live[index];
  if (c.ctas.empty()) c.ctas.assign(k.count(), nullptr);
  c.ctas[cta.cluster_rank] = &cta;
  ++c.members;
  cta.cl = &c;
}

void cluster_warp_done(Impl& im, Cta& cta) {
  ClusterRec* c = cta.cl;
  if (!c) return;
  if (cta.live_warps == 0) {  // the CTA leaves: its shared memory is no longer the cluster's
    c->ctas[cta.cluster_rank] = nullptr;
    cta.cl = nullptr;
  }
  if (c->arrived && c->arrived >= cluster_threads(*c)) {
    c->arrived = 0;  // the warps still to arrive have exited
    ++c->phase;
    ++im.mbar_epoch;
  }
  if (!cta.cl && --c->members == 0) {
    const Dim3& k = im.cluster;
    const Dim3& g = im.launch.grid;
    const std::uint64_t gx = g.x / k.x, gy = g.y / k.y;
    std::lock_guard<std::mutex> hold(im.board->lock);
    im.board->live.erase(cta.id.x / k.x + gx * (cta.id.y / k.y + gy * (cta.id.z / k.z)));
  }
}

bool retry_cluster_wait(Cta& cta, Warp& w) {
  return cta.cl && w.cl_arrive <= cta.cl->phase;
}

std::uint32_t dsm_segments(Impl& im) {
  std::array<std::uint64_t, kMaxLanes> a;
  std::size_t n = 0;
  each_lane(im.dsm_lanes, [&](int l) { a[n++] = im.dsm_seg[std::size_t(l)]; });
  im.dsm_lanes = 0;
  std::sort(a.begin(), a.begin() + std::ptrdiff_t(n));
  return std::uint32_t(std::unique(a.begin(), a.begin() + std::ptrdiff_t(n)) - a.begin());
}

bool exec_cluster(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  if (ins.op == ptx::Opcode::Mapa) {
    const std::uint64_t* a = im.row(w, x.row[1]);
    const std::uint64_t* rank = im.row(w, x.row[2]);
    std::uint64_t* d = im.row(w, x.row[0]);
    const std::uint64_t n = im.cluster.count();
    each_lane(m, [&](int l) {
      const std::uint64_t r = rank[l] & 0xffffffffu;
      if (r >= n)
        im.fail(cta, w, l, pc, fmt::format("mapa to rank {} in a cluster of {} CTAs", r, n));
      std::uint64_t v = a[l];
      std::uint64_t window = 0;
      if (ins.space != ptx::Space::Shared) {  // generic: must be in the shared window
        if ((v >> kRegionShift) != kSharedRegion)
          im.fail(cta, w, l, pc,
                  fmt::format("mapa of generic address {:#x}, which is not in shared memory", v));
        window = v & ~kOffsetMask;
        v &= kOffsetMask;
      }
      d[l] = window | ((r + 1) << kClusterRankShift) | (v & kClusterOffsetMask);
    });
    return false;
  }
  ClusterRec* c = cta.cl;
  if (ins.comp == 0) {  // arrive
    if (w.cl_arrive > c->phase)
      im.fail(cta, w, std::countr_zero(m), pc,
              "barrier.cluster.arrive twice without a barrier.cluster.wait between");
    ++w.cl_arrive;
    c->arrived += std::uint64_t(std::popcount(m));
    if (c->arrived >= cluster_threads(*c)) {
      c->arrived = 0;
      ++c->phase;
    }
    ++im.mbar_epoch;  // something arrived: a waiting warp may get on
    return false;
  }
  // wait
  if (w.cl_arrive == 0 || w.cl_arrive > c->phase + 1)
    im.fail(cta, w, std::countr_zero(m), pc,
            "barrier.cluster.wait without a barrier.cluster.arrive before it");
  return w.cl_arrive > c->phase;  // its phase is still open
}

}  // namespace smemsim::exec::detail

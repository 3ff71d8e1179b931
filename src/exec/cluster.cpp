// Thread-block clusters (issue 46; PTX ISA "mapa", "barrier.cluster"; docs/exec.md "Clusters"):
// the CTAs of a cluster run together (run() starts them in consecutive slots, rank r in slot
// cluster_base + r), each reads and writes the others' shared memory through addresses that
// carry the CTA's rank (kClusterRankShift), and they meet at the cluster barrier.
//   mapa       d = a with rank + 1 in bits 24 and up; a generic address keeps its shared window
//   barrier.cluster.arrive  the warp's live threads arrive in the cluster's current phase
//   barrier.cluster.wait    the warp waits until the phase it arrived in has completed (every
//              live thread of the cluster arrived); a wait without an arrival is an error
// Warps arrive and wait whole (.aligned is how CUDA's cluster.sync() compiles); the rank-0 CTA
// holds the barrier's count and phase.
#include <fmt/format.h>

#include <bit>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {

Cta* cluster_peer(Impl& im, const Cta& cta, std::uint32_t rank) {
  const std::size_t slot = std::size_t(cta.cluster_base) + rank;
  if (slot >= im.ctas.size()) return nullptr;
  Cta& p = im.ctas[slot];
  // Resident and of the same cluster: its linear index shares the cluster's coordinates.
  const Dim3& k = im.cluster;
  if (p.cluster_rank != rank || p.id.x / k.x != cta.id.x / k.x || p.id.y / k.y != cta.id.y / k.y ||
      p.id.z / k.z != cta.id.z / k.z)
    return nullptr;
  return &p;
}

namespace {

// The live threads of the cluster: what a phase waits for.
std::uint64_t cluster_threads(Impl& im, const Cta& cta) {
  std::uint64_t n = 0;
  for (std::uint32_t r = 0; r < im.cluster.count(); ++r)
    if (const Cta* p = cluster_peer(im, cta, r))
      for (const Warp& w : p->warps)
        if (w.state != WarpState::Done) n += std::uint64_t(std::popcount(w.live));
  return n;
}

}  // namespace

void cluster_warp_done(Impl& im, Cta& cta) {
  Cta* head = cluster_peer(im, cta, 0);
  if (head && head->cl_arrived && head->cl_arrived >= cluster_threads(im, cta)) {
    head->cl_arrived = 0;  // the warps still to arrive have exited
    ++head->cl_phase;
    ++im.mbar_epoch;
  }
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
  Cta* head = cluster_peer(im, cta, 0);
  if (!head)
    im.fail(cta, w, std::countr_zero(m), pc,
            "barrier.cluster: the cluster's rank-0 CTA is not resident (clusters run under run "
            "and profile)");
  if (ins.comp == 0) {  // arrive
    if (w.cl_arrive > head->cl_phase)
      im.fail(cta, w, std::countr_zero(m), pc,
              "barrier.cluster.arrive twice without a barrier.cluster.wait between");
    ++w.cl_arrive;
    head->cl_arrived += std::uint64_t(std::popcount(m));
    if (head->cl_arrived >= cluster_threads(im, cta)) {
      head->cl_arrived = 0;
      ++head->cl_phase;
    }
    ++im.mbar_epoch;  // something arrived: a waiting warp may get on
    return false;
  }
  // wait
  if (w.cl_arrive == 0 || w.cl_arrive > head->cl_phase + 1)
    im.fail(cta, w, std::countr_zero(m), pc,
            "barrier.cluster.wait without a barrier.cluster.arrive before it");
  return w.cl_arrive > head->cl_phase;  // its phase is still open
}

}  // namespace smemsim::exec::detail

// The SM's memory side (sm.hpp): what MEM0 does with each op (bank passes through the
// shared-memory unit, the lock bits of the lock loop, the global memory queue) and the lock loop's
// micro-op sequence (seed 000 §III, Fig. 1).
#include <algorithm>
#include <bit>

#include "timing/sm.hpp"

namespace smemsim::timing {

// ---- The lock loop ---------------------------------------------------------------------------

void Sm::issue_micro(std::uint32_t w, std::uint64_t now) {
  Warp& wp = warps_[w];
  const std::uint8_t step = wp.step;
  if (step == 1) {
    ++wp.iteration;
    ++stats_.units.lock_iterations;
    if (instr_) ++(*instr_)[wp.next].lock_iterations;
  }
  // A CAS loop's micro-ops are SASS instructions the GPU issues (LDS, FADD, ATOMS.CAS, the
  // branch): every one past the first adds to the lowered count.
  if (wp.cas && !(step == 1 && wp.iteration == 1)) ++stats_.expanded;
  const std::uint32_t id = new_inflight(w, wp.next, now);
  inflight_.items[id].micro = step;
  wp.step_busy = true;
  static constexpr Unit kUnit[5] = {Unit::Alu, Unit::FsmRead, Unit::FsmUpdate, Unit::FsmWrite,
                                    Unit::FsmBranch};
  static constexpr MemWork kMem[5] = {MemWork::None, MemWork::FsmRead, MemWork::None,
                                      MemWork::FsmWrite, MemWork::None};
  push_ops(id, kUnit[step], kMem[step], step == 1 || step == 3, 0, now);
  if (obs_) obs_->on_issue(id_, w, wp.next, step, now);
  recompute(w);
}

void Sm::finish_step(std::uint32_t w, std::uint64_t now) {
  Warp& wp = warps_[w];
  if (wp.step < 4) {
    ++wp.step;
    return;
  }
  // Branch: lanes that wrote are done; the others loop (seed 000 Fig. 1: @!P0 BRA).
  wp.pending &= ~wp.won;
  wp.won = 0;
  if (wp.pending) {
    wp.step = 1;
    return;
  }
  wp.step = 0;
  const std::size_t base = rows_of(w);
  for (std::uint8_t k = 0; k < wp.loop_ndst; ++k) --pending_[row_at(base, wp.loop_dst[k])];
  if (instr_) (*instr_)[wp.next].latency += now + 1 - wp.loop_issued;
  if (obs_) obs_->on_complete(id_, w, wp.next, 0, wp.loop_issued, now);
}

// ---- MEM0 and the memory units ---------------------------------------------------------------

void Sm::mem0_plan(std::uint32_t id, std::uint64_t) {
  Op& o = ops_[id];
  o.planned = true;
  o.passes = 1;
  o.total = 1;
  if (o.mem == MemWork::None) return;
  const Inflight& in = inflight_.items[o.inflight];
  // GPU-LocalTM's work (003 §4.2) occupies MEM0 one cycle at a time after the bank passes; the
  // first subwarp carries it for the whole instruction.
  const auto tm = static_cast<std::uint16_t>(o.sub == 0 ? in.tm_cycles : 0);
  if (o.mem == MemWork::Tm) {
    o.passes = tm ? 0 : 1;
    o.tm_passes = tm;
    o.total = std::max<std::uint16_t>(1, tm);
    return;
  }
  if (o.mem == MemWork::Dsm) {  // the SM's port to the SM-to-SM network, a pass a cycle
    const std::uint32_t rate = std::max(1u, arch_.sm.dsm_bytes_per_cycle);
    o.passes = static_cast<std::uint16_t>(
        std::clamp<std::uint32_t>((32u * o.sectors + rate - 1) / rate, 1, 0xffff));
    o.total = o.phases = o.passes;
    o.replay = 1;
    ++stats_.units.dsm_requests;
    stats_.units.dsm_segments += o.sectors;
    if (instr_) (*instr_)[in.index].dsm_segments += o.sectors;
    return;
  }
  const LaneMask lanes = sub_lanes(o.sub);
  const std::uint32_t lo = o.sub * arch_.sm.simd_width, hi = lo + arch_.sm.simd_width;
  const Timing& t = arch_.timing;
  PassPlan p;
  switch (o.mem) {
    case MemWork::Shared:
    case MemWork::NativeAtomic: {
      p.passes = o.plan_passes;  // planned at issue (push_ops)
      p.phases = o.plan_phases;
      p.same_word = o.plan_same;
      o.replay = std::uint32_t(t.t_bank);
      if (o.mem == MemWork::NativeAtomic) {
        o.passes2 = static_cast<std::uint16_t>(p.same_word);
        o.replay2 = std::uint32_t(t.native_position);
      }
      break;
    }
    case MemWork::FsmRead: {
      // Every pending lane reads; each takes its lock if it is free, lowest lane first (a lock
      // already taken, by another warp or a lower lane of this one, makes the lane retry).
      Warp& wp = warps_[o.warp];
      LoopLanes& L = loop_lanes_[o.warp];
      const LaneMask reading = wp.pending & lanes;
      for (LaneMask m = reading; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const std::uint32_t lock = L.lock[std::size_t(l)];
        bool got = false;
        if (!wp.cas)
          got = smu_.try_lock(lock);
        else if (!cas_locked_[lock])
          cas_locked_[lock] = 1, got = true;
        if (got)
          wp.won |= LaneMask{1} << l;
        else
          ++stats_.units.lock_failures;
      }
      p = smu_.plan(L.key, reading, lo, hi);
      o.replay = std::uint32_t(wp.cas ? t.t_bank : t.fsm_read);
      break;
    }
    case MemWork::FsmWrite: {
      const Warp& wp = warps_[o.warp];
      p = smu_.plan(loop_lanes_[o.warp].key, wp.won & lanes, lo, hi);
      o.replay = std::uint32_t(wp.cas ? t.t_bank : t.fsm_write);
      break;
    }
    default:
      return;
  }
  o.passes = static_cast<std::uint16_t>(std::max<std::uint32_t>(1, p.passes));
  o.total = static_cast<std::uint16_t>(o.passes + o.passes2);
  o.phases = static_cast<std::uint16_t>(std::max<std::uint32_t>(1, p.phases));
  o.tm_passes = tm;
  ++stats_.units.smem_accesses;
  stats_.units.smem_passes += p.passes;
  const std::uint32_t extra = p.passes - p.phases;
  stats_.units.bank_conflict_passes += extra;
  if (instr_) (*instr_)[in.index].bank_conflict_passes += extra;
}

void Sm::mem0_done(std::uint32_t id, std::uint64_t) {
  const Op& o = ops_[id];
  Inflight& in = inflight_.items[o.inflight];
  if (in.pred >= 0) {  // a shared warp the bank-aware scheduler predicted: accumulate (Eq. 4)
    in.passes += o.total;
    if (--in.unresolved == 0) ready_->resolved(in.hkey, in.passes, std::uint32_t(in.pred));
  }
  if (o.mem != MemWork::FsmWrite) return;
  const Warp& wp = warps_[o.warp];
  const LoopLanes& L = loop_lanes_[o.warp];
  for (LaneMask m = wp.won & sub_lanes(o.sub); m; m &= m - 1) {
    const std::uint32_t lock = L.lock[std::size_t(std::countr_zero(m))];
    if (wp.cas)
      cas_locked_[lock] = 0;
    else
      smu_.unlock(lock);
  }
}

bool Sm::global_send(std::uint32_t id, std::uint64_t, std::uint32_t sub) {
  if (!gmem_.can_send()) return false;
  const Op& o = ops_[id];
  const InstInfo& info = (*ctx_.info)[inflight_.items[o.inflight].index];
  // A cp.async is a load whose data goes to shared memory: it is done when the data is back.
  const auto kind = info.atomic                      ? GlobalMemoryUnit::Kind::Atomic
                    : info.store && !info.async_copy ? GlobalMemoryUnit::Kind::Store
                                                     : GlobalMemoryUnit::Kind::Load;
  const std::uint32_t row = inflight_.items[o.inflight].index;
  if (gmem_.shared_l2()) {
    const ptx::Instruction& ins = ctx_.kernel->code[row];
    const bool again = kind == GlobalMemoryUnit::Kind::Load && ins.op != ptx::Opcode::CpBulk &&
                       ins.cache == ptx::CacheOp::Cv;
    const OpFill& f = op_fill_[id];
    gmem_.send(id, o.sectors, kind, sub, {o.l1, o.l2, o.same, f.own, f.wait, f.ready},
               op_l2_[id].data(), again, row);
  } else {
    gmem_.send(id, o.sectors, kind, sub, {o.l1, o.l2, o.same, 0, 0, 0});
  }
  --global_unsent_;
  ++stats_.units.global_requests;
  stats_.units.global_sectors += o.sectors;
  stats_.units.l1_hit_sectors += o.l1;
  stats_.units.l2_hit_sectors += o.l2;
  if (instr_) {
    InstrStats& r = (*instr_)[inflight_.items[o.inflight].index];
    r.global_sectors += o.sectors;
    r.l1_hit_sectors += o.l1;
    r.l2_hit_sectors += o.l2;
  }
  return true;
}

void Sm::resolve_l2(std::uint64_t now) {
  if (!gmem_.resolving()) return;
  gmem_.resolve(now, [&](std::uint32_t row, std::uint32_t hits) {
    stats_.units.l2_hit_sectors += hits;
    if (instr_ && row < instr_->size()) (*instr_)[row].l2_hit_sectors += hits;
  });
}

bool Sm::mio_send(std::uint32_t id, std::uint64_t now, std::uint32_t sub) {
  if (!mio_.on()) return false;
  Op& o = ops_[id];
  o.offloaded = true;
  mio_.send(id, sub, o.seq, mio_tail_[std::size_t(o.unit)], now);
  return true;
}

void Sm::writeback(std::uint32_t id, std::uint64_t) {
  completed_.push_back(id);
}

}  // namespace smemsim::timing

// The SM's warp eligibility (sm.hpp): why each warp may or may not issue, and the issue slot's
// reason when none can.
#include <algorithm>
#include <bit>

#include "timing/sm.hpp"

namespace smemsim::timing {

// ---- Eligibility -----------------------------------------------------------------------------

// A register wait on an MIO op (short_scoreboard) counts as a wait in reason_count (the issue
// slot's reason is chosen among the kinds as they were before issue 47 split them:
// dominant_reason), and in short_waits too.
void Sm::set_reason(Warp& w, bool eligible, Stall reason) {
  const std::uint32_t slot = std::uint32_t(&w - warps_.data());
  Subcore& sc = sub_[w.sub];
  sc.wait_cache = -1;
  auto& count = sc.reason_count;
  const auto kind = [](Stall r) {
    return std::size_t(r == Stall::ShortScoreboard ? Stall::Wait : r);
  };
  if (!w.eligible && w.reason != Stall::Idle) {
    if (--count[kind(w.reason)] == 0) sc.reason_bits &= ~(1u << kind(w.reason));
    sc.short_waits -= w.reason == Stall::ShortScoreboard;
  }
  w.eligible = eligible;
  w.reason = eligible ? Stall::Issued : reason;
  if (!eligible && reason != Stall::Idle) {
    if (count[kind(reason)]++ == 0) sc.reason_bits |= 1u << kind(reason);
    sc.short_waits += reason == Stall::ShortScoreboard;
  }
  if (eligible)
    eligible_.set(slot);
  else
    eligible_.clear(slot);
}

void Sm::recompute(std::uint32_t w) {
  Warp& wp = warps_[w];
  if (!wp.used) return;
  if (wp.step) {
    if (wp.step_busy)
      set_reason(wp, false, wp.iteration > 1 ? Stall::LockRetry : Stall::Atomic);
    else
      set_reason(wp, true, Stall::Issued);
    return;
  }
  // Nsight Compute's drain: past its exit, until its instructions in flight are done.
  if (wp.finished) return set_reason(wp, false, wp.in_flight ? Stall::Drain : Stall::Idle);
  if (wp.start_at > now_) {  // not started yet (sm.warp_start_cycles): woken when it is
    wake_at(wp.start_at, w);
    // Its CTA's first instruction line still on its way (start_cta): no_instruction.
    const bool line = icache_.on() && icache_.at(wp.exec_next / kInstructionsPerLine, now_) > now_;
    return set_reason(wp, false, line ? Stall::NoInstruction : Stall::Idle);
  }
  if (wp.cluster_wait) return set_reason(wp, false, Stall::Barrier);  // barrier.cluster.wait
  if (wp.at_bar) {
    if (ex_->state(wp.exec_slot, wp.exec_warp) == exec::WarpState::AtBarrier ||
        ctas_[wp.cta].bars_in_flight)
      return set_reason(wp, false, Stall::Barrier);
    wp.at_bar = false;
  }
  if (wp.tx_wait) {
    if (ex_->state(wp.exec_slot, wp.exec_warp) == exec::WarpState::TxWait)
      return set_reason(wp, false, Stall::TxWait);
    wp.tx_wait = false;
  }
  if (wp.control) return set_reason(wp, false, Stall::Control);
  // A taken branch's target not fetched yet (the branch itself has resolved: its wait was
  // branch_resolving): no_instruction, as Nsight Compute splits the same wait.
  if (wp.fetch_at > now_) {
    wake_at(wp.fetch_at, w);
    return set_reason(wp, false, Stall::NoInstruction);
  }
  // A wait_group whose groups still have ops in flight: cp.async's copies, wgmma's products.
  if (!wp.wg_pending.empty()) wgmma_land(wp, now_);
  if (wp.groups[0].holds() || wp.groups[1].holds()) return set_reason(wp, false, Stall::Memory);
  if ((strict_ && wp.in_flight) || wp.held) return set_reason(wp, false, Stall::Barrel);
  // GPU-LocalTM moves other warps too (a commit that aborts them): ask the executor there.
  wp.next = ctx_.uses_tm ? ex_->next_index(wp.exec_slot, wp.exec_warp) : wp.exec_next;
  if (wp.next < ctx_.info->size()) {
    // Its line in the instruction cache (fetch.hpp): until it is there the warp has no
    // instruction to wait on or to issue.
    if (icache_.on()) {
      const std::uint64_t ready = icache_.at(wp.next / kInstructionsPerLine, now_);
      if (ready > now_) {
        wake_at(ready, w);
        return set_reason(wp, false, Stall::NoInstruction);
      }
    }
    // A constant it reads: its line is requested now, while the registers are awaited.
    std::uint64_t const_ready = 0;
    if (ccache_.on()) {
      const std::uint32_t line = (*ctx_.const_line)[wp.next];
      if (line != ptx::kNone) const_ready = ccache_.at(line, now_);
    }
    const InstInfo& in = (*ctx_.info)[wp.next];
    // A division's path is its lanes' operands' (FCHK), decided before its first step.
    if (in.expand == Expand::DivF32 && wp.pre_step == 0)
      wp.slow_div = ex_->fdiv_slow(wp.exec_slot, wp.exec_warp);
    const std::size_t base = rows_of(w);
    // An expanded instruction (sm.lower's sincos, divide; expand.hpp) issues its steps first: the
    // first chain step and the others read the sources, a later chain step the extra register
    // (the last); then itself, which reads that register and writes its own.
    const std::uint32_t pre_reg = ctx_.nregs - 1;
    bool pre = false, after_pre = false;
    Unit unit = in.unit;  // this issue's: the step's, or the instruction's
    if (in.expand != Expand::None) {
      const Expansion& e = expansion_of(wp, in);
      pre = wp.pre_step < e.n;
      if (pre) unit = e.steps[wp.pre_step].unit;
      bool chained = false;  // a chain step before this one
      for (std::uint8_t k = 0; k < std::min<std::uint8_t>(wp.pre_step, e.n); ++k)
        chained |= e.steps[k].chain;
      after_pre = chained && (!pre || e.steps[wp.pre_step].chain);
    }
    // A convergence barrier's step (bssy: BSSY, BSYNC) reads no register.
    const bool barrier_step = pre && (in.expand == Expand::Bssy || in.expand == Expand::Bsync);
    const std::uint8_t nsrc = barrier_step ? 0 : after_pre ? 1 : in.nsrc, ndst = pre ? 0 : in.ndst;
    const std::uint32_t* src = after_pre ? &pre_reg : in.src.data();
    bool busy = false;
    // wgmma.fence: every register write of the warp in flight (an accumulator's or A's).
    if (in.wgmma_fence)
      for (std::uint32_t r = 0; r < ctx_.trows && !busy; ++r) busy = pending_[base + r] != 0;
    for (std::uint8_t k = 0; k < nsrc; ++k) busy |= pending_[row_at(base, src[k])] != 0;
    for (std::uint8_t k = 0; k < ndst; ++k) busy |= pending_[row_at(base, in.dst[k])] != 0;
    if (busy) {
      // Named as Nsight Compute names the producer's scoreboard: long (a global/local load or
      // atomic), short (an MIO op), else a fixed-latency pipe's wait.
      bool global = false, mio = false;
      for (std::uint8_t k = 0; k < nsrc; ++k) {
        global |= pending_global_[row_at(base, src[k])] != 0;
        mio |= pending_short_[row_at(base, src[k])] != 0;
      }
      for (std::uint8_t k = 0; k < ndst; ++k) {
        global |= pending_global_[row_at(base, in.dst[k])] != 0;
        mio |= pending_short_[row_at(base, in.dst[k])] != 0;
      }
      return set_reason(wp, false,
                        global ? Stall::Memory
                        : mio  ? Stall::ShortScoreboard
                               : Stall::Wait);
    }
    // The guard delay: the instruction's guard predicate, written by a fixed-latency pipe (an
    // expansion's guarded step: the predicate its last `pred` step wrote).
    const bool guarded_step = pre && expansion_of(wp, in).steps[wp.pre_step].guarded;
    if (!guard_ready_.empty() && (guarded_step || (!pre && in.guard != ptx::kNone))) {
      const std::uint32_t g = pre ? pre_reg : in.guard;
      const std::uint64_t ready = own(guard_ready_, row_at(base, g), g);
      if (ready > now_) {
        wake_at(ready, w);
        return set_reason(wp, false, Stall::Wait);
      }
    }
    // The cross-pipe delay: an ALU instruction reading the FMA pipe's result, or the reverse.
    if (!xpipe_.empty() && (pre || in.space == Space::None)) {
      if (const std::uint8_t mine = xpipe_of(unit)) {
        std::uint64_t ready = 0;
        for (std::uint8_t k = 0; k < nsrc; ++k) {
          const std::uint64_t e = own(xpipe_, row_at(base, src[k]), src[k]);
          if ((e & 3) && (e & 3) != mine) ready = std::max(ready, e >> 2);
        }
        if (ready > now_) {
          wake_at(ready, w);
          return set_reason(wp, false, Stall::Wait);
        }
      }
    }
    // The operand delay: an MIO instruction (an expansion's SFU step too: I2F, MUFU.RCP, F2I; a
    // conversion to or from f64) reads a fixed-latency pipe's result later.
    if (!mio_ready_.empty() &&
        (unit == Unit::Sfu || unit == Unit::Cvt64 || (!pre && in.space == Space::Shared))) {
      std::uint64_t ready = 0;
      for (std::uint8_t k = 0; k < nsrc; ++k)
        ready = std::max(ready, own(mio_ready_, row_at(base, src[k]), src[k]));
      if (ready > now_) {
        wake_at(ready, w);
        return set_reason(wp, false, Stall::Wait);
      }
    }
    if (const_ready > now_) {  // its operands are ready, its constant is not
      wake_at(const_ready, w);
      return set_reason(wp, false, Stall::ImcMiss);
    }
  }
  set_reason(wp, true, Stall::Issued);
}

// The warps whose wait for a cycle (an operand delay, their start) ends by `now` look again,
// before this cycle's issue. Their recompute may add wakes of its own: the due ones go first.
void Sm::wake_due(std::uint64_t now) {
  due_.clear();
  next_wake_ = ~std::uint64_t{0};
  std::size_t keep = 0;
  for (const auto& e : wakes_) {
    if (e.first <= now) {
      due_.push_back(e.second);
    } else {
      next_wake_ = std::min(next_wake_, e.first);
      wakes_[keep++] = e;
    }
  }
  wakes_.resize(keep);
  for (const std::uint32_t w : due_) recompute(w);
}

void Sm::recompute_cta(std::uint32_t cta) {
  for (std::uint32_t w : ctas_[cta].warps) recompute(w);
}

Stall Sm::waiting_reason(std::uint32_t k) const {
  if (!ctas_used_) return Stall::Idle;
  const Subcore& sc = sub_[k];
  if (sc.wait_cache >= 0) return static_cast<Stall>(sc.wait_cache);
  Stall r = dominant_reason(k);
  // reason_count[Wait] holds both register waits: short_scoreboard when it is the larger part.
  if (r == Stall::Wait && 2 * sc.short_waits > sc.reason_count[std::size_t(Stall::Wait)])
    r = Stall::ShortScoreboard;
  sc.wait_cache = static_cast<std::int8_t>(r);
  return r;
}

std::uint64_t Sm::next_event(std::uint64_t now) const {
  if (eligible_.any()) return now + 1;
  std::uint64_t t = std::max(next_wake_, now + 1);
  t = std::min(t, gmem_.next_event(now));
  // A suspended try_wait resumes at an event of this SM (looked at in its tick) or at its limit.
  for (const std::uint32_t id : suspended_)
    t = std::min(t, std::max(inflight_.items[id].resume_by, now + 1));
  if (mio_.on()) t = std::min(t, mio_.next_event(now));
  for (const Subcore& sc : sub_) {
    if (sc.issuing >= 0) return now + 1;
    t = std::min(t, sc.pipe->next_event(now));
  }
  return t;
}

void Sm::skip(std::uint64_t, std::uint64_t n) {
  // Nothing moves and no warp is eligible (next_event): the front ends stay as they are.
  for (std::uint32_t k = 0; k < nsc_; ++k) {
    const Pipeline& pipe = *sub_[k].pipe;
    const Stall slot = pipe.can_issue() ? waiting_reason(k) : pipe.block_cause();
    stats_.issue[slot] += n;
    if (instr_) attribute_warp_states(k, -1, Stall::Issued, n);
  }
  if (ctas_used_) stats_.busy_cycles += n;
}

// The most common reason among sub-core k's warps that cannot issue. A register dependency on a
// fixed-latency pipe (wait) and on an MIO op (short_scoreboard) count as one reason here, at wait's
// place, and the slot takes the larger of the two (a tie: wait): the slot's reason is the one it
// had before issue 47 split them, and the old `scoreboard` stays their sum.
Stall Sm::dominant_reason(std::uint32_t k) const {
  const Subcore& sc = sub_[k];
  std::size_t best = 0;
  std::uint32_t most = 0;
  for (std::uint32_t b = sc.reason_bits; b; b &= b - 1) {  // the first of the most common
    const auto r = static_cast<std::size_t>(std::countr_zero(b));
    if (sc.reason_count[r] > most) most = sc.reason_count[r], best = r;
  }
  return most ? static_cast<Stall>(best) : Stall::Idle;
}

}  // namespace smemsim::timing

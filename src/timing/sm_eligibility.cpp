// The SM's warp eligibility (sm.hpp): why each warp may or may not issue, and the issue slot's
// reason when none can.
#include "timing/sm.hpp"

namespace smemsim::timing {

// ---- Eligibility -----------------------------------------------------------------------------

void Sm::set_reason(Warp& w, bool eligible, Stall reason) {
  const std::uint32_t slot = std::uint32_t(&w - warps_.data());
  if (!w.eligible && w.reason != Stall::Idle) --reason_count_[std::size_t(w.reason)];
  w.eligible = eligible;
  w.reason = eligible ? Stall::Issued : reason;
  if (!eligible && reason != Stall::Idle) ++reason_count_[std::size_t(reason)];
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
  if (wp.finished) return set_reason(wp, false, Stall::Idle);
  if (wp.at_bar) {
    if (ctx_.ex->state(wp.exec_slot, wp.exec_warp) == exec::WarpState::AtBarrier ||
        ctas_[wp.cta].bars_in_flight)
      return set_reason(wp, false, Stall::Barrier);
    wp.at_bar = false;
  }
  if (wp.tx_wait) {
    if (ctx_.ex->state(wp.exec_slot, wp.exec_warp) == exec::WarpState::TxWait)
      return set_reason(wp, false, Stall::TxWait);
    wp.tx_wait = false;
  }
  if (wp.control) return set_reason(wp, false, Stall::Control);
  if ((strict_ && wp.in_flight) || wp.held) return set_reason(wp, false, Stall::Barrel);
  wp.next = ctx_.ex->next_index(wp.exec_slot, wp.exec_warp);
  if (wp.next < ctx_.info->size()) {
    const InstInfo& in = (*ctx_.info)[wp.next];
    const std::size_t base = std::size_t(w) * ctx_.nregs;
    bool busy = false, global = false;
    for (std::uint8_t k = 0; k < in.nsrc; ++k) {
      busy |= pending_[base + in.src[k]] != 0;
      global |= pending_global_[base + in.src[k]] != 0;
    }
    for (std::uint8_t k = 0; k < in.ndst; ++k) {
      busy |= pending_[base + in.dst[k]] != 0;
      global |= pending_global_[base + in.dst[k]] != 0;
    }
    if (busy) return set_reason(wp, false, global ? Stall::Memory : Stall::Scoreboard);
  }
  set_reason(wp, true, Stall::Issued);
}

void Sm::recompute_cta(std::uint32_t cta) {
  for (std::uint32_t w : ctas_[cta].warps) recompute(w);
}

Stall Sm::waiting_reason() const {
  return ctas_used_ ? dominant_reason() : Stall::Idle;
}

std::uint64_t Sm::next_event(std::uint64_t now) const {
  if (issuing_ >= 0 || eligible_.any()) return now + 1;
  return std::min(pipe_->next_event(now), gmem_.next_event(now));
}

void Sm::skip(std::uint64_t, std::uint64_t n) {
  // Nothing moves and no warp is eligible (next_event): the front end stays as it is.
  const Stall slot = pipe_->can_issue() ? waiting_reason() : pipe_->block_cause();
  stats_.issue[slot] += n;
  if (ctas_used_) stats_.busy_cycles += n;
  if (ctx_.instr) attribute_warp_states(-1, Stall::Issued, n);
}

Stall Sm::dominant_reason() const {
  std::size_t best = 0;
  std::uint32_t most = 0;
  for (std::size_t k = 0; k < kStallKinds; ++k)
    if (reason_count_[k] > most) most = reason_count_[k], best = k;
  return most ? static_cast<Stall>(best) : Stall::Idle;
}

}  // namespace smemsim::timing

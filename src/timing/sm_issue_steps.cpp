// What one SM's issue of a warp does beside the instruction itself (sm_issue.cpp): its counts,
// the overhead of an unrolled loop's trips executed in the same slot, the steps of an expanded
// instruction, and GPU-LocalTM's execution breakdown.
#include "timing/sm.hpp"

#include "lower/unroll.hpp"

#include <bit>

namespace smemsim::timing {

void Sm::count_issue(Warp& wp, const exec::IssueResult& r) {
  const std::uint64_t lanes = std::uint64_t(std::popcount(r.active));
  ++stats_.warp_instructions;
  ++ctas_[wp.cta].instructions;
  stats_.thread_instructions += lanes;
  if (instr_ && r.index < instr_->size()) {
    InstrStats& is = (*instr_)[r.index];
    ++is.issued;
    is.thread_instructions += lanes;
  }
}

void Sm::note_trip(Warp& wp, const exec::IssueResult& r) {
  const std::vector<std::uint32_t>& u = *ctx_.unroll;
  if (r.index >= u.size() || u[r.index] != r.index) return;
  if (r.next == r.index + 1) {  // it left the loop
    wp.unroll_loop = ptx::kNone;
    wp.trips = 0;
  } else {
    if (wp.unroll_loop != r.index) wp.unroll_loop = r.index, wp.trips = 0;
    ++wp.trips;
  }
}

// ptxas runs lower::kUnrollFactor trips of the loop as one (src/lower/unroll.hpp): its counters'
// steps, compare and branch issue in the last trip of each group. In the others the warp executes
// them here, right after the instruction before them, in its slot: no issue slot, unit or
// latency (the unrolled copies have none), and the next instruction waits for nothing of theirs.
bool Sm::skip_unrolled(Warp& wp) {
  const std::vector<std::uint32_t>& u = *ctx_.unroll;
  bool moved = false;
  while (!wp.finished && wp.exec_next < u.size()) {
    const std::uint32_t b = u[wp.exec_next];
    if (b == ptx::kNone) return moved;
    if (wp.unroll_loop != b) wp.unroll_loop = b, wp.trips = 0;  // the warp enters the loop
    if (wp.trips % lower::kUnrollFactor == lower::kUnrollFactor - 1) return moved;
    const exec::IssueResult r = ex_->issue(wp.exec_slot, wp.exec_warp);
    moved |= r.moved_others;
    wp.exec_next = r.next;
    count_issue(wp, r);
    ++stats_.absorbed;
    note_trip(wp, r);
    if (r.state == exec::WarpState::Done) wp.finished = true, wp.exit_index = r.index;
    note_next(wp);
    if (r.state != exec::WarpState::Ready) return moved;
  }
  return moved;
}

// A step of sm.lower's expansion before an instruction (expand.hpp: sin/cos's range reduction, a
// division's sequence), on its unit. It executes nothing (the PTX instruction computes the result
// when it issues); a chain step writes the scoreboard's extra register, which the next chain
// step and then the instruction wait for.
void Sm::issue_pre(std::uint32_t w, std::uint64_t now) {
  Warp& wp = warps_[w];
  const ExpandStep step = expansion_of(wp, (*ctx_.info)[wp.next]).steps[wp.pre_step];
  const std::uint32_t id = new_inflight(w, wp.next, now);
  Inflight& in = inflight_.items[id];
  in.pre = static_cast<std::uint8_t>(1 + std::uint8_t(step.unit));
  if (step.chain) {
    in.ndst = 1;
    in.dst[0] = ctx_.nregs - 1;
    ++pending_[row_at(rows_of(w), in.dst[0])];
    in.sets_guard = step.pred && !guard_ready_.empty();
  }
  in.control = step.hold;  // a BRA or BSYNC step holds the warp until it completes
  wp.control |= in.control;
  ++stats_.expanded;
  ++wp.pre_step;
  if (obs_) obs_->on_issue(id_, w, wp.next, 0, now);
  push_ops(id, static_cast<Unit>(unit_map_[std::size_t(step.unit)]), MemWork::None, false, 0, now);
  recompute(w);
}

// GPU-LocalTM's execution breakdown (TmCycles): the cycles since the warp's last issue go to the
// side of the transaction boundary it was on; the instruction's transactional work is overhead.
void Sm::account_tm(std::uint32_t w, const exec::IssueResult& r, std::uint64_t now) {
  Warp& wp = warps_[w];
  (wp.in_tx ? stats_.tm.tx : stats_.tm.non_tx) += now - wp.tx_since;
  wp.tx_since = now;
  if (r.tm_cycles) {
    if (r.op == ptx::Opcode::TxBegin || r.op == ptx::Opcode::TxCommit)
      stats_.tm.begin_commit_overhead += r.tm_cycles;
    else
      stats_.tm.mem_overhead += r.tm_cycles;
  }
  wp.in_tx = ex_->in_transaction(wp.exec_slot, wp.exec_warp);
  if (r.state == exec::WarpState::TxWait) wp.tx_wait = true;
}

}  // namespace smemsim::timing

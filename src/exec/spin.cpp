// Spin detection: a warp that comes back to the same state with no memory written in between can
// never leave its loop (docs/exec.md "A kernel that never ends", issue 28).
//
// The executor is deterministic: what a warp does next depends only on its registers, its SIMT
// stack and the memory it reads. When the warp issues at instruction P with a given state, and
// later issues at P again with the same registers, stack and live lanes while no instruction wrote
// memory in between (Impl::writes unchanged), it will go round the same path forever unless some
// other warp writes. Under run() (each warp runs until a barrier) the warp then passes its turn to
// the next warp of its block, and the block is stuck when a round of turns writes nothing with a
// warp still spinning; under the cycle model the GPU is stuck when every live warp is in that
// state (or waits at a barrier none of them passes), with still no write (spin_stuck()).
//
// The check is armed now and then (run(): 4,096 instructions into each turn of a warp and every
// 2^20 warp-instructions; the cycle model: every 65,536 cycles on the warps that issued since), so
// an ordinary kernel pays one compare per instruction. Loops that count, read %clock or write
// memory never match. A spin whose state repeats only every second visit of P is not caught here;
// --max-steps / --max-cycles stop it.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec {

using namespace detail;

namespace {

// The state the comparison covers is the whole of it only outside calls, cp.async copies in
// flight and transactions (their saved registers and bytes are not compared): no check there.
bool checkable(const Impl& im, const Warp& w) {
  return !im.has_tx && w.state == WarpState::Ready && !w.stack.empty() && w.frames.empty() &&
         w.copies.empty() && w.tx.depth == 0;
}

bool same_stack(const std::vector<StackEntry>& a, const std::vector<StackEntry>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](auto& x, auto& y) {
           return x.pc == y.pc && x.rpc == y.rpc && x.mask == y.mask;
         });
}

}  // namespace

void Impl::spin_arm(Warp& w) {
  w.spinning = false;
  w.spin_pc = kNoRow;
  w.spin_writes = writes;
  w.spin_mbar_epoch = mbar_epoch;
  w.mbar_waited = false;
  w.spin_bar = false;
  w.spin_armed_at = w.issued;
  if (!checkable(*this, w)) return;
  const std::size_t n = std::size_t(file_rows) * lanes;
  w.spin_regs.assign(w.regs, w.regs + n);
  w.spin_stack = w.stack;
  w.spin_live = w.live;
  w.spin_fresh = true;
  w.spin_pc = w.stack.back().pc;
}

void Impl::spin_check(const Cta& cta, Warp& w) {
  if (w.spin_fresh) {  // the issue that armed it
    w.spin_fresh = false;
    return;
  }
  w.spin_pc = kNoRow;
  const std::size_t n = std::size_t(file_rows) * lanes;
  if (writes != w.spin_writes || !checkable(*this, w) || w.live != w.spin_live ||
      !same_stack(w.stack, w.spin_stack) ||
      std::memcmp(w.regs, w.spin_regs.data(), n * sizeof(std::uint64_t)) != 0)
    return;
  w.spinning = true;  // run() passes the turn to the next warp; the cycle model asks spin_stuck()
  (void)cta;
}

// Every live warp spins (with still no write since it was armed) or waits at a barrier that none
// of the spinning warps passed on its way round.
bool Impl::spin_scan(SpinScan& s) const {
  if (has_tx || !bulk_pending.empty()) return false;  // a bulk copy in flight may still land
  for (const Cta& cta : ctas)
    for (const Warp& w : cta.warps) {
      if (w.state == WarpState::Done) continue;
      if (w.state == WarpState::AtBarrier) {
        s.at_barrier = true;
        continue;
      }
      if (w.state != WarpState::Ready || w.spin_writes != writes || !w.copies.empty()) return false;
      // Spinning, or waiting for an mbarrier phase with nothing arrived or written since: no
      // arrival can come from this warp while it waits.
      const bool mbar_wait = w.mbar_waited && w.spin_mbar_epoch == mbar_epoch;
      if (!w.spinning && !mbar_wait) return false;
      s.any = true;
      s.passes_bar |= w.spin_bar;
    }
  return true;
}

bool Impl::spin_stuck() const {
  SpinScan s;
  return spin_scan(s) && s.stuck();
}

bool Executor::spin_stuck(const std::vector<const Executor*>& group) {
  Impl::SpinScan s;
  for (const Executor* e : group)
    if (!e->impl_->spin_scan(s)) return false;
  return s.stuck();
}

void Executor::arm_spin_checks(std::uint64_t min_issued) {
  Impl& im = *impl_;
  if (im.has_tx) return;
  for (Cta& cta : im.ctas)
    for (Warp& w : cta.warps)
      if (w.state == WarpState::Ready && !(w.spinning && w.spin_writes == im.writes) &&
          w.issued - w.spin_armed_at >= min_issued)
        im.spin_arm(w);
}

bool Executor::spin_stuck() const {
  return impl_->spin_stuck();
}

}  // namespace smemsim::exec

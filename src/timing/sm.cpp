// One SM: its set-up, the scheduler's pick and completion (sm.hpp); a warp's issue is in
// sm_issue.cpp, eligibility in sm_eligibility.cpp, residency in sm_residency.cpp, MEM0 and the lock
// loop in sm_memory.cpp, units and the shared-memory port in sm_units.cpp.
#include "timing/sm.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace smemsim::timing {

Sm::Sm(std::uint32_t id, const SimContext& ctx)
    : id_(id),
      ctx_(ctx),
      arch_(*ctx.arch),
      f_(ctx.arch->sm.frontend_stages),
      m_(ctx.arch->sm.mem_stages),
      nsub_(ctx.arch->warp_size / ctx.arch->sm.simd_width),
      strict_(ctx.arch->sm.barrel == "strict"),
      phased_(ctx.arch->wide_access != "words"),
      pairs_(ctx.arch->wide_access == "pairs"),
      nsc_(ctx.arch->sm.subcores),
      smu_(*ctx.arch),
      gmem_(ctx.arch->sm, ctx.l1_bytes, ctx.l2),
      mio_(ctx.arch->sm.subcores, ctx.arch->sm.mio_queue) {
  const SmConfig& sm = arch_.sm;
  gmem_.set_resident(&ctx.l2_resident);
  if (sm.icache_miss_cycles)
    icache_ = LineFetch(ctx.kernel->code.size() / kInstructionsPerLine + 1, sm.icache_miss_cycles,
                        sm.icache_prefetch_lines);
  if (sm.const_miss_cycles && ctx.const_line)
    ccache_ = LineFetch(ctx.const_lines, sm.const_miss_cycles, 0);
  for (std::size_t u = 0; u < kUnits; ++u) {
    mio_tail_[u] =
        m_ + (shared_memory_unit(static_cast<Unit>(u)) ? ctx_.latency[u] - (f_ + m_ + 1) - 1 : 0);
  }
  plans_.resize(nsub_);
  sub_.resize(nsc_);
  wg_free_.assign(nsc_, 0);
  for (std::uint32_t k = 0; k < nsc_; ++k) {
    Subcore& sc = sub_[k];
    sc.host = std::make_unique<Host>(*this, k);
    sc.pipe = make_pipeline(sm.pipeline, sm, elastic_cost(arch_).premem_entries, *sc.host);
    sc.sched = make_scheduler(sm);
    for (std::uint32_t w = k; w < sm.max_warps; w += nsc_) sc.slots.set(w);
  }
  // A math pipe without its own latency is the ALU itself (Fermi's CUDA cores): it shares the
  // ALU's lanes. Every other unit has its own slot; only these five are limited by lanes.
  for (std::size_t u = 0; u < kUnits; ++u) unit_map_[u] = static_cast<std::uint8_t>(u);
  if (!sm.lat_fma) unit_map_[std::size_t(Unit::Fma)] = std::uint8_t(Unit::Alu);
  if (!sm.lat_fp64) unit_map_[std::size_t(Unit::Fp64)] = std::uint8_t(Unit::Alu);
  if (!sm.tensor_fmas) unit_map_[std::size_t(Unit::Tensor)] = std::uint8_t(Unit::Alu);
  // Half-precision ops take the FMA pipe's lanes (pipe_map_) and, with their own latency, their own
  // delay line (unit_map_).
  unit_map_[std::size_t(Unit::Fp16)] =
      sm.lat_fp16 ? std::uint8_t(Unit::Fp16) : unit_map_[std::size_t(Unit::Fma)];
  // Conversions to or from f64 likewise take the SFU's lanes and, with their own latency, their
  // own delay line.
  unit_map_[std::size_t(Unit::Cvt64)] =
      sm.lat_cvt64 ? std::uint8_t(Unit::Cvt64) : std::uint8_t(Unit::Sfu);
  // Integer multiplies likewise take the FMA pipe's lanes and, with their own latency, their own
  // delay line.
  unit_map_[std::size_t(Unit::Imad)] =
      sm.lat_imad ? std::uint8_t(Unit::Imad) : unit_map_[std::size_t(Unit::Fma)];
  pipe_map_ = unit_map_;
  pipe_map_[std::size_t(Unit::Fp16)] = unit_map_[std::size_t(Unit::Fma)];
  pipe_map_[std::size_t(Unit::Imad)] = unit_map_[std::size_t(Unit::Fma)];
  pipe_map_[std::size_t(Unit::Cvt64)] = std::uint8_t(Unit::Sfu);
  lanes_[std::size_t(Unit::Alu)] = sm.lanes_alu;
  lanes_[std::size_t(Unit::Fma)] = sm.lanes_fma;
  lanes_[std::size_t(Unit::Fp64)] = sm.lanes_fp64;
  lanes_[std::size_t(Unit::Sfu)] = sm.lanes_sfu;
  lanes_[std::size_t(Unit::Tensor)] = sm.tensor_fmas;
  shared_units_ = sm.unit_scope == "sm";
  units_on_ = (shared_units_ && nsc_ > 1) || sm.tensor_fmas > 0;
  for (const std::uint32_t lanes : {sm.lanes_alu, sm.lanes_fma, sm.lanes_fp64, sm.lanes_sfu})
    units_on_ |= lanes < sm.simd_width;
  units_.resize(shared_units_ ? 1 : nsc_);
  units_busy_.assign(units_.size(), 0);
  if (arch_.sm.scheduler.starts_with("bank-aware"))
    ready_ = std::make_unique<BankAwareReady>(arch_, arch_.sm.scheduler == "bank-aware-fill");
  hold_ = !strict_ && arch_.sm.relaxed_commit == "in-order";
  warps_.resize(arch_.sm.max_warps);
  ctas_.resize(ctx.ctas_per_sm);
  // Warps x rows, zero without being written: the rows of warp slots a launch never fills
  // cost it nothing (util::Zeroed; a retired warp's rows are cleared for the next).
  constexpr auto kMapped = util::ZeroedSource::Mapped;
  pending_.reset(std::size_t(arch_.sm.max_warps) * ctx.trows, kMapped);
  pending_global_.reset(pending_.size(), kMapped);
  pending_short_.reset(pending_.size(), kMapped);
  if (sm.mio_delay_alu || sm.mio_delay_fma || sm.mio_delay_fp64)
    mio_ready_.reset(pending_.size(), kMapped);
  if (sm.guard_delay) guard_ready_.reset(pending_.size(), kMapped);
  if (sm.xpipe_delay) xpipe_.reset(pending_.size(), kMapped);
  if (!mio_ready_.empty() || !guard_ready_.empty() || !xpipe_.empty())
    owner_.reset(pending_.size(), kMapped);
  cas_float_ = ctx.atomics == AtomicMode::Native && arch_.shared_float_atomics == "cas";
  if (ctx.atomics == AtomicMode::LockLoop) loop_lanes_.resize(arch_.sm.max_warps);
}

void Sm::attach(exec::Executor* ex, Outbox* out) {
  ex_ = ex;
  const TimingOptions& o = *ctx_.options;
  forward_ = out && o.consumer ? &out->consumer : o.consumer;
  obs_ = out && o.observer ? &out->observer : o.observer;
  instr_ = out && ctx_.instr ? &out->instr : ctx_.instr;
  cta_log_ = out && ctx_.cta_log ? &out->ctas : ctx_.cta_log;
}

// With MIO queues a shared access spends one EXE stage in its sub-core and the rest of its
// latency after its passes (mio_tail_): the queue sits between the sub-core and the shared unit.
std::uint32_t Sm::exe_stages(Unit u) const {
  if (mio_.on() && shared_memory_unit(u)) return 1;
  return ctx_.latency[std::size_t(u)] - (f_ + m_ + 1);
}

bool Sm::busy() const {
  if (!suspended_.empty()) return true;
  if (!gmem_.empty() || (mio_.on() && !mio_.empty()) || !wakes_.empty()) return true;
  if (nsc_ == 1) return !sub_[0].pipe->empty() || sub_[0].issuing >= 0;
  for (const Subcore& sc : sub_)
    if (!sc.pipe->empty() || sc.issuing >= 0) return true;
  return false;
}

std::vector<std::string> Sm::stage_names() const {
  std::vector<std::string> names;
  if (nsc_ == 1) {
    names = sub_[0].pipe->stage_names();
  } else {
    for (std::uint32_t k = 0; k < nsc_; ++k)
      for (const std::string& n : sub_[k].pipe->stage_names())
        names.push_back(fmt::format("s{}.{}", k, n));
  }
  // Each sub-core's MIO queue (issue 47): its head, or the op that passed the banks.
  if (mio_.on())
    for (std::uint32_t k = 0; k < nsc_; ++k)
      names.push_back(nsc_ == 1 ? std::string("MIO") : fmt::format("s{}.MIO", k));
  return names;
}

// ---- The scheduler's pick (a warp's issue is in sm_issue.cpp) --------------------------------

void Sm::attribute_warp_states(std::uint32_t k, int issued_warp, Stall blocked,
                               std::uint64_t weight) {
  std::vector<InstrStats>& is = *instr_;
  const Subcore& sc = sub_[k];
  for (std::uint32_t w = k; w < warps_.size(); w += nsc_) {
    const Warp& wp = warps_[w];
    if (wp.used && wp.finished && wp.in_flight && wp.exit_index < is.size()) {
      is[wp.exit_index].warp_states[Stall::Drain] += weight;  // at its exit, as Nsight puts it
      continue;
    }
    if (!wp.used || wp.finished || wp.next >= is.size()) continue;
    Stall s = wp.reason;
    if (int(w) == issued_warp)
      s = Stall::Issued;
    else if (sc.mio_held.test(w))
      s = Stall::MioThrottle;
    else if (sc.throttled.test(w))
      s = sc.throttled_own.test(w) ? Stall::Wait : sc.throttle;
    else if (wp.eligible)
      s = blocked == Stall::Issued ? Stall::NotSelected : blocked;
    is[wp.next].warp_states[s] += weight;
  }
}

// Sub-core k's issue slot in cycle `now`; returns its reason (Stall::Issued when it issued).
Stall Sm::issue(std::uint32_t k, std::uint64_t now) {
  Subcore& sc = sub_[k];
  Pipeline& pipe = *sc.pipe;
  sc.throttled = WarpMask{};
  sc.throttled_own = WarpMask{};
  sc.mio_held = WarpMask{};
  Stall slot;
  if (sc.issuing >= 0) {  // the next subwarp of the instruction being issued
    const Op& o = ops_[sc.issuing_ops[sc.issuing_sub]];
    if (!pipe.can_issue()) {
      slot = pipe.block_cause();
    } else if (units_on_ && !unit_free(k, o.unit, inflight_.items[o.inflight].index, now)) {
      slot = Stall::MathPipeThrottle;
    } else {
      slot = Stall::Issued;
      push_next_sub(sc, now);
    }
    if (instr_) attribute_warp_states(k, -1, slot);
  } else if (!pipe.can_issue()) {
    slot = pipe.block_cause();
    if (instr_) attribute_warp_states(k, -1, slot);
  } else if (WarpMask pool = nsc_ == 1 ? eligible_ : eligible_ & sc.slots; pool.any()) {
    // 004 Fig. 7: within the safe distance of the last shared memory warp, memory warps are not
    // ready (footnote 10's variant lets them through when no other warp is).
    const WarpMask ready = pool;
    if (ready_ && !ready_->memory_allowed(now)) {
      ready.each([&](std::uint32_t w) {
        if (next_class(w) != NextClass::Other) pool.clear(w);
      });
      if (!pool.any() && ready_->fill()) pool = ready;
    }
    const bool masked = !pool.any();
    if (units_on_) throttle(k, pool, now);
    if (mio_.on()) mio_throttle(k, pool);
    if (pool.any()) {
      const std::uint32_t picked = sc.sched->pick(pool, *this);
      if (instr_) attribute_warp_states(k, int(picked), Stall::Issued);
      if (ready_ && next_class(picked) == NextClass::Shared) {
        next_key_ = history_key(picked);
        next_pred_ = std::int32_t(ready_->scheduled(next_key_, now));
      }
      issue_warp(picked, now);
      next_pred_ = -1;
      sc.sched->issued(picked);
      slot = Stall::Issued;
    } else {
      slot = masked                             ? Stall::SafeDistance
             : !sc.throttled.any()              ? Stall::MioThrottle
             : sc.throttled_own == sc.throttled ? Stall::Wait
                                                : sc.throttle;
      if (instr_) attribute_warp_states(k, -1, slot);
    }
  } else {
    slot = waiting_reason(k);
    if (instr_) attribute_warp_states(k, -1, Stall::Issued);
  }
  ++stats_.issue[slot];
  return slot;
}

// ---- Completion ------------------------------------------------------------------------------

void Sm::complete(std::uint32_t inflight, std::uint64_t now) {
  // The record stays valid until put() below: nothing here allocates an inflight record.
  Inflight& held = inflight_.items[inflight];
  if (held.suspended) {
    Warp& hw = warps_[held.warp];
    if (!ex_->retry_wait(hw.exec_slot, hw.exec_warp, held.index, held.wait_lanes) &&
        now < held.resume_by) {
      suspended_.push_back(inflight);  // resume_waits() completes it
      return;
    }
    // A barrier.cluster.wait whose phase completed has moved its warp on (a try_wait had at its
    // issue).
    hw.exec_next = ex_->next_index(hw.exec_slot, hw.exec_warp);
    note_next(hw);
    held.suspended = false;
  }
  const Inflight& in = held;
  const std::uint32_t w = in.warp;
  Warp& wp = warps_[w];
  const std::size_t base = rows_of(w);
  for (std::uint8_t k = 0; k < in.ndst; ++k) {
    const std::size_t at = row_at(base, in.dst[k]);
    --pending_[at];
    if (in.global_load) --pending_global_[at];
    if (in.short_result) --pending_short_[at];
  }
  // A fixed-latency pipe's result reaches an MIO instruction's operands later than a dependent
  // ALU or FMA instruction's (docs/timing.md "Operand delay"): without the delay, a dependent
  // issues from the next cycle on.
  if (!mio_ready_.empty() && !in.micro && in.ndst && in.index < ctx_.info->size()) {
    const InstInfo& info = (*ctx_.info)[in.index];
    std::uint32_t delay = 0;
    if (info.space == Space::None || in.pre) {
      const Unit unit = in.pre ? Unit(in.pre - 1) : info.unit;
      if (unit == Unit::Alu)
        delay = arch_.sm.mio_delay_alu;
      else if (unit == Unit::Fma || unit == Unit::Fp16 || unit == Unit::Imad)
        delay = arch_.sm.mio_delay_fma;
      else if (unit == Unit::Fp64)
        delay = arch_.sm.mio_delay_fp64;
    }
    if (delay)
      for (std::uint8_t k = 0; k < in.ndst; ++k) {
        const std::size_t at = row_at(base, in.dst[k]);
        claim(at, in.dst[k]);
        mio_ready_[at] = now + 1 + delay;
      }
  }
  // The ALU's result reaches the FMA pipe, and the FMA pipe's the ALU, sm.xpipe_delay later than
  // its own pipe (docs/timing.md "Cross-pipe delay"). Another writer of the register completes
  // later than this cycle, so a stale entry is in the past.
  if (!xpipe_.empty() && !in.micro && in.ndst && in.index < ctx_.info->size()) {
    const InstInfo& info = (*ctx_.info)[in.index];
    const std::uint8_t from =
        info.space == Space::None || in.pre ? xpipe_of(in.pre ? Unit(in.pre - 1) : info.unit) : 0;
    if (from)
      for (std::uint8_t k = 0; k < in.ndst; ++k) {
        const std::size_t at = row_at(base, in.dst[k]);
        claim(at, in.dst[k]);
        xpipe_[at] = (now + 1 + arch_.sm.xpipe_delay) << 2 | from;
      }
  }
  // A predicate a fixed-latency pipe wrote guards an instruction sm.guard_delay cycles later
  // than a register reader may read it (docs/timing.md "Guard delay").
  // (An expansion's predicate step: its extra register stands for the predicate.)
  if (in.sets_guard)
    for (std::uint8_t k = 0; k < in.ndst; ++k) {
      const std::size_t at = row_at(base, in.dst[k]);
      claim(at, in.dst[k]);
      guard_ready_[at] = now + 1 + arch_.sm.guard_delay;
    }
  if (in.async_group >= 0) {
    if (in.async_kind == 1)
      wgmma_done(w, in, now);
    else
      wp.groups[0].done(std::uint32_t(in.async_group));
  }
  // A bulk copy's bytes land, and its mbarrier transactions complete, when its memory operation
  // is done: waiting warps see the copy's time through the memory hierarchy.
  if (in.bulk) ex_->land_bulk(in.bulk);
  if (in.control) wp.control = false;
  if (in.held) --wp.held;
  if (in.cluster_wait) wp.cluster_wait = false;
  --wp.in_flight;
  if (!in.micro) {
    if (instr_ && in.index < instr_->size() && !in.pre)
      (*instr_)[in.index].latency += now + 1 - in.issued;
    if (obs_) obs_->on_complete(id_, w, in.index, 0, in.issued, now);
  } else {
    if (obs_) obs_->on_complete(id_, w, in.index, in.micro, in.issued, now);
    wp.step_busy = false;
    finish_step(w, now);
  }
  bool release = false;
  if (in.barrier) release = --ctas_[wp.cta].bars_in_flight == 0;
  if (release)
    recompute_cta(wp.cta);
  else
    recompute(w);
  inflight_.put(inflight);
  if (wp.finished && wp.in_flight == 0 && wp.step == 0) retire_warp(w);
}

void Sm::claim(std::size_t at, std::uint32_t r) {
  if (owner_[at] == r) return;
  owner_[at] = r;
  if (!mio_ready_.empty()) mio_ready_[at] = 0;
  if (!guard_ready_.empty()) guard_ready_[at] = 0;
  if (!xpipe_.empty()) xpipe_[at] = 0;
}

void Sm::note_next(Warp& wp) {
  const std::vector<std::uint8_t>* u = ctx_.unsafe;
  const bool now_unsafe =
      u && wp.used && !wp.finished && (*u)[std::min<std::size_t>(wp.exec_next, u->size() - 1)];
  if (now_unsafe == wp.unsafe_next) return;
  wp.unsafe_next = now_unsafe;
  if (now_unsafe)
    ++unsafe_warps_;
  else
    --unsafe_warps_;
}

bool Sm::tick(std::uint64_t now) {
  now_ = now;
  if (!ctas_used_ && !busy()) {  // nothing resident, nothing in flight
    stats_.issue[Stall::Idle] += nsc_;
    issued_ = progressed_ = false;
    return false;
  }
  // The sub-cores in an order that rotates every cycle (the port and shared units go to the
  // first that asks).
  Stall stalled = Stall::Issued;
  if (next_wake_ <= now) wake_due(now);
  if (nsc_ == 1) {
    sub_[0].pipe->advance(now);
    if (mio_.on()) mio_tick(now);
    stalled = issue(0, now);
    issued_ = stalled == Stall::Issued;
  } else {
    // (first + j) mod nsc_ without a division a step (issue 49: two divisions a sub-core a cycle).
    const std::uint32_t first = std::uint32_t(now % nsc_);
    const auto at = [&](std::uint32_t j) {
      return first + j < nsc_ ? first + j : first + j - nsc_;
    };
    for (std::uint32_t j = 0; j < nsc_; ++j) sub_[at(j)].pipe->advance(now);
    if (mio_.on()) mio_tick(now);
    issued_ = false;
    for (std::uint32_t j = 0; j < nsc_; ++j) {
      const std::uint32_t k = at(j);
      const Stall slot = issue(k, now);
      if (slot == Stall::Issued)
        issued_ = true;
      else {
        if (stalled == Stall::Issued) stalled = slot;
        if (obs_) obs_->on_subcore_stall(id_, k, slot, now);
      }
    }
  }
  if (!issued_ && obs_) obs_->on_stall(id_, stalled, now);
  auto apply = [&] {
    for (const std::uint32_t id : completed_) {
      const std::uint32_t in = ops_[id].inflight;
      free_ops_.push_back(id);
      if (--inflight_.items[in].subs_left == 0) complete(in, now);
    }
    completed_.clear();
  };
  apply();
  gmem_.tick(now, [&](std::uint32_t id) { completed_.push_back(id); });
  apply();
  if (!suspended_.empty()) resume_waits(now);
  if (ctas_used_) ++stats_.busy_cycles;
  Observer* obs = obs_;
  if (obs && obs->wants_stages(id_)) {
    cells_.clear();
    for (const Subcore& sc : sub_) {
      sc.pipe->stages(now, stage_cells_);
      cells_.insert(cells_.end(), stage_cells_.begin(), stage_cells_.end());
    }
    if (mio_.on())
      for (std::uint32_t k = 0; k < nsc_; ++k) {
        StageCell c;
        std::uint32_t op = 0, behind = 0;
        if (mio_.shown(k, now, op, c.pass, behind)) {
          c.warp = ops_[op].warp;
          c.sub = ops_[op].sub;
          c.index = ops_[op].inflight;
          c.behind = std::uint8_t(std::min<std::uint32_t>(behind, 255));
        }
        cells_.push_back(c);
      }
    for (StageCell& c : cells_) {
      if (c.warp < 0) continue;
      const Inflight& in = inflight_.items[c.index];
      c.index = in.index;
      c.micro = in.micro;
    }
    obs->on_stages(id_, now, cells_);
  }
  progressed_ = issued_ || eligible_.any() || busy();  // the cheap look first
  return progressed_;
}

}  // namespace smemsim::timing

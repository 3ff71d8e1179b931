// One SM: issue and completion (sm.hpp); eligibility is in sm_eligibility.cpp, residency in
// sm_residency.cpp, MEM0 and the lock loop in sm_memory.cpp.
#include "timing/sm.hpp"

#include <algorithm>
#include <bit>

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
      smu_(*ctx.arch),
      gmem_(ctx.arch->sm) {
  pipe_ = make_pipeline(arch_.sm.pipeline, arch_.sm, elastic_cost(arch_).premem_entries, *this);
  sched_ = make_scheduler(arch_.sm);
  if (arch_.sm.scheduler.starts_with("bank-aware"))
    ready_ = std::make_unique<BankAwareReady>(arch_, arch_.sm.scheduler == "bank-aware-fill");
  hold_ = !strict_ && arch_.sm.relaxed_commit == "in-order";
  warps_.resize(arch_.sm.max_warps);
  ctas_.resize(ctx.ctas_per_sm);
  pending_.assign(std::size_t(arch_.sm.max_warps) * ctx.nregs, 0);
  pending_global_.assign(pending_.size(), 0);
  if (ctx.atomics == AtomicMode::LockLoop) loop_lanes_.resize(arch_.sm.max_warps);
}

std::uint32_t Sm::exe_stages(Unit u) const {
  return ctx_.latency[std::size_t(u)] - (f_ + m_ + 1);
}

NextClass Sm::next_class(std::uint32_t w) const {
  const Warp& wp = warps_[w];
  if (wp.step) return (wp.step == 1 || wp.step == 3) ? NextClass::Shared : NextClass::Other;
  if (wp.next >= ctx_.info->size()) return NextClass::Other;
  return (*ctx_.info)[wp.next].next_class();
}

// The bank conflict history cache's PC (004 §4.2): the instruction's index; the lock loop's Write
// (seed 000 Fig. 1's STSUL) is an instruction of its own, after the kernel's.
std::uint32_t Sm::history_key(std::uint32_t w) const {
  const Warp& wp = warps_[w];
  return wp.step == 3 ? wp.next + std::uint32_t(ctx_.kernel->code.size()) : wp.next;
}

const SmStats& Sm::stats() {
  if (ready_) {
    stats_.units.predictions_correct = stats_.units.predictions_low = 0;
    stats_.units.predictions_high = stats_.units.history_hits = stats_.units.history_misses = 0;
    ready_->count(stats_.units);
  }
  return stats_;
}

LaneMask Sm::sub_lanes(std::uint8_t sub) const {
  const int w = int(arch_.sm.simd_width);
  return lanes_mask((sub + 1) * w) & ~lanes_mask(sub * w);
}

std::uint32_t Sm::pc_line(std::uint32_t index) const {
  const auto& code = ctx_.kernel->code;
  return index < code.size() ? code[index].ptx_line : 0;
}

// ---- Issue -----------------------------------------------------------------------------------

std::uint32_t Sm::new_inflight(std::uint32_t w, std::uint32_t index, std::uint64_t now) {
  const std::uint32_t id = inflight_.get();
  Inflight& in = inflight_.items[id];
  in.warp = static_cast<std::uint16_t>(w);
  in.index = index;
  in.issued = now;
  ++warps_[w].in_flight;
  if (next_pred_ >= 0) {  // the shared warp instruction the bank-aware scheduler just predicted
    in.pred = next_pred_;
    in.hkey = next_key_;
    in.unresolved = static_cast<std::uint8_t>(nsub_);
    next_pred_ = -1;
    if (hold_ && in.pred > 0) {
      in.held = true;
      ++warps_[w].held;
    }
  }
  return id;
}

void Sm::push_ops(std::uint32_t inflight, Unit unit, MemWork mem, bool memory,
                  std::uint32_t sectors, std::uint64_t now) {
  Inflight& in = inflight_.items[inflight];
  in.subs_left = static_cast<std::uint8_t>(nsub_);
  issuing_ops_.clear();
  for (std::uint32_t s = 0; s < nsub_; ++s) {
    std::uint32_t id;
    if (!free_ops_.empty()) {
      id = free_ops_.back();
      free_ops_.pop_back();
    } else {
      id = std::uint32_t(ops_.size());
      ops_.emplace_back();
    }
    Op& o = ops_[id];
    o = Op{};
    o.inflight = inflight;
    o.warp = in.warp;
    o.sub = static_cast<std::uint8_t>(s);
    o.unit = unit;
    o.mem = mem;
    o.memory = memory;
    o.sectors = static_cast<std::uint16_t>(sectors / nsub_ + (s < sectors % nsub_ ? 1 : 0));
    o.seq = seq_++;
    issuing_ops_.push_back(id);
  }
  pipe_->issue(issuing_ops_[0], now);
  if (nsub_ > 1) {
    issuing_ = inflight;
    issuing_sub_ = 1;
  }
}

void Sm::push_next_sub(std::uint64_t now) {
  pipe_->issue(issuing_ops_[issuing_sub_], now);
  if (++issuing_sub_ == nsub_) issuing_ = -1;
}

void Sm::issue_warp(std::uint32_t w, std::uint64_t now) {
  Warp& wp = warps_[w];
  if (wp.step) return issue_micro(w, now);
  AccessCollector& col = *ctx_.collector;
  col.n = 0;
  const exec::IssueResult r = ctx_.ex->issue(wp.exec_slot, wp.exec_warp);
  const std::uint64_t lanes = std::uint64_t(std::popcount(r.active));
  ++stats_.warp_instructions;
  stats_.thread_instructions += lanes;
  const auto& code = ctx_.kernel->code;
  const bool past_end = r.index >= code.size();
  static const InstInfo kFellOff = [] {
    InstInfo i;
    i.unit = Unit::Branch;
    i.exit = true;
    return i;
  }();
  const InstInfo& info = past_end ? kFellOff : (*ctx_.info)[r.index];
  if (ctx_.instr && !past_end) {
    InstrStats& is = (*ctx_.instr)[r.index];
    ++is.issued;
    is.thread_instructions += lanes;
  }
  if (ctx_.options->observer) ctx_.options->observer->on_issue(id_, w, r.index, 0, now);
  if (r.state == exec::WarpState::Done) wp.finished = true;
  if (ctx_.uses_tm) account_tm(w, r, now);

  // The lock loop of seed 000 Fig. 1 replaces a shared atomic on a lock-bit GPU.
  if (info.atomic && r.shared_accesses && ctx_.atomics == AtomicMode::LockLoop) {
    LoopLanes& L = loop_lanes_[w];
    const AccessRecord& rec = col.rec;
    for (LaneMask m = rec.active; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      L.key[std::size_t(l)] = smu_.key_of(rec.addr[0][std::size_t(l)]);
      L.lock[std::size_t(l)] = smu_.lock_of(rec.addr[0][std::size_t(l)]);
    }
    wp.step = 1;
    wp.step_busy = false;
    wp.iteration = 0;
    wp.pending = rec.active;
    wp.won = 0;
    wp.next = r.index;
    wp.loop_issued = now;
    wp.loop_ndst = info.ndst;
    const std::size_t base = std::size_t(w) * ctx_.nregs;
    for (std::uint8_t k = 0; k < info.ndst; ++k) {
      wp.loop_dst[k] = info.dst[k];
      ++pending_[base + info.dst[k]];
    }
    issue_micro(w, now);
    return;
  }

  const std::uint32_t id = new_inflight(w, r.index, now);
  Inflight& in = inflight_.items[id];
  Unit unit = info.unit;
  MemWork mem = MemWork::None;
  bool memory = info.space != Space::None;
  std::uint32_t sectors = 0;
  if (memory) {
    if (r.shared_accesses) {
      mem = MemWork::Shared;
      unit = info.store ? Unit::SharedSt : Unit::SharedLd;
      if (info.atomic && ctx_.atomics == AtomicMode::Native) {
        mem = MemWork::NativeAtomic;
        unit = Unit::SharedAtom;
      }
      // Only the words and lanes the access has (a record is 2 KiB; most accesses use 128 B).
      in.record = std::int32_t(records_.get(false));
      AccessRecord& rec = records_.items[std::size_t(in.record)];
      rec.words = std::min(col.n, AccessRecord::kMaxWords);
      rec.active = col.rec.active;
      rec.phased = col.n > 1 && phased_;
      rec.extra = std::max(0, col.n - AccessRecord::kMaxWords);
      std::copy_n(col.rec.row_active, rec.words, rec.row_active);
      for (int k = 0; k < rec.words; ++k)
        std::copy_n(col.rec.addr[std::size_t(k)].begin(), arch_.warp_size,
                    rec.addr[std::size_t(k)].begin());
    } else if (info.space == Space::Global || r.global_sectors ||
               (info.space == Space::Generic && r.executed)) {
      mem = MemWork::Global;
      unit = Unit::Global;
      sectors = r.global_sectors;
      in.global_load = !info.store;
    } else if (info.space == Space::Const) {
      unit = Unit::Const;
    } else {  // a shared access whose lanes were all off
      unit = info.store ? Unit::SharedSt : Unit::SharedLd;
    }
  }
  in.tm_cycles = std::min<std::uint32_t>(r.tm_cycles, 0xffff);
  if (r.tm_cycles && !memory) {  // TX.Begin / TX.Commit: their work is done in the LDS (003 Fig. 1)
    mem = MemWork::Tm;
    memory = true;
  }
  in.control = info.unit == Unit::Branch;
  wp.control |= in.control;
  const std::size_t base = std::size_t(w) * ctx_.nregs;
  in.ndst = info.ndst;
  for (std::uint8_t k = 0; k < info.ndst; ++k) {
    in.dst[k] = info.dst[k];
    ++pending_[base + info.dst[k]];
    if (in.global_load) ++pending_global_[base + info.dst[k]];
  }
  // A barrier opens when its last arrival writes back: bar.sync and bar.red also hold their warp,
  // bar.arrive does not.
  if (info.barrier || info.arrive) {
    in.barrier = true;
    wp.at_bar |= info.barrier;
    ++ctas_[wp.cta].bars_in_flight;
  }
  push_ops(id, unit, mem, memory, sectors, now);
  // A barrier arrival or an exit can release the CTA's other warps; a transactional instruction can
  // abort them (work-group serialization) or let them through TX.Begin.
  if (info.barrier || info.arrive || wp.finished || r.in_tx)
    recompute_cta(wp.cta);
  else
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
  wp.in_tx = ctx_.ex->in_transaction(wp.exec_slot, wp.exec_warp);
  if (r.state == exec::WarpState::TxWait) wp.tx_wait = true;
}

void Sm::attribute_warp_states(int issued_warp, Stall blocked, std::uint64_t weight) {
  std::vector<InstrStats>& is = *ctx_.instr;
  for (std::uint32_t w = 0; w < warps_.size(); ++w) {
    const Warp& wp = warps_[w];
    if (!wp.used || wp.finished || wp.next >= is.size()) continue;
    Stall s = wp.reason;
    if (int(w) == issued_warp)
      s = Stall::Issued;
    else if (wp.eligible)
      s = blocked == Stall::Issued ? Stall::NotSelected : blocked;
    is[wp.next].warp_states[s] += weight;
  }
}

void Sm::issue(std::uint64_t now) {
  Stall slot;
  if (issuing_ >= 0) {  // the next subwarp of the instruction being issued
    if (pipe_->can_issue()) {
      slot = Stall::Issued;
      if (ctx_.instr) attribute_warp_states(-1, Stall::Issued);
      push_next_sub(now);
    } else {
      slot = pipe_->block_cause();
      if (ctx_.instr) attribute_warp_states(-1, slot);
    }
  } else if (!pipe_->can_issue()) {
    slot = pipe_->block_cause();
    if (ctx_.instr) attribute_warp_states(-1, slot);
  } else if (eligible_.any()) {
    // 004 Fig. 7: within the safe distance of the last shared memory warp, memory warps are not
    // ready (footnote 10's variant lets them through when no other warp is).
    WarpMask pool = eligible_;
    if (ready_ && !ready_->memory_allowed(now)) {
      eligible_.each([&](std::uint32_t w) {
        if (next_class(w) != NextClass::Other) pool.clear(w);
      });
      if (!pool.any() && ready_->fill()) pool = eligible_;
    }
    if (pool.any()) {
      const std::uint32_t picked = sched_->pick(pool, *this);
      if (ctx_.instr) attribute_warp_states(int(picked), Stall::Issued);
      if (ready_ && next_class(picked) == NextClass::Shared) {
        next_key_ = history_key(picked);
        next_pred_ = std::int32_t(ready_->scheduled(next_key_, now));
      }
      issue_warp(picked, now);
      next_pred_ = -1;
      sched_->issued(picked);
      slot = Stall::Issued;
    } else {
      slot = Stall::SafeDistance;
      if (ctx_.instr) attribute_warp_states(-1, Stall::SafeDistance);
    }
  } else {
    slot = waiting_reason();
    if (ctx_.instr) attribute_warp_states(-1, Stall::Issued);
  }
  ++stats_.issue[slot];
  issued_ = slot == Stall::Issued;
  if (slot != Stall::Issued && ctx_.options->observer)
    ctx_.options->observer->on_stall(id_, slot, now);
}

// ---- Completion ------------------------------------------------------------------------------

void Sm::complete(std::uint32_t inflight, std::uint64_t now) {
  // The record stays valid until put() below: nothing here allocates an inflight record.
  const Inflight& in = inflight_.items[inflight];
  const std::uint32_t w = in.warp;
  Warp& wp = warps_[w];
  const std::size_t base = std::size_t(w) * ctx_.nregs;
  for (std::uint8_t k = 0; k < in.ndst; ++k) {
    --pending_[base + in.dst[k]];
    if (in.global_load) --pending_global_[base + in.dst[k]];
  }
  if (in.record >= 0) records_.put(std::uint32_t(in.record));
  if (in.control) wp.control = false;
  if (in.held) --wp.held;
  --wp.in_flight;
  if (!in.micro) {
    if (ctx_.instr && in.index < ctx_.instr->size())
      (*ctx_.instr)[in.index].latency += now + 1 - in.issued;
    if (ctx_.options->observer)
      ctx_.options->observer->on_complete(id_, w, in.index, 0, in.issued, now);
  } else {
    if (ctx_.options->observer)
      ctx_.options->observer->on_complete(id_, w, in.index, in.micro, in.issued, now);
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

bool Sm::tick(std::uint64_t now) {
  now_ = now;
  if (!ctas_used_ && !busy()) {  // nothing resident, nothing in flight
    ++stats_.issue[Stall::Idle];
    issued_ = false;
    return false;
  }
  pipe_->advance(now);
  issue(now);
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
  if (ctas_used_) ++stats_.busy_cycles;
  Observer* obs = ctx_.options->observer;
  if (obs && obs->wants_stages(id_)) {
    pipe_->stages(now, cells_);
    for (StageCell& c : cells_) {
      if (c.warp < 0) continue;
      const Inflight& in = inflight_.items[c.index];
      c.index = in.index;
      c.micro = in.micro;
    }
    obs->on_stages(id_, now, cells_);
  }
  return issued_ || busy() || eligible_.any();
}

}  // namespace smemsim::timing

// One SM's issue of one warp (sm.hpp): the executor's step, the instructions the lowering pass
// absorbed, the lock loop's and the compare-and-swap loop's start, a wide op's per-subwarp ops.
// The counts, unrolled loops' overhead, expansions' steps and GPU-LocalTM's accounting are in
// sm_issue_steps.cpp; the scheduler's pick, which calls it, and completion in sm.cpp.
#include "timing/sm.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace smemsim::timing {

namespace {

// A float add on shared memory (atom or red .add.f32/.f64): what atomics.shared_float = cas
// runs as a compare-and-swap loop.
bool float_add(const ptx::Instruction& ins) {
  return (ins.op == ptx::Opcode::Atom || ins.op == ptx::Opcode::Red) &&
         ins.atom == ptx::AtomOp::Add && (ins.type == ptx::Type::F32 || ins.type == ptx::Type::F64);
}

}  // namespace

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
                  std::uint32_t sectors, std::uint64_t now, GlobalMemoryUnit::Split found) {
  Inflight& in = inflight_.items[inflight];
  in.subs_left = static_cast<std::uint8_t>(nsub_);
  const std::uint32_t k = warps_[in.warp].sub;
  Subcore& sc = sub_[k];
  sc.issuing_ops.clear();
  // A tensor op holds its unit as long as its shape takes, I cycles, and is ready when its last
  // step is: I - 1 cycles later than an op of one cycle, or I - step with steps of several
  // (sm.tensor_step_fmas).
  const std::uint64_t cost = units_on_ && unit == Unit::Tensor ? unit_cost(unit, in.index) : 0;
  const std::size_t tensor = unit_map_[std::size_t(Unit::Tensor)];
  std::uint16_t extra = 0;
  if (cost && tensor == std::size_t(Unit::Tensor)) {
    const std::uint64_t lanes = lanes_[tensor], cycles = (cost + lanes - 1) / lanes;
    std::uint64_t step = 1;
    if (const std::uint32_t fmas = arch_.sm.tensor_step_fmas) {
      const bool acc16 = (*ctx_.info)[in.index].tensor_acc16;
      const std::uint64_t work = (std::uint64_t(fmas) << acc16) / nsub_;
      step = std::clamp<std::uint64_t>((work + lanes - 1) / lanes, 1, cycles);
    }
    extra = static_cast<std::uint16_t>(std::min<std::uint64_t>(cycles - step, 0xffff));
  }
  std::uint32_t l2_taken = 0;  // of to_l2_, by the ops before
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
    const auto share = [&](std::uint32_t n) {
      return static_cast<std::uint16_t>(n / nsub_ + (s < n % nsub_ ? 1 : 0));
    };
    o.sectors = share(sectors);
    o.l1 = share(found.l1);
    o.l2 = std::min<std::uint16_t>(share(found.l2), std::uint16_t(o.sectors - o.l1));
    o.same = found.same;
    if (gmem_.shared_l2() && mem == MemWork::Global) {  // this op's part of the L2's sectors
      if (op_l2_.size() < ops_.size()) op_l2_.resize(ops_.size()), op_fill_.resize(ops_.size());
      op_fill_[id] = {found.own, found.wait, found.ready};
      const std::size_t first = std::min(to_l2_.size(), std::size_t(l2_taken));
      const std::size_t n = std::min<std::size_t>(to_l2_.size() - first, o.sectors - o.l1);
      op_l2_[id].assign(to_l2_.begin() + std::ptrdiff_t(first),
                        to_l2_.begin() + std::ptrdiff_t(first + n));
      l2_taken += std::uint32_t(n);
      o.sectors = static_cast<std::uint16_t>(o.l1 + n);
    }
    o.seq = seq_++;
    o.extra = extra;
    if (mem == MemWork::Shared || mem == MemWork::NativeAtomic) {
      o.plan_passes = plans_[s].passes;
      o.plan_phases = plans_[s].phases;
      o.plan_same = plans_[s].same_word;
    }
    if (mem == MemWork::Dsm) [[unlikely]]  // the network's part of sm.lat_dsm (validated >=)
      o.far = arch_.sm.lat_dsm - ctx_.latency[std::size_t(unit)];
    if (mio_.on() && mio_work(mem)) mio_.reserve(k);
    global_unsent_ += mem == MemWork::Global;
    sc.issuing_ops.push_back(id);
  }
  sc.pipe->issue(sc.issuing_ops[0], now);
  if (units_on_) unit_take(k, unit, in.index, in.warp, now);
  if (nsub_ > 1) {
    sc.issuing = inflight;
    sc.issuing_sub = 1;
  }
}

void Sm::push_next_sub(Subcore& sc, std::uint64_t now) {
  const Op& o = ops_[sc.issuing_ops[sc.issuing_sub]];
  sc.pipe->issue(sc.issuing_ops[sc.issuing_sub], now);
  if (units_on_)
    unit_take(std::uint32_t(&sc - sub_.data()), o.unit, inflight_.items[o.inflight].index, o.warp,
              now);
  if (++sc.issuing_sub == nsub_) sc.issuing = -1;
}

void Sm::issue_warp(std::uint32_t w, std::uint64_t now) {
  Warp& wp = warps_[w];
  if (wp.step) return issue_micro(w, now);
  if (wp.next < ctx_.info->size() && (*ctx_.info)[wp.next].expand != Expand::None &&
      wp.pre_step < expansion_of(wp, (*ctx_.info)[wp.next]).n)
    return issue_pre(w, now);
  wp.pre_step = 0;
  // One collector per thread, not per SM: its record is 2 KiB, and one that every SM on the thread
  // reuses stays in the cache (one per SM made a 132-SM reduction 4 % slower on one thread).
  static thread_local AccessCollector col;
  col.n = 0;
  col.forward = forward_;
  ex_->set_consumer(&col);
  exec::IssueResult r = ex_->issue(wp.exec_slot, wp.exec_warp);
  bool moved = r.moved_others;  // of any instruction this slot executes
  wp.exec_next = r.next;
  note_next(wp);
  const auto& code = ctx_.kernel->code;
  // Instructions the lowering pass absorbed (sm.lower) are free: each executes and the warp goes
  // on, in the same slot, to the instruction it issues with (the scoreboard checked the group's
  // registers). Should the warp go elsewhere (it reconverged), the slot ends here.
  if (const std::vector<std::uint32_t>* ab = ctx_.absorbed; ab && !ab->empty()) {
    while (r.index < ab->size() && (*ab)[r.index] != ptx::kNone &&
           r.state == exec::WarpState::Ready) {
      count_issue(wp, r);
      ++stats_.absorbed;
      if (ctx_.uses_tm) account_tm(w, r, now);
      if ((ctx_.uses_tm ? ex_->next_index(wp.exec_slot, wp.exec_warp) : r.next) != r.index + 1)
        return moved ? recompute_cta(wp.cta) : recompute(w);
      r = ex_->issue(wp.exec_slot, wp.exec_warp);
      moved |= r.moved_others;
      wp.exec_next = r.next;
      note_next(wp);
    }
  }
  count_issue(wp, r);
  if (ctx_.unroll) note_trip(wp, r);
  const bool past_end = r.index >= code.size();
  static const InstInfo kFellOff = [] {
    InstInfo i;
    i.unit = Unit::Branch;
    i.exit = true;
    return i;
  }();
  const InstInfo& info = past_end ? kFellOff : (*ctx_.info)[r.index];
  if (obs_) obs_->on_issue(id_, w, r.index, 0, now);
  if (r.state == exec::WarpState::Done) {
    wp.finished = true;
    wp.exit_index = r.index;
    note_next(wp);
  }
  if (ctx_.uses_tm) account_tm(w, r, now);

  // The lock loop of seed 000 Fig. 1 replaces a shared atomic on a lock-bit GPU; a float add's
  // compare-and-swap loop (atomics.shared_float = cas) runs on the same micro-ops, one lock a
  // word: a lane whose word another lane holds between its read and its swap retries.
  const bool cas = cas_float_ && info.atomic && r.shared_accesses && float_add(code[r.index]);
  if (cas && cas_locked_.empty()) {
    // At the first CAS loop (most kernels have none): the loops' lanes, and a lock a word, each
    // resident CTA its own range (the words are offsets in their CTA's shared memory).
    loop_lanes_.resize(arch_.sm.max_warps);
    cas_words_ = std::max<std::uint64_t>(1, (ctx_.shared_per_cta + 3) / 4);
    cas_locked_.assign(std::size_t(ctx_.ctas_per_sm * cas_words_), 0);
  }
  if (info.atomic && r.shared_accesses && !r.dsm_segments &&
      (ctx_.atomics == AtomicMode::LockLoop || cas)) {
    LoopLanes& L = loop_lanes_[w];
    const AccessRecord& rec = col.rec;
    for (LaneMask m = rec.active; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      const WordAddr word = rec.addr[0][std::size_t(l)];
      L.key[std::size_t(l)] = smu_.key_of(word);
      L.lock[std::size_t(l)] =
          cas ? std::uint32_t((wp.cta * cas_words_ + word) % cas_locked_.size())
              : smu_.lock_of(word);
    }
    wp.cas = cas;
    wp.step = 1;
    wp.step_busy = false;
    wp.iteration = 0;
    // An aggregated atomic (sm.lower's aggregate) is its lowest active lane's.
    wp.pending = info.aggregated ? rec.active & (~rec.active + 1) : rec.active;
    wp.won = 0;
    wp.next = r.index;
    wp.loop_issued = now;
    wp.loop_ndst = info.ndst;
    const std::size_t base = rows_of(w);
    for (std::uint8_t k = 0; k < info.ndst; ++k) {
      wp.loop_dst[k] = info.dst[k];
      ++pending_[row_at(base, info.dst[k])];
    }
    issue_micro(w, now);
    return;
  }

  const std::uint32_t id = new_inflight(w, r.index, now);
  Inflight& in = inflight_.items[id];
  Unit unit = static_cast<Unit>(unit_map_[std::size_t(info.unit)]);  // FMA, FP64, tensor or ALU
  MemWork mem = MemWork::None;
  bool memory = info.space != Space::None;
  std::uint32_t sectors = 0;
  GlobalMemoryUnit::Split found{};
  if (memory) {
    if (r.shared_accesses && !info.async_copy) {
      mem = MemWork::Shared;
      unit = info.store ? Unit::SharedSt : Unit::SharedLd;
      if (info.atomic && ctx_.atomics == AtomicMode::Native) {
        mem = MemWork::NativeAtomic;
        unit = Unit::SharedAtom;
      }
    }
    if (r.dsm_segments) [[unlikely]] {  // another SM's shared memory: the network, no banks here
      mem = MemWork::Dsm;
      sectors = r.dsm_segments;
      // A bulk copy into another CTA's shared memory (no warp access of its own) stores there.
      if (!shared_memory_unit(unit)) unit = info.store ? Unit::SharedSt : Unit::SharedLd;
    } else if (r.shared_accesses && !info.async_copy) {
      // Only the words and lanes the access has (a record is 2 KiB; most accesses use 128 B).
      AccessRecord& rec = rec_;
      rec.words = std::min(col.n, AccessRecord::kMaxWords);
      rec.active = col.rec.active;
      if (info.aggregated) rec.active &= ~rec.active + 1;  // the lowest active lane's access
      // A vector group's words are its loads' (src/lower/vector.hpp): the whole warp's each,
      // served as one access of their width.
      rec.phased = col.n > 1 && phased_ && !info.merged_words;
      rec.extra = std::max(0, col.n - AccessRecord::kMaxWords);
      std::copy_n(col.rec.row_active, rec.words, rec.row_active);
      if (info.aggregated)
        for (int k = 0; k < rec.words; ++k) rec.row_active[k] &= rec.active;
      for (int k = 0; k < rec.words; ++k)
        std::copy_n(col.rec.addr[std::size_t(k)].begin(), arch_.warp_size,
                    rec.addr[std::size_t(k)].begin());
      rec.paired = info.merged_words && pairs_ && !info.store &&
                   0 != lanes_pair(rec.active, [&](int a, int b) {
                     for (int k = 0; k < rec.words; ++k)
                       if (rec.addr[std::size_t(k)][std::size_t(a)] !=
                           rec.addr[std::size_t(k)][std::size_t(b)])
                         return false;
                     return true;
                   });
      // Each subwarp's phases, planned now (what MEM0 used to plan from a kept record).
      for (std::uint32_t sub = 0; sub < nsub_; ++sub) {
        const std::uint32_t lo = sub * arch_.sm.simd_width, hi = lo + arch_.sm.simd_width;
        plans_[sub] = rec.phased && mem == MemWork::Shared
                          ? smu_.plan_phases(rec, sub, nsub_)
                          : smu_.plan(rec, rec.active, lo, hi, mem == MemWork::NativeAtomic);
      }
    } else if (info.space == Space::Global || r.global_sectors ||
               (info.space == Space::Generic && r.executed)) {
      mem = MemWork::Global;
      unit = Unit::Global;
      to_l2_.clear();
      // An aggregated atomic is one lane's: one sector (a uniform address has only one anyway).
      sectors = info.aggregated ? std::min<std::uint32_t>(r.global_sectors, 1) : r.global_sectors;
      if (instr_ && sectors && r.index < instr_->size()) ++(*instr_)[r.index].global_requests;
      in.global_load = !info.store;
      if (gmem_.caches() && sectors) {
        const auto kind = info.atomic                      ? GlobalMemoryUnit::Kind::Atomic
                          : info.store && !info.async_copy ? GlobalMemoryUnit::Kind::Store
                                                           : GlobalMemoryUnit::Kind::Load;
        const ptx::Instruction& ins = ctx_.kernel->code[r.index];
        // A bulk copy (the TMA) reads the L2, never the L1: on an H100 a 16-byte copy from the
        // L2 takes the L2 chase's latency and 9 cycles (hopper_ubench.cu's bulk_latency).
        const ptx::CacheOp op = ins.op == ptx::Opcode::CpBulk ? ptx::CacheOp::Cg : ins.cache;
        found = gmem_.classify(ex_->sectors(), sectors, kind, op, ins.space == ptx::Space::Local,
                               ins.has(ptx::kVolatile), ins.has(ptx::kL1NoAllocate),
                               gmem_.shared_l2() ? &to_l2_ : nullptr, now);
      }
      if (info.atomic && arch_.sm.l2_atomic_cycles)
        found.same = info.aggregated ? 1 : static_cast<std::uint16_t>(ex_->same_address_lanes());
    } else if (info.space == Space::Const) {
      unit = Unit::Const;
    } else {  // a shared access whose lanes were all off
      unit = info.store ? Unit::SharedSt : Unit::SharedLd;
    }
  }
  if (info.async_copy || info.wgmma || info.async_commit || info.async_wait)
    async_issue(wp, in, info);
  in.bulk = r.bulk;
  // mbarrier.try_wait is "potentially blocking" (PTX ISA): where a lane's phase is incomplete the
  // GPU suspends the thread until it completes (or a time limit passes). Here the instruction
  // does not complete until then, and its predicates are taken again when it does.
  // barrier.cluster.wait (issue 46) suspends its warp the same way until its phase completes
  // (the warp then moves past it; at the limit it issues it again).
  if (r.waiting && ((r.op == ptx::Opcode::Mbarrier &&
                     ptx::MbarOp(ctx_.kernel->code[r.index].comp) == ptx::MbarOp::TryWait) ||
                    r.op == ptx::Opcode::BarCluster)) {
    in.suspended = true;
    in.cluster_wait = r.op == ptx::Opcode::BarCluster;
    wp.cluster_wait |= in.cluster_wait;
    in.wait_lanes = r.executed;
    in.resume_by = now + kTryWaitSuspend;
  }
  in.tm_cycles = std::min<std::uint32_t>(r.tm_cycles, 0xffff);
  if (r.tm_cycles && !memory) {  // TX.Begin / TX.Commit: their work is done in the LDS (003 Fig. 1)
    mem = MemWork::Tm;
    memory = true;
  }
  in.control = info.unit == Unit::Branch;
  wp.control |= in.control;
  const std::size_t base = rows_of(w);
  in.ndst = info.ndst;
  // A taken guarded branch: its target is fetched once the branch has issued, and issues
  // sm.taken_branch_fetch cycles after it (docs/timing.md "Taken-branch fetch"; recompute() wakes
  // the warp then). A branch that falls through costs nothing more.
  if (in.control && info.guard != ptx::kNone && arch_.sm.taken_branch_fetch &&
      r.next != r.index + 1)
    wp.fetch_at = now + arch_.sm.taken_branch_fetch;
  in.short_result =
      !in.global_load && (unit == Unit::Sfu || unit == Unit::Cvt64 || unit == Unit::SharedLd ||
                          unit == Unit::SharedAtom || unit == Unit::Const);
  // A predicate a fixed-latency pipe writes (setp) guards sm.guard_delay late (complete()).
  in.sets_guard =
      !guard_ready_.empty() && info.writes_pred && info.space == Space::None && fixed_latency(unit);
  for (std::uint8_t k = 0; k < info.ndst; ++k) {
    in.dst[k] = info.dst[k];
    const std::size_t at = row_at(base, info.dst[k]);
    ++pending_[at];
    if (in.global_load) ++pending_global_[at];
    if (in.short_result) ++pending_short_[at];
  }
  // A barrier opens when its last arrival writes back: bar.sync and bar.red also hold their warp,
  // bar.arrive does not.
  if (info.barrier || info.arrive) {
    in.barrier = true;
    wp.at_bar |= info.barrier;
    ++ctas_[wp.cta].bars_in_flight;
  }
  push_ops(id, unit, mem, memory, sectors, now, found);
  if (ctx_.unroll && r.state == exec::WarpState::Ready && !info.barrier) moved |= skip_unrolled(wp);
  // A barrier arrival or an exit can release the CTA's other warps; a transactional instruction can
  // abort them (work-group serialization) or let them through TX.Begin (moved_others).
  if (info.barrier || info.arrive || wp.finished || moved)
    recompute_cta(wp.cta);
  else
    recompute(w);
}

}  // namespace smemsim::timing

// One SM: issue and completion (sm.hpp); eligibility is in sm_eligibility.cpp, residency in
// sm_residency.cpp, MEM0 and the lock loop in sm_memory.cpp, units and the shared-memory port in
// sm_units.cpp.
#include "timing/sm.hpp"

#include "lower/unroll.hpp"

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
  // Room for the shared accesses in flight without moving them (2 KB each): a vector that grows
  // copies every record and faults in fresh pages at each step; the reserve touches none.
  records_.items.reserve(32);
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
  pending_.assign(std::size_t(arch_.sm.max_warps) * ctx.nregs, 0);
  pending_global_.assign(pending_.size(), 0);
  pending_short_.assign(pending_.size(), 0);
  if (sm.mio_delay_alu || sm.mio_delay_fma || sm.mio_delay_fp64)
    mio_ready_.assign(pending_.size(), 0);
  if (sm.guard_delay) guard_ready_.assign(pending_.size(), 0);
  if (sm.xpipe_delay) xpipe_.assign(pending_.size(), 0);
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
                  std::uint32_t sectors, std::uint64_t now, GlobalMemoryUnit::Split found) {
  Inflight& in = inflight_.items[inflight];
  in.subs_left = static_cast<std::uint8_t>(nsub_);
  const std::uint32_t k = warps_[in.warp].sub;
  Subcore& sc = sub_[k];
  sc.issuing_ops.clear();
  // A tensor op holds its unit as long as its shape takes and is ready that much later.
  const std::uint64_t cost = units_on_ && unit == Unit::Tensor ? unit_cost(unit, in.index) : 0;
  const std::size_t tensor = unit_map_[std::size_t(Unit::Tensor)];
  const auto extra = static_cast<std::uint16_t>(
      cost && tensor == std::size_t(Unit::Tensor)
          ? std::min<std::uint64_t>((cost + lanes_[tensor] - 1) / lanes_[tensor] - 1, 0xffff)
          : 0);
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
    if (mem == MemWork::Dsm) [[unlikely]]  // the network's part of sm.lat_dsm (validated >=)
      o.far = arch_.sm.lat_dsm - ctx_.latency[std::size_t(unit)];
    if (mio_.on() && mio_work(mem)) mio_.reserve(k);
    global_unsent_ += mem == MemWork::Global;
    sc.issuing_ops.push_back(id);
  }
  sc.pipe->issue(sc.issuing_ops[0], now);
  if (units_on_) unit_take(k, unit, in.index, now);
  if (nsub_ > 1) {
    sc.issuing = inflight;
    sc.issuing_sub = 1;
  }
}

void Sm::push_next_sub(Subcore& sc, std::uint64_t now) {
  const Op& o = ops_[sc.issuing_ops[sc.issuing_sub]];
  sc.pipe->issue(sc.issuing_ops[sc.issuing_sub], now);
  if (units_on_)
    unit_take(std::uint32_t(&sc - sub_.data()), o.unit, inflight_.items[o.inflight].index, now);
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
        return recompute(w);
      r = ex_->issue(wp.exec_slot, wp.exec_warp);
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
      in.record = std::int32_t(records_.get(false));
      AccessRecord& rec = records_.items[std::size_t(in.record)];
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
  const std::size_t base = std::size_t(w) * ctx_.nregs;
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
    ++pending_[base + info.dst[k]];
    if (in.global_load) ++pending_global_[base + info.dst[k]];
    if (in.short_result) ++pending_short_[base + info.dst[k]];
  }
  // A barrier opens when its last arrival writes back: bar.sync and bar.red also hold their warp,
  // bar.arrive does not.
  if (info.barrier || info.arrive) {
    in.barrier = true;
    wp.at_bar |= info.barrier;
    ++ctas_[wp.cta].bars_in_flight;
  }
  push_ops(id, unit, mem, memory, sectors, now, found);
  if (ctx_.unroll && r.state == exec::WarpState::Ready && !info.barrier) skip_unrolled(wp);
  // A barrier arrival or an exit can release the CTA's other warps; a transactional instruction can
  // abort them (work-group serialization) or let them through TX.Begin.
  if (info.barrier || info.arrive || wp.finished || r.in_tx)
    recompute_cta(wp.cta);
  else
    recompute(w);
}

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
void Sm::skip_unrolled(Warp& wp) {
  const std::vector<std::uint32_t>& u = *ctx_.unroll;
  while (!wp.finished && wp.exec_next < u.size()) {
    const std::uint32_t b = u[wp.exec_next];
    if (b == ptx::kNone) return;
    if (wp.unroll_loop != b) wp.unroll_loop = b, wp.trips = 0;  // the warp enters the loop
    if (wp.trips % lower::kUnrollFactor == lower::kUnrollFactor - 1) return;
    const exec::IssueResult r = ex_->issue(wp.exec_slot, wp.exec_warp);
    wp.exec_next = r.next;
    count_issue(wp, r);
    ++stats_.absorbed;
    note_trip(wp, r);
    if (r.state == exec::WarpState::Done) wp.finished = true;
    note_next(wp);
    if (r.state != exec::WarpState::Ready) return;
  }
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
    ++pending_[std::size_t(w) * ctx_.nregs + in.dst[0]];
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

void Sm::attribute_warp_states(std::uint32_t k, int issued_warp, Stall blocked,
                               std::uint64_t weight) {
  std::vector<InstrStats>& is = *instr_;
  const Subcore& sc = sub_[k];
  for (std::uint32_t w = k; w < warps_.size(); w += nsc_) {
    const Warp& wp = warps_[w];
    if (!wp.used || wp.finished || wp.next >= is.size()) continue;
    Stall s = wp.reason;
    if (int(w) == issued_warp)
      s = Stall::Issued;
    else if (sc.mio_held.test(w))
      s = Stall::MioThrottle;
    else if (sc.throttled.test(w))
      s = sc.throttle;
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
      slot = masked ? Stall::SafeDistance : sc.throttled.any() ? sc.throttle : Stall::MioThrottle;
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
  const std::size_t base = std::size_t(w) * ctx_.nregs;
  for (std::uint8_t k = 0; k < in.ndst; ++k) {
    --pending_[base + in.dst[k]];
    if (in.global_load) --pending_global_[base + in.dst[k]];
    if (in.short_result) --pending_short_[base + in.dst[k]];
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
      for (std::uint8_t k = 0; k < in.ndst; ++k) mio_ready_[base + in.dst[k]] = now + 1 + delay;
  }
  // The ALU's result reaches the FMA pipe, and the FMA pipe's the ALU, sm.xpipe_delay later than
  // its own pipe (docs/timing.md "Cross-pipe delay"). Another writer of the register completes
  // later than this cycle, so a stale entry is in the past.
  if (!xpipe_.empty() && !in.micro && in.ndst && in.index < ctx_.info->size()) {
    const InstInfo& info = (*ctx_.info)[in.index];
    const std::uint8_t from =
        info.space == Space::None || in.pre ? xpipe_of(in.pre ? Unit(in.pre - 1) : info.unit) : 0;
    if (from)
      for (std::uint8_t k = 0; k < in.ndst; ++k)
        xpipe_[base + in.dst[k]] = (now + 1 + arch_.sm.xpipe_delay) << 2 | from;
  }
  // A predicate a fixed-latency pipe wrote guards an instruction sm.guard_delay cycles later
  // than a register reader may read it (docs/timing.md "Guard delay").
  // (An expansion's predicate step: its extra register stands for the predicate.)
  if (in.sets_guard)
    for (std::uint8_t k = 0; k < in.ndst; ++k)
      guard_ready_[base + in.dst[k]] = now + 1 + arch_.sm.guard_delay;
  if (in.record >= 0) records_.put(std::uint32_t(in.record));
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
  progressed_ = issued_ || busy() || eligible_.any();
  return progressed_;
}

}  // namespace smemsim::timing

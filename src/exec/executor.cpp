// The SIMT executor at run time: CTAs, warps, issue and control flow (docs/exec.md). Launch
// preparation is in prepare.cpp, arithmetic in alu.cpp, memory instructions in memory.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

#include "exec/cfg.hpp"
#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec {

using namespace detail;
using ptx::Opcode;

std::string Impl::who(const Cta& cta, const Warp& w, int lane) const {
  const std::uint32_t t = w.index * lanes + static_cast<std::uint32_t>(lane);
  const Dim3& b = launch.block;
  return fmt::format("thread ({},{},{}) of block ({},{},{})", t % b.x, (t / b.x) % b.y,
                     t / (b.x * b.y), cta.id.x, cta.id.y, cta.id.z);
}

void Impl::fail(const Cta& cta, const Warp& w, int lane, std::uint32_t pc,
                const std::string& what) const {
  const ptx::Instruction& ins = kernel.code[pc];
  const std::string cu = cuda_location(module, ins);
  throw InputError(located(
      module.filename, ins.ptx_line,
      fmt::format("{} by {}{} in `{}`", what, who(cta, w, lane),
                  cu.empty() ? "" : fmt::format(" ({})", cu), ptx::to_string(kernel, ins))));
}

namespace {

// Pops finished entries: an empty mask, or a path that reached its reconvergence point.
inline void normalize(Warp& w) {
  while (!w.stack.empty()) {
    const StackEntry& t = w.stack.back();
    if (t.mask != 0 && t.pc != t.rpc) return;
    w.stack.pop_back();
  }
}

}  // namespace

void Impl::warp_done(Cta& cta, Warp& w) {
  w.state = WarpState::Done;
  if (!w.copies.empty()) land_copies(*this, cta, w, 0, true);  // cp.async still in flight
  if (race) [[unlikely]]
    race_exit(*this, cta, w);
  --cta.live_warps;
  release_barriers(*this, cta);  // a barrier of every live warp may now be complete
  if (board) [[unlikely]]
    cluster_warp_done(*this, cta);
}

IssueResult Impl::issue(Cta& cta, Warp& w) {
  IssueResult r;
  StackEntry& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const LaneMask active = top.mask;
  if (pc == w.spin_pc) [[unlikely]]
    spin_check(cta, w);
  ++w.issued;
  ++stats.warp_instructions;
  stats.thread_instructions += static_cast<std::uint64_t>(std::popcount(active));
  ++clock;
  r.index = pc;
  r.active = active;
  if (pc >= kernel.code.size()) {  // fell off the end (a branch to a final label): exit
    for (StackEntry& e : w.stack) e.mask &= ~active;
    w.live &= ~active;
    normalize(w);
    if (w.stack.empty()) warp_done(cta, w);
    r.op = Opcode::Exit;
    r.state = w.state;
    r.next = w.stack.empty() ? static_cast<std::uint32_t>(kernel.code.size()) : w.stack.back().pc;
    return r;
  }
  const ptx::Instruction& ins = kernel.code[pc];
  const XInst& x = xcode[pc];
  LaneMask exec = active;
  if (x.guard != kNoRow) {
    const std::uint64_t* p = row(w, x.guard);
    const std::uint64_t gneg = x.guard_negated();
    exec = 0;
    each_lane(active, [&](int l) {
      if ((p[l] ^ gneg) & 1) exec |= LaneMask{1} << l;
    });
  }
  r.op = ins.op;
  r.executed = exec;
  r.in_tx = w.tx.depth > 0;
  if (x.reads_clock()) {
    // %clock, %clock64 and %clock_hi, those the kernel reads (the global timer's rows are these:
    // specials.cpp).
    const std::uint64_t now = clock_source ? *clock_source : clock;
    const auto put = [&](ptx::Special s, std::uint64_t v) {
      const std::uint32_t at = special_at[std::size_t(s)];
      if (at == kNoRow) return;
      std::uint64_t* r = row(w, at);
      for (std::uint32_t l = 0; l < lanes; ++l) r[l] = v;
    };
    put(ptx::Special::Clock, now & 0xffffffffu);
    put(ptx::Special::Clock64, now);
    put(ptx::Special::ClockHi, now >> 32);
  }
  switch (ins.op) {
    case Opcode::Bra: {
      const LaneMask not_taken = active & ~exec;
      if (!not_taken) {
        top.pc = x.target();
      } else if (!exec) {
        top.pc = pc + 1;
      } else {
        const std::uint32_t rpc = x.reconv();
        top.pc = rpc;  // `top` becomes the reconvergence entry
        w.stack.push_back({pc + 1, rpc, not_taken});
        w.stack.push_back({x.target(), rpc, exec});  // the taken path runs first
      }
      normalize(w);
      break;
    }
    case Opcode::Call:
      ++writes;  // arguments copied to local memory
      if (exec) {
        r.global_sectors = exec_call(*this, cta, w, pc, exec);
      } else {
        ++top.pc;
      }
      normalize(w);
      break;
    case Opcode::Ret:
    case Opcode::Exit: {
      if (ins.op == Opcode::Ret && !w.frames.empty()) {  // return from a device function
        ++writes;
        exec_function_return(*this, cta, w, exec);
        normalize(w);
        break;
      }
      if (w.tx.depth > 0 && exec)
        fail(cta, w, std::countr_zero(exec), pc,
             "exit inside a transaction (every lane that enters a transaction must reach its "
             "TX_COMMIT)");
      for (StackEntry& e : w.stack) e.mask &= ~exec;
      w.live &= ~exec;
      const std::size_t depth = w.stack.size();
      if (!w.frames.empty()) finish_exited_frames(*this, cta, w);
      // The exit's own entry goes on with its other lanes (a finished call left its continuation).
      if (w.stack.size() == depth && w.stack.back().mask) ++w.stack.back().pc;
      normalize(w);
      break;
    }
    case Opcode::Bar: {
      if (w.tx.depth > 0)
        fail(cta, w, std::countr_zero(active), pc,
             "barrier inside a transaction (seed 003 §3: not every lane may reach it; put the "
             "barrier before TX_BEGIN or after TX_COMMIT)");
      w.spin_bar = true;
      ++top.pc;
      normalize(w);
      if (exec && !w.stack.empty()) exec_barrier(*this, cta, w, pc, exec);
      break;
    }
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red: {
      const std::uint64_t before = stats.shared_accesses;
      if (ins.op == Opcode::St || ins.op == Opcode::Red) ++writes;  // atom: when a value changed
      dsm_lanes = 0;
      if (exec) r.global_sectors = exec_memory(*this, cta, w, pc, exec);
      r.shared_accesses = static_cast<std::uint8_t>(stats.shared_accesses - before);
      if (dsm_lanes) [[unlikely]]
        r.dsm_segments = static_cast<std::uint16_t>(dsm_segments(*this));
      bool ended = false;  // every lane of a transaction's attempt conflicted
      if (tm_conflicted) {
        ended = tx_conflicts(cta, w, pc, tm_conflicted);
        tm_conflicted = 0;
      }
      r.tm_cycles += tm_cycles;
      tm_cycles = 0;
      if (!ended) ++w.stack.back().pc;
      normalize(w);
      break;
    }
    case Opcode::TxBegin:
      ++writes;
      r.in_tx = true;
      if (w.tx.depth > 0) {  // nested transactions are flattened (003 §3)
        ++w.tx.depth;
        ++top.pc;
        normalize(w);
        break;
      }
      if (cta.wg_owner >= 0 && cta.wg_owner != static_cast<int>(w.index)) {
        w.state = WarpState::TxWait;  // another warp's transaction runs work-group serialized
        break;
      }
      tx_begin(cta, w, pc, r);
      normalize(w);
      break;
    case Opcode::TxCommit:
      ++writes;
      r.in_tx = true;
      if (w.tx.depth == 0)
        fail(cta, w, std::countr_zero(active), pc, "TX.Commit without a TX.Begin");
      if (w.tx.depth > 1) {
        --w.tx.depth;
        ++top.pc;
        normalize(w);
        break;
      }
      tx_commit(cta, w, pc, r);
      normalize(w);
      break;
    case Opcode::Membar:
    case Opcode::Prefetch:  // a hint: no functional effect
      ++top.pc;
      normalize(w);
      break;
    case Opcode::Shfl:
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
    case Opcode::Activemask:
    case Opcode::BarWarp:
      if (exec) exec_warp(*this, cta, w, pc, exec);
      ++top.pc;
      normalize(w);
      break;
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
    case Opcode::Mma:
    case Opcode::WmmaLoad:
    case Opcode::WmmaStore:
    case Opcode::WmmaMma:
    case Opcode::Wgmma: {
      const std::uint64_t before = stats.shared_accesses;
      if (ins.op == Opcode::Stmatrix || ins.op == Opcode::WmmaStore) ++writes;
      if (exec) exec_matrix(*this, cta, w, pc, exec);
      r.shared_accesses = static_cast<std::uint8_t>(stats.shared_accesses - before);
      ++top.pc;
      normalize(w);
      break;
    }
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncWait: {
      const std::uint64_t before = stats.shared_accesses;
      ++writes;  // the copy, or its landing at the wait
      if (exec) r.global_sectors = exec_cp_async(*this, cta, w, pc, exec);
      r.shared_accesses = static_cast<std::uint8_t>(stats.shared_accesses - before);
      ++top.pc;
      normalize(w);
      break;
    }
    case Opcode::Mbarrier:
    case Opcode::Nanosleep: {
      const std::uint64_t before = stats.shared_accesses;
      const auto kind = ptx::MbarOp(ins.comp);
      if (ins.op == Opcode::Mbarrier && kind != ptx::MbarOp::TestWait &&
          kind != ptx::MbarOp::TryWait && kind != ptx::MbarOp::PendingCount)
        ++writes;  // the object (and, cp.async.mbarrier.arrive, the copies it lands)
      dsm_lanes = 0;
      if (exec) r.waiting = exec_mbarrier(*this, cta, w, pc, exec);
      if (dsm_lanes) [[unlikely]]  // another CTA's mbarrier (.shared::cluster): the network's
        r.dsm_segments = static_cast<std::uint16_t>(dsm_segments(*this));
      w.mbar_waited |= r.waiting;
      r.shared_accesses = static_cast<std::uint8_t>(stats.shared_accesses - before);
      ++top.pc;
      normalize(w);
      break;
    }
    case Opcode::BarCluster:
    case Opcode::Mapa: {
      // An arrival changes the barrier's state, which the cluster's waiting warps (on other SMs
      // in the cycle model) look at: a write, for the spin checks (spin.cpp).
      if (ins.op == Opcode::BarCluster && ins.comp == 0) ++writes;
      const bool wait = exec && exec_cluster(*this, cta, w, pc, exec);
      r.waiting = wait;
      if (!wait) ++top.pc;  // a wait whose phase is incomplete is issued again
      normalize(w);
      break;
    }
    case Opcode::CpBulk: {
      // The copy's shared bytes (a load), the group's completion, or the mbarrier it completes.
      if (ptx::BulkOp(ins.comp) != ptx::BulkOp::Commit &&
          ptx::BulkOp(ins.comp) != ptx::BulkOp::Wait &&
          ptx::BulkOp(ins.comp) != ptx::BulkOp::Prefetch)
        ++writes;  // shared memory (a load) or global memory
      bulk_issued = 0;
      dsm_bulk = 0;
      if (exec)
        r.global_sectors = static_cast<std::uint16_t>(
            std::min<std::uint32_t>(exec_bulk(*this, cta, w, pc, exec), 0xffff));
      r.bulk = bulk_issued;
      r.dsm_segments = static_cast<std::uint16_t>(std::min<std::uint32_t>(dsm_bulk, 0xffff));
      ++top.pc;
      normalize(w);
      break;
    }
    case Opcode::Tex:
    case Opcode::Tld4:
      if (exec) r.global_sectors = exec_texture(*this, cta, w, pc, exec);
      ++top.pc;
      normalize(w);
      break;
    case Opcode::Cvta:
      if (exec) exec_cvta(*this, w, ins, x, exec);
      ++top.pc;
      normalize(w);
      break;
    default:
      if (exec) exec_alu(*this, w, ins, x, exec);
      ++top.pc;
      normalize(w);
      break;
  }
  // A transaction must commit on the path it began on: TX_BEGIN and TX_COMMIT in one block.
  if (w.tx.depth > 0 && w.stack.size() <= w.tx_base)
    fail(cta, w, std::countr_zero(active), pc,
         fmt::format("the transaction begun at line {} left the code path it began on before its "
                     "TX.Commit (TX_BEGIN and TX_COMMIT must be in the same block, reached by the "
                     "warp's lanes together)",
                     kernel.code[w.tx_begin].ptx_line));
  if (w.stack.empty() && w.state != WarpState::Done) warp_done(cta, w);
  r.state = w.state;
  r.moved_others = std::exchange(tm_moved, false);
  r.next = w.stack.empty() ? static_cast<std::uint32_t>(kernel.code.size()) : w.stack.back().pc;
  return r;
}

// ---------------------------------------------------------------------------------------------

Executor::Executor(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch,
                   const Launch& launch, GlobalMemory& memory, std::uint32_t slots,
                   const SharedRemap& remap)
    : impl_(std::make_unique<Impl>(module, kernel, arch, launch, memory, remap)) {
  impl_->ctas.resize(std::max(1u, slots));
}

Executor::Executor(const Executor& primary, std::uint32_t slots)
    : impl_(std::make_unique<Impl>(*primary.impl_)) {
  Impl& im = *impl_;
  // The regions of the module's variables point at the primary's (the copy of module_vars is
  // empty): one copy for all.
  im.stats = {};
  im.tm_done = {};
  im.tm_sites.assign(im.tm_sites.size(), {});
  im.clock = 0;
  im.consumer = nullptr;
  im.tx_observer = {};
  im.progress = {};
  im.deferred = {};
  im.ctas.resize(std::max(1u, slots));
}

Executor::~Executor() = default;

void Executor::set_defer_global(bool on) {
  if (!on) commit_global();
  impl_->defer_global = on;
}
void Executor::commit_global() {
  if (!impl_->deferred.empty()) commit_deferred(*impl_);
}
std::uint64_t Executor::memory_writes() const {
  return impl_->writes;
}
void Executor::set_memory_writes(std::uint64_t n) {
  impl_->writes = n;
}

void Executor::set_consumer(AccessConsumer* consumer) {
  impl_->consumer = consumer;
}
void Executor::set_clock_source(const std::uint64_t* cycles) {
  impl_->clock_source = cycles;
}

void Executor::set_defer_bulk(bool on) {
  impl_->defer_bulk = on;
}
void Executor::set_word_rows(std::vector<std::uint8_t> by_index) {
  impl_->word_rows = std::move(by_index);
}
bool Executor::retry_wait(std::uint32_t slot, std::uint32_t warp, std::uint32_t pc,
                          LaneMask lanes) {
  Cta& cta = impl_->ctas.at(slot);
  Warp& w = cta.warps.at(warp);
  if (impl_->kernel.code.at(pc).op == ptx::Opcode::BarCluster) {
    // barrier.cluster.wait did not move the warp on when its phase was open: it does now.
    if (!detail::retry_cluster_wait(cta, w)) return false;
    ++w.stack.back().pc;
    normalize(w);
    return true;
  }
  return detail::retry_mbar_wait(*impl_, cta, w, pc, lanes);
}

void Executor::land_bulk(std::uint32_t id) {
  detail::land_bulk(*impl_, id);
}

const std::uint64_t* Executor::sectors() const {
  return impl_->wide_active ? impl_->wide_sectors.data() : impl_->sectors.data();
}

std::uint32_t Executor::same_address_lanes() const {
  return impl_->same_address;
}

void Executor::set_count_sectors(bool on) {
  impl_->count_sectors = on;
  impl_->gaddr.fill(kNoSector);
}
std::uint64_t Executor::cta_count() const {
  return impl_->launch.grid.count();
}
std::uint32_t Executor::warps_per_cta() const {
  return impl_->warps;
}
std::uint32_t Executor::slots() const {
  return static_cast<std::uint32_t>(impl_->ctas.size());
}
const SharedLayout& Executor::shared_layout() const {
  return impl_->shared;
}
const ExecStats& Executor::stats() const {
  Impl& im = *impl_;
  if (im.has_tx) {
    im.stats.tm = im.tm_done;
    for (const Cta& c : im.ctas)
      if (c.tm) im.stats.tm.add(c.tm->stats());
    im.stats.tm_sites.clear();
    for (std::uint32_t pc = 0; pc < im.tm_sites.size(); ++pc)
      if (im.tm_sites[pc].attempts) im.stats.tm_sites.push_back({pc, im.tm_sites[pc]});
  }
  return im.stats;
}
void Executor::set_tx_observer(std::function<void(const TxEvent&)> observer) {
  impl_->tx_observer = std::move(observer);
}
bool Executor::uses_tm() const {
  return impl_->has_tx;
}

void Executor::start_cta(std::uint32_t slot, std::uint64_t linear) {
  start_cta(slot, linear, slot);
}

void Executor::start_cta(std::uint32_t slot, std::uint64_t linear, std::uint32_t smid) {
  Impl& im = *impl_;
  Cta& cta = im.ctas.at(slot);
  const Dim3& g = im.launch.grid;
  const Dim3& b = im.launch.block;
  if (linear >= g.count()) throw std::out_of_range("start_cta: no such CTA");
  cta.linear = linear;
  cta.id = {static_cast<std::uint32_t>(linear % g.x),
            static_cast<std::uint32_t>((linear / g.x) % g.y),
            static_cast<std::uint32_t>(linear / (std::uint64_t(g.x) * g.y))};
  const std::size_t per_warp = std::size_t(im.file_rows) * im.lanes;
  cta.regs.assign(per_warp * im.warps, 0);
  cta.shared.assign(im.shared.total_bytes, 0);
  cta.local.assign(im.local_bytes * im.threads, 0);
  cta.warps.resize(im.warps);
  cta.live_warps = im.warps;
  cta.bars.fill(Barrier{});
  cta.wg_owner = -1;
  cta.mbar_tx.clear();
  cta.tma_tiles.clear();
  cta.smid = smid;
  {  // its cluster (issue 46): rank x fastest
    const Dim3& k = im.cluster;
    cta.cluster_rank = (cta.id.x % k.x) + k.x * ((cta.id.y % k.y) + k.y * (cta.id.z % k.z));
    cta.cl = nullptr;
  }
  if (im.race) [[unlikely]]
    race_cta_start(im, cta);
  if (im.has_tx) {
    if (!cta.tm) cta.tm = std::make_unique<tm::CtaTm>(im.arch, im.threads, im.shared.total_bytes);
    im.tm_done.add(cta.tm->stats());
    cta.tm->stats() = {};
    cta.tm->reset();
  }
  ++im.stats.ctas;
  for (std::uint32_t wi = 0; wi < im.warps; ++wi) {
    Warp& w = cta.warps[wi];
    w.index = wi;
    w.regs = cta.regs.data() + per_warp * wi;
    const std::uint32_t first = wi * im.lanes;
    const std::uint32_t n = std::min(im.lanes, im.threads - first);
    w.live = lanes_mask(static_cast<int>(n));
    w.state = WarpState::Ready;
    w.tx = {};
    w.stack.clear();
    w.frames.clear();
    w.copies.clear();
    w.groups = 0;
    w.bar_red_pc = kNoRow;
    w.spin_pc = kNoRow;
    w.spinning = false;
    w.issued = w.spin_armed_at = 0;
    w.cl_arrive = 0;
    w.stack.reserve(16);
    w.stack.push_back({0, kNoRow, w.live});
    auto set = [&](ptx::Special s, std::uint32_t l, std::uint64_t v) {
      const std::uint32_t at = im.special_at[std::size_t(s)];
      if (at != kNoRow) im.row(w, at)[l] = v;
    };
    using S = ptx::Special;
    for (std::uint32_t l = 0; l < im.lanes; ++l) {
      const std::uint32_t t = first + l;
      set(S::TidX, l, t % b.x);
      set(S::TidY, l, (t / b.x) % b.y);
      set(S::TidZ, l, t / (b.x * b.y));
      set(S::NtidX, l, b.x);
      set(S::NtidY, l, b.y);
      set(S::NtidZ, l, b.z);
      set(S::CtaidX, l, cta.id.x);
      set(S::CtaidY, l, cta.id.y);
      set(S::CtaidZ, l, cta.id.z);
      set(S::NctaidX, l, g.x);
      set(S::NctaidY, l, g.y);
      set(S::NctaidZ, l, g.z);
      set(S::LaneId, l, l);
      set(S::WarpId, l, wi);
      set(S::NwarpId, l, im.warps);
      set(S::SmId, l, smid);
      // Clusters (issue 46): the CTA's place in its cluster, x fastest, and its cluster's.
      const Dim3& k = im.cluster;
      const Dim3 in{cta.id.x % k.x, cta.id.y % k.y, cta.id.z % k.z};
      set(S::ClusterCtaidX, l, in.x);
      set(S::ClusterCtaidY, l, in.y);
      set(S::ClusterCtaidZ, l, in.z);
      set(S::ClusterCtarank, l, in.x + k.x * (in.y + k.y * in.z));
      set(S::ClusterIdX, l, cta.id.x / k.x);
      set(S::ClusterIdY, l, cta.id.y / k.y);
      set(S::ClusterIdZ, l, cta.id.z / k.z);
    }
  }
  if (im.board) cluster_join(im, cta);  // once its warps are live (the barrier counts them)
}

WarpState Executor::state(std::uint32_t slot, std::uint32_t warp) const {
  return impl_->ctas.at(slot).warps.at(warp).state;
}

bool Executor::in_transaction(std::uint32_t slot, std::uint32_t warp) const {
  const Warp& w = impl_->ctas.at(slot).warps.at(warp);
  return w.tx.depth > 0 || w.tx.retrying;
}

bool Executor::cta_done(std::uint32_t slot) const {
  return impl_->ctas.at(slot).live_warps == 0;
}

std::uint32_t Executor::next_index(std::uint32_t slot, std::uint32_t warp) const {
  const Warp& w = impl_->ctas.at(slot).warps.at(warp);
  return w.stack.empty() ? static_cast<std::uint32_t>(impl_->kernel.code.size())
                         : w.stack.back().pc;
}

bool Executor::fdiv_slow(std::uint32_t slot, std::uint32_t warp) const {
  Impl& im = *impl_;
  Warp& w = im.ctas.at(slot).warps.at(warp);
  if (w.stack.empty()) return false;
  const std::uint32_t pc = w.stack.back().pc;
  if (pc >= im.kernel.code.size()) return false;
  const XInst& x = im.xcode[pc];
  if (x.row[1] == kNoRow || x.row[2] == kNoRow) return false;
  LaneMask exec = w.stack.back().mask;
  if (x.guard != kNoRow) {
    const std::uint64_t* p = im.row(w, x.guard);
    const std::uint64_t gneg = x.guard_negated();
    each_lane(w.stack.back().mask, [&](int l) {
      if (!((p[l] ^ gneg) & 1)) exec &= ~(LaneMask{1} << l);
    });
  }
  const std::uint64_t* a = im.row(w, x.row[1]);
  const std::uint64_t* b = im.row(w, x.row[2]);
  bool slow = false;
  each_lane(exec, [&](int l) {
    // The biased exponents: 0 is a zero or a subnormal, 255 an infinity or a NaN (the slow
    // path's first test in the SASS: exponent - 1 above 253 unsigned, either operand).
    const int ea = int((a[l] >> 23) & 0xff), eb = int((b[l] >> 23) & 0xff);
    // The fast path (MUFU.RCP and FFMA refinements) is exact while the quotient stays normal:
    // assumed here as an exponent difference within +-126.
    slow |= ea == 0 || ea == 255 || eb == 0 || eb == 255 || ea - eb > 126 || eb - ea > 126;
  });
  return slow;
}

IssueResult Executor::issue(std::uint32_t slot, std::uint32_t warp) {
  Cta& cta = impl_->ctas.at(slot);
  Warp& w = cta.warps.at(warp);
  if (w.state != WarpState::Ready) throw std::logic_error("issue: the warp is not ready");
  return impl_->issue(cta, w);
}

void Executor::set_progress(std::function<void(std::uint64_t, std::uint64_t)> progress) {
  impl_->progress = std::move(progress);
}

void Executor::set_max_steps(std::uint64_t steps) {
  impl_->max_steps = steps;
}

}  // namespace smemsim::exec

// Global memory of one SM (docs/timing.md "Global memory", "Caches"): an instruction's lanes are
// coalesced into 32-byte sectors (exec::IssueResult::global_sectors, their addresses
// exec::Executor::sectors); where the arch has caches each sector is looked up at issue, in issue
// order, in the SM's L1 and its share of the L2 (classify). The SM's requests queue (32 entries)
// and leave as their sectors find bandwidth: L1 hits at sm.l1_bytes_per_cycle, L2 hits at
// sm.l2_bytes_per_cycle, the rest (and every store and atomic) at sm.global_bytes_per_cycle. A
// load's data returns the latency of the farthest level one of its sectors came from after its
// last sector left (sm.l1_latency, sm.l2_latency or sm.global_latency), an atomic's after
// sm.global_atomic_latency, and competes for writeback; a store is done when its last sector left.
// Returning data goes to the writeback port of the sub-core that sent the request
// (sm.subcores): one return queue per sub-core. That is the model without a shared L2 (no
// contention between SMs). With a shared L2 (sm.l2_slices, l2.hpp) the L2 is not the SM's: classify
// looks up the L1 only and hands back the sectors bound for the L2; those leave the queue at the
// SM's port rate (sm.l2_bytes_per_cycle) where their slice has room, and at the end of the cycle
// (resolve, in SM order) the L2 serves them and says when the data is back.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/ptx.hpp"
#include "timing/cache.hpp"
#include "timing/l2.hpp"
#include "util/zeroed.hpp"

namespace smemsim::timing {

class GlobalMemoryUnit {
 public:
  enum class Kind : std::uint8_t { Load, Store, Atomic };
  static constexpr std::size_t kQueue = 32;

  // Where a request's sectors were found: the rest of them come from DRAM.
  // `same`: an atomic's most lanes on one address (0 or 1: none share one).
  // With a shared L2, `own`: the fill this load starts (its L1 misses allocated, data on its
  // way; 0 if none); `wait`: an L1 hit on a sector another load's fill has not brought yet (the
  // GPU counts it a hit, and its data comes with that fill): the latest such fill's number, or
  // `ready` its cycle where the fill is already timed.
  struct Split {
    std::uint16_t l1, l2, same;
    std::uint32_t own, wait;  // the members left out of a brace list are 0
    std::uint64_t ready;
  };

  // `l1_bytes`: the L1 the launch's carve-out leaves (arch l1_capacity). `l2`: the L2 every SM
  // shares, or nullptr: then the SM models its share of it, sm.l2_bytes / sm.count.
  GlobalMemoryUnit(const SmConfig& sm, std::uint64_t l1_bytes, SharedL2* l2 = nullptr)
      : l2s_(l2 && l2->on() ? l2 : nullptr),
        dram_(sm.global_bytes_per_cycle),
        l1_bw_(sm.l1_bytes_per_cycle),
        l2_bw_(sm.l2_bytes_per_cycle),
        write_bw_(sm.l2_write_bytes_per_cycle),
        load_latency_(sm.global_latency),
        atomic_latency_(sm.global_atomic_latency),
        atomic_serial_(sm.l2_atomic_cycles),
        l1_latency_(sm.l1_latency),
        l2_latency_(sm.l2_latency),
        returns_(sm.subcores) {
    l1_.configure(l1_bytes, sm.l1_sets);
    if (!l2s_) l2_.configure_ways(sm.count ? sm.l2_bytes / sm.count : 0, sm.l2_ways);
  }
  bool caches() const { return l1_.on() || l2_.on() || l2s_; }
  bool shared_l2() const { return l2s_ != nullptr; }
  // Sector ranges a load finds in the L2 whatever the SM's share holds (TimingOptions::warm_l2).
  void set_resident(const std::vector<std::pair<std::uint64_t, std::uint64_t>>* r) {
    resident_ = r && !r->empty() ? r : nullptr;
  }
  std::uint64_t l1_bytes() const { return l1_.on() ? l1_.bytes() : 0; }

  // Looks the sectors of one instruction up (issue order) and updates the caches: loads allocate
  // in the L2 and, unless .cg, .cv or .volatile (`strong`: the L1 is not coherent, so a volatile
  // load reads the L2, as ptxas makes it LDG.E.STRONG), in the L1; .cv reads memory again; a
  // global store writes through the L1 (a valid sector stays, nothing is allocated) into the L2;
  // local memory is written back in the L1 (allocated there); an atomic invalidates its L1
  // sectors and is done at the L2. Only loads' hits are returned: without a shared L2, stores and
  // atomics move their sectors at the DRAM's rate, as without caches. A load with `no_allocate`
  // (.L1::no_allocate) hits the L1 but does not allocate there on a miss. With a shared L2, the
  // sectors bound for it (L1 misses, stores, atomics) are appended to `to_l2` in their order, and
  // none is an L2 hit yet.
  // With a shared L2 an L1 hit on a sector whose fill is still on its way waits for that fill
  // (`now`: the issue cycle; see Split).
  Split classify(const std::uint64_t* sec, std::uint32_t n, Kind kind, ptx::CacheOp op, bool local,
                 bool strong, bool no_allocate = false, std::vector<std::uint64_t>* to_l2 = nullptr,
                 std::uint64_t now = 0) {
    Split s{};
    if (!caches()) return s;
    const bool l1_ok = l1_.on() && !strong && op != ptx::CacheOp::Cg && op != ptx::CacheOp::Cv;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t x = sec[i];
      if (kind == Kind::Load) {
        if (l1_ok && l1_.access(x, !no_allocate)) {
          ++s.l1;
          if (to_l2 && !filling_.empty()) pending_hit(x, now, s);
          continue;
        }
        if (to_l2) {
          to_l2->push_back(x);
          if (l1_ok && !no_allocate) {  // allocated: its data comes with this load's fill
            if (!s.own) {
              if (next_fill_ == 0) next_fill_ = 1;  // 0 means none (after 2^32 fills)
              s.own = next_fill_++;
            }
            filling_[x] = kPendingBit | s.own;
          }
          continue;
        }
        if (l2_.on()) {
          if (op == ptx::CacheOp::Cv)
            l2_.invalidate(x);
          else if (l2_.access(x, true) || resident(x))
            ++s.l2;
        }
      } else if (kind == Kind::Store) {
        if (to_l2 && !filling_.empty()) filling_.erase(x);  // the store's data is the L1's now
        if (local)
          l1_.access(x, true);
        else
          l1_.touch(x);
        if (to_l2)
          to_l2->push_back(x);
        else
          l2_.access(x, true);
      } else {
        l1_.invalidate(x);
        if (to_l2 && !filling_.empty()) filling_.erase(x);
        if (to_l2)
          to_l2->push_back(x);
        else
          l2_.access(x, true);
      }
    }
    return s;
  }

  bool can_send() const { return queue_.size() < kQueue; }
  // `sub`: the sub-core whose writeback port takes the returning data; `found`: the sectors the
  // caches hold (classify).
  // With a shared L2: `to_l2` the request's sectors bound for it (sectors - found.l1 of them),
  // `again` a .cv load, `row` the instruction its L2 hits are counted for (resolve).
  void send(std::uint32_t op, std::uint32_t sectors, Kind kind, std::uint32_t sub = 0,
            Split found = {}, const std::uint64_t* to_l2 = nullptr, bool again = false,
            std::uint32_t row = 0) {
    queue_.push_back({op, sectors, found.l1, found.l2, kind, sub, latency(kind, sectors, found)});
    if (!l2s_) return;
    Request& r = queue_.back();
    r.to_l2 = sectors - found.l1;
    r.again = again;
    r.same = found.same;
    r.row = row;
    r.own = found.own;
    r.wait = found.wait;
    r.ready = found.ready;
    addr_.insert(addr_.end(), to_l2, to_l2 + r.to_l2);
  }
  // Moves this cycle's bytes; calls stored(op) for every store whose last sector left.
  template <typename F>
  void tick(std::uint64_t now, F&& stored) {
    // Bytes accrue every cycle, also the ones the GPU skipped, up to one sector's worth of slack.
    const std::uint64_t elapsed = std::min<std::uint64_t>(now - last_, 64);
    last_ = now;
    dram_.accrue(elapsed);
    l1_bw_.accrue(elapsed);
    l2_bw_.accrue(elapsed);
    write_bw_.accrue(elapsed);
    while (!queue_.empty()) {
      Request& r = queue_.front();
      l1_bw_.take(r.l1, r.sectors);
      if (l2s_) {
        // Through the SM's port, each sector once its slice has room: a store's by the port's
        // way toward the L2 where the arch gives it one (sm.l2_write_bytes_per_cycle).
        Path& port = r.kind == Kind::Store && write_bw_.rate ? write_bw_ : l2_bw_;
        while (r.sectors > r.l1 && (!port.rate || port.credit >= 32) &&
               l2s_->accepts(l2s_->slice_of(addr_[r.to_l2 - (r.sectors - r.l1)]), now)) {
          if (port.rate) port.credit -= 32;
          --r.sectors;
        }
      } else {
        l2_bw_.take(r.l2, r.sectors);
        std::uint32_t dram = r.sectors - r.l1 - r.l2;
        dram_.take(dram, r.sectors);
      }
      if (r.sectors) break;
      // The L2 serves it at the end of the cycle (resolve); there too a load whose L1 hits wait
      // for a fill learns when that fill lands.
      if (l2s_ && (r.to_l2 || r.wait || r.ready > now + r.latency)) {
        departed_.push_back({r.op, r.sub, r.kind, r.again, r.same, r.row,
                             std::uint32_t(left_.size()), r.to_l2, r.own, r.wait,
                             r.to_l2 ? r.ready : std::max(r.ready, now + r.latency)});
        left_.insert(left_.end(), addr_.begin(), addr_.begin() + r.to_l2);
        addr_.erase(addr_.begin(), addr_.begin() + r.to_l2);
        if (r.kind == Kind::Store) stored(r.op);
        queue_.pop_front();
        continue;
      }
      if (r.kind == Kind::Store)
        stored(r.op);
      else
        (r.kind == Kind::Load ? returns_[r.sub].loads : returns_[r.sub].atomics)
            .push_back({r.op, now + r.latency});
      refresh(r.sub);
      queue_.pop_front();
    }
  }
  bool return_ready(std::uint64_t now, std::uint32_t sub = 0) const { return head_at_[sub] <= now; }
  // The earliest ready return to `sub` (loads before atomics on a tie).
  std::uint32_t pop_return(std::uint64_t now, std::uint32_t sub = 0) {
    Returns& r = returns_[sub];
    auto& q = (!r.loads.empty() && r.loads.front().at <= now &&
               (r.atomics.empty() || r.loads.front().at <= r.atomics.front().at))
                  ? r.loads
                  : r.atomics;
    const std::uint32_t op = q.front().op;
    q.pop_front();
    refresh(sub);
    return op;
  }
  // The end of cycle `now` (GpuSim's commit, SM order): the L2 serves the requests that left the
  // queue in it; a load's or atomic's data returns when the L2 says. hit(row, sectors) for each.
  template <typename F>
  void resolve(std::uint64_t now, F&& hit) {
    for (const Departed& d : departed_) {
      const SharedL2::Access a = d.kind == Kind::Store    ? SharedL2::Access::Store
                                 : d.kind == Kind::Atomic ? SharedL2::Access::Atomic
                                 : d.again                ? SharedL2::Access::LoadAgain
                                                          : SharedL2::Access::Load;
      SharedL2::Served sv{};
      if (d.n) {
        sv = l2s_->serve(left_.data() + d.first, d.n, a, d.same, now);
        if (sv.hits) hit(d.row, sv.hits);
      }
      if (d.kind == Kind::Store) continue;
      // An L1 hit on a sector still being filled: its data comes with the fill (a fill not yet
      // timed, its request still queued behind this one, is taken as an L2 hit's time).
      sv.at = std::max(sv.at, d.ready);
      if (d.wait) sv.at = std::max(sv.at, fill_landed(d.wait, now));
      if (d.own) landed(d.own, sv.at, left_.data() + d.first, d.n);
      // The L1's hits of the same request (their latency is the shorter) come back with it.
      (d.kind == Kind::Load ? returns_[d.sub].loads : returns_[d.sub].atomics)
          .push_back({d.op, std::max(sv.at, now + 1)});
      refresh(d.sub);
    }
    departed_.clear();
    left_.clear();
    // Forget fills that have landed, now and then (a hit on one finds it landed anyway).
    if (filling_.size() > sweep_at_) {
      for (auto it = filling_.begin(); it != filling_.end();)
        it = (it->second & kPendingBit) || it->second > now ? std::next(it) : filling_.erase(it);
      sweep_at_ = std::max(kFillingSweep, 2 * filling_.size());
    }
  }
  bool resolving() const { return !departed_.empty(); }
  // Nothing to send or to resolve: at most data waiting to return at known cycles, which moves
  // nothing another SM sees (GpuSim's run-ahead).
  bool only_returns() const { return queue_.empty() && departed_.empty(); }
  bool empty() const {
    if (!queue_.empty() || !departed_.empty()) return false;
    for (const Returns& r : returns_)
      if (!r.loads.empty() || !r.atomics.empty()) return false;
    return true;
  }
  // The cycle something here next changes on its own (for skipping idle cycles); ~0 when idle.
  std::uint64_t next_event(std::uint64_t now) const {
    if (!queue_.empty()) return now + 1;
    std::uint64_t t = ~std::uint64_t{0};
    for (std::size_t k = 0; k < returns_.size(); ++k) t = std::min(t, head_at_[k]);
    return t;
  }

 private:
  struct Request {
    std::uint32_t op;
    std::uint32_t sectors;  // left to move (l1 and l2 of them from the caches)
    std::uint32_t l1, l2;
    Kind kind;
    std::uint32_t sub;
    std::uint64_t latency;  // from its last sector leaving to its data's return
    // A shared L2's: the sectors bound for it (the first of addr_), a .cv load, an atomic's most
    // lanes on one word, the instruction's row.
    std::uint32_t to_l2 = 0;
    bool again = false;
    std::uint16_t same = 0;
    std::uint32_t row = 0;
    std::uint32_t own = 0, wait = 0;  // Split's
    std::uint64_t ready = 0;
  };
  // A request that left the queue this cycle for the shared L2: its sectors are left_[first,
  // first + n).
  struct Departed {
    std::uint32_t op, sub;
    Kind kind;
    bool again;
    std::uint16_t same;
    std::uint32_t row, first, n;
    std::uint32_t own, wait;
    std::uint64_t ready;  // its L1 hits' data: at this cycle at the earliest
  };
  struct Return {
    std::uint32_t op;
    std::uint64_t at;
  };
  // Bytes a path may move: `rate` a cycle (0: unlimited), up to one sector's worth of slack.
  struct Path {
    explicit Path(std::uint64_t r) : rate(r) {}
    void accrue(std::uint64_t cycles) {
      if (rate) credit = std::min<std::uint64_t>(credit + rate * cycles, rate + 32);
    }
    // Moves what it can of `left` of the request's sectors on this path (`total` counts down
    // with them).
    void take(std::uint32_t& left, std::uint32_t& total) {
      while (left && (!rate || credit >= 32)) {
        if (rate) credit -= 32;
        --left;
        --total;
      }
    }
    std::uint64_t rate, credit = 0;
  };
  std::uint64_t latency(Kind kind, std::uint32_t sectors, Split f) const {
    // Every lane off (a predicated-off access, as if-conversion makes them): no request leaves
    // the SM, nothing comes back to wait for.
    if (!sectors) return 0;
    if (kind == Kind::Atomic)  // the lanes on one word updated one after another at the L2
      return atomic_latency_ + atomic_serial_ * (f.same > 1 ? f.same - 1u : 0u);
    if (kind == Kind::Store || std::uint32_t(f.l1) + f.l2 < sectors) return load_latency_;
    return f.l2 ? l2_latency_ : l1_latency_;
  }
  // The fills in flight: kPendingBit | its number while the load is queued, then the cycle its
  // data lands. The ring keeps each timed fill's cycle for the loads that took its number before
  // it was timed.
  static constexpr std::uint64_t kPendingBit = std::uint64_t{1} << 63;
  // The map keeps a landed fill until a hit finds it or a sweep: when it has doubled since the
  // last sweep (and holds kFillingSweep at least), every landed one goes. So it holds at most
  // twice the sectors still on their way, and sweeping costs a constant a fill.
  static constexpr std::size_t kFillRing = 4096, kFillingSweep = 4096;
  std::size_t sweep_at_ = kFillingSweep;
  void pending_hit(std::uint64_t x, std::uint64_t now, Split& s) {
    const auto it = filling_.find(x);
    if (it == filling_.end()) return;
    if (it->second & kPendingBit) {
      s.wait = std::max(s.wait, std::uint32_t(it->second));
    } else if (it->second > now) {
      s.ready = std::max(s.ready, it->second);
    } else {
      filling_.erase(it);
    }
  }
  std::uint64_t fill_landed(std::uint32_t fill, std::uint64_t now) const {
    const FillSlot& f = fill_ring_[fill % kFillRing];
    return f.fill == fill ? f.at : now + l2_latency_;
  }
  void landed(std::uint32_t own, std::uint64_t at, const std::uint64_t* sec, std::uint32_t n) {
    fill_ring_[own % kFillRing] = {own, at};
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto it = filling_.find(sec[i]);
      if (it != filling_.end() && it->second == (kPendingBit | own)) it->second = at;
    }
  }
  std::unordered_map<std::uint64_t, std::uint64_t> filling_;  // sector: see kPendingBit
  struct FillSlot {
    std::uint32_t fill;  // its number (0: none yet)
    std::uint64_t at;
  };
  util::Zeroed<FillSlot> fill_ring_{kFillRing};  // not written until used (an SM's 64 KB)
  std::uint32_t next_fill_ = 1;
  bool resident(std::uint64_t x) const {
    if (!resident_) return false;
    for (const auto& [lo, hi] : *resident_)
      if (x >= lo && x < hi) return true;
    return false;
  }
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>* resident_ = nullptr;
  SharedL2* l2s_;
  std::deque<std::uint64_t> addr_;  // the queued requests' sectors bound for the shared L2
  std::vector<Departed> departed_;
  std::vector<std::uint64_t> left_;
  Path dram_, l1_bw_, l2_bw_, write_bw_;
  std::uint64_t load_latency_, atomic_latency_, atomic_serial_, l1_latency_, l2_latency_;
  SectorCache l1_, l2_;
  std::uint64_t last_ = ~std::uint64_t{0};  // cycle of the last tick (the first adds one cycle)
  struct Returns {
    std::deque<Return> loads, atomics;
  };
  // The earlier of sub-core k's two queue heads' return cycles (~0: both empty), kept here so
  // that the writeback port's look every cycle reads one word of the unit, not two deques
  // (issue 49).
  void refresh(std::uint32_t k) {
    const Returns& r = returns_[k];
    head_at_[k] = std::min(r.loads.empty() ? ~std::uint64_t{0} : r.loads.front().at,
                           r.atomics.empty() ? ~std::uint64_t{0} : r.atomics.front().at);
  }
  std::deque<Request> queue_;
  std::vector<Returns> returns_;                // per sub-core
  std::array<std::uint64_t, 8> head_at_ = [] {  // sm.subcores <= 8
    std::array<std::uint64_t, 8> a;
    a.fill(~std::uint64_t{0});
    return a;
  }();
};

}  // namespace smemsim::timing

// The MIO (memory input/output) of a Volta-Hopper SM (docs/timing.md "MIO queues"), as NVIDIA
// describes it on its developer forum (docs/sources.md [NVF-MIO]): each sub-core sends its
// load/store-unit instructions into an instruction queue of its own, a FIFO between the sub-core
// and the SM's MIO scheduler, which dispatches them to the execution units the sub-cores share; a
// warp whose next instruction goes to a full queue is stalled on "MIO throttle".
//
// Here (sm.mio_queue = D > 0): a shared-memory op takes an entry of its sub-core's queue when it
// issues (Sm::issue refuses a warp whose shared access would not fit: Stall::MioThrottle), leaves
// the sub-core's pipeline at MEM0 into the queue (so ALU ops behind it go on), and frees the entry
// when its last bank pass is done. Each cycle the scheduler gives the SM's shared-memory port to
// the oldest queue head whose next pass is due: one bank pass per cycle for the whole SM; a head
// with more passes waits for them (its replay cost), and its queue behind it. After its last pass
// an op returns to its sub-core's writeback port `tail` cycles later: the part of its latency that
// the hardware spends after the queue (Sm::mio_tail), so that a conflict-free access takes exactly
// its sm.lat_shared_* as without the queue.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "timing/op.hpp"

namespace smemsim::timing {

// A FIFO in one vector whose storage is kept: the queues empty and refill every few cycles on
// every SM, and a std::deque would allocate and free its blocks as they do (and spread the SMs'
// queues over the heap).
template <typename T>
class Fifo {
 public:
  bool empty() const { return head_ == v_.size(); }
  std::size_t size() const { return v_.size() - head_; }
  T& front() { return v_[head_]; }
  const T& front() const { return v_[head_]; }
  void push_back(const T& x) { v_.push_back(x); }
  void pop_front() {
    if (++head_ == v_.size()) {
      v_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= v_.size()) {  // never empty: drop the popped half
      v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<T> v_;
  std::size_t head_ = 0;
};

class MioUnit {
 public:
  MioUnit(std::uint32_t subcores, std::uint32_t depth)
      : depth_(depth), used_(subcores, 0), queues_(subcores), returns_(subcores), far_(subcores) {}

  bool on() const { return depth_ != 0; }
  // Whether sub-core `sub`'s queue has `n` free entries (counted from issue).
  bool room(std::uint32_t sub, std::uint32_t n) const { return used_[sub] + n <= depth_; }
  void reserve(std::uint32_t sub) { ++used_[sub]; }
  // The op reached MEM0: it waits in its sub-core's queue; `tail` as above.
  void send(std::uint32_t op, std::uint32_t sub, std::uint64_t seq, std::uint32_t tail,
            std::uint64_t now) {
    queues_[sub].push_back({op, seq, now, tail, false});
    waiting_ |= 1u << sub;
  }

  // One cycle, after the sub-cores' pipelines moved (an op sent in this cycle may pass in it).
  // plan(op) computes an op's passes at its first (Sm::mem0_plan); port() asks for the SM's
  // shared-memory port (false: a sub-core's global op has it); hold(bool) keeps it for the next
  // cycle's back-to-back pass; done(op) after an op's last pass.
  template <typename Plan, typename Port, typename Hold, typename Done>
  void tick(std::uint64_t now, std::vector<Op>& ops, Plan&& plan, Port&& port, Hold&& hold,
            Done&& done) {
    if (!waiting_) return;  // every queue empty: no head, no port asked for
    Entry* head = nullptr;
    std::uint32_t from = 0;
    for (std::uint32_t k = 0; k < queues_.size(); ++k) {
      if (queues_[k].empty()) continue;
      Entry& e = queues_[k].front();
      if (e.due <= now && (!head || e.seq < head->seq)) head = &e, from = k;
    }
    if (!head || !port()) return;
    passed_ = {head->op, from, now};
    Op& o = ops[head->op];
    if (!head->planned) {
      plan(head->op);
      head->planned = true;
    }
    if (o.passes)
      --o.passes;
    else if (o.passes2)
      --o.passes2;
    else if (o.tm_passes)
      --o.tm_passes;
    if (o.passes || o.passes2 || o.tm_passes) {
      const std::uint32_t r = std::max<std::uint32_t>(1, o.passes    ? o.replay
                                                         : o.passes2 ? o.replay2
                                                                     : 1);
      head->due = now + r;
      hold(r == 1);
      return;
    }
    hold(false);
    done(head->op);
    if (o.far) {  // over the SM-to-SM network: it returns in its own queue, not behind others'
      far_[from].push_back({head->op, now + head->tail + o.far});
    } else {
      if (returns_[from].empty()) return_at_[from] = now + head->tail;
      returns_[from].push_back({head->op, now + head->tail});
    }
    queues_[from].pop_front();
    if (queues_[from].empty()) waiting_ &= ~(1u << from);
    --used_[from];
  }

  // For --pipeview: sub-core `sub`'s op that passed the banks in cycle `now`, else its queue's
  // head (false: neither), and the entries waiting behind it.
  bool shown(std::uint32_t sub, std::uint64_t now, std::uint32_t& op, bool& passing,
             std::uint32_t& behind) const {
    const Fifo<Entry>& q = queues_[sub];
    passing = passed_.at == now && passed_.sub == sub;
    if (!passing && q.empty()) return false;
    op = passing ? passed_.op : q.front().op;
    const bool popped = passing && (q.empty() || q.front().op != passed_.op);
    behind = std::uint32_t(q.size() - (popped || q.empty() ? 0 : 1));
    return true;
  }

  bool return_ready(std::uint64_t now, std::uint32_t sub) const {
    return return_at_[sub] <= now || (!far_[sub].empty() && far_[sub].front().at <= now);
  }
  std::uint32_t pop_return(std::uint32_t sub) {
    // The earlier of the two queues' heads (the local one on a tie).
    if (!far_[sub].empty() && far_[sub].front().at < return_at_[sub]) {
      const std::uint32_t op = far_[sub].front().op;
      far_[sub].pop_front();
      return op;
    }
    const std::uint32_t op = returns_[sub].front().op;
    returns_[sub].pop_front();
    return_at_[sub] = returns_[sub].empty() ? ~std::uint64_t{0} : returns_[sub].front().at;
    return op;
  }
  bool empty() const {
    for (std::size_t k = 0; k < queues_.size(); ++k)
      if (!queues_[k].empty() || !returns_[k].empty() || !far_[k].empty()) return false;
    return true;
  }
  // The first cycle after `now` in which a pass or a return is due (~0: none).
  std::uint64_t next_event(std::uint64_t now) const {
    std::uint64_t t = ~std::uint64_t{0};
    for (std::size_t k = 0; k < queues_.size(); ++k) {
      if (!queues_[k].empty()) t = std::min(t, std::max(queues_[k].front().due, now + 1));
      if (!returns_[k].empty()) t = std::min(t, std::max(returns_[k].front().at, now + 1));
      if (!far_[k].empty()) t = std::min(t, std::max(far_[k].front().at, now + 1));
    }
    return t;
  }

 private:
  struct Entry {
    std::uint32_t op;
    std::uint64_t seq;  // issue order: the oldest head gets the port
    std::uint64_t due;  // the cycle its next pass may be made
    std::uint32_t tail;
    bool planned;
  };
  struct Return {
    std::uint32_t op;
    std::uint64_t at;
  };
  std::uint32_t depth_;
  std::vector<std::uint32_t> used_;  // per sub-core: entries taken (issued, last pass not done)
  std::vector<Fifo<Entry>> queues_;
  std::vector<Fifo<Return>> returns_;
  std::vector<Fifo<Return>> far_;  // distributed shared memory's returns (Op::far), in order
  // Kept beside the queues so that the cycle's looks read the unit, not every queue (issue 49):
  // the sub-cores whose queue holds ops, and each one's first return cycle (~0: none).
  std::uint32_t waiting_ = 0;
  struct Pass {
    std::uint32_t op = 0, sub = 0;
    std::uint64_t at = ~std::uint64_t{0};
  } passed_;                                      // the last bank pass the port gave (pipeview)
  std::array<std::uint64_t, 8> return_at_ = [] {  // sm.subcores <= 8
    std::array<std::uint64_t, 8> a;
    a.fill(~std::uint64_t{0});
    return a;
  }();
};

}  // namespace smemsim::timing

// A run of N pipeline stages without a blocking point inside: per-latch semantics (an op advances
// when the latch ahead is free or being vacated in the same cycle) held as a FIFO.
//
// An op pushed at cycle e is in stage k at cycle e + k when nothing ahead blocks it, and may leave
// the line (enter the next unit) at cycle e + N. Only the head leaves, at most one op per cycle, so
// behind a blocked head the ops bunch up latch by latch. Stage 0 is free in a cycle exactly when,
// after this cycle's departure, fewer than N ops remain: if fewer than N latches are full there is
// an empty latch ahead of stage 0 and everything behind it moves. That makes the FIFO exact for the
// latch pipeline it stands for, at a cost per cycle that does not grow with N.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace smemsim::timing {

class DelayLine {
 public:
  explicit DelayLine(std::uint32_t stages = 1) { reset(stages); }
  void reset(std::uint32_t stages) {
    n_ = stages;
    buf_.assign(std::size_t(stages) + 1, {});
    head_ = size_ = 0;
  }
  std::uint32_t stages() const { return n_; }
  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ >= n_; }

  // The head may leave in cycle `now`.
  bool head_ready(std::uint64_t now) const { return size_ && buf_[head_].exit <= now; }
  std::uint32_t head() const { return buf_[head_].op; }
  std::uint64_t head_exit() const { return buf_[head_].exit; }
  std::uint32_t pop() {
    const std::uint32_t op = buf_[head_].op;
    head_ = at(1);
    --size_;
    return op;
  }
  // Stage 0 takes `op` in cycle `now` (the caller checked !full() after departures).
  void push(std::uint32_t op, std::uint64_t now) {
    assert(size_ < n_);
    buf_[at(size_)] = {op, now + n_};
    ++size_;
  }

  // As a queue (seed 004's NONMEM and PREMEM queues): `op` enters and may leave from cycle `exit`
  // on; every entry of a queue is ready, so only its capacity matters.
  void push_ready(std::uint32_t op, std::uint64_t exit) {
    assert(size_ < n_);
    buf_[at(size_)] = {op, exit};
    ++size_;
  }
  // f(op, position) from the head (position 0) back.
  template <typename F>
  void each(F&& f) const {
    for (std::uint32_t k = 0; k < size_; ++k) f(buf_[at(k)].op, k);
  }

  // Stage of each op in cycle `now` (for the pipeline view): the head is as far as it got, each
  // other op as far as its age allows behind the one ahead. f(op, stage).
  template <typename F>
  void each_stage(std::uint64_t now, F&& f) const {
    std::int64_t ahead = n_;  // stage of the op ahead (n_: none)
    for (std::uint32_t k = 0; k < size_; ++k) {
      const Entry& e = buf_[at(k)];
      const std::int64_t age = static_cast<std::int64_t>(now) -
                               (static_cast<std::int64_t>(e.exit) - static_cast<std::int64_t>(n_));
      std::int64_t stage = std::min<std::int64_t>(age, ahead - 1);
      if (stage < 0) stage = 0;
      f(e.op, static_cast<std::uint32_t>(stage));
      ahead = stage;
    }
  }

 private:
  struct Entry {
    std::uint32_t op = 0;
    std::uint64_t exit = 0;  // earliest cycle it may leave
  };
  // The slot k entries behind the head (k <= n_): a ring of n_ + 1 slots, wrapped by a compare,
  // not a division (issue 49: every op passes several lines a cycle).
  std::uint32_t at(std::uint32_t k) const {
    const std::uint32_t i = head_ + k;
    return i >= n_ + 1 ? i - (n_ + 1) : i;
  }
  std::uint32_t n_ = 1;
  std::vector<Entry> buf_;
  std::uint32_t head_ = 0, size_ = 0;
};

}  // namespace smemsim::timing

// An SM's outbox (issue 31): what an SM ticking on a worker thread hands to the shared consumers
// (the caller's AccessConsumer and Observer, the --sample-ctas CTA log, the per-instruction
// statistics) is kept here during the cycle and delivered by GpuSim after every SM has ticked, in
// SM order: the order in which one thread ticking the SMs one after the other calls them. So a
// timeline or a trace is the same, byte for byte, for every thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/timing.hpp"

namespace smemsim::timing {

// Observer events, kept to be replayed.
class BufferedObserver final : public Observer {
 public:
  explicit BufferedObserver(Observer* target) : target_(target) {}
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override {
    events_.push_back({Kind::Issue, micro, Stall::Issued, sm, warp, index, 0, cycle, 0, 0});
  }
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t issued, std::uint64_t cycle) override {
    events_.push_back({Kind::Complete, micro, Stall::Issued, sm, warp, index, issued, cycle, 0, 0});
  }
  void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) override {
    events_.push_back({Kind::Stall, 0, why, sm, 0, 0, 0, cycle, 0, 0});
  }
  void on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                        std::uint64_t cycle) override {
    events_.push_back({Kind::SubStall, 0, why, sm, sub, 0, 0, cycle, 0, 0});
  }
  void on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                     std::uint32_t warp_in_cta, std::uint64_t cycle) override {
    events_.push_back({Kind::WarpStart, 0, Stall::Issued, sm, warp, warp_in_cta, cta, cycle, 0, 0});
  }
  // A const query of the target: the observers' (PipeView, ObserverFan) read only their settings.
  bool wants_stages(std::uint32_t sm) const override { return target_->wants_stages(sm); }
  void on_stages(std::uint32_t sm, std::uint64_t cycle, const std::vector<StageCell>& c) override {
    const auto first = std::uint32_t(cells_.size());
    cells_.insert(cells_.end(), c.begin(), c.end());
    events_.push_back(
        {Kind::Stages, 0, Stall::Issued, sm, 0, 0, 0, cycle, first, std::uint32_t(cells_.size())});
  }
  // Replays the events on the target, in the order they came, and forgets them.
  void flush();

 private:
  enum class Kind : std::uint8_t { Issue, Complete, Stall, SubStall, WarpStart, Stages };
  struct Event {
    Kind kind;
    std::uint8_t micro;
    Stall why;
    std::uint32_t sm, warp, index;  // SubStall: `warp` is the sub-core; WarpStart: `index` is the
                                    // warp in its CTA, `issued` the CTA
    std::uint64_t issued, cycle;
    std::uint32_t first, end;  // Stages: its cells in cells_
  };
  Observer* target_;
  std::vector<Event> events_;
  std::vector<StageCell> cells_;
  std::vector<StageCell> scratch_;
};

// WarpAccesses, kept to be handed on.
class BufferedConsumer final : public exec::AccessConsumer {
 public:
  explicit BufferedConsumer(exec::AccessConsumer* target) : target_(target) {}
  void on_access(const WarpAccess& wa) override { accesses_.push_back(wa); }
  void flush() {
    for (const WarpAccess& wa : accesses_) target_->on_access(wa);
    accesses_.clear();
  }

 private:
  exec::AccessConsumer* target_;
  std::vector<WarpAccess> accesses_;
};

struct Outbox {
  Outbox(Observer* observer, exec::AccessConsumer* consumer, std::size_t instructions)
      : observer(observer), consumer(consumer), instr(instructions) {}
  BufferedObserver observer;
  BufferedConsumer consumer;
  std::vector<CtaRecord> ctas;    // retired this cycle (--sample-ctas)
  std::vector<InstrStats> instr;  // per-instruction statistics, summed at the end
};

}  // namespace smemsim::timing

// An SM's outbox: replaying the events it kept (outbox.hpp).
#include "timing/outbox.hpp"

namespace smemsim::timing {

void BufferedObserver::flush() {
  for (const Event& e : events_) {
    switch (e.kind) {
      case Kind::Issue:
        target_->on_issue(e.sm, e.warp, e.index, e.micro, e.cycle);
        break;
      case Kind::Complete:
        target_->on_complete(e.sm, e.warp, e.index, e.micro, e.issued, e.cycle);
        break;
      case Kind::Stall:
        target_->on_stall(e.sm, e.why, e.cycle);
        break;
      case Kind::SubStall:
        target_->on_subcore_stall(e.sm, e.warp, e.why, e.cycle);
        break;
      case Kind::WarpStart:
        target_->on_warp_start(e.sm, e.warp, e.issued, e.index, e.cycle);
        break;
      case Kind::Stages:
        scratch_.assign(cells_.begin() + e.first, cells_.begin() + e.end);
        target_->on_stages(e.sm, e.cycle, scratch_);
        break;
    }
  }
  events_.clear();
  cells_.clear();
}

}  // namespace smemsim::timing

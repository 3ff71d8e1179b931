// SM pipelines (DESIGN.md "The cycle-level layer"): one interface, implementations chosen by name
// from the registry (timing::pipelines()). An implementation owns its stages and latches and moves
// Ops through them one cycle per advance(); the SM puts one op into the first front-end stage per
// cycle when can_issue(). pipeline_inorder.cpp implements seed 004's three: unified, split and
// elastic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"
#include "timing/op.hpp"

namespace smemsim::timing {

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  // One cycle: writeback first, then every stage back to front, so that a latch vacated in this
  // cycle can be filled in this cycle.
  virtual void advance(std::uint64_t now) = 0;
  // After advance(): the first front-end stage is free in this cycle.
  virtual bool can_issue() const = 0;
  // Why it is not (BankConflict, Writeback or FrontEnd).
  virtual Stall block_cause() const = 0;
  virtual void issue(std::uint32_t op, std::uint64_t now) = 0;
  virtual bool empty() const = 0;
  // The first cycle after `now` in which a stage could change without a new issue (now + 1 when
  // anything may move next cycle); ~0 when empty. The GPU skips the cycles in between.
  virtual std::uint64_t next_event(std::uint64_t now) const = 0;
  // Stage names and, per cycle, their contents (StageCell::warp -1 when empty) for --pipeview.
  virtual std::vector<std::string> stage_names() const = 0;
  virtual void stages(std::uint64_t now, std::vector<StageCell>& cells) const = 0;
};

// `premem`: the elastic pipeline's PREMEM entries (004 Eq. 3; the SM computes them).
std::unique_ptr<Pipeline> make_pipeline(std::string_view name, const SmConfig& sm,
                                        std::uint32_t premem, PipelineHost& host);

}  // namespace smemsim::timing

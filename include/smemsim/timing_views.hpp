// Views of a cycle-level run (timing.hpp Observers): a Chrome trace-event timeline (opens in
// Perfetto or chrome://tracing) and a stage-by-cycle pipeline table like seed 004's Figures 4-5.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "smemsim/timing.hpp"

namespace smemsim::timing {

// Sends every event to each of several observers.
class ObserverFan final : public Observer {
 public:
  void add(Observer* o) { obs_.push_back(o); }
  bool empty() const { return obs_.empty(); }
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override;
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t issued, std::uint64_t cycle) override;
  void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) override;
  void on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                        std::uint64_t cycle) override;
  void on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                     std::uint32_t warp_in_cta, std::uint64_t cycle) override;
  bool wants_stages(std::uint32_t sm) const override;
  void on_stages(std::uint32_t sm, std::uint64_t cycle, const std::vector<StageCell>& c) override;

 private:
  std::vector<Observer*> obs_;
};

// What a timeline holds (sim --timeline-events, --timeline-window, --timeline-sms).
struct TraceOptions {
  // At most this many spans; the tracks' names come with their first span and are not counted.
  std::uint64_t max_spans = 2'000'000;
  // Only spans that overlap cycles [from, to) and the issue slots' stalls in them.
  std::uint64_t from = 0, to = ~std::uint64_t{0};
  std::uint32_t subcores = 1;      // sm.subcores: an issue-slot track per sub-core when > 1
  std::vector<std::uint32_t> sms;  // only these SMs (empty: every SM)
};

// Chrome trace-event JSON: one process per SM, an issue-slot thread per SM (per sub-core when the
// SM has several) with the stall reasons as spans, and per warp slot the instructions as spans
// from issue to writeback (lock-loop steps as their own spans), named by opcode and CUDA line
// (the PTX text, instruction index and warp slot in their args). A warp has several instructions
// in flight, and the Trace Event format wants the spans of one thread nested, never partly
// overlapping (issue 29): each warp slot has as many threads ("warp slot 3", "warp slot 3 (2)",
// ...) as it had instructions in flight at once, an instruction goes to the first whose previous
// span has ended, and the threads of a warp sort together. 1 µs on the viewer's axis is one
// cycle. The file says when it stopped at the span cap; call finish() once after the run.
class ChromeTrace final : public Observer {
 public:
  ChromeTrace(std::ostream& out, const ptx::Module& module, const ptx::Kernel& kernel,
              TraceOptions options = {});
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override;
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t issued, std::uint64_t cycle) override;
  void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) override;
  void on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                        std::uint64_t cycle) override;
  void on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                     std::uint32_t warp_in_cta, std::uint64_t cycle) override;
  void finish();
  std::uint64_t events() const { return events_; }  // every event written, names included
  std::uint64_t spans() const { return spans_; }
  bool truncated() const { return truncated_; }

 private:
  struct Run {
    Stall why = Stall::Issued;
    std::uint64_t from = 0, to = 0;  // [from, to]
    bool open = false;
  };
  // One thread of a warp slot: the instruction on it now (busy), or the cycle its last span ended.
  struct Lane {
    std::uint32_t tid = 0;
    bool busy = false, used = false;
    bool named = false;  // its thread name is written (with its first span)
    std::string title;   // that name
    std::int64_t sort = 0;
    std::uint32_t index = 0;
    std::uint8_t micro = 0;
    std::uint64_t issued = 0, last_end = 0;
  };
  bool kept(std::uint32_t sm) const { return keep_.empty() || (sm < keep_.size() && keep_[sm]); }
  Lane& free_lane(std::uint32_t sm, std::uint32_t warp, std::uint64_t from);
  void stall(std::uint32_t sm, std::uint32_t track, Stall why, std::uint64_t cycle);
  void flush_run(std::uint32_t track);
  bool room();  // another span fits under the cap (else the file is marked truncated)
  void emit(const std::string& event);
  void name_thread(std::uint32_t sm, std::uint32_t tid, const std::string& name,
                   std::int64_t sort_index);
  std::ostream& out_;
  const ptx::Kernel& kernel_;
  TraceOptions opt_;
  std::vector<bool> keep_;  // per SM, from opt_.sms (empty: all)
  std::uint64_t events_ = 0, spans_ = 0;
  bool truncated_ = false;
  std::vector<Run> runs_;                              // per issue-slot track: the open stall span
  std::vector<bool> slot_named_;                       // ... its thread named
  std::vector<std::vector<std::vector<Lane>>> lanes_;  // per SM, per warp slot
  struct Holder {
    std::uint64_t cta = 0;
    std::uint32_t warp = 0;
  };
  std::vector<std::vector<Holder>> holders_;       // per SM, per warp slot: its CTA and warp now
  std::vector<std::uint32_t> next_tid_;            // per SM: the next thread for a second lane
  std::vector<bool> sm_named_;                     // per SM: its process named
  std::vector<std::string> names_, texts_, cuda_;  // per instruction: span name, PTX, CUDA
};

// The first `cycles` cycles of SM `sm`, one row per cycle, one column per stage (timing.hpp
// GpuSim::stage_names), each cell `w<warp>:<ptx line>` (a subwarp `.s`; lock-loop steps R U W B),
// and the issue slot: the warp issued or the stall reason.
class PipeView final : public Observer {
 public:
  // Cycles from, from + 1, ... from + cycles - 1 of SM `sm`.
  // With `subcores` > 1 the issue slot is a column per sub-core.
  PipeView(std::uint32_t sm, std::uint64_t cycles, const ptx::Kernel& kernel, bool subwarps,
           std::uint64_t from = 0, std::uint32_t subcores = 1);
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t, std::uint8_t,
                std::uint64_t cycle) override;
  void on_complete(std::uint32_t, std::uint32_t, std::uint32_t, std::uint8_t, std::uint64_t,
                   std::uint64_t) override {}
  void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) override;
  void on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                        std::uint64_t cycle) override;
  bool wants_stages(std::uint32_t sm) const override { return sm == sm_; }
  void on_stages(std::uint32_t sm, std::uint64_t cycle, const std::vector<StageCell>& c) override;
  // The table, with a header of `stage_names`.
  std::string render(const std::vector<std::string>& stage_names) const;

 private:
  std::uint32_t sm_;
  std::uint64_t cycles_, from_;
  const ptx::Kernel& kernel_;
  bool subwarps_;
  std::uint32_t subcores_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<std::string>> slot_;  // per cycle, per sub-core
};

}  // namespace smemsim::timing

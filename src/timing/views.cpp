// The timeline (Chrome trace events) and the pipeline view (timing_views.hpp).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "smemsim/exec.hpp"
#include "smemsim/timing_views.hpp"

namespace smemsim::timing {

void ObserverFan::on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                           std::uint8_t micro, std::uint64_t cycle) {
  for (Observer* o : obs_) o->on_issue(sm, warp, index, micro, cycle);
}
void ObserverFan::on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                              std::uint8_t micro, std::uint64_t issued, std::uint64_t cycle) {
  for (Observer* o : obs_) o->on_complete(sm, warp, index, micro, issued, cycle);
}
void ObserverFan::on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) {
  for (Observer* o : obs_) o->on_stall(sm, why, cycle);
}
bool ObserverFan::wants_stages(std::uint32_t sm) const {
  return std::any_of(obs_.begin(), obs_.end(), [&](Observer* o) { return o->wants_stages(sm); });
}
void ObserverFan::on_stages(std::uint32_t sm, std::uint64_t cycle,
                            const std::vector<StageCell>& c) {
  for (Observer* o : obs_)
    if (o->wants_stages(sm)) o->on_stages(sm, cycle, c);
}

namespace {

constexpr std::string_view kSteps[5] = {"", "Read", "Update", "Write", "Branch"};
constexpr char kStepLetter[5] = {' ', 'R', 'U', 'W', 'B'};
// The issue-slot track of an SM sorts after its warp tracks; a warp slot's second and later
// threads are numbered from kSlotTid + 1.
constexpr std::uint32_t kSlotTid = 100000;
constexpr std::int64_t kSlotSort = std::int64_t{1} << 40;

}  // namespace

ChromeTrace::ChromeTrace(std::ostream& out, const ptx::Module& module, const ptx::Kernel& kernel,
                         std::uint64_t max_events, std::uint64_t from, std::uint64_t to)
    : out_(out), module_(module), kernel_(kernel), max_events_(max_events), from_(from), to_(to) {
  for (const ptx::Instruction& ins : kernel.code) labels_.push_back(ptx::to_string(kernel, ins));
  out_ << "{\"otherData\":{\"time_unit\":\"1 us on the time axis = 1 cycle\"},"
          "\"traceEvents\":[\n";
}

bool ChromeTrace::emit(const std::string& event) {
  if (events_ >= max_events_) {
    truncated_ = true;
    return false;
  }
  out_ << (events_++ ? ",\n" : "") << event;
  return true;
}

void ChromeTrace::name_thread(std::uint32_t sm, std::uint32_t tid, const std::string& name,
                              std::int64_t sort_index) {
  if (tid == kSlotTid) {
    if (slot_named_.size() <= sm) slot_named_.resize(sm + 1, false);
    if (slot_named_[sm]) return;
    slot_named_[sm] = true;
    emit(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"SM {}"}}}})", sm,
                     sm));
    emit(fmt::format(
        R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})", sm, sm));
  }
  emit(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})",
                   sm, tid, nlohmann::json(name).dump()));
  emit(fmt::format(
      R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", sm,
      tid, sort_index));
}

// The first thread of the warp slot whose last span ended before `from` and that holds no
// instruction now; a new thread when every one does. Lane 0's thread is the warp slot's number.
ChromeTrace::Lane& ChromeTrace::free_lane(std::uint32_t sm, std::uint32_t warp,
                                          std::uint64_t from) {
  if (lanes_.size() <= sm) lanes_.resize(sm + 1), next_tid_.resize(sm + 1, kSlotTid + 1);
  if (lanes_[sm].size() <= warp) lanes_[sm].resize(warp + 1);
  std::vector<Lane>& lanes = lanes_[sm][warp];
  for (Lane& l : lanes)
    if (!l.busy && (!l.used || l.last_end < from)) return l;
  Lane l;
  const std::size_t k = lanes.size();
  l.tid = k == 0 ? warp : next_tid_[sm]++;
  // Named with its first span (a track with nothing in the trace gets no name events).
  l.title =
      k == 0 ? fmt::format("warp slot {}", warp) : fmt::format("warp slot {} ({})", warp, k + 1);
  l.sort = std::int64_t(warp) * 4096 + std::int64_t(k);
  lanes.push_back(l);
  return lanes.back();
}

void ChromeTrace::on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                           std::uint8_t micro, std::uint64_t cycle) {
  Lane& l = free_lane(sm, warp, cycle);
  l.busy = l.used = true;
  l.index = index;
  l.micro = micro;
  l.issued = cycle;
}

void ChromeTrace::on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                              std::uint8_t micro, std::uint64_t issued, std::uint64_t cycle) {
  Lane* lane = nullptr;
  if (sm < lanes_.size() && warp < lanes_[sm].size())
    for (Lane& l : lanes_[sm][warp])
      if (l.busy && l.index == index && l.micro == micro && l.issued == issued) lane = &l;
  if (!lane) lane = &free_lane(sm, warp, issued);  // an issue the trace did not see
  lane->busy = false;
  lane->used = true;
  lane->last_end = cycle;
  if (cycle < from_ || issued >= to_) return;  // outside the window
  if (!lane->named) {
    name_thread(sm, kSlotTid, "issue slot", kSlotSort);  // the SM's, once
    name_thread(sm, lane->tid, lane->title, lane->sort);
    lane->named = true;
  }
  std::string name = index < labels_.size() ? labels_[index] : "exit";
  if (micro) name = fmt::format("{} ({})", kSteps[micro], name);
  const std::string cu =
      index < kernel_.code.size() ? exec::cuda_location(module_, kernel_.code[index]) : "";
  emit(fmt::format(
      R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":{},"args":{{"ptx_line":{},"cuda":{}}}}})",
      sm, lane->tid, issued, cycle + 1 - issued, nlohmann::json(name).dump(),
      index < kernel_.code.size() ? kernel_.code[index].ptx_line : 0, nlohmann::json(cu).dump()));
}

void ChromeTrace::flush_run(std::uint32_t sm) {
  Run& r = runs_[sm];
  if (!r.open) return;
  name_thread(sm, kSlotTid, "issue slot", kSlotSort);  // once per SM
  emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":"{}"}})", sm, kSlotTid,
                   r.from, r.to + 1 - r.from, stall_name(r.why)));
  r.open = false;
}

void ChromeTrace::on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) {
  if (runs_.size() <= sm) runs_.resize(sm + 1);
  Run& r = runs_[sm];
  if (cycle < from_ || cycle >= to_) return flush_run(sm);  // outside the window
  if (r.open && r.why == why && r.to + 1 == cycle) {
    r.to = cycle;
    return;
  }
  flush_run(sm);
  r = {why, cycle, cycle, true};
}

void ChromeTrace::finish() {
  for (std::uint32_t sm = 0; sm < runs_.size(); ++sm) flush_run(sm);
  out_ << "\n],\"truncated\":" << (truncated_ ? "true" : "false") << "}\n";
}

// ---- PipeView --------------------------------------------------------------------------------

PipeView::PipeView(std::uint32_t sm, std::uint64_t cycles, const ptx::Kernel& kernel, bool subwarps,
                   std::uint64_t from)
    : sm_(sm), cycles_(cycles), from_(from), kernel_(kernel), subwarps_(subwarps) {}

void PipeView::on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t, std::uint8_t,
                        std::uint64_t cycle) {
  if (sm != sm_ || cycle < from_ || cycle - from_ >= cycles_) return;
  cycle -= from_;
  if (slot_.size() <= cycle) slot_.resize(cycle + 1);
  slot_[cycle] = fmt::format("issue w{}", warp);
}

void PipeView::on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) {
  if (sm != sm_ || cycle < from_ || cycle - from_ >= cycles_) return;
  cycle -= from_;
  if (slot_.size() <= cycle) slot_.resize(cycle + 1);
  slot_[cycle] = std::string(stall_name(why));
}

void PipeView::on_stages(std::uint32_t sm, std::uint64_t cycle, const std::vector<StageCell>& c) {
  if (sm != sm_ || cycle < from_ || cycle - from_ >= cycles_) return;
  cycle -= from_;
  if (rows_.size() <= cycle) rows_.resize(cycle + 1);
  auto& row = rows_[cycle];
  row.clear();
  for (const StageCell& s : c) {
    if (s.warp < 0) {
      row.emplace_back(".");
      continue;
    }
    std::string t = fmt::format("w{}", s.warp);
    if (subwarps_) t += fmt::format(".{}", s.sub);
    t += ":";
    t += s.index < kernel_.code.size() ? fmt::format("{}", kernel_.code[s.index].ptx_line) : "end";
    if (s.micro) t += kStepLetter[s.micro];
    row.push_back(std::move(t));
  }
}

std::string PipeView::render(const std::vector<std::string>& names) const {
  std::vector<std::size_t> width(names.size());
  for (std::size_t k = 0; k < names.size(); ++k) width[k] = names[k].size();
  for (const auto& row : rows_)
    for (std::size_t k = 0; k < row.size() && k < width.size(); ++k)
      width[k] = std::max(width[k], row[k].size());
  std::string out = fmt::format("{:>6}", "cycle");
  for (std::size_t k = 0; k < names.size(); ++k) out += fmt::format(" {:>{}}", names[k], width[k]);
  out += "  issue slot\n";
  for (std::size_t c = 0; c < rows_.size(); ++c) {
    out += fmt::format("{:>6}", c + from_);
    for (std::size_t k = 0; k < names.size(); ++k)
      out += fmt::format(" {:>{}}", k < rows_[c].size() ? rows_[c][k] : "", width[k]);
    out += fmt::format("  {}\n", c < slot_.size() ? slot_[c] : "");
  }
  out += fmt::format(
      "(SM {}; a cell is w<warp slot>{}:<PTX line>, R/U/W/B the lock-loop Read, Update, Write, "
      "Branch; EXE+ the unit stage closest to MEM0, RPL an access waiting to replay a bank pass)\n",
      sm_, subwarps_ ? ".<subwarp>" : "");
  return out;
}

}  // namespace smemsim::timing

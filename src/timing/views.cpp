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
void ObserverFan::on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                                   std::uint64_t cycle) {
  for (Observer* o : obs_) o->on_subcore_stall(sm, sub, why, cycle);
}
void ObserverFan::on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                                std::uint32_t warp_in_cta, std::uint64_t cycle) {
  for (Observer* o : obs_) o->on_warp_start(sm, warp, cta, warp_in_cta, cycle);
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
// threads are numbered from kSlotTid + 1; sub-core k's issue slot is thread kSubTid + k.
constexpr std::uint32_t kSlotTid = 100000;
constexpr std::uint32_t kSubTid = 99000;
constexpr std::int64_t kSlotSort = std::int64_t{1} << 40;

// "ld.shared.u32" of "@%p1 ld.shared.u32 %r5, [%r4];": the opcode with its modifiers.
std::string opcode_of(const std::string& text) {
  std::size_t at = 0;
  if (!text.empty() && (text[0] == '@')) at = text.find(' ') + 1;
  const std::size_t end = text.find_first_of(" ;", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

ChromeTrace::ChromeTrace(std::ostream& out, const ptx::Module& module, const ptx::Kernel& kernel,
                         TraceOptions options)
    : out_(out), kernel_(kernel), opt_(std::move(options)) {
  opt_.subcores = std::max<std::uint32_t>(opt_.subcores, 1);
  for (const std::uint32_t sm : opt_.sms) {
    if (keep_.size() <= sm) keep_.resize(sm + 1, false);
    keep_[sm] = true;
  }
  // A span is named by its opcode and CUDA line (issue 47: by its PTX text, four unrolled copies
  // of one load were four names and four colours); without -lineinfo, by opcode and PTX line.
  for (const ptx::Instruction& ins : kernel.code) {
    texts_.push_back(ptx::to_string(kernel, ins));
    std::string cu = exec::cuda_location(module, ins);
    cuda_.push_back(cu);
    const std::size_t slash = cu.find_last_of('/');
    if (slash != std::string::npos) cu = cu.substr(slash + 1);
    names_.push_back(opcode_of(texts_.back()) + " " +
                     (cu.empty() ? fmt::format("(PTX line {})", ins.ptx_line) : cu));
  }
  out_ << "{\"otherData\":{\"time_unit\":\"1 us on the time axis = 1 cycle\"},"
          "\"traceEvents\":[\n";
}

bool ChromeTrace::room() {
  if (spans_ < opt_.max_spans) return true;
  truncated_ = true;
  return false;
}

void ChromeTrace::emit(const std::string& event) {
  out_ << (events_++ ? ",\n" : "") << event;
}

void ChromeTrace::name_thread(std::uint32_t sm, std::uint32_t tid, const std::string& name,
                              std::int64_t sort_index) {
  if (sm_named_.size() <= sm) sm_named_.resize(sm + 1, false);
  if (!sm_named_[sm]) {
    sm_named_[sm] = true;
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
  const std::string sub =
      opt_.subcores > 1 ? fmt::format(", sub-core {}", warp % opt_.subcores) : "";
  l.title = k == 0 ? fmt::format("warp slot {}{}", warp, sub)
                   : fmt::format("warp slot {} ({}){}", warp, k + 1, sub);
  l.sort = std::int64_t(warp) * 4096 + std::int64_t(k);
  lanes.push_back(l);
  return lanes.back();
}

void ChromeTrace::on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                                std::uint32_t warp_in_cta, std::uint64_t) {
  if (!kept(sm)) return;
  if (holders_.size() <= sm) holders_.resize(sm + 1);
  if (holders_[sm].size() <= warp) holders_[sm].resize(warp + 1);
  holders_[sm][warp] = {cta, warp_in_cta};
}

void ChromeTrace::on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                           std::uint8_t micro, std::uint64_t cycle) {
  if (!kept(sm)) return;
  Lane& l = free_lane(sm, warp, cycle);
  l.busy = l.used = true;
  l.index = index;
  l.micro = micro;
  l.issued = cycle;
}

void ChromeTrace::on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index,
                              std::uint8_t micro, std::uint64_t issued, std::uint64_t cycle) {
  if (!kept(sm)) return;
  Lane* lane = nullptr;
  if (sm < lanes_.size() && warp < lanes_[sm].size())
    for (Lane& l : lanes_[sm][warp])
      if (l.busy && l.index == index && l.micro == micro && l.issued == issued) lane = &l;
  if (!lane) lane = &free_lane(sm, warp, issued);  // an issue the trace did not see
  lane->busy = false;
  lane->used = true;
  lane->last_end = cycle;
  if (cycle < opt_.from || issued >= opt_.to) return;  // outside the window
  if (!room()) return;
  if (!lane->named) {
    name_thread(sm, lane->tid, lane->title, lane->sort);
    lane->named = true;
  }
  const bool known = index < kernel_.code.size();
  std::string name = known ? names_[index] : "exit";
  if (micro) name = fmt::format("{} ({})", kSteps[micro], name);
  ++spans_;
  const Holder h =
      sm < holders_.size() && warp < holders_[sm].size() ? holders_[sm][warp] : Holder{};
  emit(fmt::format(
      R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":{},"args":{{"ptx_line":{},"cuda":{},"ptx":{},"pc":{},"warp_slot":{},"cta":{},"warp":{}}}}})",
      sm, lane->tid, issued, cycle + 1 - issued, nlohmann::json(name).dump(),
      known ? kernel_.code[index].ptx_line : 0, nlohmann::json(known ? cuda_[index] : "").dump(),
      nlohmann::json(known ? texts_[index] : "").dump(), index, warp, h.cta, h.warp));
}

void ChromeTrace::flush_run(std::uint32_t track) {
  Run& r = runs_[track];
  if (!r.open) return;
  r.open = false;
  if (!room()) return;
  const std::uint32_t sm = track / opt_.subcores, sub = track % opt_.subcores;
  const std::uint32_t tid = opt_.subcores > 1 ? kSubTid + sub : kSlotTid;
  if (slot_named_.size() <= track) slot_named_.resize(track + 1, false);
  if (!slot_named_[track]) {
    slot_named_[track] = true;
    name_thread(sm, tid,
                opt_.subcores > 1 ? fmt::format("issue slot, sub-core {}", sub) : "issue slot",
                kSlotSort + sub);
  }
  ++spans_;
  emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":"{}"}})", sm, tid,
                   r.from, r.to + 1 - r.from, stall_name(r.why)));
}

void ChromeTrace::stall(std::uint32_t sm, std::uint32_t track, Stall why, std::uint64_t cycle) {
  if (!kept(sm)) return;
  if (runs_.size() <= track) runs_.resize(track + 1);
  Run& r = runs_[track];
  if (cycle < opt_.from || cycle >= opt_.to) return flush_run(track);  // outside the window
  if (r.open && r.why == why && r.to + 1 == cycle) {
    r.to = cycle;
    return;
  }
  flush_run(track);
  r = {why, cycle, cycle, true};
}

void ChromeTrace::on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) {
  if (opt_.subcores == 1) stall(sm, sm, why, cycle);
}

void ChromeTrace::on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                                   std::uint64_t cycle) {
  if (opt_.subcores > 1 && sub < opt_.subcores) stall(sm, sm * opt_.subcores + sub, why, cycle);
}

void ChromeTrace::finish() {
  for (std::uint32_t t = 0; t < runs_.size(); ++t) flush_run(t);
  out_ << "\n],\"truncated\":" << (truncated_ ? "true" : "false") << "}\n";
}

// ---- PipeView --------------------------------------------------------------------------------

PipeView::PipeView(std::uint32_t sm, std::uint64_t cycles, const ptx::Kernel& kernel, bool subwarps,
                   std::uint64_t from, std::uint32_t subcores)
    : sm_(sm),
      cycles_(cycles),
      from_(from),
      kernel_(kernel),
      subwarps_(subwarps),
      subcores_(std::max<std::uint32_t>(subcores, 1)) {}

void PipeView::on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t, std::uint8_t,
                        std::uint64_t cycle) {
  if (sm != sm_ || cycle < from_ || cycle - from_ >= cycles_) return;
  cycle -= from_;
  if (slot_.size() <= cycle) slot_.resize(cycle + 1, std::vector<std::string>(subcores_));
  slot_[cycle][warp % subcores_] = fmt::format("issue w{}", warp);
}

void PipeView::on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) {
  if (subcores_ == 1) on_subcore_stall(sm, 0, why, cycle);
}

void PipeView::on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                                std::uint64_t cycle) {
  if (sm != sm_ || sub >= subcores_ || cycle < from_ || cycle - from_ >= cycles_) return;
  cycle -= from_;
  if (slot_.size() <= cycle) slot_.resize(cycle + 1, std::vector<std::string>(subcores_));
  slot_[cycle][sub] = std::string(stall_name(why));
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
    if (s.behind) t += fmt::format("+{}", s.behind);
    if (s.pass) t += '*';
    row.push_back(std::move(t));
  }
}

std::string PipeView::render(const std::vector<std::string>& names) const {
  std::vector<std::size_t> width(names.size());
  for (std::size_t k = 0; k < names.size(); ++k) width[k] = names[k].size();
  for (const auto& row : rows_)
    for (std::size_t k = 0; k < row.size() && k < width.size(); ++k)
      width[k] = std::max(width[k], row[k].size());
  // The issue slot: one column, or one per sub-core (the last column unpadded).
  std::vector<std::size_t> slot_width(subcores_, 0);
  for (std::uint32_t k = 0; k < subcores_; ++k) {
    slot_width[k] = fmt::format("issue {}", k).size();
    for (const auto& row : slot_) slot_width[k] = std::max(slot_width[k], row[k].size());
  }
  const auto slots = [&](const std::vector<std::string>* row) {
    if (subcores_ == 1) return fmt::format("  {}\n", row ? (*row)[0] : "");
    std::string t = " ";
    for (std::uint32_t k = 0; k < subcores_; ++k)
      t += k + 1 < subcores_ ? fmt::format(" {:<{}}", row ? (*row)[k] : "", slot_width[k])
                             : fmt::format(" {}", row ? (*row)[k] : "");
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t + "\n";
  };
  std::string out = fmt::format("{:>6}", "cycle");
  for (std::size_t k = 0; k < names.size(); ++k) out += fmt::format(" {:>{}}", names[k], width[k]);
  if (subcores_ == 1) {
    out += "  issue slot\n";
  } else {
    out += " ";
    for (std::uint32_t k = 0; k < subcores_; ++k)
      out +=
          fmt::format(" {:<{}}", fmt::format("issue {}", k), k + 1 < subcores_ ? slot_width[k] : 0);
    out += "\n";
  }
  for (std::size_t c = 0; c < rows_.size(); ++c) {
    out += fmt::format("{:>6}", c + from_);
    for (std::size_t k = 0; k < names.size(); ++k)
      out += fmt::format(" {:>{}}", k < rows_[c].size() ? rows_[c][k] : "", width[k]);
    out += slots(c < slot_.size() ? &slot_[c] : nullptr);
  }
  out += fmt::format(
      "(SM {}; a cell is w<warp slot>{}:<PTX line>, R/U/W/B the lock-loop Read, Update, Write, "
      "Branch; EXE+ the unit stage closest to MEM0, RPL an access waiting to replay a bank "
      "pass{}{})\n",
      sm_, subwarps_ ? ".<subwarp>" : "",
      std::any_of(names.begin(), names.end(),
                  [](const std::string& n) { return n.ends_with("MIO"); })
          ? "; MIO the head of the MIO queue (sm.mio_queue), +N the accesses waiting behind it, "
            "* a bank pass in this cycle"
          : "",
      subcores_ > 1
          ? fmt::format("; issue K: sub-core K's issue slot, warp slot w on sub-core w % {}",
                        subcores_)
          : "");
  return out;
}

}  // namespace smemsim::timing

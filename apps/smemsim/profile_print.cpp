#include "profile_print.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "smemsim/exec_json.hpp"
#include "text_table.hpp"

namespace smemsim::cli {

std::vector<ProfileLine> profile_lines(const exec::Profiler& p, const LineSets& sets,
                                       const Arch& arch) {
  std::vector<ProfileLine> out;
  for (const exec::ProfileRow& r : p.rows()) {
    ProfileLine l{r, std::nullopt, std::nullopt, {}, {}};
    if (r.totals.bank_conflicts > 0) {
      l.padding = exec::padding_hint(r.worst, arch);
      l.swizzle = swizzle_hint(sets, r.ptx_line);
    }
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// The key a row is grouped by: its CUDA line, and the calling line when the CUDA line is an inlined
// helper's used from several lines; "" (a row of its own) without line information.
std::string group_key(const ProfileLine& l, const ptx::Module& module, const ptx::Kernel& kernel,
                      const std::map<std::string, std::set<std::string>>& callers) {
  if (l.row.cuda.empty() || l.row.index >= kernel.code.size()) return "";
  const auto it = callers.find(l.row.cuda);
  if (it == callers.end() || it->second.size() < 2) return l.row.cuda;
  return l.row.cuda + "@" + exec::cuda_call_site(module, kernel.code[l.row.index]);
}

std::map<std::string, std::set<std::string>> callers_of(const std::vector<ProfileLine>& lines,
                                                        const ptx::Module& module,
                                                        const ptx::Kernel& kernel) {
  std::map<std::string, std::set<std::string>> callers;
  for (const ProfileLine& l : lines)
    if (l.row.index < kernel.code.size())
      callers[l.row.cuda].insert(exec::cuda_call_site(module, kernel.code[l.row.index]));
  return callers;
}

}  // namespace

std::vector<ProfileLine> by_cuda_line(const std::vector<ProfileLine>& lines,
                                      const ptx::Module& module, const ptx::Kernel& kernel,
                                      const LineSets* sets) {
  const auto callers = callers_of(lines, module, kernel);
  std::vector<ProfileLine> out;
  std::map<std::string, std::size_t> row_of;  // key -> index in out
  std::vector<std::int64_t> worst;            // per out row: bank conflicts of its hints' row
  for (const ProfileLine& l : lines) {
    const std::string key = group_key(l, module, kernel, callers);
    const auto it = key.empty() ? row_of.end() : row_of.find(key);
    if (it == row_of.end()) {
      if (!key.empty()) row_of[key] = out.size();
      out.push_back(l);
      out.back().ptx_lines = {l.row.ptx_line};
      out.back().ops = {l.row.op};
      worst.push_back(l.row.totals.bank_conflicts);
      continue;
    }
    ProfileLine& g = out[it->second];
    const exec::ProfileRow& r = l.row;
    // The row with the worst execution names the group's worst; its hints are the group's.
    if (r.totals.max_bank_degree > g.row.totals.max_bank_degree) g.row.worst = r.worst;
    if (r.totals.bank_conflicts > worst[it->second]) {
      worst[it->second] = r.totals.bank_conflicts;
      g.padding = l.padding;
      g.swizzle = l.swizzle;
    }
    g.row.totals.merge(r.totals);
    g.row.max_position_degree = std::max(g.row.max_position_degree, r.max_position_degree);
    g.row.active_lanes += r.active_lanes;
    g.ptx_lines.push_back(r.ptx_line);
    if (std::find(g.ops.begin(), g.ops.end(), r.op) == g.ops.end()) g.ops.push_back(r.op);
    // An atomic makes the line an atomic line (its position and lock columns apply).
    if (r.op == Op::Atomic) g.row.op = Op::Atomic;
  }
  for (ProfileLine& g : out)
    if (g.ptx_lines.size() > 1) {
      g.row.text = fmt::format("{} instructions: {}", g.ptx_lines.size(), g.row.text);
      if (sets && g.swizzle) total_over(*g.swizzle, *sets, g.ptx_lines);
    }
  return out;
}

nlohmann::json line_json(const ProfileLine& l, const ptx::Module& m, const ptx::Kernel& k) {
  nlohmann::json j = json::to_json(l.row, m, k);
  j["hints"] = {{"padding", l.padding ? json::to_json(*l.padding) : nlohmann::json(nullptr)},
                {"swizzle", l.swizzle ? json::to_json(*l.swizzle) : nlohmann::json(nullptr)}};
  if (!l.ptx_lines.empty()) {
    j["ptx_lines"] = l.ptx_lines;
    j["ops"] = nlohmann::json::array();
    for (const Op op : l.ops) j["ops"].push_back(op_name(op));
  }
  return j;
}

std::vector<std::string> csv_columns() {
  std::vector<std::string> keys = {"ptx.file",  "ptx.line", "cuda.file",
                                   "cuda.line", "op",       "instruction"};
  keys.insert(keys.end(), json::totals_fields().begin(), json::totals_fields().end());
  keys.insert(keys.end(),
              {"active_lanes_total", "hints.padding.padded_row_words", "hints.swizzle.spec"});
  return keys;
}

namespace {

// Lanes of a warp on one word (position degree) or one lock, seed 001 §2.1.3: R copies by lane
// leave ceil(P / R) on a word; warp aggregation leaves one.
std::string atomic_hint(const ProfileLine& l) {
  const Totals& t = l.row.totals;
  if (l.row.op != Op::Atomic || (t.max_position_degree < 2 && t.max_lock_degree < 2)) return "";
  std::uint32_t r = 1;
  while (r < t.max_position_degree && r < 32) r *= 2;
  if (t.max_position_degree < 2)
    return fmt::format("hint: up to {} lanes on one lock: a lock hash (--lock-hash) or smemsim fix",
                       t.max_lock_degree);
  return fmt::format(
      "hint: up to {} lanes on one word: replicate x{} or aggregate per warp "
      "(smemsim fix)",
      t.max_position_degree, r);
}

}  // namespace

namespace {

// The row's instructions as `hash search --pc` takes them: 85 or 85,90,95,98.
std::string pc_list(const ProfileLine& l) {
  if (l.ptx_lines.empty()) return std::to_string(l.row.ptx_line);
  return fmt::format("{}", fmt::join(l.ptx_lines, ","));
}

}  // namespace

void print_hint_commands(const std::vector<ProfileLine>& lines, const std::string& trace,
                         const std::string& arch) {
  std::vector<const ProfileLine*> hinted;
  for (const ProfileLine& l : lines)
    if (l.swizzle) hinted.push_back(&l);
  if (hinted.empty()) return;
  const std::string t = trace.empty() ? "t.trace" : trace;
  fmt::print("the hints' swizzle searches{}:\n",
             trace.empty() ? " (t.trace: add --emit-trace t.trace to this command)" : "");
  for (const ProfileLine* l : hinted)
    fmt::print("  smemsim hash search --family bvxor --arch {} --trace {} --pc {} --emit cuda{}\n",
               arch, t, pc_list(*l), l->row.cuda.empty() ? "" : "   # " + l->row.cuda);
}

std::vector<std::string> line_hints(const ProfileLine& l) {
  std::vector<std::string> out;
  if (const std::string h = hint_text(l, 0); !h.empty()) out.push_back(h);
  if (l.row.totals.bank_conflicts > 0 && (l.padding || l.swizzle))
    if (const std::string a = atomic_hint(l); !a.empty()) out.push_back(a);
  return out;
}

std::string hint_text(const ProfileLine& l, std::size_t width) {
  // Each hint in a full and a short form; the line takes the fullest that fits.
  std::string pad_full, pad_short, swz_full, swz_short;
  if (l.padding) {
    const exec::PaddingHint& p = *l.padding;
    pad_full = fmt::format("pad rows of {} words to {} ({}-way -> {}-way)", p.row_words,
                           p.row_words + p.pad, p.before, p.after);
    pad_short = fmt::format("pad rows to {} words", p.row_words + p.pad);
  }
  if (l.swizzle) {
    const SwizzleHint& s = *l.swizzle;
    const std::int64_t others =
        (s.kernel_after - s.conflicts_after) - (s.kernel_before - s.conflicts_before);
    const std::string worse = others > 0 ? fmt::format(", other lines +{}", others) : "";
    swz_full = fmt::format("swizzle {} ({} -> {} conflicts{}, hash search --pc {})", s.spec,
                           s.conflicts_before, s.conflicts_after, worse, pc_list(l));
    swz_short = fmt::format("swizzle {} (hash search --pc {}{})", s.spec, pc_list(l), worse);
  }
  if (pad_full.empty() && swz_full.empty()) return atomic_hint(l);
  // The padding first when it leaves the worst execution conflict-free, else the swizzle.
  const bool pad_first = !pad_full.empty() && (swz_full.empty() || l.padding->after == 1);
  const auto join = [&](const std::string& p, const std::string& s) {
    if (p.empty() || s.empty()) return "hint: " + p + s;
    return "hint: " + (pad_first ? p + " or " + s : s + " or " + p);
  };
  for (const std::string& h : {join(pad_full, swz_full), join(pad_short, swz_short),
                               join(pad_first ? pad_full : "", pad_first ? "" : swz_full)})
    if (width == 0 || text_width(h) + 8 <= width) return h;
  return join(pad_first ? pad_short : "", pad_first ? "" : swz_short);
}

void print_profile_table(const std::vector<ProfileLine>& lines, const Totals& all,
                         const ptx::Module& module, const ptx::Kernel& kernel, std::size_t width) {
  // The position and lock columns only when the kernel has shared atomics (issue 10 item 6).
  bool atomics = false;
  for (const ProfileLine& l : lines) atomics |= l.row.op == Op::Atomic;
  std::vector<TextTable::Column> cols = {
      {"PTX"}, {"CUDA", true, false, 24}, {"op", true}, {"accesses"}, {"conflicts"}, {"bank"},
      {"max"}};
  if (atomics) cols.insert(cols.end(), {{"pos"}, {"max"}, {"lock"}, {"max"}});
  cols.insert(cols.end(), {{"cycles"}, {"instruction", true, true}});
  TextTable table(cols);
  // Rows whose CUDA line is an inlined helper's, used from several lines (an ldmatrix wrapper): the
  // helper's line does not tell them apart, so each names its caller.
  const auto callers = callers_of(lines, module, kernel);
  for (const ProfileLine& l : lines) {
    const exec::ProfileRow& r = l.row;
    const Totals& t = r.totals;
    const bool atom = r.op == Op::Atomic;
    auto mean = [&](std::int64_t s) { return t.accesses ? fmt::format("{:.2f}", t.mean(s)) : "-"; };
    // A CUDA line's row: its first PTX line and how many more; its ops joined.
    std::string ptx = std::to_string(r.ptx_line), ops(op_name(r.op));
    if (l.ptx_lines.size() > 1) ptx += fmt::format("+{}", l.ptx_lines.size() - 1);
    if (l.ops.size() > 1) {
      ops.clear();
      for (const Op op : l.ops) ops += (ops.empty() ? "" : "/") + std::string(op_name(op));
    }
    std::vector<std::string> cells = {ptx,
                                      r.cuda.empty() ? "-" : r.cuda,
                                      ops,
                                      std::to_string(t.accesses),
                                      std::to_string(t.bank_conflicts),
                                      mean(t.sum_bank_degree),
                                      std::to_string(t.max_bank_degree)};
    if (atomics)
      cells.insert(cells.end(), {atom ? mean(t.sum_position_degree) : "-",
                                 atom ? std::to_string(t.max_position_degree) : "-",
                                 atom ? mean(t.sum_lock_degree) : "-",
                                 atom ? std::to_string(t.max_lock_degree) : "-"});
    cells.push_back(t.accesses ? fmt::format("{:.1f}", t.mean(t.total_latency)) : "-");
    cells.push_back(r.text);
    // Under a conflicting row: its CUDA source line and the hint.
    std::vector<std::string> notes;
    const bool flagged = t.bank_conflicts > 0 || !atomic_hint(l).empty();
    if (flagged && r.index < kernel.code.size()) {
      const std::string src = exec::cuda_source_text(module, kernel.code[r.index]);
      if (!src.empty()) notes.push_back("> " + src);
      std::string call_text;
      const std::string call = exec::cuda_call_site(module, kernel.code[r.index], &call_text);
      const auto it = callers.find(r.cuda);
      if (!call.empty() && it != callers.end() && it->second.size() > 1)
        notes.push_back(fmt::format("> called at {}: {}", call, call_text));
    }
    if (flagged)
      if (const std::string h = hint_text(l, width); !h.empty()) notes.push_back(h);
    if (t.bank_conflicts > 0 && (l.padding || l.swizzle))  // both kinds of hint apply
      if (const std::string a = atomic_hint(l); !a.empty()) notes.push_back(a);
    // (line_hints below is this, unwrapped, for the HTML page.)
    table.add(std::move(cells), std::move(notes));
  }
  fmt::print("{}", table.render(width));
  // The sum of the accesses' modeled latencies is not the kernel's time (accesses overlap across
  // warps): named for what it is (issue 26); profile --timing and sim give whole-kernel cycles.
  fmt::print("{}", wrap(fmt::format("total: {} shared-memory warp accesses, {} bank conflicts, "
                                    "mean bank degree {:.3f}, access latencies summed {} cycles "
                                    "(not the kernel's time: --timing or sim)",
                                    all.accesses, all.bank_conflicts, all.mean(all.sum_bank_degree),
                                    all.total_latency),
                        width));
  bool grouped = false;
  for (const ProfileLine& l : lines) grouped |= l.ptx_lines.size() > 1;
  fmt::print("{}", wrap(fmt::format("(bank{}: mean degree per access; cycles: mean modeled latency "
                                    "per access{}{})",
                                    atomics ? "/pos/lock" : "",
                                    atomics ? "; pos and lock for atomics only" : "",
                                    grouped ? "; PTX N+K: a CUDA line's first instruction and K "
                                              "more, summed (--by instruction: a row each)"
                                            : ""),
                        width));
}

void print_tx_sites(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k,
                    std::size_t width) {
  if (s.tm_sites.empty()) return;
  fmt::print("\ntransactions (GPU-LocalTM, seed 003), per TX.Begin:\n");
  TextTable table({{"PTX"},
                   {"CUDA", true, false, 24},
                   {"txs"},
                   {"attempts"},
                   {"serialized"},
                   {"commits"},
                   {"aborts"},
                   {"ratio"},
                   {"conflicts"},
                   {"false"}});
  for (const auto& [pc, t] : s.tm_sites) {
    const std::string cu = exec::cuda_location(m, k.code[pc]);
    table.add(
        {std::to_string(k.code[pc].ptx_line), cu.empty() ? "-" : cu, std::to_string(t.transactions),
         std::to_string(t.attempts), std::to_string(t.wf_serial_attempts + t.wg_serial_attempts),
         std::to_string(t.lane_commits), std::to_string(t.lane_aborts),
         fmt::format("{:.1f}%", 100.0 * t.commit_ratio()),
         std::to_string(t.conflicts_true + t.conflicts_false), std::to_string(t.conflicts_false)});
  }
  fmt::print("{}", table.render(width));
  fmt::print("{}", wrap("(txs: warp transactions; attempts: TX.Begin executions, retries "
                        "included; serialized: attempts in wavefront or work-group serialization; "
                        "commits, aborts: lanes; ratio: lane commits per lane attempt; false: "
                        "conflicts from Bloom-signature aliasing)",
                        width, 1));
}

namespace {

constexpr const char* kTmaModes[4] = {"none", "32B", "64B", "128B"};

const ptx::Instruction* at_line(const ptx::Kernel& k, std::uint32_t line) {
  for (const ptx::Instruction& ins : k.code)
    if (ins.ptx_line == line) return &ins;
  return nullptr;
}

}  // namespace

void print_tma_reads(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k,
                     std::size_t width) {
  if (s.tma_reads.empty()) return;
  fmt::print("\nreads of tiles TMA copies wrote, bank passes under each swizzle mode:\n");
  TextTable table({{"PTX"},
                   {"CUDA", true, false, 24},
                   {"accesses"},
                   {"mode"},
                   {"none"},
                   {"32B"},
                   {"64B"},
                   {"128B"},
                   {"instruction", true, true}});
  for (const exec::ExecStats::TmaReads& r : s.tma_reads) {
    const ptx::Instruction* ins = at_line(k, r.ptx_line);
    const std::string cu = ins ? exec::cuda_location(m, *ins) : "";
    std::vector<std::string> row{std::to_string(r.ptx_line), cu.empty() ? "-" : cu,
                                 std::to_string(r.accesses), kTmaModes[r.mode]};
    for (std::size_t i = 0; i < 4; ++i)
      row.push_back(r.possible[i] ? std::to_string(r.passes[i]) : "-");
    row.push_back(ins ? ptx::to_string(k, *ins) : "");
    table.add(row);
  }
  fmt::print("{}", table.render(width));
  fmt::print("{}", wrap("(mode: the tensor map's; none .. 128B: the bank passes of these reads "
                        "had the tile been copied under that mode and each read addressed to the "
                        "same element (the swizzle in its index), - where the mode's span is "
                        "narrower than the tile's rows: `--bank-hash tma128` etc. in analyze)",
                        width, 1));
}

nlohmann::json tma_reads_json(const exec::ExecStats& s, const ptx::Module& m,
                              const ptx::Kernel& k) {
  nlohmann::json out = nlohmann::json::array();
  for (const exec::ExecStats::TmaReads& r : s.tma_reads) {
    const ptx::Instruction* ins = at_line(k, r.ptx_line);
    nlohmann::json passes = nlohmann::json::object();
    for (std::size_t i = 0; i < 4; ++i)
      passes[kTmaModes[i]] = r.possible[i] ? nlohmann::json(r.passes[i]) : nlohmann::json();
    out.push_back({{"ptx_line", r.ptx_line},
                   {"cuda", ins ? exec::cuda_location(m, *ins) : ""},
                   {"accesses", r.accesses},
                   {"mode", kTmaModes[r.mode]},
                   {"passes", passes}});
  }
  return out;
}

}  // namespace smemsim::cli

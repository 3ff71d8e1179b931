#include "profile_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "profile_html_assets.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::cli {
namespace {

// A line's degree cell: its largest bank degree; for an atomic with position or lock conflicts
// (001 Algorithm 1) also those, the serializations the bank degree does not show.
std::string degree_text(const nlohmann::json& r) {
  const std::int64_t bank = r.value("bank_degree_max", std::int64_t{0}),
                     position = r.value("position_degree_max", std::int64_t{0}),
                     lock = r.value("lock_degree_max", std::int64_t{0});
  if (position < 2 && lock < 2) return std::to_string(bank);
  return fmt::format("{} \u00b7 pos {} \u00b7 lock {}", bank, position, lock);
}

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A CUDA file's lines (exec::cuda_source_path finds it) as exec::source_display shows them, up to
// `last_line` (issue 48: a 175 MB .cu made a 332 MB page); empty when unreadable.
std::vector<std::string> source_lines(const ptx::Module& module, const std::string& file,
                                      std::uint32_t last_line) {
  const std::string path = exec::cuda_source_path(module, file);
  if (path.empty()) return {};
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; lines.size() < last_line && std::getline(in, l);)
    lines.push_back(exec::source_display(l));
  return lines;
}

// The stall states of a warp (profile --timing's per-instruction warp_states) that are not issue,
// by Nsight Compute's names (the old names, kept in the JSON as aliases, repeat them).
bool is_stall(const std::string& state) {
  return state != "selected" && state != "not_selected" && state != "idle" &&
         !timing::is_stall_alias(state);
}

// Stalled warp-cycles by state (profile --timing's warp_states without selected, not_selected and
// idle), summed over one instruction or over a line's instructions.
struct Stalls {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> by_state;
  void add(const nlohmann::json& warp_states) {
    for (const auto& [state, count] : warp_states.items())
      if (is_stall(state)) {
        total += count.get<std::uint64_t>();
        by_state[state] += count.get<std::uint64_t>();
      }
  }
  // Every state with its share, largest first: "long_scoreboard 62%, wait 20%, ..." (the reason
  // cell's tooltip: the per-line breakdown by name, issue 47).
  std::string breakdown() const {
    std::vector<std::pair<std::uint64_t, std::string>> v;
    for (const auto& [state, count] : by_state)
      if (count) v.push_back({count, state});
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string t;
    for (const auto& [count, state] : v)
      t += fmt::format("{}{} {:.0f}%", t.empty() ? "" : ", ", state,
                       100.0 * double(count) / double(std::max<std::uint64_t>(total, 1)));
    return t;
  }
  // The main reason: the largest state (a tie: the first name in order).
  std::string top() const {
    std::string name;
    std::uint64_t most = 0;
    for (const auto& [state, count] : by_state)
      if (count > most) most = count, name = state;
    return name;
  }
};

// What the page shows for one CUDA line.
struct LineView {
  const nlohmann::json* row = nullptr;  // its cuda_lines row, if it has shared accesses
  std::string hint;
  Stalls stalls;  // at its instructions (--timing)
  // Global and local memory at its instructions (--timing): 32-byte sectors, those the L1 and the
  // L2 held, and the bytes neither held (issue 44).
  std::uint64_t sectors = 0, l1 = 0, l2 = 0, dram_bytes = 0;
};

// The page opens at what matters (issue 47: the profiled kernel was below the fold of a page that
// starts at line 1): the five lines with the most bank conflicts and, with --timing, the five with
// the most stalled warp-cycles, each linked to its row below (a link within the page: it stays
// self-contained).
std::string hottest_lines(const std::map<std::string, std::map<std::uint32_t, LineView>>& files,
                          double all_conflicts, std::uint64_t all_stalls, bool timing) {
  struct Hot {
    std::string file;
    std::uint32_t line;
    const LineView* v;
    double conflicts;
  };
  std::vector<Hot> hot;
  for (const auto& [file, lines] : files)
    for (const auto& [n, v] : lines)
      hot.push_back({file, n, &v, v.row ? (*v.row).value("bank_conflicts", 0.0) : 0.0});
  const auto list = [&](const char* title, auto key, auto cell) {
    std::vector<const Hot*> top;
    for (const Hot& x : hot)
      if (key(x) > 0) top.push_back(&x);
    std::stable_sort(top.begin(), top.end(),
                     [&](const Hot* a, const Hot* b) { return key(*a) > key(*b); });
    if (top.size() > 5) top.resize(5);
    if (top.empty()) return std::string();
    std::string t = fmt::format("<p class=\"key\">{}:", title);
    for (const Hot* x : top)
      t +=
          fmt::format(" <a href=\"#L{}\">{}:{}</a> ({})", x->line, esc(x->file), x->line, cell(*x));
    return t + "</p>";
  };
  std::string h = list(
      "Most bank conflicts", [](const Hot& x) { return x.conflicts; },
      [&](const Hot& x) {
        return fmt::format("{:.0f}, {:.1f}%", x.conflicts,
                           all_conflicts > 0 ? 100 * x.conflicts / all_conflicts : 0.0);
      });
  if (timing)
    h += list(
        "Most stalled warp-cycles", [](const Hot& x) { return double(x.v->stalls.total); },
        [&](const Hot& x) {
          return fmt::format(
              "{:.1f}%, {}",
              all_stalls ? 100.0 * double(x.v->stalls.total) / double(all_stalls) : 0.0,
              esc(x.v->stalls.top()));
        });
  return h;
}

// A background from white to `rgb` by share 0..1 (conflicts: vermilion; stalls: blue, from the
// Okabe-Ito palette, distinct for colour-blind readers), at most `most` opaque (the source text's
// cells stay lighter, to stay readable).
std::string heat(double share, const char* rgb, double most = 0.9) {
  if (share <= 0) return "";
  return fmt::format(" style=\"background:rgba({},{:.2f})\"", rgb,
                     0.12 + (most - 0.12) * std::min(1.0, share));
}

constexpr const char* kConflictRgb = "213,94,0";
constexpr const char* kStallRgb = "0,114,178";

}  // namespace

std::string profile_html(const nlohmann::json& doc, const std::vector<std::string>& hints,
                         const ptx::Module& module, const ptx::Kernel& kernel) {
  const nlohmann::json& totals = doc.at("totals");
  const nlohmann::json& rows = doc.at("cuda_lines");
  const bool timing = doc.contains("timing");
  const double all_conflicts = totals.value("bank_conflicts", 0.0);
  // Per CUDA file and line: its row, hint and stalls.
  std::map<std::string, std::map<std::uint32_t, LineView>> files;
  std::vector<std::pair<std::size_t, const nlohmann::json*>> unplaced;  // rows without a line
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& c = rows[i].at("cuda");
    if (c.is_null()) {
      unplaced.push_back({i, &rows[i]});
      continue;
    }
    LineView& v = files[c.at("file")][c.at("line")];
    v.row = &rows[i];
    v.hint = i < hints.size() ? hints[i] : "";
  }
  // Stalls per instruction (the PTX table) and per CUDA line, whose main reason is its largest
  // stall summed over all its instructions (issue 47: it was the last instruction's, and showed
  // `scoreboard` on a histogram line whose sums give memory 4,349,178 against 124,613).
  std::uint64_t all_stalls = 0;
  std::map<std::uint32_t, Stalls> stalls_at;  // by PTX line
  bool global = false;                        // some instruction moved global/local sectors
  const nlohmann::json& sm = doc.at("arch").value("sm", nlohmann::json::object());
  const bool caches = sm.value("l1_unified_bytes", 0) || sm.value("l2_bytes", 0);
  if (timing)
    for (const nlohmann::json& ins : doc["timing"].at("instructions")) {
      Stalls& at = stalls_at[ins.at("ptx").value("line", 0u)];
      at.add(ins.at("warp_states"));
      all_stalls += at.total;
      global |= ins.value("global_sectors", 0ull) != 0;
      if (ins.at("cuda").is_null()) continue;
      LineView& v = files[ins["cuda"].at("file")][ins["cuda"].at("line")];
      v.stalls.add(ins.at("warp_states"));
      v.sectors += ins.value("global_sectors", 0ull);
      v.l1 += ins.value("l1_hit_sectors", 0ull);
      v.l2 += ins.value("l2_hit_sectors", 0ull);
      v.dram_bytes += ins.value("dram_bytes", 0ull);
    }

  std::string h = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>";
  const std::string name = ptx::demangle(kernel.name);
  h +=
      esc("smemsim profile: " + name) + "</title><style>" + kProfileStyle + "</style></head><body>";
  h += "<h1>" + esc(name) + "</h1>";
  h += "<p>" + esc(doc.value("description", "")) + "</p><table class=\"sum\">";
  const auto row = [&](const std::string& k, const std::string& v) {
    h += "<tr><td>" + esc(k) + "</td><td>" + esc(v) + "</td></tr>";
  };
  const nlohmann::json& arch = doc.at("arch");
  row("arch", fmt::format("{}: {}", arch.value("name", ""), arch.value("description", "")));
  if (arch.contains("memory"))
    row("shared memory",
        fmt::format("{} banks of {} bytes, bank hash {}", arch["memory"].value("banks", 0),
                    arch["memory"].value("bank_width_bytes", 0),
                    arch["memory"].value("bank_hash", std::string("mod"))));
  row("launch",
      fmt::format("grid {} x block {}, {} bytes of shared memory per block", doc.at("grid").dump(),
                  doc.at("block").dump(), doc.at("shared_bytes").value("total", 0)));
  const nlohmann::json& st = doc.at("stats");
  row("executed", fmt::format("{} warp-instructions, {} shared-memory warp accesses",
                              st.value("warp_instructions", 0), st.value("shared_accesses", 0)));
  row("bank conflicts",
      fmt::format("{} (mean bank degree {:.2f}, max {})", totals.value("bank_conflicts", 0),
                  totals.value("bank_degree_mean", 0.0), totals.value("bank_degree_max", 0)));
  if (timing)
    row("cycles",
        fmt::format("{} (IPC {:.3f}); {} stalled warp-cycles at the kernel's lines",
                    doc["timing"].value("cycles", 0), doc["timing"].value("ipc", 0.0), all_stalls));
  if (doc.contains("reference") && !doc["reference"].is_null()) {
    const nlohmann::json& r = doc["reference"];
    row("result", r.value("matches", false) ? "matches the CPU reference"
                                            : "MISMATCH: " + r.value("details", std::string()));
  }
  h += "</table>";
  h += hottest_lines(files, all_conflicts, all_stalls, timing);
  h += "<p class=\"key\">Line colour:<span style=\"background:rgb(" + std::string(kConflictRgb) +
       ")\"></span>share of the bank conflicts";
  if (timing)
    h += "<span style=\"background:rgb(" + std::string(kStallRgb) +
         ")\"></span>share of the stalled warp-cycles (profile --timing)";
  h += "</p>";

  for (const auto& [file, lines] : files) {
    // The file up to 50 lines past the last the kernel's code names (its host code after that
    // is not what the page is about).
    std::vector<std::string> text =
        source_lines(module, file, lines.empty() ? 0 : lines.rbegin()->first + 50);
    h += "<h2>" + esc(file) + (text.empty() ? " (source not found: its profiled lines only)" : "") +
         "</h2><table class=\"src\"><tr><th class=\"s\">line</th><th class=\"s\">accesses</th>"
         "<th class=\"s\">conflicts</th><th class=\"s\">share</th><th class=\"s\">degree</th>" +
         std::string(timing ? "<th class=\"s\">stalls</th><th>reason</th>" : "") +
         std::string(global ? "<th class=\"s\">DRAM bytes</th>" : "") +
         std::string(global && caches ? "<th class=\"s\">L1 / L2 hit</th>" : "") +
         "<th style=\"text-align:left\">source</th></tr>";
    const std::uint32_t last = text.empty() ? 0 : std::uint32_t(text.size());
    std::vector<std::uint32_t> numbers;
    for (std::uint32_t n = 1; n <= last; ++n) numbers.push_back(n);
    for (const auto& [n, v] : lines)
      if (n > last) numbers.push_back(n);
    for (const std::uint32_t n : numbers) {
      const auto it = lines.find(n);
      const LineView* v = it == lines.end() ? nullptr : &it->second;
      const nlohmann::json* r = v ? v->row : nullptr;
      const double conflicts = r ? (*r).value("bank_conflicts", 0.0) : 0.0;
      const double cshare = all_conflicts > 0 ? conflicts / all_conflicts : 0.0;
      const double sshare = v && all_stalls ? double(v->stalls.total) / double(all_stalls) : 0.0;
      const std::string code = n <= text.size() ? text[n - 1] : "";
      h += fmt::format("<tr{} id=\"L{}\"><td class=\"n\">{}</td>",
                       conflicts > 0 ? " class=\"hot\"" : "", n, n);
      if (r)
        h += fmt::format(
            "<td class=\"v\">{}</td><td class=\"v\"{}>{}</td><td class=\"v\">{:.1f}%</td>"
            "<td class=\"v\">{}</td>",
            (*r).value("accesses", 0), heat(cshare, kConflictRgb), (*r).value("bank_conflicts", 0),
            100 * cshare, degree_text(*r));
      else
        h += "<td></td><td></td><td></td><td></td>";
      if (timing)
        h += v && v->stalls.total
                 ? fmt::format("<td class=\"v\"{}>{:.1f}%</td><td class=\"v\" title=\"{}\">{}</td>",
                               heat(sshare, kStallRgb), 100 * sshare, esc(v->stalls.breakdown()),
                               esc(v->stalls.top()))
                 : "<td></td><td></td>";
      if (global)
        h += v && v->sectors ? fmt::format("<td class=\"v\">{}</td>", v->dram_bytes) : "<td></td>";
      if (global && caches)
        h += v && v->sectors ? fmt::format("<td class=\"v\">{:.0f}% / {:.0f}%</td>",
                                           100.0 * double(v->l1) / double(v->sectors),
                                           100.0 * double(v->l2) / double(v->sectors))
                             : "<td></td>";
      h += fmt::format("<td class=\"code\"{}>{}</td></tr>", heat(cshare, kConflictRgb, 0.4),
                       esc(code));
      if (v && !v->hint.empty())
        h += fmt::format("<tr class=\"hint\"><td></td><td colspan=\"{}\"></td><td>{}</td></tr>",
                         (timing ? 6 : 4) + (global ? 1 : 0) + (global && caches ? 1 : 0),
                         esc(v->hint));
    }
    h += "</table>";
  }
  if (!unplaced.empty()) {
    h += "<h2>Instructions without line information (compile with nvcc -lineinfo)</h2>"
         "<table class=\"src\"><tr><th class=\"s\">PTX</th><th class=\"s\">accesses</th>"
         "<th class=\"s\">conflicts</th><th class=\"s\">degree</th>"
         "<th style=\"text-align:left\">instruction</th></tr>";
    for (const auto& [i, r] : unplaced)
      h += fmt::format(
          "<tr><td class=\"n\">{}</td><td class=\"v\">{}</td><td class=\"v\">{}</td>"
          "<td class=\"v\">{}</td><td class=\"code\">{}</td></tr>",
          (*r)["ptx"].value("line", 0), (*r).value("accesses", 0), (*r).value("bank_conflicts", 0),
          degree_text(*r),
          esc((*r).value("instruction", "")) + (hints[i].empty() ? "" : "  // " + esc(hints[i])));
    h += "</table>";
  }
  // The PTX, folded: every instruction, its CUDA line, and its shared-memory row.
  std::map<std::uint32_t, const nlohmann::json*> by_ptx;
  for (const nlohmann::json& r : doc.at("rows")) by_ptx[r["ptx"].value("line", 0u)] = &r;
  h += fmt::format(
      "<details><summary>PTX of {} ({} instructions)</summary><table class=\"src\">"
      "<tr><th class=\"s\">PTX</th><th>CUDA</th><th class=\"s\">accesses</th>"
      "<th class=\"s\">conflicts</th><th class=\"s\">degree</th>{}"
      "<th style=\"text-align:left\">instruction</th></tr>",
      esc(name), kernel.code.size(), timing ? "<th class=\"s\">stalls</th><th>reason</th>" : "");
  for (const ptx::Instruction& ins : kernel.code) {
    const auto it = by_ptx.find(ins.ptx_line);
    const nlohmann::json* r = it == by_ptx.end() ? nullptr : it->second;
    const double c = r ? (*r).value("bank_conflicts", 0.0) : 0.0;
    h += fmt::format("<tr><td class=\"n\">{}</td><td class=\"n\">{}</td>", ins.ptx_line,
                     esc(exec::cuda_location(module, ins)));
    h += r ? fmt::format("<td class=\"v\">{}</td><td class=\"v\"{}>{}</td><td class=\"v\">{}</td>",
                         (*r).value("accesses", 0),
                         heat(all_conflicts > 0 ? c / all_conflicts : 0, kConflictRgb),
                         (*r).value("bank_conflicts", 0), degree_text(*r))
           : "<td></td><td></td><td></td>";
    if (timing) {
      const auto st = stalls_at.find(ins.ptx_line);  // the stall columns (issue 47)
      const std::uint64_t n = st == stalls_at.end() ? 0 : st->second.total;
      const double share = all_stalls ? double(n) / double(all_stalls) : 0.0;
      h += n ? fmt::format("<td class=\"v\"{}>{:.1f}%</td><td class=\"v\" title=\"{}\">{}</td>",
                           heat(share, kStallRgb), 100 * share, esc(st->second.breakdown()),
                           esc(st->second.top()))
             : "<td></td><td></td>";
    }
    h += "<td class=\"code\">" + esc(ptx::to_string(kernel, ins)) + "</td></tr>";
  }
  h += "</table></details><p style=\"color:#777;margin-top:2em\">smemsim profile; degree: the "
       "largest bank degree of the line's accesses (for atomics with position or lock conflicts, "
       "also the largest position and lock degree); share: of the kernel's bank conflicts; a "
       "click on a column's name sorts its table by it (again: source order), and a reason's "
       "tooltip gives every stall of the line.</p><script>" +
       std::string(kProfileScript) + "</script></body></html>\n";
  return h;
}

}  // namespace smemsim::cli

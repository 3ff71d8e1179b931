// profile --timing's tables (profile_print.hpp): Nsight Compute's source view per instruction and
// its memory table per CUDA line, from the cycle model.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profile_print.hpp"
#include "smemsim/exec.hpp"
#include "text_table.hpp"

namespace smemsim::cli {

namespace {

// "long_scoreboard 62%, short_scoreboard 20%": the largest warp states of an instruction, with
// their shares.
std::string top_states(const timing::StallCounts& c, std::size_t count) {
  std::uint64_t total = 0;
  std::vector<std::pair<std::uint64_t, timing::Stall>> states;
  for (std::size_t k = 0; k < timing::kStallKinds; ++k) {
    total += c.cycles[k];
    if (c.cycles[k]) states.push_back({c.cycles[k], static_cast<timing::Stall>(k)});
  }
  std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string top;
  for (std::size_t k = 0; k < states.size() && k < count; ++k)
    top += fmt::format("{}{} {:.0f}%", k ? ", " : "", timing::stall_name(states[k].second),
                       100.0 * double(states[k].first) / double(total));
  return top;
}

// Nsight Compute's memory table per CUDA line (issue 44): warp-level requests, the sectors they
// moved and per request, the share the L1 and the L2 held, and the bytes neither held.
void print_global_lines(const timing::TimingStats& s, const Arch& arch, const ptx::Module& module,
                        const ptx::Kernel& kernel, std::size_t width) {
  const bool caches = arch.sm.l1_unified_bytes || arch.sm.l2_bytes;
  fmt::print("\n{}",
             wrap(fmt::format("global and local memory per CUDA line (Nsight Compute's memory "
                              "table); requests: warp instructions; sectors: 32 bytes each; DRAM "
                              "bytes: {} (stores and atomics count there, at the DRAM's rate)",
                              caches ? "the sectors neither cache held" : "every sector's"),
                  width));
  std::vector<TextTable::Column> cols = {
      {"CUDA", true, false, 24}, {"PTX"}, {"requests"}, {"sectors"}, {"per req"}};
  if (caches) {
    cols.push_back({"L1 hit"});
    cols.push_back({"L2 hit"});
  }
  cols.push_back({"DRAM bytes"});
  TextTable table(cols);
  const auto pct = [](std::uint64_t part, std::uint64_t whole) {
    return fmt::format("{:.0f}%", 100.0 * double(part) / double(std::max<std::uint64_t>(whole, 1)));
  };
  for (const timing::GlobalLine& g : timing::global_lines(s, module, kernel)) {
    const timing::InstrStats& r = g.stats;
    std::vector<std::string> row = {
        g.cuda.empty() ? "-" : g.cuda,
        g.ptx_lines.size() > 1 ? fmt::format("{}+{}", g.ptx_lines[0], g.ptx_lines.size() - 1)
                               : std::to_string(g.ptx_lines[0]),
        std::to_string(r.global_requests), std::to_string(r.global_sectors),
        r.global_requests
            ? fmt::format("{:.1f}", double(r.global_sectors) / double(r.global_requests))
            : "-"};
    if (caches) {
      row.push_back(pct(r.l1_hit_sectors, r.global_sectors));
      row.push_back(pct(r.l2_hit_sectors, r.global_sectors));
    }
    row.push_back(std::to_string(32 * r.dram_sectors()));
    table.add(row);
  }
  fmt::print("{}", table.render(width));
}

}  // namespace

// Nsight Compute's source view, from the cycle model: per instruction its issues, mean latency and
// the warp states of the warp-cycles spent with it as the warp's next instruction.
void print_timing(const timing::TimingStats& s, const Arch& arch, const ptx::Module& module,
                  const ptx::Kernel& kernel, std::size_t width) {
  fmt::print("\n{}",
             wrap(fmt::format("timing (cycle model): {} cycles, IPC {:.3f}; {} pipeline, {} "
                              "scheduler; warp states per instruction: the warp-cycles each warp "
                              "spent with it as its next instruction",
                              s.cycles, s.ipc(), arch.sm.pipeline, arch.sm.scheduler),
                  width));
  bool global = false;  // a column for global memory where some instruction moved sectors
  for (const timing::InstrStats& r : s.instructions) global |= r.global_sectors != 0;
  const bool caches = arch.sm.l1_unified_bytes || arch.sm.l2_bytes;
  std::vector<TextTable::Column> cols = {
      {"PTX"}, {"CUDA", true, false, 24}, {"issued"}, {"latency"}, {"warp-cycles"}};
  if (global) cols.push_back({caches ? "sectors (L1/L2 hit)" : "sectors"});
  cols.push_back({"top warp states", true, false, width ? std::size_t{36} : std::size_t{0}});
  cols.push_back({"instruction", true, true});
  TextTable table(cols);
  for (std::size_t i = 0; i < s.instructions.size() && i < kernel.code.size(); ++i) {
    const timing::InstrStats& r = s.instructions[i];
    if (!r.issued) continue;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < timing::kStallKinds; ++k) total += r.warp_states.cycles[k];
    const ptx::Instruction& ins = kernel.code[i];
    const std::string cu = exec::cuda_location(module, ins);
    std::vector<std::string> row = {
        std::to_string(ins.ptx_line), cu.empty() ? "-" : cu, std::to_string(r.issued),
        fmt::format("{:.1f}", double(r.latency) / double(r.issued)), std::to_string(total)};
    if (global) {
      const double n = double(std::max<std::uint64_t>(r.global_sectors, 1));
      row.push_back(!r.global_sectors ? "-"
                    : caches          ? fmt::format("{} ({:.0f}%/{:.0f}%)", r.global_sectors,
                                                    100.0 * double(r.l1_hit_sectors) / n,
                                                    100.0 * double(r.l2_hit_sectors) / n)
                                      : std::to_string(r.global_sectors));
    }
    row.push_back(top_states(r.warp_states, width ? 2 : 3));
    row.push_back(ptx::to_string(kernel, ins));
    table.add(row);
  }
  fmt::print("{}", table.render(width));
  if (global) print_global_lines(s, arch, module, kernel, width);
}

}  // namespace smemsim::cli

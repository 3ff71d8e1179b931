// Warp-access input shared by `hash` and `classify`: --trace FILE or repeated --pattern LIST, with
// optional --op and --pc filters (the accesses of some instructions: seed 002 configures a hash per
// kernel access).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "smemsim/access_filter.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/pattern_list.hpp"
#include "smemsim/pc_filter.hpp"
#include "smemsim/trace.hpp"

namespace smemsim::cli {

struct AccessInput {
  std::string trace;
  std::vector<std::string> patterns;
  std::string op;  // trace: keep only this op; patterns: their op (default ld)
  std::string pc;  // trace: keep only these instructions (PcFilter syntax)
};

inline void add_access_input(CLI::App* cmd, AccessInput& in) {
  auto* tr = cmd->add_option("--trace", in.trace, "smemsim-trace v1 file ('-' = standard input)");
  auto* pat = cmd->add_option("--pattern", in.patterns,
                              "one warp access (reference set): comma-separated word addresses, "
                              "ranges a..b, '-' inactive; repeatable");
  pat->allow_extra_args(false);  // one access per --pattern, never the next argument too
  pat->excludes(tr);
  cmd->add_option("--op", in.op,
                  "ld, st or atom: with --trace only accesses of this op are used; "
                  "with --pattern the op of the accesses (default ld)");
  cmd->add_option("--pc", in.pc,
                  "with --trace: only the accesses of these instructions, PTX lines as `profile` "
                  "prints them (the trace's pc=): 118, 118,133 or 120..140")
      ->excludes(pat)
      ->check([](const std::string& s) {
        return s.empty() ? std::string("needs PTX lines: 118, 118,133 or 120..140") : std::string();
      });
}

// Calls f for every access; returns the number delivered. Throws InputError on bad input.
inline std::uint64_t for_each_access(const AccessInput& in, const Arch& arch,
                                     const std::function<void(const WarpAccess&)>& f) {
  if (in.trace.empty() == in.patterns.empty())
    throw InputError("give exactly one of --trace FILE or --pattern LIST (repeatable)");
  AccessFilter filter;
  if (!in.op.empty()) {
    filter.op = parse_op(in.op);
    if (!filter.op) throw InputError(fmt::format("--op: '{}' is not ld, st or atom", in.op));
  }
  if (!in.pc.empty()) filter.pcs = PcFilter::parse(in.pc, "--pc");
  std::uint64_t n = 0;
  if (!in.patterns.empty()) {
    for (const std::string& p : in.patterns) {
      f(parse_pattern_list(p, filter.op.value_or(Op::Load), arch.warp_size, arch.memory_words()));
      ++n;
    }
    return n;
  }
  TraceReader reader(in.trace, {arch.memory_words(), arch.warp_size});
  WarpAccess wa;
  std::set<std::uint32_t> seen;  // the trace's instructions, for the message below
  while (reader.next(wa)) {
    if (!filter.keep(wa)) {
      if (seen.size() < 64 && (!filter.op || wa.op == *filter.op)) seen.insert(wa.pc);
      continue;
    }
    f(wa);
    ++n;
  }
  if (n == 0 && !filter.pcs.all()) {
    std::string list;
    for (const std::uint32_t pc : seen) list += fmt::format("{}{}", list.empty() ? "" : ", ", pc);
    throw InputError(fmt::format("{}: no {}access has a pc in --pc {} (the trace's pcs: {})",
                                 in.trace, filter.op ? std::string(op_name(*filter.op)) + " " : "",
                                 filter.pcs.str(), list.empty() ? "none" : list));
  }
  return n;
}

}  // namespace smemsim::cli

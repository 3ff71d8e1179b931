// Warp-access input shared by `hash` and `classify`: --trace FILE or repeated --pattern LIST, with
// an optional --op filter.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "smemsim/access_filter.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/pattern_list.hpp"
#include "smemsim/trace.hpp"

namespace smemsim::cli {

struct AccessInput {
  std::string trace;
  std::vector<std::string> patterns;
  std::string op;        // trace: keep only this op; patterns: their op (default ld)
  std::uint32_t pc = 0;  // trace: keep only the accesses of this pc (0: every access)
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
}

// --pc LINE: with --trace, only the accesses of that instruction (a profile trace's PTX line).
inline void add_pc_filter(CLI::App* cmd, AccessInput& in) {
  cmd->add_option("--pc", in.pc,
                  "with --trace: only the accesses of this instruction (pc=; in `profile "
                  "--emit-trace` traces the PTX line that profile shows)")
      ->check(CLI::Range(std::uint32_t{1}, std::numeric_limits<std::uint32_t>::max()));
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
  std::uint64_t n = 0;
  if (!in.patterns.empty()) {
    if (in.pc) throw InputError("--pc selects the accesses of a --trace (patterns have no pc)");
    for (const std::string& p : in.patterns) {
      f(parse_pattern_list(p, filter.op.value_or(Op::Load), arch.warp_size, arch.memory_words()));
      ++n;
    }
    return n;
  }
  if (in.pc) filter.pc = in.pc;
  TraceReader reader(in.trace, {arch.memory_words(), arch.warp_size});
  WarpAccess wa;
  while (reader.next(wa)) {
    if (!filter.keep(wa)) continue;
    f(wa);
    ++n;
  }
  if (n == 0 && in.pc)
    throw InputError(fmt::format("--pc {}: {} has no access of that instruction", in.pc, in.trace));
  return n;
}

}  // namespace smemsim::cli

// Selecting the accesses of some instructions. Seed 002 configures a hash per kernel access (§5,
// §7: the vote of a histogram, not its initialization and merge), so `hash search --pc LIST` and
// the hash002 study keep only the accesses whose instruction id (WarpAccess::pc: the PTX line, a
// trace's pc=) is in a set.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smemsim/warp_access.hpp"

namespace smemsim {

class PcFilter {
 public:
  PcFilter() = default;  // keeps every access
  // "118", "118,133", "120..140" (inclusive ranges; decimal). pc 0 is refused: it is a trace line
  // without pc= (an unknown instruction). InputError naming `what` on anything else.
  static PcFilter parse(std::string_view list, std::string_view what = "--pc");
  // The given instruction ids (0 is ignored: unknown).
  static PcFilter of(const std::vector<std::uint32_t>& pcs);

  bool all() const { return ranges_.empty(); }
  bool keep(std::uint32_t pc) const;
  bool keep(const WarpAccess& wa) const { return all() || keep(wa.pc); }
  // "118,120..140": what parse() reads back.
  std::string str() const;

 private:
  void add(std::uint32_t lo, std::uint32_t hi);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges_;  // sorted, disjoint, not adjacent
};

}  // namespace smemsim

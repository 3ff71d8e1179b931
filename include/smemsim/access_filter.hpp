// Which warp accesses a consumer takes: all of them, those of one operation (--op), those of one
// or some instructions (--pc: the trace's pc, which is the PTX line in `profile --emit-trace`
// traces). One filter for every command that reads accesses (hash search, hash apply, classify) and
// for the per-line search behind profile's swizzle hints.
#pragma once

#include <cstdint>
#include <optional>

#include "smemsim/pc_filter.hpp"

#include "smemsim/warp_access.hpp"

namespace smemsim {

struct AccessFilter {
  std::optional<Op> op;
  PcFilter pcs;  // every instruction by default
  bool keep(const WarpAccess& wa) const { return (!op || wa.op == *op) && pcs.keep(wa); }
};

}  // namespace smemsim

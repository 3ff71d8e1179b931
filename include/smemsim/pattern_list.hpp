// LIST syntax of `--pattern`: comma-separated word addresses, inclusive ranges `a..b`, `-` for an
// inactive lane. Example: `0,1024,2..31` is lane 0 -> 0, lane 1 -> 1024, lanes 2..31 -> 2..31.
#pragma once

#include <string_view>

#include "smemsim/warp_access.hpp"

namespace smemsim {

// Throws InputError naming the item when malformed, when the lanes exceed `warp_size`, or when an
// address is at or beyond `memory_words`.
WarpAccess parse_pattern_list(std::string_view list, Op op, std::uint32_t warp_size,
                              std::uint32_t memory_words);

}  // namespace smemsim

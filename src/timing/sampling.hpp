// --sample-ctas: the cycles of a launch estimated from the CTAs the cycle model timed
// (src/timing/sampling.cpp, docs/timing.md "Sampling").
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/timing.hpp"

namespace smemsim::timing {

// Fills s's estimate, range and per-CTA figures from s.timed, s.cycles_timed and s.slots, for
// untimed CTAs with these warp-instruction counts (in grid order).
void estimate_untimed(SamplingStats& s, const std::vector<std::uint64_t>& untimed_instructions);

}  // namespace smemsim::timing

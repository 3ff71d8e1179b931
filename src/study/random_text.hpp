// The sentences of the random studies' reports that state a number or a claim, computed from the
// run (issue 29 item 2): the arch's lock count, where the measured lock degree stops falling,
// which penalty dominates. Under `--set atomics.locks=256` they say 256, not seed 001's 1,024.
#pragma once

#include <string>

#include "smemsim/arch.hpp"
#include "smemsim/study.hpp"

namespace smemsim::study {

// "1,024": thousands grouped, as the reports write numbers.
std::string grouped(std::int64_t v);
// random-patterns (seed 001 Fig. 5): how the mean lock degree falls and where it flattens, and
// how the latency splits between lock/position and bank penalty.
std::string random_patterns_text(const Table& t, const Arch& arch);
// random-replication (seed 001 Fig. 6): at which sizes replication lowers the lock degree.
std::string random_replication_text(const Table& t, const Arch& arch);

}  // namespace smemsim::study

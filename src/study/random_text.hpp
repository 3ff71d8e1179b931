// The sentences of the random studies' reports that state a number or a claim, computed from the
// run (issue 29 item 2): the arch's lock count, where the measured lock degree stops falling,
// which penalty dominates. Under `--set atomics.locks=256` they say 256, not seed 001's 1,024.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// The lowest mean latency of one random-mapping variant at one size, the R reaching it, and R = 1's
// latency (best < 0: no row).
struct MappingBest {
  double best = -1, r = 0, r1 = 0;
  double gain() const { return best > 0 ? r1 / best : 0.0; }
};
MappingBest mapping_best(const Table& t, double size, bool block, bool sorted, bool pad);
// random-mapping (seed 001 Fig. 7): cyclic vs block, the sizes where sorting makes replication
// pay, what padding adds, and the R at which sorted block mapping gains.
std::string random_mapping_text(const Table& t, const std::vector<std::int64_t>& sizes,
                                const Arch& arch);

}  // namespace smemsim::study

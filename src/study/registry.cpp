// The explicit study registry (DESIGN.md principle 1: no static self-registration).
#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "studies.hpp"
#include "util/names.hpp"

namespace smemsim::study {

const std::vector<StudyInfo>& studies() {
  static const std::vector<StudyInfo> s{random_patterns_info(), random_replication_info(),
                                        random_mapping_info(),  histogram_info(),
                                        kmeans_info(),          hough_info(),
                                        elastic_info(),         localtm_info(),
                                        hash002_info()};
  return s;
}

const StudyInfo& find_study(std::string_view name) {
  if (const StudyInfo* s = find_named(studies(), name)) return *s;
  throw InputError(fmt::format("unknown study '{}' (known: {})", name, known_names(studies())));
}

}  // namespace smemsim::study

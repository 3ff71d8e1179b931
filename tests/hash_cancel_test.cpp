// A hash search run inside a oneTBB loop that is being cancelled (a study whose other point threw,
// found with `study run hash002 --set memory.banks=16` on 2 threads, which crashed): the search's
// own parallel loop must still visit every reference set. Before its loop had an isolated
// context, the cancellation reached it, it returned with chunks not run, and summing their
// missing scores read past the end of an empty vector.
#include <gtest/gtest.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include "smemsim/hash_search.hpp"
#include "smemsim/patterns.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

TEST(HashCancel, ASearchInsideACancelledLoopSeesEverySet) {
  ReferenceSets s(default_arch(), HashTarget::Bank, {5, 14});
  GenCommon c;
  c.count = 6000;  // about six chunks of 1,024 sets
  gen_random(c, 12288, 0, 7, [&](const WarpAccess& wa) { s.add(wa); });
  const SearchResult alone = search_givargis(s, false);
  bool pruned = false;
  const std::vector<XorMatrix> cands = bvxor_candidates(s, pruned);
  const std::vector<std::int64_t> totals = total_conflicts(s, cands);

  SearchResult inside;
  std::vector<std::int64_t> inside_totals;
  tbb::task_group_context outer;
  tbb::parallel_for(
      tbb::blocked_range<int>(0, 1),
      [&](const tbb::blocked_range<int>&) {
        outer.cancel_group_execution();  // as when another point of the loop throws
        inside = search_givargis(s, false);
        inside_totals = total_conflicts(s, cands);
      },
      outer);
  EXPECT_EQ(inside.spec, alone.spec);
  EXPECT_EQ(inside.conflicts, alone.conflicts);
  EXPECT_EQ(inside_totals, totals);
}

}  // namespace
}  // namespace smemsim

// The hash search under a memory budget (issue 11): reference sets past half the budget are
// spilled to a file and streamed back, with the same result as in memory.
//
// Why the result must not change: the objective is sum over transactions of (max bin - 1), which
// the sets hold as sum over distinct sets of weight x (max bin - 1). A spill restarts the
// deduplication, so a set can be stored in two segments with weights w1 and w2; its terms
// w1 x d + w2 x d equal (w1 + w2) x d. The conflicts of every candidate are therefore equal
// integers for any budget, and so is every choice a search makes from them. The bitwise heuristics
// compare floating-point scores within a 1e-9 relative tolerance, far above the rounding a
// different summation order can cause.
#include <gtest/gtest.h>

#include "smemsim/hash_search.hpp"
#include "smemsim/patterns.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

// `warps` random warps over 12,288 words (the Fermi arch's 48 KiB), plus each of the first `repeats` again, so that spilled
// segments hold sets that the later ones hold too (the case where deduplication differs).
ReferenceSets random_sets(std::uint64_t warps, std::uint64_t budget, std::uint64_t repeats = 0) {
  ReferenceSets s(default_arch(), HashTarget::Bank, {5, 14});
  s.set_memory_budget(budget);
  GenCommon c;
  c.count = warps;
  std::vector<WarpAccess> first;
  gen_random(c, 12288, 0, 7, [&](const WarpAccess& wa) {
    s.add(wa);
    if (first.size() < repeats) first.push_back(wa);
  });
  for (const WarpAccess& wa : first) s.add(wa);
  return s;
}

TEST(HashSpill, SameConflictsAndSearchesUnderATinyBudget) {
  const ReferenceSets mem = random_sets(6000, 0, 2000);
  const ReferenceSets disk = random_sets(6000, 128 << 10, 2000);  // 128 KiB: many segments
  EXPECT_EQ(mem.spilled_segments(), 0u);
  EXPECT_GT(disk.spilled_segments(), 5u);
  EXPECT_GT(disk.spilled_bytes(), 0u);
  EXPECT_EQ(mem.accesses(), disk.accesses());
  EXPECT_EQ(mem.transactions(), disk.transactions());
  // In memory every repeated set was merged (6000 distinct random sets, with overwhelming
  // probability); on disk a repeat whose first copy was spilled is stored again.
  EXPECT_EQ(mem.unique_sets(), 6000u);
  EXPECT_GT(disk.unique_sets(), mem.unique_sets());
  // The peak stays within the budget: half for the sets being built, half for a loaded segment.
  EXPECT_LE(disk.peak_bytes(), 128u << 10);

  // Every candidate of the bvxor family: equal integer totals.
  bool pruned = false;
  const std::vector<XorMatrix> cands = bvxor_candidates(mem, pruned);
  ASSERT_GT(cands.size(), 100u);
  const std::vector<std::int64_t> totals = total_conflicts(mem, cands);
  EXPECT_EQ(totals, total_conflicts(disk, cands));
  // The portable kernel on a slice of them (the AVX-512 one, where the CPU has it, above).
  const std::span<const XorMatrix> some(cands.data(), 200);
  EXPECT_EQ(std::vector<std::int64_t>(totals.begin(), totals.begin() + 200),
            total_conflicts(disk, some, false));

  for (const char* family : {"bv", "bits", "bitsxor", "xormask"}) {
    const SearchResult a = search_hash(mem, {family, "", false});
    const SearchResult b = search_hash(disk, {family, "", false});
    EXPECT_EQ(a.spec, b.spec) << family;
    EXPECT_EQ(a.conflicts, b.conflicts) << family;
    EXPECT_EQ(a.baseline_conflicts, b.baseline_conflicts) << family;
    EXPECT_EQ(a.candidates_evaluated, b.candidates_evaluated) << family;
  }
  const SearchResult g1 = search_hash(mem, {"bitsxor", "givargis", false});
  const SearchResult g2 = search_hash(disk, {"bitsxor", "givargis", false});
  EXPECT_EQ(g1.spec, g2.spec);
  EXPECT_EQ(g1.conflicts, g2.conflicts);
}

TEST(HashSpill, WideSetsSpillToo) {
  // 64-lane transactions (Arch::transaction_lanes = 64) are stored apart from the 32-wide blocks.
  Arch a = default_arch();
  a.transaction_lanes = 64;
  const auto build = [&](std::uint64_t budget) {
    ReferenceSets s(a, HashTarget::Bank, {5, 14});
    s.set_memory_budget(budget);
    GenCommon c;
    c.lanes = 64;
    c.count = 1500;
    gen_random(c, 12288, 0, 11, [&](const WarpAccess& wa) { s.add(wa); });
    return s;
  };
  const ReferenceSets mem = build(0), disk = build(128 << 10);
  EXPECT_GT(disk.spilled_segments(), 1u);
  ASSERT_GT(mem.wide().size(), 0u);
  const SearchResult x = search_hash(mem, {"bitsxor", "mih", false});
  const SearchResult y = search_hash(disk, {"bitsxor", "mih", false});
  EXPECT_EQ(x.spec, y.spec);
  EXPECT_EQ(x.conflicts, y.conflicts);
  EXPECT_GT(x.conflicts, 0);
}

TEST(HashSpill, CliBudgetOptionAndReport) {
  const std::string trace = test::temp_file("spill.trace", "");
  ASSERT_EQ(test::cli("gen random --space 12288 --count 2000 --seed 3 -o " + trace).exit_code, 0);
  const auto r = test::cli("hash search --family bvxor --trace " + trace + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"budget_bytes\": 2147483648"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"spilled_segments\": 0"), std::string::npos) << r.out;
  const auto s = test::cli("hash search --family bvxor --trace " + trace + " --stats");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  EXPECT_NE(s.out.find("peak of a 2 GiB budget"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("M accesses/s"), std::string::npos) << s.out;
  for (const auto& [arg, words] :
       std::vector<std::pair<std::string, std::string>>{{"lots", "is not a memory size"},
                                                        {"0", "more than 0 bytes"},
                                                        {"1M", "below the 16 MiB"},
                                                        {"5Q", "is not a memory size"},
                                                        {"99999999999999999999", "out of range"},
                                                        {"2000000000T", "out of range"}}) {
    const auto e =
        test::cli("hash search --family bvxor --trace " + trace + " --max-memory " + arg);
    EXPECT_EQ(e.exit_code, 2) << arg << "\n" << e.out;
    EXPECT_NE(e.out.find(words), std::string::npos) << arg << "\n" << e.out;
  }
}

}  // namespace
}  // namespace smemsim

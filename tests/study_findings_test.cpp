// The seeds' voting-process findings, reproduced by the studies on reduced (quick) sweeps:
// seed 001 §3 (Fig. 5-7), seed 001 §4.1.1 (k-means best R) and seed 000 §V.B (histogram hashes).
#include <map>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/study.hpp"
#include "study_test_util.hpp"

namespace smemsim {
namespace {

using study::Table;
using test::at;
using test::find;
using test::run_all;

// Seed 001 §3, Fig. 5: the lock degree falls with the vote-space size up to 1,024 words (all
// position conflicts), then stays flat (1,024 locks: aliased addresses).
TEST(Seed001Section3, LockDegreeFallsUpTo1024WordsThenFlat) {
  const Table t = run_all("random-patterns", {{"patterns", "20000"}});
  const char* sizes[] = {"32", "64", "128", "256", "512", "1024", "2048", "4096"};
  for (int i = 0; i + 1 < 6; ++i)
    EXPECT_GT(at(t, {{"size", sizes[i]}}, "lock_degree_mean"),
              at(t, {{"size", sizes[i + 1]}}, "lock_degree_mean") + 0.1)
        << sizes[i];
  const double l1024 = at(t, {{"size", "1024"}}, "lock_degree_mean");
  EXPECT_NEAR(at(t, {{"size", "2048"}}, "lock_degree_mean"), l1024, 0.02);
  EXPECT_NEAR(at(t, {{"size", "4096"}}, "lock_degree_mean"), l1024, 0.02);
  // Below 1,024 words the lock degree is the position degree (001 §3).
  EXPECT_DOUBLE_EQ(at(t, {{"size", "256"}}, "lock_degree_mean"),
                   at(t, {{"size", "256"}}, "position_degree_mean"));
  // Most of the latency is lock/position penalty at 32 words even though bank penalty exists
  // elsewhere; at 32 words there are no bank conflicts at all.
  EXPECT_DOUBLE_EQ(at(t, {{"size", "32"}}, "bank_degree_mean"), 1.0);
}

// Seed 001 §3, Fig. 6: replication lowers the lock degree below 1,024 words and does nothing from
// 1,024 words on (copies alias the same locks).
TEST(Seed001Section3, ReplicationBeyond1024WordsDoesNotHelp) {
  const Table t = run_all("random-replication", {{"patterns", "20000"}});
  for (const char* s : {"32", "64", "128", "256", "512"})
    EXPECT_LT(at(t, {{"size", s}}, "lock_degree_mean") + 0.2,
              at(t, {{"size", s}}, "r1_lock_degree_mean"))
        << s;
  for (const char* s : {"1024", "2048", "4096"}) {
    EXPECT_DOUBLE_EQ(at(t, {{"size", s}}, "lock_degree_mean"),
                     at(t, {{"size", s}}, "r1_lock_degree_mean"))
        << s;
    EXPECT_GE(at(t, {{"size", s}}, "latency_cycles_mean"),
              at(t, {{"size", s}}, "r1_latency_cycles_mean") - 0.5)
        << s;
  }
}

double best(const Table& t, const std::string& size, const std::string& mapping, int sorted,
            int pad) {
  double b = 1e300;
  for (std::size_t k = 0; k < t.rows.size(); ++k)
    if (t.str(k, "size") == size && t.str(k, "mapping") == mapping &&
        t.num(k, "sorted") == sorted && t.num(k, "pad") == pad)
      b = std::min(b, t.num(k, "latency_cycles_mean"));
  return b;
}

// Seed 001 §3, Fig. 7: with sorting, cyclic mapping gains below 1,024 words, padding adds to it;
// plain cyclic and block behave alike on random data; the gain of sorting vanishes from 1,024 on.
TEST(Seed001Section3, CyclicMappingWithSortingGainsUnder1024AndPaddingAddsToIt) {
  const Table t = run_all("random-mapping", {{"patterns", "4000"}});
  for (const char* s : {"64", "128", "256", "512"}) {
    EXPECT_LT(best(t, s, "cyclic", 1, 0) * 1.05, best(t, s, "cyclic", 0, 0)) << s;
    EXPECT_LT(best(t, s, "cyclic", 1, 1), best(t, s, "cyclic", 1, 0) - 0.5) << s;
    EXPECT_NEAR(best(t, s, "cyclic", 0, 0), best(t, s, "block", 0, 0),
                0.02 * best(t, s, "block", 0, 0))
        << s;
  }
  for (const char* s : {"2048", "4096"})
    EXPECT_NEAR(best(t, s, "cyclic", 1, 0), best(t, s, "cyclic", 0, 0), 2.0) << s;
  // Block mapping with sorting gains nothing from padding below R = 32 (001 §3).
  const int k =
      find(t, {{"size", "256"}, {"r", "8"}, {"mapping", "block"}, {"sorted", "1"}, {"pad", "1"}});
  const int k0 =
      find(t, {{"size", "256"}, {"r", "8"}, {"mapping", "block"}, {"sorted", "1"}, {"pad", "0"}});
  ASSERT_GE(k, 0);
  ASSERT_GE(k0, 0);
  EXPECT_NEAR(t.num(k, "latency_cycles_mean"), t.num(k0, "latency_cycles_mean"), 3.0);
}

// Seed 001 §4.1.1: the best replication factor keeps each vote space's copies within 1,024 words:
// R = 8, 4, 2 for k = 128, 256, 512 (cyclic mapping), for 2-, 4- and 5-component objects.
TEST(Seed001Section4, KMeansBestReplicationIs8_4_2) {
  const Table t = run_all("kmeans", {{"objects", "12000"}, {"mappings", "cyclic,block"}});
  const std::map<std::string, int> expect{{"128", 8}, {"256", 4}, {"512", 2}};
  for (const char* d : {"2", "4", "5"})
    for (const auto& [k, want] : expect) {
      double bc = 1e300;
      int br = 0;
      for (std::size_t q = 0; q < t.rows.size(); ++q)
        if (t.str(q, "dims") == d && t.str(q, "k") == k && t.str(q, "mapping") == "cyclic" &&
            t.num(q, "cycles") < bc)
          bc = t.num(q, "cycles"), br = int(t.num(q, "r"));
      EXPECT_EQ(br, want) << "d=" << d << " k=" << k;
      // Block mapping with 1,024-thread blocks keeps whole warps on one copy: no gain over R = 1.
      EXPECT_DOUBLE_EQ(at(t, {{"dims", d}, {"k", k}, {"mapping", "block"}, {"r", "2"}}, "cycles"),
                       at(t, {{"dims", d}, {"k", k}, {"mapping", "block"}, {"r", "1"}}, "cycles"));
    }
}

TEST(StudyConfig, UnknownParameterAndBadValues) {
  const auto& info = study::find_study("random-patterns");
  EXPECT_THROW(study::resolve_config(info, default_arch(), true, {{"nope", "1"}}), InputError);
  EXPECT_THROW(study::resolve_config(info, default_arch(), true, {{"backend", "gpu"}}), InputError);
  EXPECT_THROW(study::find_study("histo"), InputError);
  int i = 0, n = 0;
  study::parse_shard("2/5", i, n);
  EXPECT_EQ(i, 2);
  EXPECT_EQ(n, 5);
  EXPECT_THROW(study::parse_shard("5/5", i, n), InputError);
  EXPECT_THROW(study::parse_shard("x", i, n), InputError);
}

}  // namespace
}  // namespace smemsim

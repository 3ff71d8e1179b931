// The L2 every SM shares (issue 44, src/timing/l2.hpp, docs/timing.md "The shared L2"): its
// slices, DRAM channels, queues and atomics, on a small L2 whose every number is derived by hand,
// then on whole kernels.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "test_util.hpp"
#include "timing/global_mem.hpp"
#include "timing/l2.hpp"

namespace smemsim::test {
namespace {

using timing::SharedL2;
using Access = SharedL2::Access;

// 4 slices (a line's by its address modulo 4) of one set of 4 lines (512 bytes each), 32 B a
// cycle each: a sector a cycle. 2 channels (slices 0 and 1 on channel 0, 2 and 3 on 1) sharing
// 16 B a cycle (sm.global_bytes_per_cycle x 1 SM): 8 each, 4 cycles a sector. An L2 hit 100
// cycles, DRAM 300, an atomic 50 and 9 a lane. A slice holds 4 sectors waiting (4 cycles of its
// work), a channel 8 (32 cycles).
SmConfig small() {
  SmConfig c;
  c.count = 1;
  c.l2_bytes = 4 * 512;
  c.l2_ways = 4;
  c.l2_slices = 4;
  c.l2_slice_bytes_per_cycle = 32;
  c.l2_hash = "mod";
  c.dram_channels = 2;
  c.global_bytes_per_cycle = 16;
  c.l2_latency = 100;
  c.global_latency = 300;
  c.global_atomic_latency = 50;
  c.l2_atomic_cycles = 9;
  c.l2_queue_sectors = 4;
  c.dram_queue_sectors = 8;
  return c;
}

// Sectors are byte address / 32; line L holds sectors 4L..4L+3 and lives in slice L % 4.
std::vector<std::uint64_t> line(std::uint64_t l) {
  return {4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3};
}

TEST(SharedL2, AMissTakesTheDramLatencyAndAHitTheL2s) {
  SharedL2 l2(small());
  const std::uint64_t x = 0;
  // Cold: the slice and channel 0 take it at once, the data is back global_latency later.
  auto a = l2.serve(&x, 1, Access::Load, 0, 10);
  EXPECT_EQ(a.at, 310u);
  EXPECT_EQ(a.hits, 0u);
  // Later the line is there: l2_latency.
  auto b = l2.serve(&x, 1, Access::Load, 0, 400);
  EXPECT_EQ(b.at, 500u);
  EXPECT_EQ(b.hits, 1u);
  // A .cv load reads memory again.
  EXPECT_EQ(l2.serve(&x, 1, Access::LoadAgain, 0, 600).at, 900u);
}

// Two SMs read line 4 (slice 0) in the same cycle: the first (SM order) misses and its data is
// back at 1,300; the second finds the line allocated, waits a cycle for the slice (1,001), and
// its data comes with the first's fill, not 100 cycles after 1,001.
TEST(SharedL2, ASecondSmsReadOfALineOnItsWayWaitsForItsFill) {
  SharedL2 l2(small());
  const std::uint64_t x = 16;
  EXPECT_EQ(l2.serve(&x, 1, Access::Load, 0, 1000).at, 1300u);
  const auto b = l2.serve(&x, 1, Access::Load, 0, 1000);
  EXPECT_EQ(b.at, 1300u);
  EXPECT_EQ(b.hits, 1u);
}

// A line's sectors are fetched on their own misses, so each keeps its own fill time. Sector 0
// (line 0: slice 0, channel 0) misses at cycle 10, its data back at 310; sector 1 of the same
// line misses at 200 (slice and channel idle again), back at 500. Sector 0 read at 320 is an L2
// hit on data already there: 320 + 100 = 420, not the line's later fill at 500. Sector 1 read at
// 330 is still on its way: it comes with its fill, 500.
TEST(SharedL2, EachSectorOfALineWaitsOnlyForItsOwnFill) {
  SharedL2 l2(small());
  const std::uint64_t s0 = 0, s1 = 1;
  EXPECT_EQ(l2.serve(&s0, 1, Access::Load, 0, 10).at, 310u);
  EXPECT_EQ(l2.serve(&s1, 1, Access::Load, 0, 200).at, 500u);
  const auto a = l2.serve(&s0, 1, Access::Load, 0, 320);
  EXPECT_EQ(a.at, 420u);
  EXPECT_EQ(a.hits, 1u);
  const auto b = l2.serve(&s1, 1, Access::Load, 0, 330);
  EXPECT_EQ(b.at, 500u);
  EXPECT_EQ(b.hits, 1u);
}

// Two warps of one SM load sector 16 through the L1, at cycles 10 and 11. The first misses: its
// sector is allocated in the L1 and goes to the L2 (cold: slice 0 and channel 0 take it at once,
// the data lands at 10 + 300 = 310). The second finds the sector allocated, an L1 hit (as the
// H100's Nsight counts it: scripts/memory_scaling.cu's mem_read_pairs_ca, 32,768 L1 hits and
// 32,768 L2 lookups of 65,536 sectors) that sends nothing to the L2, but its data is the
// first's fill: back at 310, not at 11 + the L1's 20. A third load at 400, after the fill, is a
// plain hit: 400 + 20.
TEST(SharedL2, AnL1HitOnASectorStillBeingFilledWaitsForTheFill) {
  using G = timing::GlobalMemoryUnit;
  SmConfig c = small();
  c.l1_latency = 20;
  timing::SharedL2 l2(c);
  G g(c, 4096, &l2);
  const std::uint64_t x = 16;
  std::vector<std::uint64_t> to;
  const auto load = [&](std::uint32_t op, std::uint64_t now) {
    to.clear();
    const G::Split s =
        g.classify(&x, 1, G::Kind::Load, ptx::CacheOp::Ca, false, false, false, &to, now);
    g.send(op, 1, G::Kind::Load, 0, s, to.data());
    return s;
  };
  std::vector<std::pair<std::uint32_t, std::uint64_t>> back;  // op, cycle its data is back
  const auto run = [&](std::uint64_t from, std::uint64_t to_cycle) {
    for (std::uint64_t t = from; t <= to_cycle; ++t) {
      g.tick(t, [](std::uint32_t) {});
      g.resolve(t, [](std::uint32_t, std::uint32_t) {});
      while (g.return_ready(t)) back.push_back({g.pop_return(t), t});
    }
  };
  const G::Split a = load(0, 10);
  EXPECT_EQ(a.l1, 0u);
  EXPECT_NE(a.own, 0u);
  EXPECT_EQ(to.size(), 1u);
  run(10, 10);
  const G::Split b = load(1, 11);
  EXPECT_EQ(b.l1, 1u);       // counted an L1 hit
  EXPECT_TRUE(to.empty());   // nothing more for the L2
  EXPECT_EQ(b.ready, 310u);  // the first's fill is timed by now
  run(11, 399);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], std::make_pair(0u, std::uint64_t{310}));
  EXPECT_EQ(back[1], std::make_pair(1u, std::uint64_t{310}));
  const G::Split d = load(2, 400);
  EXPECT_EQ(d.l1, 1u);
  EXPECT_EQ(d.ready, 0u);
  EXPECT_EQ(d.wait, 0u);
  run(400, 430);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2], std::make_pair(2u, std::uint64_t{420}));
}

// Both loads in the same cycle: the second takes the first's fill number before the L2 has timed
// it, and learns the time when both are served at the end of the cycle.
TEST(SharedL2, AnL1HitOnAFillNotYetTimedWaitsForItToo) {
  using G = timing::GlobalMemoryUnit;
  SmConfig c = small();
  c.l1_latency = 20;
  timing::SharedL2 l2(c);
  G g(c, 4096, &l2);
  const std::uint64_t x = 16;
  std::vector<std::uint64_t> to;
  const G::Split a =
      g.classify(&x, 1, G::Kind::Load, ptx::CacheOp::Ca, false, false, false, &to, 10);
  g.send(0, 1, G::Kind::Load, 0, a, to.data());
  to.clear();
  const G::Split b =
      g.classify(&x, 1, G::Kind::Load, ptx::CacheOp::Ca, false, false, false, &to, 10);
  EXPECT_EQ(b.wait, a.own);
  g.send(1, 1, G::Kind::Load, 0, b, to.data());
  std::vector<std::uint64_t> at(2, 0);
  for (std::uint64_t t = 10; t < 400; ++t) {
    g.tick(t, [](std::uint32_t) {});
    g.resolve(t, [](std::uint32_t, std::uint32_t) {});
    while (g.return_ready(t)) at[g.pop_return(t)] = t;
  }
  EXPECT_EQ(at[0], 310u);
  EXPECT_EQ(at[1], 310u);
}

// The SM's port has two ways (sm.l2_bytes_per_cycle 64, sm.l2_write_bytes_per_cycle 32): 8
// sectors of a store leave one a cycle, 8 of a load two a cycle. The first tick finds the port's
// credit full (rate + one sector: 64 toward the L2, 96 for loads), so the store moves 2 sectors at
// cycle 100 and one a cycle after, its last at 106; the load 3, then 2, 2 and 1: its last at 103.
// With no write key a store takes the load's way, 103 too. (The H100: one CTA alone writes 32
// B/clk, scripts/memory_scaling.cu, where its loads come back at up to 99.)
TEST(SharedL2, AStoresSectorsLeaveByThePortsWayTowardTheL2) {
  using G = timing::GlobalMemoryUnit;
  const auto last_sector = [](std::uint32_t write_rate, G::Kind kind) {
    SmConfig c = small();
    c.l2_queue_sectors = 64;
    c.l2_bytes_per_cycle = 64;
    c.l2_write_bytes_per_cycle = write_rate;
    timing::SharedL2 l2(c);
    G g(c, 0, &l2);
    std::vector<std::uint64_t> sec = {0, 1, 2, 3, 4, 5, 6, 7}, to;
    const G::Split s =
        g.classify(sec.data(), 8, kind, ptx::CacheOp::None, false, false, false, &to, 100);
    EXPECT_EQ(to.size(), 8u);
    g.send(0, 8, kind, 0, s, to.data());
    for (std::uint64_t t = 100; t < 200; ++t) {
      g.tick(t, [](std::uint32_t) {});
      const bool gone = g.resolving();
      g.resolve(t, [](std::uint32_t, std::uint32_t) {});
      if (gone) return t;
    }
    return std::uint64_t{0};
  };
  EXPECT_EQ(last_sector(32, G::Kind::Store), 106u);
  EXPECT_EQ(last_sector(32, G::Kind::Load), 103u);
  EXPECT_EQ(last_sector(0, G::Kind::Store), 103u);
}

// Eight sectors the L2 holds (a warm L2's buffer): lines 1 and 5 are both slice 1's, so the
// slice takes them one a cycle and the last is back 7 + 100 cycles after the request; lines 0
// and 1 put four in slice 0 and four in slice 1, done by 3 + 100.
TEST(SharedL2, ASlicesSectorsTakeACycleEachAtItsRate) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> warm = {{0, 64}};
  SharedL2 one(small()), two(small());
  one.set_resident(&warm);
  two.set_resident(&warm);
  std::vector<std::uint64_t> same = line(1), spread = line(0);
  for (std::uint64_t x : line(5)) same.push_back(x);
  for (std::uint64_t x : line(1)) spread.push_back(x);
  const auto a = one.serve(same.data(), 8, Access::Load, 0, 0);
  EXPECT_EQ(a.at, 107u);
  EXPECT_EQ(a.hits, 8u);
  EXPECT_EQ(two.serve(spread.data(), 8, Access::Load, 0, 0).at, 103u);
}

// Line 0 (slice 0) and line 1 (slice 1) cold: both slices are channel 0's, 4 cycles a sector.
// The slices hand it sectors 0-3 at cycles 0-3 and 4-7 at 0-3 too; the channel starts them at 0,
// 4, 8, ..., 28 (each waits for the one before), so the last is back at 28 + 300.
TEST(SharedL2, MissesOfOneChannelQueueAtItsRate) {
  SharedL2 l2(small());
  std::vector<std::uint64_t> s = line(0);
  for (std::uint64_t x : line(1)) s.push_back(x);
  EXPECT_EQ(l2.serve(s.data(), 8, Access::Load, 0, 0).at, 328u);
  // Line 2 (slice 2, channel 1) at the same time waits for neither: its own channel starts its
  // sectors at 0, 4, 8 and 12.
  const auto other = line(2);
  EXPECT_EQ(l2.serve(other.data(), 4, Access::Load, 0, 0).at, 312u);
}

// Two SMs' atomics, 32 lanes on one word of sector 100 (line 25, slice 1), in the same cycle:
// the first begins at 0, holds the word 32 x 9 = 288 cycles and is back at 31 x 9 + 50 = 329;
// the second (the slice gives it cycle 1) begins at 288 and is back at 288 + 279 + 50 = 617. An
// atomic on another sector (104, line 26, slice 2) waits for neither: 329.
TEST(SharedL2, AtomicsOnOneWordFromTwoSmsTakeTurns) {
  SharedL2 l2(small());
  const std::uint64_t x = 100, y = 104;
  EXPECT_EQ(l2.serve(&x, 1, Access::Atomic, 32, 0).at, 329u);
  EXPECT_EQ(l2.serve(&x, 1, Access::Atomic, 32, 0).at, 617u);
  EXPECT_EQ(l2.serve(&y, 1, Access::Atomic, 32, 0).at, 329u);
}

// An SM may send a sector to a slice while its work waiting is at most 4 sectors (4 cycles):
// six sectors of slice 0 at cycle 0 keep it busy to cycle 6, so it refuses at cycle 0 and 1 and
// accepts from cycle 2; slice 1 accepts at once.
TEST(SharedL2, AFullSliceRefusesAnSmsRequest) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> warm = {{0, 64}};
  SharedL2 l2(small());
  l2.set_resident(&warm);
  std::vector<std::uint64_t> s = line(0);
  s.push_back(16);
  s.push_back(17);  // line 4: slice 0 too
  l2.serve(s.data(), 6, Access::Load, 0, 0);
  EXPECT_FALSE(l2.accepts(0, 0));
  EXPECT_FALSE(l2.accepts(0, 1));
  EXPECT_TRUE(l2.accepts(0, 2));
  EXPECT_TRUE(l2.accepts(1, 0));
}

// Stores fill slice 0's one set with dirty lines 0, 4, 8 and 12 (16 sectors, cycles 0-15).
// Each of lines 16, 20, 24 and 28 then evicts one (LRU), whose 4 dirty sectors channel 0 writes
// in 16 cycles: at 16, 20, 24 and 35 the channel is busy to 32, 48, 64 and 80. From the third
// eviction on the channel holds more than its 32 cycles of waiting work (64 > 24 + 32), so the
// slice waits until it has room: free at 32 after line 24's first sector, then line 28's first
// sector starts at 35 and holds it to 48, and its other three make 51. Without DRAM behind it
// the slice would be free at 32. So the slice refuses an SM's sector at cycle 46 (51 > 46 + 4)
// and accepts it at 47: the stores run at the DRAM's rate.
TEST(SharedL2, DirtyEvictionsHoldTheSliceAtTheDramsRate) {
  SharedL2 l2(small());
  for (std::uint64_t l : {0, 4, 8, 12, 16, 20, 24, 28}) {
    const auto s = line(l);
    EXPECT_EQ(l2.serve(s.data(), 4, Access::Store, 0, 0).hits, 0u);
  }
  EXPECT_FALSE(l2.accepts(0, 46));
  EXPECT_TRUE(l2.accepts(0, 47));
  // Line 0 was written back and evicted: reading it again is a miss.
  EXPECT_EQ(l2.serve(line(0).data(), 1, Access::Load, 0, 1000).hits, 0u);
}

// The hash: line 4 is slice 0's by the modulo, slice 1's by the XOR fold (4 ^ 4 >> 2 = 5), so a
// stride of 4 lines does not camp on one slice.
TEST(SharedL2, TheXorHashSpreadsAStrideTheModuloCampsOn) {
  SmConfig c = small();
  EXPECT_EQ(SharedL2(c).slice_of(16), 0u);
  c.l2_hash = "xor";
  SharedL2 x(c);
  EXPECT_EQ(x.slice_of(16), 1u);
  std::vector<int> per(4, 0);
  for (std::uint64_t l = 0; l < 64; l += 4) ++per[x.slice_of(4 * l)];
  for (int n : per) EXPECT_EQ(n, 4);
}

// A bad key is a one-line error naming it.
TEST(SharedL2, ItsKeysAreChecked) {
  Arch a = find_preset("volta-v100");
  a.sm.l2_hash = "crc";
  EXPECT_THROW(validate(a), InputError);
  a = find_preset("volta-v100");
  a.sm.dram_channels = a.sm.l2_slices + 1;
  EXPECT_THROW(validate(a), InputError);
  const CliResult r = cli("arch show volta-v100 --set sm.l2_hash=crc");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("sm.l2_hash"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::test

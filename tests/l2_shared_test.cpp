// The L2 every SM shares (issue 44, src/timing/l2.hpp, docs/timing.md "The shared L2"): its
// slices, DRAM channels, queues and atomics, on a small L2 whose every number is derived by hand,
// then on whole kernels.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "test_util.hpp"
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

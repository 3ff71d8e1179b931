// The analyzer's degrees must equal a brute-force count written from the definitions
// (docs/models.md), for full and partial masks, every lane count, and subsets of the lanes, with
// each vector kernel (where the CPU has it) and with the portable code.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "smemsim/conflict.hpp"
#include "util/rng.hpp"

namespace smemsim {
namespace {

struct Brute {
  int bank = 0, position = 0, lock = 0;
};

// Definitions: bank = max over banks of distinct bank units; position = max lanes on one word;
// lock = max lanes on one lock.
Brute brute(const ConflictAnalyzer& a, LaneMask subset) {
  std::map<std::uint32_t, std::set<std::uint32_t>> units_per_bank;
  std::map<std::uint32_t, int> per_word, per_lock;
  const std::uint32_t words_per_unit = a.arch().words_per_bank_unit();
  Brute b;
  for (int l = 0; l < a.lanes(); ++l) {
    if (!((subset >> l) & 1u)) continue;
    units_per_bank[a.bank_of(l)].insert(a.addr_of(l) / words_per_unit);
    b.position = std::max(b.position, ++per_word[a.addr_of(l)]);
    b.lock = std::max(b.lock, ++per_lock[a.lock_of(l)]);
  }
  for (const auto& [bank, units] : units_per_bank) b.bank = std::max(b.bank, int(units.size()));
  return b;
}

void check_arch(Arch arch, ConflictAnalyzer::Kernel kernel) {
  ConflictAnalyzer fast(arch);
  if (!fast.use_kernel(kernel)) return;  // not on this CPU
  Rng rng(99);
  for (int iter = 0; iter < 4000; ++iter) {
    WarpAccess wa;
    const int lanes = 1 + int(rng.below(arch.transaction_lanes));
    wa.lanes = static_cast<std::uint8_t>(lanes);
    // Small spaces make duplicates, aliasing and conflicts common; large ones make them rare.
    const std::uint64_t space =
        std::min<std::uint64_t>(std::uint64_t{1} << (1 + rng.below(13)), arch.memory_words());
    for (int l = 0; l < lanes; ++l) wa.addr[l] = static_cast<WordAddr>(rng.below(space));
    wa.active = rng.next() & lanes_mask(lanes);
    if (iter % 3 == 0) wa.active = lanes_mask(lanes);
    fast.load(wa, 0, lanes);
    const Brute want = brute(fast, wa.active);
    ASSERT_EQ(fast.bank_degree(), want.bank) << "iter " << iter;
    ASSERT_EQ(fast.position_degree(), want.position) << "iter " << iter;
    ASSERT_EQ(fast.lock_degree(), want.lock) << "iter " << iter;
    const LaneMask subset = wa.active & rng.next();
    ASSERT_EQ(fast.bank_degree(subset), brute(fast, subset).bank) << "iter " << iter;
    // One winner per lock, the lowest lane of each (docs/models.md).
    std::map<std::uint32_t, int> lowest;
    for (int l = lanes - 1; l >= 0; --l)
      if ((wa.active >> l) & 1u) lowest[fast.lock_of(l)] = l;
    LaneMask winners = 0;
    for (const auto& [lock, lane] : lowest) winners |= LaneMask{1} << lane;
    ASSERT_EQ(fast.lock_winners(wa.active), winners) << "iter " << iter;
    // Round r of Algorithm 1: the lanes with exactly r lower active lanes on their lock.
    std::vector<LaneMask> rounds;
    std::map<std::uint32_t, int> seen;
    for (int l = 0; l < lanes; ++l) {
      if (!((wa.active >> l) & 1u)) continue;
      const auto r = static_cast<std::size_t>(seen[fast.lock_of(l)]++);
      if (rounds.size() <= r) rounds.resize(r + 1, 0);
      rounds[r] |= LaneMask{1} << l;
    }
    const auto got = fast.round_winners();
    ASSERT_EQ(std::vector<LaneMask>(got.begin(), got.end()), rounds) << "iter " << iter;
  }
}

void check_arch(const Arch& arch) {
  using K = ConflictAnalyzer::Kernel;
  for (K k : {K::Avx512, K::Avx2, K::Portable}) check_arch(arch, k);
}

TEST(Analyzer, DegreesMatchTheDefinitions) {
  check_arch(find_preset("fermi-gtx580"));
  check_arch(find_preset("kepler-k20"));   // 8-byte banks: two words per bank unit
  check_arch(find_preset("tesla-gt200"));  // 16-lane transactions
  check_arch(find_preset("hopper-h100"));  // one lock per word
  Arch x = find_preset("fermi-gtx580");
  x.bank_hash = "xor";
  x.lock_hash = "add";
  check_arch(x);
  Arch wide = find_preset("southern-islands");
  wide.transaction_lanes = 64;  // wider than the vector kernel's 32 lanes: portable code
  validate(wide);
  check_arch(wide);
}

}  // namespace
}  // namespace smemsim

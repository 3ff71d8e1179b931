// The analyzer's vector kernel (src/analysis/lane_sort.hpp) against its portable code: every
// degree, every subset degree, the lock rounds and the alg1 / fsm latencies agree, on the archs
// and index functions the kernel serves, over spaces from a few words (duplicates and aliasing
// everywhere) to the whole memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "analysis/lane_sort.hpp"
#include "smemsim/conflict.hpp"
#include "smemsim/latency_model.hpp"
#include "util/rng.hpp"

namespace smemsim {
namespace {

void compare(const Arch& arch) {
  ConflictAnalyzer vec(arch);
  ConflictAnalyzer port(arch);
  port.set_vector_kernel(false);
  if (!vec.vector_kernel()) GTEST_SKIP() << "no vector kernel on this CPU for " << arch.name;
  ASSERT_FALSE(port.vector_kernel());
  const auto alg1 = make_latency_model("alg1", arch.timing);
  const auto fsm = make_latency_model("fsm", arch.timing);
  Rng rng(2026);
  const int tl = static_cast<int>(std::min<std::uint32_t>(arch.transaction_lanes, 32));
  for (int iter = 0; iter < 20000; ++iter) {
    WarpAccess wa;
    const int lanes = iter % 2 ? tl : 1 + int(rng.below(std::uint64_t(tl)));
    wa.lanes = static_cast<std::uint8_t>(lanes);
    const std::uint64_t space =
        std::min<std::uint64_t>(std::uint64_t{1} << (1 + rng.below(17)), arch.memory_words());
    for (int l = 0; l < lanes; ++l) wa.addr[l] = static_cast<WordAddr>(rng.below(space));
    wa.active = iter % 3 ? lanes_mask(lanes) : rng.next() & lanes_mask(lanes);
    vec.load(wa, 0, lanes);
    port.load(wa, 0, lanes);
    const auto at = [&] { return ::testing::Message() << arch.name << " iter " << iter; };
    ASSERT_EQ(vec.bank_degree(), port.bank_degree()) << at();
    ASSERT_EQ(vec.position_degree(), port.position_degree()) << at();
    ASSERT_EQ(vec.lock_degree(), port.lock_degree()) << at();
    for (int k = 0; k < 4; ++k) {
      const LaneMask subset = wa.active & rng.next() & (k < 2 ? rng.next() : ~LaneMask{0});
      ASSERT_EQ(vec.bank_degree(subset), port.bank_degree(subset)) << at() << " subset " << subset;
    }
    const auto rv = vec.round_winners();
    const auto rp = port.round_winners();
    ASSERT_EQ(std::vector<LaneMask>(rv.begin(), rv.end()),
              std::vector<LaneMask>(rp.begin(), rp.end()))
        << at();
    for (int l = 0; l < lanes; ++l) {
      if (!wa.is_active(l)) continue;
      ASSERT_EQ(vec.bank_of(l), port.bank_of(l)) << at() << " lane " << l;
      ASSERT_EQ(vec.lock_of(l), port.lock_of(l)) << at() << " lane " << l;
    }
    ASSERT_EQ(alg1->latency(vec, Op::Atomic), alg1->latency(port, Op::Atomic)) << at();
    ASSERT_EQ(fsm->latency(vec, Op::Atomic), fsm->latency(port, Op::Atomic)) << at();
  }
}

Arch with_hashes(const char* preset, const char* bank, const char* lock) {
  Arch a = find_preset(preset);
  a.bank_hash = bank;
  a.lock_hash = lock;
  a.name += std::string("/") + bank + "/" + lock;
  return a;
}

TEST(LaneSort, EqualsThePortableCodeOnFermiForEveryFixedHash) {
  for (const char* bank : {"mod", "xor", "add"})
    for (const char* lock : {"mod", "xor", "add"}) compare(with_hashes("fermi-gtx580", bank, lock));
}

TEST(LaneSort, EqualsThePortableCodeOnOtherArchs) {
  // 8-byte banks, 16- and 8-lane transactions, 64-wide wavefronts in 32-lane halves, and the
  // largest memory (one lock per word: the lock part stays portable).
  for (const char* name : {"kepler-k20", "tesla-gt200", "cf11", "southern-islands", "hopper-h100"})
    compare(find_preset(name));
  compare(with_hashes("kepler-k20", "xor", "add"));
  Arch two_k_locks = find_preset("fermi-gtx580");
  two_k_locks.locks = 2048;  // 11 lock bits: the widest lock key
  compare(two_k_locks);
}

TEST(LaneSort, SortKeys32SortsAndMarksFirstOccurrences) {
  if (!detail::lane_sort_available()) GTEST_SKIP() << "no AVX-512BW on this CPU";
  Rng rng(7);
  for (int iter = 0; iter < 5000; ++iter) {
    alignas(64) std::array<std::uint16_t, 32> keys;
    const std::uint64_t range = iter % 4 == 0 ? 65536 : 1 + rng.below(40);  // duplicates often
    for (auto& k : keys) k = static_cast<std::uint16_t>(65535 - rng.below(range));
    std::array<std::uint16_t, 32> want = keys;
    std::sort(want.begin(), want.end());
    const std::uint32_t first = detail::sort_keys32(keys.data());
    ASSERT_EQ(keys, want) << "iter " << iter;
    for (int i = 0; i < 32; ++i)
      ASSERT_EQ((first >> i) & 1u, i == 0 || want[std::size_t(i)] != want[std::size_t(i - 1)])
          << "iter " << iter << " position " << i;
  }
}

TEST(LaneSort, StaysOffForConfigurableHashes) {
  Arch a = find_preset("fermi-gtx580");
  a.bank_hash = "bits:0,1,2,3,4";
  a.lock_hash = "bv:k=0";
  ConflictAnalyzer an(a);
  EXPECT_FALSE(an.vector_kernel());
}

}  // namespace
}  // namespace smemsim

// The analyzer's vector kernels (src/analysis/lane_sort.hpp: AVX-512 and AVX2, each where the CPU
// has it) against its portable code: every degree, every subset degree, the lock rounds and the
// alg1 / fsm latencies agree, on the archs and index functions the kernels serve, over spaces from
// a few words (duplicates and aliasing everywhere) to the whole memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "analysis/lane_sort.hpp"
#include "analysis/lane_sort_network.hpp"
#include "smemsim/conflict.hpp"
#include "smemsim/latency_model.hpp"
#include "util/rng.hpp"

namespace smemsim {
namespace {

using Kernel = ConflictAnalyzer::Kernel;

void compare(const Arch& arch, Kernel kernel) {
  ConflictAnalyzer vec(arch);
  ConflictAnalyzer port(arch);
  ASSERT_TRUE(port.use_kernel(Kernel::Portable));
  ASSERT_FALSE(port.vector_kernel());
  if (!vec.use_kernel(kernel)) return;  // not on this CPU
  ASSERT_TRUE(vec.vector_kernel()) << arch.name;
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
    const auto at = [&] {
      return ::testing::Message() << ConflictAnalyzer::kernel_name(kernel) << " " << arch.name
                                  << " iter " << iter;
    };
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

// Every vector kernel this CPU runs; a test that finds none says so.
std::vector<Kernel> kernels() {
  std::vector<Kernel> v;
  ConflictAnalyzer probe(find_preset("fermi-gtx580"));
  for (Kernel k : {Kernel::Avx512, Kernel::Avx2})
    if (probe.use_kernel(k)) v.push_back(k);
  return v;
}

void compare(const Arch& arch) {
  for (Kernel k : kernels()) compare(arch, k);
}

TEST(LaneSort, AKernelRunsHere) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU has neither AVX-512BW nor AVX2";
  ConflictAnalyzer a(find_preset("fermi-gtx580"));
  EXPECT_EQ(a.kernel(), kernels().front()) << "the default is the fastest kernel";
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

TEST(LaneSort, SortKeysSortsAndMarksFirstOccurrences) {
  for (const detail::LaneSortKernel* kernel :
       {detail::lane_sort_avx512(), detail::lane_sort_avx2()}) {
    if (!kernel) continue;
    Rng rng(7);
    for (int iter = 0; iter < 5000; ++iter) {
      alignas(64) std::array<std::uint16_t, 32> keys;
      const std::uint64_t range = iter % 4 == 0 ? 65536 : 1 + rng.below(40);  // duplicates often
      for (auto& k : keys) k = static_cast<std::uint16_t>(65535 - rng.below(range));
      std::array<std::uint16_t, 32> want = keys;
      std::sort(want.begin(), want.end());
      const std::uint32_t first = kernel->sort_keys(keys.data());
      ASSERT_EQ(keys, want) << kernel->name << " iter " << iter;
      for (int i = 0; i < 32; ++i)
        ASSERT_EQ((first >> i) & 1u, i == 0 || want[std::size_t(i)] != want[std::size_t(i - 1)])
            << kernel->name << " iter " << iter << " position " << i;
    }
  }
}

TEST(LaneSort, Avx2BuildsWithAndWithoutPextAgree) {
  const detail::LaneSortKernel* a = detail::lane_sort_avx2();
  const detail::LaneSortKernel* b = detail::lane_sort_avx2_without_pext();
  if (!a || !b) GTEST_SKIP() << "no AVX2 and BMI2 on this CPU";
  Rng rng(11);
  for (const FixedIndex kind : {FixedIndex::Mod, FixedIndex::Xor, FixedIndex::Add}) {
    for (int iter = 0; iter < 5000; ++iter) {
      std::array<std::uint32_t, 32> addr{};
      const std::uint64_t space = std::uint64_t{1} << (1 + rng.below(14));
      for (auto& x : addr) x = static_cast<std::uint32_t>(rng.below(space));
      const int count = 1 + int(rng.below(32));
      const auto active = static_cast<std::uint32_t>(rng.next());
      alignas(64) std::array<std::uint16_t, 32> ka, kb;
      std::array<std::uint32_t, 32> oa, ob;
      const detail::FixedFn f{kind, 5};
      const detail::FastLoad ra = a->load(addr.data(), count, active, 0, f, oa.data(), ka.data());
      const detail::FastLoad rb = b->load(addr.data(), count, active, 0, f, ob.data(), kb.data());
      ASSERT_EQ(ra.bank_degree, rb.bank_degree) << "iter " << iter;
      ASSERT_EQ(ra.position_degree, rb.position_degree) << "iter " << iter;
      ASSERT_EQ(ka, kb) << "iter " << iter;
      const std::uint32_t subset = active & std::uint32_t(rng.next());
      ASSERT_EQ(a->bank_degree(ka.data(), subset, 5), b->bank_degree(kb.data(), subset, 5))
          << "iter " << iter;
    }
  }
}

TEST(LaneSort, CompressBitsIsPext) {
  // lane_sort_network.hpp's compress_bits against a bit-by-bit pext, on live prefixes.
  Rng rng(3);
  for (int iter = 0; iter < 20000; ++iter) {
    const int n = 1 + int(rng.below(32));
    const std::uint32_t live = detail::lane_sort::low_mask(n);
    const std::uint32_t keep = std::uint32_t(rng.next()) & live;
    const std::uint32_t x = std::uint32_t(rng.next()) & live;
    std::uint32_t want = 0;
    int out = 0;
    for (int i = 0; i < 32; ++i)
      if ((keep >> i) & 1u) want |= ((x >> i) & 1u) << out++;
    ASSERT_EQ(detail::lane_sort::compress_bits(x, keep, live), want) << "iter " << iter;
  }
}

TEST(LaneSort, ConfigurableBankHashesStayPortable) {
  Arch a = find_preset("fermi-gtx580");
  a.bank_hash = "bits:0,1,2,3,4";
  a.locks = 0;  // one lock per word: 14-bit lock indices, beyond the lock kernel's 11
  validate(a);
  ConflictAnalyzer an(a);
  EXPECT_FALSE(an.vector_kernel());
}

TEST(LaneSort, OtherLockFunctionsAreRankedAfterMapping) {
  // A configurable lock hash, and xor/add on the lock-within-bank bits (the Fermi presets'
  // reading), are applied first; the lock kernel ranks their lock indices. Same results as the
  // portable code.
  if (kernels().empty()) GTEST_SKIP() << "this CPU has neither AVX-512BW nor AVX2";
  Arch a = with_hashes("fermi-gtx580", "mod", "bv:k=0");
  validate(a);
  EXPECT_TRUE(ConflictAnalyzer(a).vector_kernel());
  compare(a);
  compare(with_hashes("fermi-gtx580", "mod", "bitsxor:0^8,1,2,3,4"));
  Arch all = with_hashes("fermi-gtx580", "xor", "xor");
  all.lock_hash_bits = "all";
  compare(all);
}

}  // namespace
}  // namespace smemsim

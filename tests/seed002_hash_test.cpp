// Seed 002 (van den Braak et al., IEEE TC 2016): configurable XOR hash functions, §3-§5, Table 1,
// Fig. 6. The expected values are the paper's, not recomputed from the implementation.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "smemsim/classify.hpp"
#include "smemsim/error.hpp"
#include "smemsim/hash_search.hpp"
#include "smemsim/pattern_list.hpp"
#include "smemsim/patterns.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

WarpAccess stride_warp(std::uint64_t stride, std::uint64_t offset = 0, std::uint32_t lanes = 32,
                       std::uint64_t warp = 0) {
  GenCommon c;
  c.lanes = lanes;
  c.count = warp + 1;
  WarpAccess out;
  gen_stride(c, stride, offset, [&](const WarpAccess& wa) { out = wa; });
  return out;
}

ReferenceSets sets_of(const std::vector<WarpAccess>& v, IndexGeometry g = {5, 14},
                      HashTarget t = HashTarget::Bank) {
  ReferenceSets s(default_arch(), t, g);
  for (const auto& wa : v) s.add(wa);
  return s;
}

TEST(Seed002Table1, FermiSizes) {
  // Table 1, n = 14 address bits, m = 5 bank bits.
  const HashCount h = hash_count(14, 5);
  EXPECT_NEAR(h.all_functions_log10, 24660.4, 0.05);  // 2.3e24660
  EXPECT_NEAR(h.xor_based / 1.2e21, 1.0, 0.02);
  EXPECT_NEAR(h.unique_xor / 1.2e14, 1.0, 0.02);
  EXPECT_EQ(h.bitvector_permutation, 10);
  EXPECT_EQ(h.bitvector_xor, 4480);
  EXPECT_EQ(h.bitwise_permutation, 2002);
  EXPECT_NEAR(h.bitwise_xor / 9.7e7, 1.0, 0.01);
  EXPECT_THROW(hash_count(4, 5), InputError);
}

TEST(Seed002Table1, CliJson) {
  const auto r = test::cli("hash count --addr-bits 14 --bank-bits 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"bitvector_xor\": 4480"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"bitwise_permutation\": 2002"), std::string::npos);
  EXPECT_NE(r.out.find("\"bitvector_permutation\": 10"), std::string::npos);
  EXPECT_NE(r.out.find("\"unique_xor\""), std::string::npos);
  EXPECT_EQ(test::cli("hash count --addr-bits 3 --bank-bits 5").exit_code, 2);
}

TEST(Seed002Sec31, Classification) {
  EXPECT_EQ(classify_access(stride_warp(1)).cls, AccessClass::Linear);
  const Classification s = classify_access(stride_warp(6, 3));
  EXPECT_EQ(s.cls, AccessClass::Stride);
  EXPECT_EQ(s.stride, 6);
  // §3.2.2 transpose store with TILE_DIM 16: 0,16,...,240,1,17,...,241 is a block (bx = 16).
  std::string list;
  for (int ty = 0; ty < 2; ++ty)
    for (int tx = 0; tx < 16; ++tx)
      list += (list.empty() ? "" : ",") + std::to_string(tx * 16 + ty);
  const Classification b = classify_access(parse_pattern_list(list, Op::Load, 32, 12288));
  EXPECT_EQ(b.cls, AccessClass::Block);
  EXPECT_EQ(b.block_x, 16);
  EXPECT_EQ(b.stride, 16);
  EXPECT_EQ(b.stride_y, 1);
  // §3.2.4 FWT stride 8: 0..7, 32..39, 64..71, 96..103.
  const Classification f =
      classify_access(parse_pattern_list("0..7,32..39,64..71,96..103", Op::Load, 32, 12288));
  EXPECT_EQ(f.cls, AccessClass::Block);
  EXPECT_EQ(f.block_x, 8);
  EXPECT_EQ(f.stride_y, 32);
  EXPECT_EQ(classify_access(parse_pattern_list("5,900,3,77", Op::Load, 32, 12288)).cls,
            AccessClass::Random);
  // §5.1: S = S0 * 2^k and MSB = floor(log2((t-1) S)) with t = 32: S = 4 -> 2, 6; S = 6 -> 1, 7.
  EXPECT_EQ(stride_k(4), 2);
  EXPECT_EQ(stride_k(6), 1);
  EXPECT_EQ(stride_msb(4, 32), 6);
  EXPECT_EQ(stride_msb(6, 32), 7);
}

TEST(Seed002Sec51, Strides4And6Evaluate188Candidates) {
  const ReferenceSets s = sets_of({stride_warp(4), stride_warp(6)});
  const SearchResult r = search_bitvector(s, true);
  EXPECT_TRUE(r.pruned);
  EXPECT_EQ(r.candidates_evaluated, 188u);  // "only 4 percent of the 4,480"
  EXPECT_LE(r.conflicts, r.baseline_conflicts);
}

TEST(Seed002Sec51, UnprunedSpaceIs4480) {
  const ReferenceSets s = sets_of({parse_pattern_list("5,900,3,77", Op::Load, 32, 12288)});
  bool pruned = true;
  EXPECT_EQ(bvxor_candidates(s, pruned).size(), 4480u);  // (n-m+1) n 2^m, Table 1
  EXPECT_FALSE(pruned);
}

TEST(Seed002Sec51, EqualKSelectsThePermutation) {
  // "In case k is equal for all strides, the algorithm will select k1 = k and mask = 0."
  const ReferenceSets s = sets_of({stride_warp(8), stride_warp(24)});
  const SearchResult r = search_bitvector(s, true);
  EXPECT_EQ(r.spec, "bvxor:k1=3,k2=3,mask=0");
  EXPECT_EQ(r.conflicts, 0);
}

TEST(Seed002Fig6, MihSelectsA0ThenA3ThenA4) {
  const ReferenceSets s = sets_of({parse_pattern_list("27,12,6,19,11,4,28,3", Op::Load, 32, 12288)},
                                  IndexGeometry{3, 5});
  const SearchResult r = search_mih(s, false);
  EXPECT_EQ(r.spec, "bits:0,3,4");
  EXPECT_EQ(r.order, (std::vector<int>{0, 3, 4}));
  // Fig. 6 (c): the final histogram h4 = (2,1,1,1,0,1,1,1): max 2 references on one bank.
  EXPECT_EQ(r.conflicts, 1);
  const auto cli = test::cli(
      "hash search --family bits --heuristic mih --banks 8 --addr-bits 5 --pattern "
      "27,12,6,19,11,4,28,3 --json");
  ASSERT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_NE(cli.out.find("\"spec\": \"bits:0,3,4\""), std::string::npos) << cli.out;
}

TEST(Seed002Sec521, GivargisOnTwoStrideSets) {
  // "For a combination of stride=8 and stride=45 this algorithm selects {A3, A4, A5, A6, A7}.
  //  For a combination of stride=8 and stride=13 it selects {A3, A4, A6, A5, A7}."
  EXPECT_EQ(search_givargis(sets_of({stride_warp(8), stride_warp(45)}), false).spec,
            "bits:3,4,5,6,7");
  EXPECT_EQ(search_givargis(sets_of({stride_warp(8), stride_warp(13)}), false).spec,
            "bits:3,4,6,5,7");
}

// The access patterns of 002 §3.2, generated as `smemsim gen` does (same library generators).
std::vector<WarpAccess> block_warps(std::array<std::int64_t, 4> m, std::int64_t cols,
                                    std::int64_t bx, std::uint64_t warps) {
  GenCommon c;
  c.count = warps;
  BlockParams p;
  p.m = m;
  p.cols = cols;
  p.block_x = bx;
  std::vector<WarpAccess> v;
  gen_block(c, p, [&](const WarpAccess& wa) { v.push_back(wa); });
  return v;
}

std::vector<std::pair<std::string, std::vector<WarpAccess>>> sec32_sets() {
  std::vector<std::pair<std::string, std::vector<WarpAccess>>> out;
  // §3.2.1/§3.2.2 transpose with TILE_DIM 16, one 16x16 block (8 warps).
  out.emplace_back("transpose-load", block_warps({1, 0, 0, 1}, 16, 16, 8));
  out.emplace_back("transpose-store", block_warps({0, 1, 1, 0}, 16, 16, 8));
  // §3.2.3 reduction: 2*S*tx and 2*S*tx + S for every S of one 256-thread block (256/(2S) threads).
  std::vector<WarpAccess> red;
  for (std::uint64_t S = 1; S < 256; S *= 2) {
    const std::uint64_t threads = 256 / (2 * S);
    const std::uint32_t lanes = std::uint32_t(std::min<std::uint64_t>(threads, 32));
    for (std::uint64_t w = 0; w < (threads + 31) / 32; ++w)
      for (std::uint64_t off : {std::uint64_t{0}, S})
        red.push_back(stride_warp(2 * S, off, lanes, w));
  }
  out.emplace_back("reduction", red);
  // §3.2.4 FWT, s = 4 * stride * ty + tx with sub-warps of `stride` threads; strides 8 and 2.
  auto fwt = block_warps({32, 0, 0, 1}, 1, 8, 8);
  const auto fwt2 = block_warps({8, 0, 0, 1}, 1, 2, 8);
  fwt.insert(fwt.end(), fwt2.begin(), fwt2.end());
  out.emplace_back("fwt", fwt);
  return out;
}

TEST(Seed002Sec32, PatternSetsAreConflictFreeWithBvxorAndMihBitsxor) {
  for (const auto& [name, warps] : sec32_sets()) {
    const ReferenceSets s = sets_of(warps);
    const SearchResult bv = search_bitvector(s, true);
    const SearchResult mih = search_mih(s, true);
    EXPECT_EQ(bv.conflicts, 0) << name << " " << bv.spec;
    EXPECT_EQ(mih.conflicts, 0) << name << " " << mih.spec;
    const SearchResult xm = search_xormask(s);
    EXPECT_LE(xm.conflicts, std::min(bv.conflicts, mih.conflicts)) << name;
  }
}

TEST(Seed002Sec32, TransposeStoreBaselineIsEightWay) {
  // §3.2.2: "0, 16, 32, ... 241. 8-way bank conflict (with 32 banks)": 7 conflicts per warp.
  const ReferenceSets s = sets_of(block_warps({0, 1, 1, 0}, 16, 16, 1));
  EXPECT_EQ(total_conflicts(s, bvxor_matrix(0, 0, 0, {5, 14})), 7);
}

TEST(Seed002Sec32, ResultsTable) {
  // The table of docs/hashing.md (002 Fig. 8 style): conflicts left by every family and heuristic.
  std::printf("%-16s %8s %6s %6s %8s %8s %8s %8s %8s\n", "set", "mod", "bv", "bvxor", "bits-gh",
              "bits-mih", "bx-gh", "bx-mih", "xormask");
  for (const auto& [name, warps] : sec32_sets()) {
    const ReferenceSets s = sets_of(warps);
    const SearchResult r[] = {search_bitvector(s, false), search_bitvector(s, true),
                              search_givargis(s, false),  search_mih(s, false),
                              search_givargis(s, true),   search_mih(s, true),
                              search_xormask(s)};
    std::printf("%-16s %8lld", name.c_str(), (long long)r[0].baseline_conflicts);
    for (const auto& x : r) {
      std::printf(" %8lld", (long long)x.conflicts);
      EXPECT_LE(x.conflicts, x.baseline_conflicts) << name << " " << x.family << " " << x.heuristic;
    }
    std::printf("\n");
    for (const auto& x : r)
      std::printf("    %s %s: %s\n", x.family.c_str(), x.heuristic.c_str(), x.spec.c_str());
    EXPECT_LE(r[6].conflicts, r[1].conflicts);
  }
}

TEST(Seed002Dedupe, WeightsMatchTheRawTrace) {
  // Dedupe must not change the objective: 5 copies of a 4-way access are 15 conflicts.
  std::vector<WarpAccess> v(5, stride_warp(8));
  const ReferenceSets s = sets_of(v);
  EXPECT_EQ(s.unique_sets(), 1u);
  EXPECT_EQ(total_conflicts(s, bvxor_matrix(0, 0, 0, {5, 14})), 5 * 7);  // stride 8: 8-way
  // A broadcast is no bank conflict; for locks, lanes on one word serialize.
  const WarpAccess bc = parse_pattern_list("0,0,0,0", Op::Atomic, 32, 12288);
  EXPECT_EQ(total_conflicts(sets_of({bc}), bvxor_matrix(0, 0, 0, {5, 14})), 0);
  const ReferenceSets locks = sets_of({bc}, {10, 14}, HashTarget::Lock);
  EXPECT_EQ(total_conflicts(locks, bvxor_matrix(0, 0, 0, {10, 14})), 3);
}

TEST(Seed002Search, DeterministicForAnyThreadCount) {
  std::vector<WarpAccess> v;
  GenCommon c;
  c.count = 3000;
  gen_random(c, 12288, 0, 5, [&](const WarpAccess& wa) { v.push_back(wa); });
  const ReferenceSets s = sets_of(v);
  const auto run = [&] {
    return std::vector<SearchResult>{search_mih(s, true), search_givargis(s, true),
                                     search_bitvector(s, true)};
  };
  std::vector<SearchResult> one, many;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = run();
  }
  many = run();
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].spec, many[i].spec);
    EXPECT_EQ(one[i].conflicts, many[i].conflicts);
  }
}

TEST(HashEvaluation, SimdAndPortableKernelsAgree) {
  // Random warps (every set wide enough to use all 16 SIMD lanes) under candidates of every width.
  std::vector<WarpAccess> v;
  GenCommon c;
  c.count = 3000;
  c.memory_words = default_arch().memory_words();
  gen_random(c, 12288, 0, 11, [&](const WarpAccess& wa) { v.push_back(wa); });
  for (int m = 1; m <= 8; ++m) {
    const IndexGeometry g{m, 14};
    ReferenceSets s(default_arch(), HashTarget::Bank, g);
    for (const auto& wa : v) s.add(wa);
    std::vector<XorMatrix> cands;
    const std::uint32_t full = (1u << m) - 1;
    for (int k1 = 0; k1 + m <= 14; k1 += 3)
      for (int k2 : {0, 5, 9})
        for (std::uint32_t mask : {0u, full, full & 0x5u})
          cands.push_back(bvxor_matrix(k1, k2, mask, g));
    const auto fast = total_conflicts(s, cands, true);
    const auto portable = total_conflicts(s, cands, false);
    EXPECT_EQ(fast, portable) << "m = " << m;
  }
}

TEST(HashSearch, MihSimdAndPortableScoringAgree) {
  // Small spaces give bins of several elements at every step, the case the scoring kernel handles.
  for (const std::uint64_t space : {64u, 512u, 12288u}) {
    std::vector<WarpAccess> v;
    GenCommon c;
    c.count = 2000;
    c.memory_words = default_arch().memory_words();
    gen_random(c, space, 0, 5, [&](const WarpAccess& wa) { v.push_back(wa); });
    ReferenceSets s(default_arch(), HashTarget::Bank, {5, 14});
    for (const auto& wa : v) s.add(wa);
    for (const bool with_xor : {false, true}) {
      const SearchResult fast = search_mih(s, with_xor, true);
      const SearchResult portable = search_mih(s, with_xor, false);
      EXPECT_EQ(fast.spec, portable.spec) << "space " << space;
      EXPECT_EQ(fast.conflicts, portable.conflicts) << "space " << space;
    }
  }
}

}  // namespace
}  // namespace smemsim

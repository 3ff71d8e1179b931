// Every preset with every model and op (issue 2 item 5), plus TOML round trips and overrides.
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

struct Case {
  std::string arch;
  std::string model;
  Op op;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.arch << "/" << c.model << "/" << op_name(c.op);
}

class EveryPreset : public ::testing::TestWithParam<Case> {};

WarpAccess linear(const Arch& a) {
  WarpAccess wa;
  wa.op = Op::Load;
  wa.lanes = static_cast<std::uint8_t>(a.warp_size);
  for (std::uint32_t l = 0; l < a.warp_size; ++l) wa.set(static_cast<int>(l), l);
  return wa;
}

// Every lane of a transaction in bank 0, each on its own word: stride = banks x words per bank
// unit.
WarpAccess same_bank(const Arch& a) {
  WarpAccess wa = linear(a);
  const std::uint32_t stride = a.banks * a.words_per_bank_unit();
  for (std::uint32_t l = 0; l < a.warp_size; ++l)
    wa.set(static_cast<int>(l), (l * stride) % a.memory_words());
  return wa;
}

TEST_P(EveryPreset, AnalysisAndModelsBehave) {
  const Case& c = GetParam();
  Arch a = find_preset(c.arch);
  a.atomic_model = c.model;
  validate(a);
  AccessEvaluator ev(a);
  WarpAccess lin = linear(a), hot = same_bank(a);
  lin.op = hot.op = c.op;
  const AccessResult r0 = ev.evaluate(lin);
  const AccessResult r1 = ev.evaluate(hot);
  const int txns = static_cast<int>(a.warp_size / a.transaction_lanes);
  // A linear warp access is conflict-free on every preset (banks >= transaction width in words).
  EXPECT_EQ(r0.degrees.bank, 1);
  EXPECT_EQ(r0.degrees.position, 1);
  EXPECT_EQ(r0.transactions, txns);
  EXPECT_EQ(r0.bank_conflicts, 0);
  // Lanes of one transaction all in bank 0 on distinct words: degree = transaction width, unless
  // the memory is too small to hold them apart.
  const std::uint32_t stride = a.banks * a.words_per_bank_unit();
  const int expect =
      static_cast<int>(std::min<std::uint64_t>(a.transaction_lanes, a.memory_words() / stride));
  EXPECT_EQ(r1.degrees.bank, expect);
  EXPECT_EQ(r1.bank_conflicts, static_cast<std::int64_t>(txns) * (expect - 1));
  // Conflicts cost cycles in every model, and a conflict-free access costs its base.
  EXPECT_GT(r1.latency, r0.latency);
  EXPECT_GT(r0.latency, 0);
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (const Arch& a : arch_presets())
    for (const char* m : {"alg1", "fsm", "native"})
      for (Op op : {Op::Load, Op::Store, Op::Atomic}) v.push_back({a.name, m, op});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Presets, EveryPreset, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           std::string n = info.param.arch + "_" + info.param.model + "_" +
                                           std::string(op_name(info.param.op));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(Presets, NamesAndKeyFacts) {
  EXPECT_EQ(default_arch().name, "fermi-gtx580");
  const Arch& f = find_preset("fermi-gtx580");
  EXPECT_EQ(f.memory_bytes, 48u * 1024);
  EXPECT_EQ(f.locks, 1024u);
  EXPECT_EQ(f.timing.t_base, 108);
  EXPECT_EQ(f.timing.t_position, 120);
  EXPECT_EQ(f.timing.t_bank, 32);
  EXPECT_TRUE(f.calibrated);
  EXPECT_EQ(find_preset("kepler-k20").bank_width_bytes, 8u);
  EXPECT_EQ(find_preset("tesla-gt200").transaction_lanes, 16u);
  EXPECT_EQ(find_preset("southern-islands").warp_size, 64u);
  EXPECT_EQ(find_preset("cf11").banks, 8u);
  EXPECT_EQ(find_preset("hopper-h100").memory_bytes, 228u * 1024);
  EXPECT_FALSE(find_preset("hopper-h100").calibrated);
  EXPECT_THROW(find_preset("nope"), InputError);
}

TEST(Presets, KeplerEightByteBanksHalveStrideTwoConflicts) {
  // 002 §2: with 8-byte banks "a stride of 2 does not provoke bank conflicts" on 4-byte data.
  std::string s2;
  for (int l = 0; l < 32; ++l) s2 += (l ? "," : "") + std::to_string(2 * l);
  EXPECT_EQ(test::eval(s2, Op::Load, find_preset("kepler-k20")).degrees.bank, 1);
  EXPECT_EQ(test::eval(s2, Op::Load, find_preset("fermi-gtx580")).degrees.bank, 2);
  // Two words of one 8-byte unit are one bank access (lanes 0 and 1 below).
  EXPECT_EQ(test::eval("0,1,64", Op::Load, find_preset("kepler-k20")).degrees.bank, 2);
}

TEST(ArchToml, RoundTripsEveryPreset) {
  for (const Arch& a : arch_presets()) {
    const Arch b = parse_arch_toml(to_toml(a), "roundtrip", default_arch());
    EXPECT_EQ(to_toml(b), to_toml(a)) << a.name;
  }
}

TEST(ArchToml, OverridesAndValidation) {
  Arch a = default_arch();
  apply_override(a, "memory.banks=16");
  apply_override(a, "timing.t_bank=40");
  EXPECT_EQ(a.banks, 16u);
  EXPECT_EQ(a.timing.t_bank, 40);
  EXPECT_NO_THROW(validate(a));
  EXPECT_THROW(apply_override(a, "timing.t_bank=forty"), InputError);
  EXPECT_THROW(apply_override(a, "nokey=1"), InputError);
  a.bank_width_bytes = 2;
  EXPECT_THROW(validate(a), InputError);
}

}  // namespace
}  // namespace smemsim

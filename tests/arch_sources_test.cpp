// Every timing key of the traced presets has a source (issue 25, item 2), docs/sources.md states
// the presets' own numbers, and the cycle model reproduces the measured mma latencies the presets
// were solved from and the second shape each source also gives.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "smemsim/arch.hpp"
#include "test_util.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

TEST(ArchSources, TracedPresetsGiveEveryTimingKeyASource) {
  for (const char* name :
       {"fermi-gtx580", "fermi-gtx480", "volta-v100", "turing-t4", "ampere-a100", "hopper-h100"}) {
    SCOPED_TRACE(name);
    const auto sources = timing_sources(find_preset(name));
    ASSERT_GT(sources.size(), 15u);
    for (const TimingKeySource& s : sources) {
      EXPECT_NE(s.kind, SourceKind::Untraced) << s.key;
      EXPECT_NE(s.kind, SourceKind::User) << s.key;
      EXPECT_FALSE(s.text.empty()) << s.key;
    }
  }
  // Keys that do not apply are not counted: no lock loop on a native-atomic GPU, no separate FMA
  // pipe where it is the ALU.
  for (const TimingKeySource& s : timing_sources(find_preset("volta-v100")))
    EXPECT_FALSE(s.key.starts_with("timing.fsm_")) << s.key;
  for (const TimingKeySource& s : timing_sources(find_preset("fermi-gtx580")))
    EXPECT_NE(s.key, "sm.lat_fma");
  // An untraced preset says so rather than counting nothing as sourced.
  EXPECT_EQ(sources_summary(find_preset("cf11")), "timing keys not traced one by one");
}

TEST(ArchSources, AChangedKeyIsTheUsersAndTheCountsFollow) {
  Arch a = find_preset("volta-v100");
  const std::string before = sources_summary(a);
  apply_override(a, "sm.lat_alu=9");
  for (const TimingKeySource& s : timing_sources(a))
    if (s.key == "sm.lat_alu") {
      EXPECT_EQ(s.kind, SourceKind::User);
      EXPECT_NE(s.text.find("volta-v100's 4"), std::string::npos) << s.text;
    }
  // The TITAN V's measured ALU latency no longer counts.
  EXPECT_NE(sources_summary(a), before);
  const auto r = cli("arch show volta-v100 --set sm.lat_alu=9");
  EXPECT_NE(r.out.find("sm.lat_alu = 9: set by you"), std::string::npos) << r.out;
  EXPECT_NE(cli("arch list").out.find("33 of 50 timing keys sourced, 16 measured"),
            std::string::npos);
}

// docs/sources.md's per-key table gives, for each modern preset, the value it sets first in each
// cell: they must be the presets' values.
TEST(ArchSources, TheDocsTableStatesThePresetsValues) {
  std::ifstream in(std::string(SMEMSIM_SOURCE_DIR) + "/docs/sources.md");
  ASSERT_TRUE(in) << "docs/sources.md";
  std::stringstream text;
  text << in.rdbuf();
  const char* presets[] = {"volta-v100", "turing-t4", "ampere-a100", "hopper-h100"};
  const std::regex row(R"(^\| `(sm\.[a-z0-9_]+)` \|(.*)$)");
  const std::regex number(R"(^\s*(\d+))");
  std::string line;
  int checked = 0;
  while (std::getline(text, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string key = m[1];
    std::vector<std::string> cells;
    std::stringstream rest(m[2].str());
    for (std::string c; std::getline(rest, c, '|');) cells.push_back(c);
    ASSERT_GE(cells.size(), 4u) << line;
    for (int p = 0; p < 4; ++p) {
      std::smatch n;
      if (!std::regex_search(cells[std::size_t(p)], n, number)) continue;  // "assumed = load"
      std::string value;
      visit_arch(find_preset(presets[p]), [&](std::string_view k, const ArchValue& v) {
        if (k != key) return;
        if (const auto* i = std::get_if<std::int64_t>(&v))
          value = std::to_string(*i);
        else if (const auto* t = std::get_if<std::string>(&v))  // a list: its first number
          value = t->substr(0, t->find_first_not_of("0123456789"));
      });
      EXPECT_EQ(n[1].str(), value) << key << " of " << presets[p];
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

// Two dependent mma: the second reads the first's D as its C, so it issues the first's latency
// after it.
std::string dependent_mma(const std::string& shape) {
  const bool k16 = shape == "m16n8k16";
  const std::string a = k16 ? "{%r1,%r2,%r3,%r4}" : "{%r1,%r2}";
  const std::string b = k16 ? "{%r5,%r6}" : "{%r5}";
  const std::string op = "mma.sync.aligned." + shape + ".row.col.f32.f16.f16.f32 ";
  return R"(
.visible .entry tc(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  )" + op +
         "{%f1,%f2,%f3,%f4}, " + a + ", " + b + R"(, {%f5,%f6,%f7,%f8};
  )" + op +
         "{%f9,%f10,%f11,%f12}, " + a + ", " + b + R"(, {%f1,%f2,%f3,%f4};
  ret;
}
)";
}

std::uint64_t mma_latency(const char* preset, const std::string& shape) {
  TimedKernel k(dependent_mma(shape), 32);
  Arch a = find_preset(preset);
  a.sm.count = 1;
  Recorder rec;
  k.run(a, &rec);
  return rec.issued(0, 1) - rec.issued(0, 0);
}

// The sources' dependent-mma latencies (docs/sources.md): NAK's HMMA.1688 14 and HMMA.16816 22 on
// Turing, HMMA.16816 17 and HMMA.1688 13 on Ampere. Each preset was solved from one of its pair;
// the other is the rule's prediction (lat_tensor + interval - 1). Hopper's keys are calibrated to
// the H200's wmma instead (calibration/h200-measured.toml: CalibrateMeasured.H200); GPGPU-Sim's
// SM90_H100 gave 24 for an m16n8k16, the H200's rates and latency give 13 + 7 - 1 = 19.
TEST(ArchSources, PresetsReproduceTheirSourcedMmaLatencies) {
  EXPECT_EQ(mma_latency("turing-t4", "m16n8k8"), 14u);
  EXPECT_EQ(mma_latency("turing-t4", "m16n8k16"), 22u);
  EXPECT_EQ(mma_latency("ampere-a100", "m16n8k16"), 17u);
  EXPECT_EQ(mma_latency("ampere-a100", "m16n8k8"), 13u);
  EXPECT_EQ(mma_latency("hopper-h100", "m16n8k16"), 19u);
}

}  // namespace
}  // namespace smemsim::test

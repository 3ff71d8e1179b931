// The self-describing arch configuration (issue 10, item 4): one key table gives every key a
// description and, for integers, a range; `arch show` prints them as comments in TOML that loads
// back to the same arch; an arch changed from its preset says so wherever results name it.
#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(ArchKeys, EveryKeyHasADescriptionAndEveryIntegerARange) {
  const Arch& a = default_arch();
  std::size_t i = 0;
  visit_arch(a, [&](std::string_view key, const ArchValue& v) {
    const ArchKeyInfo& k = arch_key_info()[i++];
    EXPECT_EQ(k.name, key);
    EXPECT_GT(k.doc.size(), 10u) << key;
    if (std::holds_alternative<std::int64_t>(v)) EXPECT_LT(k.min, k.max) << key;
  });
  EXPECT_EQ(i, arch_keys().size());
}

// Every preset, printed with comments, loads back to the same values (comments are TOML).
TEST(ArchKeys, CommentedTomlRoundTripsForEveryPreset) {
  for (const Arch& p : arch_presets()) {
    const std::string text = to_toml(p, true);
    EXPECT_NE(text.find("# banks, a power of two"), std::string::npos);
    const Arch back = parse_arch_toml(text, "show.toml", Arch{});
    EXPECT_EQ(to_toml(back), to_toml(p)) << p.name;
  }
}

TEST(ArchKeys, OutOfRangeIntegersNameTheirRange) {
  Arch a = default_arch();
  try {
    apply_override(a, "memory.banks=5000");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'memory.banks': 5000 is not between 1 and 1024"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(apply_override(a, "timing.t_bank=-3"), InputError);
}

// A derived arch: mark_derived lists the changed keys and clears `calibrated`; the CLI
// and a study's report.md name it.
TEST(ArchKeys, ADerivedArchIsReportedAsSuch) {
  Arch a = find_preset("fermi-gtx580");
  a.calibrated = true;
  mark_derived(a, find_preset("fermi-gtx580"));
  EXPECT_EQ(a.derived, "");
  EXPECT_EQ(arch_label(a), "fermi-gtx580");
  a.banks = 16;
  a.timing.t_bank = 40;
  mark_derived(a, find_preset("fermi-gtx580"));
  EXPECT_EQ(a.derived, "memory.banks=16, timing.t_bank=40");
  EXPECT_FALSE(a.calibrated);
  EXPECT_EQ(arch_label(a),
            "fermi-gtx580 derived (memory.banks=16, timing.t_bank=40), uncalibrated");

  const CliResult r = cli("analyze --pattern 0..31 --set memory.banks=16");
  EXPECT_NE(r.out.find("fermi-gtx580 derived (memory.banks=16), uncalibrated"), std::string::npos)
      << r.out;
  const std::string out = ::testing::TempDir() + "smemsim_derived";
  shell("rm -rf " + out);
  const CliResult s =
      cli("study run random-patterns --quick --no-plots --set memory.banks=16 --out " + out);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  const std::string md = shell("cat " + out + "/random-patterns/report.md").out;
  EXPECT_NE(md.find("Arch: `fermi-gtx580 derived (memory.banks=16), uncalibrated`"),
            std::string::npos)
      << md;
  // arch show's TOML, loaded back through --arch-file, is still derived from its preset.
  const std::string toml = ::testing::TempDir() + "smemsim_derived.toml";
  shell(std::string(SMEMSIM_CLI) + " arch show --set memory.banks=16 > " + toml);
  const CliResult f = cli("analyze --pattern 0..31 --arch-file " + toml);
  EXPECT_NE(f.out.find("derived (memory.banks=16)"), std::string::npos) << f.out;
}

// Issue 28: an arch file's sm.scheduler or sm.pipeline is checked where the file is read, for every
// command (analyze accepted "nosuch", and sim refused it without naming the file). validate() keeps
// its own copy of the cycle model's names; every registry name passes it and "nosuch" does not.
TEST(ArchKeys, SchedulerAndPipelineNamesAreCheckedWhereTheArchIsRead) {
  for (const timing::RegistryEntry& e : timing::schedulers()) {
    Arch a = default_arch();
    a.sm.scheduler = e.name;
    EXPECT_NO_THROW(validate(a)) << e.name;
  }
  for (const timing::RegistryEntry& e : timing::pipelines()) {
    Arch a = default_arch();
    a.sm.pipeline = e.name;
    EXPECT_NO_THROW(validate(a)) << e.name;
  }
  const std::string file = temp_file("sched.toml", "[sm]\nscheduler = \"nosuch\"\n");
  for (const std::string cmd : {"analyze --pattern 0..31", "sim builtin:reduction"}) {
    const CliResult r = cli(cmd + " --arch-file " + file);
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find(file + ":2: arch key 'sm.scheduler': unknown scheduler 'nosuch' (known: "
                                "lrr, gto, bank-aware, bank-aware-fill)"),
              std::string::npos)
        << cmd << ": " << r.out;
  }
}

// A string key checked once the whole file is read (a name list, a relation between keys) is
// reported at the line that set it; a relation naming a key the base set gives the file alone.
TEST(ArchKeys, KeysCheckedAfterReadingNameTheirLine) {
  const Arch h = find_preset("hopper-h100");
  const auto error = [&](const std::string& text) {
    try {
      parse_arch_toml(text, "g.toml", h);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("title = \"x\"\n[sm]\nlat_alu = 4\nlower = \"imm,bogus\"\n").substr(0, 33),
            "g.toml:4: arch key 'sm.lower': un");
  EXPECT_EQ(error("[sm]\nl2_hash = \"crc\"\n"),
            "g.toml:2: arch key 'sm.l2_hash': 'crc' is not xor or mod");
  // sm.lat_dsm (the base's 180 or so) is now below the shared load's latency: the key named is
  // not in the file.
  EXPECT_EQ(error("[sm]\nlat_shared_ld = 5000\n").substr(0, 29), "g.toml: arch key 'sm.lat_dsm'");
}

}  // namespace
}  // namespace smemsim::test

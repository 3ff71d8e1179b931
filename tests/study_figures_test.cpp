// Study figures (issue 29, item 1): sweeps drawn as small multiples with one legend, a caption
// naming the study, the arch and the swept keys, speed-ups on a range near the data with a line
// at 1.0, no legend for a single series, a colour-blind-safe palette with a distinct style per
// series, SVG beside every PNG, and a hundred swept values condensed to sixteen panels, said so.
// The pictures themselves were looked at (docs/studies.md shows them); these tests hold the
// decisions that make them readable.
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "study/plot_layout.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

namespace fs = std::filesystem;
using study::Figure;
using study::lay_out;
using study::PlotLayout;

std::string fresh(const std::string& name) {
  const std::string d = ::testing::TempDir() + "smemsim_figures_" + name;
  fs::remove_all(d);
  return d;
}

bool have_gnuplot() {
  return shell("command -v gnuplot >/dev/null 2>&1").exit_code == 0;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Every study's quick run draws every figure without a gnuplot error, as PNG and SVG.
TEST(StudyFigures, EveryStudyRendersEveryFigureAsPngAndSvg) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const std::string out = fresh("all");
  for (const char* s : {"random-patterns", "random-replication", "random-mapping", "histogram",
                        "kmeans", "hough", "elastic", "localtm", "hash002"}) {
    const CliResult r = cli(std::string("study run ") + s + " --quick --out " + out);
    ASSERT_EQ(r.exit_code, 0) << s << "\n" << r.out;
    EXPECT_EQ(r.out.find("gnuplot failed"), std::string::npos) << s << "\n" << r.out;
    std::size_t figures = 0;
    for (const auto& e : fs::directory_iterator(out + "/" + s)) {
      if (e.path().extension() != ".gp") continue;
      ++figures;
      fs::path p = e.path();
      EXPECT_GT(fs::file_size(p.replace_extension(".png")), 1000u) << p;
      const std::string svg = slurp(p.replace_extension(".svg").string());
      EXPECT_NE(svg.find("</svg>"), std::string::npos) << p;
    }
    EXPECT_GT(figures, 0u) << s;
  }
}

// --no-plots draws nothing and report.md says so, rather than linking files that are not there.
TEST(StudyFigures, NoPlotsWritesNoFigureAndSaysSo) {
  const std::string out = fresh("no_plots");
  const CliResult r =
      cli("study run random-patterns --quick --set patterns=200 --no-plots --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const auto& e : fs::directory_iterator(out + "/random-patterns"))
    EXPECT_NE(e.path().extension(), ".gp") << e.path();
  const std::string md = slurp(out + "/random-patterns/report.md");
  EXPECT_NE(md.find("(not drawn: --no-plots)"), std::string::npos) << md;
  EXPECT_EQ(md.find("fig5_random_patterns.png"), std::string::npos) << md;
}

// Two swept keys, six configurations: one figure of six panels titled by configuration, one
// legend strip listing the three stacked series once, the caption naming study, arch and keys.
TEST(StudyFigures, ASweepOfTwoKeysIsSixPanelsWithOneLegendAndACaption) {
  const std::string out = fresh("two_keys");
  const CliResult r =
      cli("study run random-patterns --quick --set patterns=500 "
          "--sweep memory.banks=16,32,64 --sweep atomics.locks=256,1024 --out " +
          out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string dir = out + "/random-patterns";
  std::size_t gp_files = 0;
  for (const auto& e : fs::directory_iterator(dir)) gp_files += e.path().extension() == ".gp";
  EXPECT_EQ(gp_files, 1u);
  const std::string gp = slurp(dir + "/fig5_random_patterns.gp");
  // The script draws one page, in a loop over the formats (PNG and SVG, and PDF with cairo).
  EXPECT_NE(gp.find("do for [format in \"png svg"), std::string::npos) << gp;
  const std::size_t pages = count(gp, "\nset multiplot\n");
  ASSERT_EQ(pages, 1u) << gp;
  for (const char* t : {"banks=16, locks=256", "banks=16, locks=1024", "banks=32, locks=256",
                        "banks=32, locks=1024", "banks=64, locks=256", "banks=64, locks=1024"})
    EXPECT_EQ(count(gp, std::string("set title \"") + t + "\""), pages) << t;
  // Six panels and the legend strip per page; the legend's entries come from NaN plots.
  EXPECT_EQ(count(gp, "set origin "), 7 * pages);
  EXPECT_EQ(count(gp, "NaN with boxes"), 3 * pages);
  EXPECT_NE(gp.find("smemsim study random-patterns, arch fermi-gtx580; one panel per "
                    "configuration of banks = 16, 32, 64 \u00d7 locks = 256, 1024"),
            std::string::npos)
      << gp;
  // Shared axes: every panel's y range is the same (latencies of 100-600 cycles).
  std::set<std::string> ranges;
  const std::regex yrange("set yrange (\\[[^\\]]*\\])");
  for (auto it = std::sregex_iterator(gp.begin(), gp.end(), yrange); it != std::sregex_iterator();
       ++it)
    ranges.insert((*it)[1]);
  ranges.erase("[0:1]");  // the legend strip's empty plot
  EXPECT_EQ(ranges.size(), 1u);
}

// A hundred swept values: sixteen panels, the first and the last among them, and the caption
// says how the figure was condensed.
TEST(StudyFigures, AHundredSweptValuesAreCondensedAndTheCaptionSaysSo) {
  Figure f{"f", "t", "x", "y"};
  f.stacked = true;
  for (int i = 1; i <= 100; ++i) {
    Figure p;
    p.title = "seed=" + std::to_string(i);
    p.categories = {"a"};
    p.series = {{"s"}};
    p.series[0].y = {double(i)};
    f.panels.push_back(p);
  }
  const auto l = lay_out(f);
  ASSERT_EQ(l.panels.size(), study::kMaxPanels);
  EXPECT_EQ(l.panels.front()->title, "seed=1");
  EXPECT_EQ(l.panels.back()->title, "seed=100");
  EXPECT_NE(l.condensed.find("16 of 100 panels drawn"), std::string::npos) << l.condensed;
  bool in_caption = false;
  for (const auto& t : l.text) in_caption |= t.text.find("16 of 100") != std::string::npos;
  EXPECT_TRUE(in_caption);
  // The y range spans the drawn panels and every one shares it: 0 to at least 16's value.
  EXPECT_EQ(l.y.lo, 0);
  EXPECT_GE(l.y.hi, 93.0);  // panel values 1..100 sampled evenly: the last drawn is 100
}

// Speed-ups around 1. As lines, the axis spans the data and the reference line, not zero. As
// bars it starts at zero, line or not (issue 47: a bar axis from 0.71 drew 0.74 as a third of
// 0.80): a bar's length is its value.
TEST(StudyFigures, SpeedUpLinesGetARangeNearTheDataAndBarsStartAtZero) {
  Figure f{"f", "speed-up", "", "speed-up"};
  f.ref_y = 1.0;
  f.series = {{"x"}, {"y"}};
  f.series[0].x = f.series[1].x = {1, 2};
  f.series[0].y = {1.02, 1.10};
  f.series[1].y = {1.05, 1.18};
  auto l = lay_out(f);
  // Data and line span 1.00..1.18; 12% of that added on each side: 0.978..1.2016.
  EXPECT_NEAR(l.y.lo, 1.0 - 0.12 * 0.18, 1e-9);
  EXPECT_NEAR(l.y.hi, 1.18 + 0.12 * 0.18, 1e-9);
  // The same as clustered bars: from zero to 6 % above the tallest.
  f.clustered = true;
  f.categories = {"a", "b"};
  l = lay_out(f);
  EXPECT_EQ(l.y.lo, 0.0);
  EXPECT_NEAR(l.y.hi, 1.18 * 1.06, 1e-9);
  f.ref_y = std::numeric_limits<double>::quiet_NaN();
  l = lay_out(f);
  EXPECT_EQ(l.y.lo, 0.0);
}

// Tick labels a reader can tell apart (issue 47). gnuplot's own ticks with a fixed "%.1s%c" put
// two "1.2M" and two "1.1M" on a k-means axis (a 50k step); the layout chooses the step and the
// decimals it needs. A log axis
// within one decade (800k to 2M) had a single label, 1x10^6; it gets 800k, 900k, 1M, 1.5M, 2M.
TEST(StudyFigures, TickLabelsAreDistinctAndALogAxisHasSeveral) {
  Figure f{"f", "cycles", "R", "cycles"};
  f.series = {{"k"}};
  f.series[0].x = {1, 2, 4, 8};
  f.series[0].y = {1.32e6, 1.21e6, 1.11e6, 1.0e6};
  PlotLayout l = lay_out(f);
  ASSERT_TRUE(l.y_si_format);
  ASSERT_GE(l.yticks.size(), 4u);
  std::set<std::string> labels;
  for (const auto& [v, t] : l.yticks) {
    EXPECT_TRUE(labels.insert(t).second) << t;
    EXPECT_GE(v, l.y.lo);
    EXPECT_LE(v, l.y.hi);
    // The label is the value: its number times the prefix (M here) within half a step.
    EXPECT_NEAR(std::stod(t) * 1e6, v, 1.0) << t;
  }
  // The axis spans 1.0M - 6 % .. 1.32M + 6 % of 0.32M (0.9808M..1.3392M); a sixth of that,
  // 59.7k, rounds up to a step of 100k: 1.0M, 1.1M, 1.2M, 1.3M.
  EXPECT_EQ(labels, (std::set<std::string>{"1.0M", "1.1M", "1.2M", "1.3M"}));
  f.logy = true;
  f.series[0].y = {1.4e6, 1.2e6, 1.0e6, 0.8e6};
  l = lay_out(f);  // 800k / 1.4 to 1.4M x 1.4: 571k to 1.96M
  std::vector<std::string> log_labels;
  for (const auto& [v, t] : l.yticks) log_labels.push_back(t);
  EXPECT_EQ(log_labels, (std::vector<std::string>{"600k", "700k", "800k", "900k", "1M", "1.5M"}));
}

// One series: no legend strip; eight categories of 16-character names fit flat on a wider page
// rather than turning; 40 of them cannot, and turn.
TEST(StudyFigures, LegendsOnlyForSeveralSeriesAndTickLabelsTurnOnlyWhenTheyCannotFit) {
  Figure f{"f", "t", "", "y"};
  f.stacked = true;
  f.series = {{"only"}};
  for (int i = 0; i < 8; ++i) {
    f.categories.push_back("aes_encrypt enh" + std::to_string(i % 10));
    f.series[0].y.push_back(i);
  }
  auto l = lay_out(f);
  EXPECT_EQ(l.series_titles.size(), 1u);
  EXPECT_EQ(l.legend_h, 0.0);
  EXPECT_FALSE(l.rotate_xtics);
  EXPECT_GT(l.width, 960);
  EXPECT_LE(l.width, 2400);
  for (int i = 8; i < 40; ++i) {
    f.categories.push_back("aes_encrypt enh" + std::to_string(i % 10));
    f.series[0].y.push_back(i);
  }
  l = lay_out(f);
  EXPECT_TRUE(l.rotate_xtics);
  EXPECT_GT(l.bmargin, 3);
}

// Sixteen series get sixteen distinct styles (palette colour x dash pattern) in the script.
TEST(StudyFigures, SixteenSeriesGetSixteenDistinctStyles) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string out = fresh("styles");
  const CliResult r = cli("study run random-mapping --quick --set patterns=200 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string gp = slurp(out + "/random-mapping/fig7_cyclic.gp");
  const std::regex entry("NaN with linespoints lw 2 lc rgb '(#[0-9A-F]{6})' dt ([0-9]+)");
  std::set<std::pair<std::string, std::string>> styles;
  std::size_t entries = 0;
  const std::string page = gp.substr(0, gp.find("unset multiplot"));
  for (auto it = std::sregex_iterator(page.begin(), page.end(), entry);
       it != std::sregex_iterator(); ++it, ++entries)
    styles.insert({(*it)[1], (*it)[2]});
  EXPECT_EQ(entries, 16u) << page;  // 8 sizes, without and with padding
  EXPECT_EQ(styles.size(), entries);
  // Every second series dashed (issue 47): "32 words + pad" on "32 words" shows both colours.
  std::vector<std::string> dashes;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), entry);
       it != std::sregex_iterator(); ++it)
    dashes.push_back((*it)[2]);
  ASSERT_EQ(dashes.size(), 16u);
  for (std::size_t k = 0; k + 1 < 8; k += 2) EXPECT_NE(dashes[k], dashes[k + 1]) << k;
  // Okabe-Ito's palette, none of gnuplot's defaults.
  EXPECT_NE(page.find("#0072B2"), std::string::npos);
  EXPECT_EQ(page.find("#9400D3"), std::string::npos);
}

}  // namespace
}  // namespace smemsim::test

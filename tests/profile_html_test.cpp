// `smemsim profile --html` (issue 29 item 4): the source view's content, its bad input, and the
// page as a real browser renders it (headless Chromium, Debian's package; skipped without it).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

// The transpose's store phase (kernels/transpose.cu line 39) reads tile word 16 tx + ty of the
// 16 x 16 float tile. A warp of a 16 x 16 block is lanes tx = 0..15 at ty = 2w and at ty = 2w + 1;
// word 16 tx + ty is in bank ty (tx even) or 16 + ty (tx odd) of 32: four banks, each with 8
// different words, an 8-way conflict (seed 002 §3.2.2). The default 64 x 64 matrix is 16 CTAs of 8
// warps, one store each: 128 accesses x 7 extra passes = 896 conflicts. The load phase (line 32)
// is conflict-free, so line 39 holds 100 % of them.
std::string transpose_page(const std::string& name) {
  // The pid before the extension: Chromium reads a file by its extension.
  const std::string path =
      ::testing::TempDir() + "smemsim_" + std::to_string(::getpid()) + "_" + name;
  const auto r = cli("profile builtin:transpose --timing --html " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("wrote the source view to " + path), std::string::npos) << r.out;
  return path;
}

TEST(ProfileHtml, ThePageHasTheSourceConflictsStallsHintsAndSummary) {
  const std::string path = transpose_page("page.html");
  const std::string html = slurp(path);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  // Self-contained: its one script (sortable columns) and its style inline, nothing fetched from
  // anywhere.
  for (const char* outside : {"<script src", "src=", "@import", "url(", "http"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  EXPECT_EQ(html.find("<script>"), html.rfind("<script>"));
  // Its only links are to its own rows: the hottest lines at the top (issue 47: the page opened
  // at line 1, the kernel below the fold).
  for (auto at = html.find("href="); at != std::string::npos; at = html.find("href=", at + 1))
    EXPECT_EQ(html.compare(at, 8, "href=\"#L"), 0) << html.substr(at, 40);
  const auto hot = html.find("Most bank conflicts: <a href=\"#L39\">");
  EXPECT_NE(hot, std::string::npos);
  EXPECT_LT(hot, html.find("id=\"L1\""));  // before the source
  EXPECT_NE(html.find("Most stalled warp-cycles: <a href=\"#L"), std::string::npos);
  // The conflicting line: its source (escaped), 896 conflicts, 100 %, degree 8, and its hint.
  const auto line = html.find("id=\"L39\"");
  ASSERT_NE(line, std::string::npos);
  const std::string row = html.substr(line, html.find("</tr>", line) - line);
  EXPECT_NE(row.find(">896<"), std::string::npos) << row;
  EXPECT_NE(row.find(">100.0%<"), std::string::npos) << row;
  EXPECT_NE(row.find(">8<"), std::string::npos) << row;
  EXPECT_NE(row.find("odata[index_out + i * height] = NAIVE_TILE(threadIdx.x, threadIdx.y + i);"),
            std::string::npos)
      << row;
  EXPECT_NE(html.find("pad rows of 16 words to 18 (8-way -&gt; 1-way)"), std::string::npos);
  // The load line (32) has accesses and no conflict; with --timing its global load stalls show.
  const auto load = html.find("id=\"L32\"");
  ASSERT_NE(load, std::string::npos);
  EXPECT_NE(html.substr(load, 400).find("long_scoreboard"), std::string::npos);
  // Its global load's DRAM bytes (issue 44): a 64 x 64 float matrix read once, 16,384 bytes; the
  // GTX 580 preset has no caches, so no hit-rate column.
  EXPECT_NE(html.find("<th class=\"s\">DRAM bytes</th><th style=\"text-align:left\">source"),
            std::string::npos);
  EXPECT_NE(html.substr(load, html.find("</tr>", load) - load).find(">16384<"), std::string::npos)
      << html.substr(load, 600);
  // The summary: the arch, the launch, the totals, the verdict; the PTX on demand.
  // The PTX table has the stall columns too, each stalled instruction with its share and reason:
  // the tile's store waits for the global load that feeds it (long_scoreboard, at the consumer, as
  // Nsight Compute attributes it).
  const auto ptx_table = html.find("<details>");
  ASSERT_NE(ptx_table, std::string::npos);
  EXPECT_NE(
      html.find(
          "<th class=\"s\">stalls</th><th>reason</th><th style=\"text-align:left\">instruction",
          ptx_table),
      std::string::npos);
  EXPECT_TRUE(std::regex_search(html.substr(ptx_table),
                                std::regex("%</td><td class=\"v\" title=\"long_scoreboard "
                                           "[0-9]+%[^\"]*\">long_scoreboard</td><td class=\"code\">"
                                           "st\\.shared\\.f32")));
  for (const char* s : {"fermi-gtx580", "grid [4,4,1] x block [16,16,1]", "896 (mean bank degree",
                        "matches the CPU reference", "<details><summary>PTX of transpose_naive"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  std::filesystem::remove(path);
}

// Issue 47, item 2: a line's main reason on the page is the largest stall of the JSON's
// per-instruction warp_states summed over the line's instructions (it was the last instruction's:
// `scoreboard` on a histogram line whose sums give memory 4,349,178 against 124,613). Checked on
// every line with stalls of every single-launch suite kernel (a multi-launch builtin has no page:
// --html shows one launch).
TEST(ProfileHtml, EachLinesMainReasonIsItsLargestStallInTheJson) {
  // Nsight Compute's names; the JSON's old names (issued, scoreboard, memory, control, dispatch)
  // are aliases that repeat them.
  const auto stall = [](const std::string& s) {
    for (const char* old : {"issued", "scoreboard", "memory", "control", "dispatch"})
      if (s == old) return false;
    return s != "selected" && s != "not_selected" && s != "idle";
  };
  for (const std::string b :
       {"histogram",     "transpose",    "reduction", "kmeans",   "aes",    "fft",
        "hough",         "atomic_bench", "backprop",  "conv",     "dct8x8", "fwt",
        "genindex",      "grid3d",       "haar",      "lavamd",   "matmul", "scalar_prod",
        "scan_blelloch", "scan_matrix",  "gemm",      "attention"}) {
    const std::string path =
        ::testing::TempDir() + "smemsim_" + std::to_string(::getpid()) + "_reason_" + b + ".html";
    const auto j = cli("profile builtin:" + b + " --timing --json 2>/dev/null");
    ASSERT_EQ(j.exit_code, 0) << b << ": " << j.out;
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    std::map<std::uint32_t, std::map<std::string, std::uint64_t>> sums;  // line -> state -> sum
    std::string file;
    for (const nlohmann::json& ins : doc["timing"]["instructions"]) {
      if (ins["cuda"].is_null()) continue;
      if (file.empty()) file = ins["cuda"]["file"];
      if (ins["cuda"]["file"] != file) continue;  // the page's first file: its ids are unique
      for (const auto& [state, n] : ins["warp_states"].items())
        if (stall(state)) sums[ins["cuda"]["line"]][state] += n.get<std::uint64_t>();
    }
    ASSERT_EQ(cli("profile builtin:" + b + " --timing --html " + path).exit_code, 0) << b;
    const std::string html = slurp(path);
    int checked = 0;
    for (const auto& [line, by] : sums) {
      std::string top;
      std::uint64_t most = 0;
      for (const auto& [state, n] : by)
        if (n > most) most = n, top = state;
      if (top.empty()) continue;
      const auto at = html.find("id=\"L" + std::to_string(line) + "\"");
      ASSERT_NE(at, std::string::npos) << b << " line " << line;
      const std::string row = html.substr(at, html.find("</tr>", at) - at);
      std::smatch m;
      ASSERT_TRUE(std::regex_search(
          row, m,
          std::regex("%</td><td class=\"v\" title=\"([a-z_]+) [0-9]+%[^\"]*\">([a-z_]+)</td>")))
          << b << " line " << line << ": " << row;
      // The reason shown, and the first of the tooltip's breakdown (every stall, largest first).
      EXPECT_EQ(m[2].str(), top) << b << " line " << line;
      EXPECT_EQ(m[1].str(), top) << b << " line " << line;
      ++checked;
    }
    EXPECT_GT(checked, 2) << b;
    std::filesystem::remove(path);
  }
}

// An atomic's degree cell also shows its position and lock degree. The blobs image has runs of
// equal pixels, so lanes of a warp vote the same bin: position degree >= 2 on the atomicAdd line.
// With 256 bins and 1,024 locks every bin has its own lock, and lanes on one address share its
// lock: the lock degree is at least the position degree.
TEST(ProfileHtml, AnAtomicsDegreeShowsItsPositionAndLockDegree) {
  const std::string path =
      ::testing::TempDir() + "smemsim_" + std::to_string(::getpid()) + "_atomics.html";
  const auto r = cli("profile builtin:histogram --image blobs --html " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = slurp(path);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m,
                                std::regex("<td class=\"v\">([0-9]+) \u00b7 pos ([0-9]+) "
                                           "\u00b7 lock ([0-9]+)</td>")))
      << html.substr(0, 2000);
  EXPECT_GE(std::stoi(m[2]), 2);
  EXPECT_GE(std::stoi(m[3]), std::stoi(m[2]));
  // The atomic line has a layout hint and the atomic one, as the text output prints both (issue
  // 47: the page dropped the second).
  EXPECT_NE(html.find("hash search --pc 117); hint: up to "), std::string::npos);
  EXPECT_NE(html.find("aggregate per warp (smemsim fix)"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(ProfileHtml, BadPathsAndPipelinesAreOneLineErrors) {
  const std::string dir = ::testing::TempDir();
  const struct {
    std::string args, msg;
  } cases[] = {
      {"profile builtin:transpose --html " + dir, "is a directory"},
      {"profile builtin:transpose --html /nonexistent-dir/r.html",
       "--html: '/nonexistent-dir/r.html': the folder '/nonexistent-dir' does not exist"},
      {"profile builtin:transpose --html /proc/r.html", "--html: cannot write '/proc/r.html'"},
      {"profile builtin:lud --html " + dir + "lud.html", "--html shows one launch"},
      {"profile builtin:transpose --html " + dir + "x.csv --csv " + dir + "x.csv", "--html"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(c.msg), std::string::npos) << r.out;
  }
}

// Chromium parses and draws the page: its DOM has the rows, and the screenshot is a real image
// (saved as smemsim-profile-transpose.png in the test's temporary folder; docs/img's copy is one).
TEST(ProfileHtml, ChromiumRendersThePage) {
  const char* chromium = "/usr/bin/chromium";
  if (::access(chromium, X_OK) != 0)
    GTEST_SKIP()
        << "no headless Chromium (Debian package chromium; scripts/install-deps.sh --test)";
  const std::string path = transpose_page("shown.html");
  const std::string profile =
      ::testing::TempDir() + "smemsim_chromium" + std::to_string(::getpid());
  const std::string base = std::string(chromium) +
                           " --headless --no-sandbox --disable-gpu --hide-scrollbars "
                           "--user-data-dir=" +
                           profile + " ";
  const auto dom = shell(base + "--dump-dom file://" + path);
  ASSERT_EQ(dom.exit_code, 0) << dom.out;
  EXPECT_NE(dom.out.find("<tr class=\"hot\" id=\"L39\">"), std::string::npos);
  EXPECT_NE(dom.out.find("<h1>transpose_naive</h1>"), std::string::npos);
  // Sortable columns (issue 47): opened as PAGE#sort=stalls, the script sorts the source table by
  // its stalls column, largest first (lines without stalls last, in source order), and marks the
  // header. Read back from the DOM Chromium built.
  const auto sorted = shell(base + "--dump-dom 'file://" + path + "#sort=stalls'");
  ASSERT_EQ(sorted.exit_code, 0) << sorted.out;
  const std::string& d = sorted.out;
  const auto table = d.find("<table class=\"src\">");
  ASSERT_NE(table, std::string::npos);
  const std::string first = d.substr(table, d.find("</table>", table) - table);
  EXPECT_NE(first.find("data-on=\"1\">stalls</th>"), std::string::npos) << first.substr(0, 600);
  const std::regex row("<tr[^>]* id=\"L([0-9]+)\"[^>]*>((?:(?!</tr>).)*)</tr>");
  const std::regex cell("<td[^>]*>([^<]*)</td>");
  std::vector<double> stalls;
  std::vector<int> blank_lines;
  for (auto it = std::sregex_iterator(first.begin(), first.end(), row);
       it != std::sregex_iterator(); ++it) {
    const std::string body = (*it)[2];
    std::vector<std::string> tds;
    for (auto c = std::sregex_iterator(body.begin(), body.end(), cell); c != std::sregex_iterator();
         ++c)
      tds.push_back((*c)[1]);
    ASSERT_GT(tds.size(), 5u) << body;
    if (tds[5].empty()) {
      blank_lines.push_back(std::stoi((*it)[1]));
      continue;
    }
    EXPECT_TRUE(blank_lines.empty()) << "a stalled line after an unstalled one: " << (*it)[1];
    stalls.push_back(std::stod(tds[5]));
  }
  ASSERT_GT(stalls.size(), 3u);
  EXPECT_TRUE(std::is_sorted(stalls.rbegin(), stalls.rend())) << stalls.front();
  EXPECT_TRUE(std::is_sorted(blank_lines.begin(), blank_lines.end()));
  const std::string png = ::testing::TempDir() + "smemsim-profile-transpose.png";
  std::filesystem::remove(png);
  const auto shot = shell(base + "--window-size=1300,1500 --screenshot=" + png + " file://" + path);
  ASSERT_EQ(shot.exit_code, 0) << shot.out;
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 20'000u) << shot.out;  // a blank page is a few kilobytes
  EXPECT_EQ(image.substr(1, 3), "PNG");
  RecordProperty("screenshot", png);
  std::filesystem::remove_all(profile);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace smemsim::test

// `smemsim sim` through the CLI (issue 9 "must show" 6): the report, JSON, the timeline and the
// pipeline view, and bad input: an unknown pipeline or scheduler, impossible sm.* values, a block
// that cannot fit, a kernel that never finishes — each one line on stderr and exit code 2.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kernel_test_util.hpp"
#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;
using test::temp_file;

// Warp 0 waits at the barrier; warp 1 spins forever and never arrives.
const char* kSpinPtx = R"(.version 7.0
.target sm_75
.address_size 64
.file 1 "/src/spin.cu"

.visible .entry spin(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
  .loc 1 7 5
LOOP:
  add.s32 %r2, %r2, 1;
  bra.uni LOOP;
WAIT:
  .loc 1 4 3
  bar.sync 0;
  ret;
}
)";

std::string spin_files() {
  temp_file("spin.ptx", kSpinPtx);
  return temp_file("spin.toml",
                   "grid = 1\nblock = 64\nargs = [\"out\"]\n[buffers.out]\ntype = \"u32\"\n"
                   "count = 64\n");
}

int lines(const std::string& s) {
  return int(std::count(s.begin(), s.end(), '\n'));
}

TEST(TimingCli, NeverEndingKernelStopsAtTheCycleLimitNamingTheWarps) {
  const std::string spec = spin_files();
  const std::string ptx = ::testing::TempDir() + "smemsim_spin.ptx";
  const auto r = cli("sim " + ptx + " --launch " + spec + " --max-cycles 20000");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("did not finish within 20000 cycles (--max-cycles)"), std::string::npos)
      << r.out;
  // Warp 0 at the barrier (PTX line 19, spin.cu:4), warp 1 in the loop (spin.cu:7).
  EXPECT_NE(r.out.find("warp 0 of block (0,0,0) on SM 0 at " + ptx +
                       ":19 (spin.cu:4) "
                       "`bar.sync 0;` [barrier]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("warp 1 of block (0,0,0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spin.cu:7"), std::string::npos) << r.out;
}

TEST(TimingCli, BadOptionsAndImpossibleSmValues) {
  const std::string spec = spin_files();
  const std::string ptx = ::testing::TempDir() + "smemsim_spin.ptx";
  const std::string run = "sim " + ptx + " --launch " + spec + " ";
  const std::pair<std::string, std::string> cases[] = {
      {"--pipeline elastic2",
       "--pipeline: unknown pipeline 'elastic2': did you mean 'elastic'? (known: unified, split, "
       "elastic)"},
      {"--scheduler fifo",
       "--scheduler: unknown scheduler 'fifo' (known: lrr, gto, bank-aware, bank-aware-fill)"},
      {"--set sm.pipeline=wide",
       "arch key 'sm.pipeline': unknown pipeline 'wide' (known: unified, split, elastic)"},
      {"--barrel loose", "arch key 'sm.barrel': 'loose' is not strict or relaxed"},
      {"--set sm.simd_width=3", "arch key 'sm.simd_width': 3 does not divide the warp size 32"},
      {"--set sm.count=0", "key 'sm.count': 0 is not between 1 and 1024"},
      {"--set sm.count=99999999999", "key 'sm.count': 99999999999 is not between 1 and 1024"},
      {"--set sm.lat_alu=3", "arch key 'sm.lat_alu': 3 cycles is shorter than the pipeline"},
      {"--set sm.lat_shared_atom=2",
       "arch key 'sm.lat_shared_atom': 2 cycles is shorter than the pipeline"},
      {"--arch fermi-gtx580 --set sm.lat_imad=20",
       "arch key 'sm.lat_imad': an integer multiply's own latency needs the FMA pipe "
       "(sm.lat_fma > 0)"},
      {"--arch turing-t4 --set sm.lat_imad=2",
       "arch key 'sm.lat_imad': 2 cycles is shorter than the pipeline"},
      {"--set sm.max_threads=32",
       "a block of 64 threads does not fit on an SM: it needs 64 of "
       "'sm.max_threads', the SM has 32"},
      {"--regs 255 --set sm.registers=8192", "it needs 16320 of 'sm.registers', the SM has 8192"},
      {"--set timing.fsm_update=2", ""},  // no shared atomic here: not used, not checked
      {"--max-cycles 0", "--max-cycles: 0 is not between 1 and 1000000000000"},
      {"--max-cycles 99999999999999999999", "--max-cycles: 99999999999999999999 is not between"},
      {"--regs 300", "--regs: 300 is not between 0 and 255"},
      {"--pipeview 1000000", "--pipeview: 1000000 is not between 1 and 100000"},
      {"--pipeview 5 --pipeview-sm 16 --arch fermi-gtx580",
       "--pipeview-sm 16: the GPU has 16 SMs (sm.count)"},
      {"--timeline /", "--timeline: '/' is a directory, not a file"},
      {"--timeline ''", "--timeline: empty path"},
      {"--timeline x.json --timeline-window 9",
       "--timeline-window '9': give the first and the end"},
      {"--timeline x.json --timeline-window 9:9", "'9:9': the end cycle must be after the first"},
      {"--timeline x.json --timeline-window a:9", "'a' is not a cycle (0 to 999999999999999)"},
      {"--timeline x.json --timeline-window ''", "--timeline-window: empty (give the first"},
      {"--timeline x.json --timeline-sms 5-3", "--timeline-sms '5-3': '5-3': the range's end is"},
      {"--timeline x.json --timeline-sms 1,a", "--timeline-sms '1,a': 'a' is not an SM number"},
      {"--timeline x.json --timeline-sms 1,", "--timeline-sms '1,': '' is not an SM number"},
      {"--timeline x.json --timeline-sms ''", "--timeline-sms: empty (give SMs as 0,4-7)"},
      {"--timeline x.json --timeline-sms 0-99999999999", "'99999999999' is not an SM number"},
      {"--arch fermi-gtx580 --timeline x.json --timeline-sms 3,16",
       "--timeline-sms '3,16': SM 16: the GPU has 16 SMs (sm.count), 0 to 15"},
  };
  for (const auto& [args, msg] : cases) {
    SCOPED_TRACE(args);
    const auto r = cli(run + args + " --max-cycles 3000");
    if (msg.empty()) {  // runs into the cycle limit, the error of the spin kernel
      EXPECT_NE(r.out.find("did not finish"), std::string::npos) << r.out;
      continue;
    }
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(lines(r.out), 1) << r.out;
    EXPECT_NE(r.out.find(msg), std::string::npos) << r.out;
  }
}

TEST(TimingCli, ADirectoryForAFileIsAnError) {
  const std::string spec = spin_files();
  const std::string dir = ::testing::TempDir();
  for (const std::string& args :
       {"sim " + dir + " --launch " + spec, "sim " + dir + "smemsim_spin.ptx --launch " + dir}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("it is a directory"), std::string::npos) << r.out;
  }
}

TEST(TimingCli, LockLoopLatencyBelowThePipelineIsAnError) {
  const auto r = cli("sim builtin:atomic_bench --set timing.fsm_update=2");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("arch key 'timing.fsm_update': 2 cycles is not between the pipeline's "
                       "shortest latency 6"),
            std::string::npos)
      << r.out;
}

// --stats: the speed, and the share of the SMs' busy cycles ticked ahead (TimingOptions::
// run_ahead). The reduction's warps spend most cycles on shared memory and barriers, where an SM
// runs ahead; a timeline (an observer) and more than one thread turn running ahead off, so it
// reads 0.0 % there.
double ahead_share(const std::string& out) {
  static const std::regex re(R"(; ([0-9.]+)% of the SMs' busy cycles ticked ahead)");
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1]) : -1.0;
}

TEST(TimingCli, StatsSayHowMuchTheSmsTickedAhead) {
  const auto on = cli("sim builtin:reduction --size 2048 --arch volta-v100 --threads 1 --stats");
  ASSERT_EQ(on.exit_code, 0) << on.out;
  EXPECT_NE(on.out.find("thread-instructions/s"), std::string::npos) << on.out;
  const double share = ahead_share(on.out);
  EXPECT_GT(share, 10.0) << on.out;
  EXPECT_LE(share, 100.0) << on.out;
  const std::string tl = ::testing::TempDir() + "smemsim_stats_tl.json";
  const auto off =
      cli("sim builtin:reduction --size 2048 --arch volta-v100 --threads 1 --stats "
          "--timeline " +
          tl);
  ASSERT_EQ(off.exit_code, 0) << off.out;
  EXPECT_EQ(ahead_share(off.out), 0.0) << off.out;
  // On two threads the SMs tick in parallel, not ahead.
  const auto two = cli("sim builtin:reduction --size 2048 --arch volta-v100 --threads 2 --stats");
  ASSERT_EQ(two.exit_code, 0) << two.out;
  EXPECT_EQ(ahead_share(two.out), 0.0) << two.out;
}

TEST(TimingCli, ReportJsonTimelineAndPipeview) {
  const auto h = cli("sim builtin:atomic_bench --conflicts 4 --stride 0");
  EXPECT_EQ(h.exit_code, 0) << h.out;
  EXPECT_NE(h.out.find("clock() in the kernel: 472 cycles"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("result: matches the CPU reference"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("issue slots (16 SMs x "), std::string::npos) << h.out;
  // One block on 16 SMs: the shares are of the active slots (issue 26), so they sum to 100 %
  // (rounded to 0.1 each) and idle is not among them.
  const auto at = h.out.find("with a resident warp):");
  ASSERT_NE(at, std::string::npos) << h.out;
  std::istringstream shares(h.out.substr(at + 22, h.out.find('\n', at) - at - 22));
  double sum = 0;
  for (std::string name, pct; shares >> name >> pct && pct.back() == '%';) {
    EXPECT_NE(name, "idle");
    sum += std::stod(pct);
  }
  EXPECT_NEAR(sum, 100.0, 1.0) << h.out;

  const std::string tl = ::testing::TempDir() + "smemsim_tl.json";
  const auto j = cli("sim builtin:reduction --size 2048 --json --timeline " + tl);
  ASSERT_EQ(j.exit_code, 0) << j.out;
  const auto doc = nlohmann::json::parse(j.out);
  const auto& t = doc.at("timing");
  EXPECT_GT(t.at("cycles").get<std::uint64_t>(), 0u);
  std::uint64_t slots = 0;
  // Nsight Compute's names sum to the slots; the old names are aliases (issue 47): scoreboard =
  // wait + short_scoreboard, issued = selected, memory = long_scoreboard.
  const auto& st = t.at("issue_stalls");
  for (const auto& [k, v] : st.items())
    if (k != "issued" && k != "scoreboard" && k != "memory" && k != "control" && k != "dispatch")
      slots += v.get<std::uint64_t>();
  EXPECT_EQ(slots, t.at("cycles").get<std::uint64_t>() * 16);
  EXPECT_EQ(st.at("scoreboard"),
            st.at("wait").get<std::uint64_t>() + st.at("short_scoreboard").get<std::uint64_t>());
  EXPECT_EQ(st.at("issued"), st.at("selected"));
  EXPECT_EQ(st.at("memory"), st.at("long_scoreboard"));
  EXPECT_GT(st.at("short_scoreboard").get<std::uint64_t>(), 0u);  // the reduction's shared loads
  EXPECT_EQ(t.at("sms").size(), 16u);
  EXPECT_EQ(doc.at("arch").at("sm").at("pipeline"), "unified");
  EXPECT_TRUE(doc.at("reference").at("matches").get<bool>());
  // The timeline is one JSON document of trace events, with instruction spans.
  std::ifstream in(tl);
  const auto trace = nlohmann::json::parse(in);
  int spans = 0;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "X" && e.contains("args")) ++spans;
  EXPECT_GT(spans, 100);
  EXPECT_EQ(doc.at("timeline").at("events").get<std::uint64_t>(), trace.at("traceEvents").size());

  // A window keeps the spans that overlap it and the stalls in it, and says so.
  const std::string tw = ::testing::TempDir() + "smemsim_tlw.json";
  const auto jw =
      cli("sim builtin:reduction --size 2048 --timeline " + tw + " --timeline-window 200:260");
  ASSERT_EQ(jw.exit_code, 0) << jw.out;
  EXPECT_NE(jw.out.find(", cycles 200:260 (open in"), std::string::npos) << jw.out;
  std::ifstream inw(tw);
  const auto window = nlohmann::json::parse(inw);
  int in_window = 0;
  for (const auto& e : window.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    const auto ts = e.at("ts").get<std::uint64_t>(), end = ts + e.at("dur").get<std::uint64_t>();
    EXPECT_GT(end, 200u) << e.dump();  // ends after the window opens (dur counts its last cycle)
    EXPECT_LT(ts, 260u) << e.dump();
    if (e.contains("args")) ++in_window;
  }
  EXPECT_GT(in_window, 10);
  EXPECT_LT(in_window, spans);
  // Only tracks with something in the window are named: every thread_name has a span.
  std::set<std::pair<int, std::uint64_t>> used;
  for (const auto& e : window.at("traceEvents"))
    if (e.at("ph") == "X") used.emplace(e.at("pid").get<int>(), e.at("tid").get<std::uint64_t>());
  for (const auto& e : window.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      EXPECT_TRUE(used.count({e.at("pid").get<int>(), e.at("tid").get<std::uint64_t>()}))
          << e.dump();

  const auto p = cli("sim builtin:transpose --arch cf11 --pipeline split --pipeview 30");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_NE(p.out.find(" cycle "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("NM0"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("issue w0"), std::string::npos) << p.out;
}

// Issue 47: the views per sub-core. On hopper-h100 (4 sub-cores; warp slot w issues on sub-core
// w % 4) the pipeview has a column per sub-core, and a warp's issue shows only in its own; the
// timeline keeps only the SMs asked for, and --timeline-events counts spans, not the names. The
// caches are off: the first instruction line's miss (170 cycles) and the parameters' (60) would
// fill the 40 cycles shown.
TEST(TimingCli, ViewsPerSubcoreAndSmFilter) {
  const auto p =
      cli("sim builtin:histogram --arch h100 --set sm.icache_miss_cycles=0 "
          "--set sm.const_miss_cycles=0 --pipeview 40");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  std::istringstream in(p.out);
  int rows = 0, issues = 0;
  std::size_t col[4] = {0, 0, 0, 0};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(" cycle ", 0) == 0) {  // the header
      for (int k = 0; k < 4; ++k) col[k] = line.find("issue " + std::to_string(k));
      ASSERT_NE(col[3], std::string::npos) << line;
      continue;
    }
    if (!col[0] || line.size() < col[0] || !std::isdigit(static_cast<unsigned char>(line[5])))
      continue;
    ++rows;
    for (int k = 0; k < 4; ++k) {
      const std::size_t end = k < 3 ? col[k + 1] : line.size();
      const std::string cell = line.substr(col[k], end - col[k]);
      std::smatch m;
      if (std::regex_search(cell, m, std::regex("issue w([0-9]+)"))) {
        EXPECT_EQ(std::stoi(m[1]) % 4, k) << line;
        ++issues;
      } else {
        EXPECT_TRUE(std::regex_search(cell, std::regex("^[a-z_]+ *$"))) << "'" << cell << "'";
      }
    }
  }
  EXPECT_EQ(rows, 40);
  EXPECT_GT(issues, 40);  // more than one sub-core issues in some cycles

  // The MIO queues' column per sub-core: its head (+N behind it), * for a bank pass. The SM has
  // one shared-memory port, one pass a cycle (docs/timing.md "MIO queues"), so no row has two.
  // The transpose's 16 CTAs of 8 warps take one SM each of volta-v100's 80; on SM 0 each warp
  // stores its tile row once (1 pass) and reads a column with an 8-way conflict (8 passes):
  // 8 x (1 + 8) = 72 stars, every pass of the SM (the run's 1,152 passes / 16 CTAs), all within
  // the 745 cycles shown. The conflicting reads queue behind each other.
  const auto t8 = cli("sim builtin:transpose --arch v100 --pipeview 2000");
  ASSERT_EQ(t8.exit_code, 0) << t8.out;
  std::istringstream tin(t8.out);
  std::size_t from = std::string::npos, to = 0;
  int passes = 0, queued = 0;
  for (std::string line; std::getline(tin, line);) {
    if (line.rfind(" cycle ", 0) == 0) {
      // Cells are right-aligned under their names: the MIO columns lie between the end of
      // s3.WB's name and the end of s3.MIO's.
      ASSERT_NE(line.find("s3.MIO"), std::string::npos) << line;
      from = line.find("s3.WB") + 5;
      to = line.find("s3.MIO") + 6;
      continue;
    }
    if (from == std::string::npos || line.size() < to || line[0] == '(') continue;
    const std::string cells = line.substr(from, to - from);
    const auto stars = std::count(cells.begin(), cells.end(), '*');
    EXPECT_LE(stars, 1) << line;
    passes += int(stars);
    queued += cells.find('+') != std::string::npos;
  }
  EXPECT_EQ(passes, 72);
  EXPECT_GT(queued, 10);

  const std::string tl = ::testing::TempDir() + "smemsim_tl_sms.json";
  const auto t = cli("sim builtin:reduction --arch a100 --json --timeline " + tl +
                     " --timeline-sms 1,3-4 --timeline-events 500");
  ASSERT_EQ(t.exit_code, 0) << t.out;
  const auto doc = nlohmann::json::parse(t.out);
  std::ifstream f(tl);
  const auto trace = nlohmann::json::parse(f);
  std::set<int> pids;
  std::uint64_t spans = 0, names = 0;
  for (const auto& e : trace.at("traceEvents")) {
    pids.insert(e.at("pid").get<int>());
    spans += e.at("ph") == "X";
    names += e.at("ph") == "M";
  }
  EXPECT_EQ(pids, (std::set<int>{1, 3, 4}));
  EXPECT_EQ(spans, 500u);
  EXPECT_GT(names, 0u);
  EXPECT_EQ(doc.at("timeline").at("spans"), spans);
  EXPECT_EQ(doc.at("timeline").at("events"), spans + names);
  EXPECT_TRUE(doc.at("timeline").at("truncated").get<bool>());
}

}  // namespace
}  // namespace smemsim

namespace smemsim::test {
namespace {

// Options that do nothing for what was asked are errors naming them (issue 28, item 5).
TEST(TimingCli, OptionsThatDoNotApplyAreErrors) {
  for (const auto& [args, msg] : std::vector<std::pair<std::string, std::string>>{
           {"profile builtin:reduction --max-cycles 1000",
            "--max-cycles applies to the cycle-level model: give --timing (or use sim)"},
           {"profile builtin:reduction --pipeline split", "--pipeline applies to the cycle-level"},
           {"profile builtin:reduction --regs 32", "--regs applies to the cycle-level"},
           {"profile builtin:reduction --threads 2", "--threads applies to the cycle-level"},
           {"sim builtin:reduction --threads 0", "--threads: 0 is not between 1 and 1024"},
           {"sim builtin:reduction --pipeview-sm 1", "--pipeview-sm chooses the SM of --pipeview"},
           {"sim builtin:reduction --timeline-events 10", "--timeline-events caps --timeline"},
           {"sim builtin:reduction --timeline-window 1:2", "--timeline-window chooses the cycles"},
           {"sim builtin:reduction --timeline-sms 1", "--timeline-sms chooses the SMs"},
           {"sim builtin:reduction --pipeview-from 3", "--pipeview-from chooses where"}}) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(msg), std::string::npos) << args << "\n" << r.out;
  }
  EXPECT_EQ(cli("profile builtin:reduction --timing --max-cycles 1000000").exit_code, 0);
}

}  // namespace
}  // namespace smemsim::test

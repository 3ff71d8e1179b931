// The localtm study's report (localtm.cpp): seed 003 Figs. 3-5 (speed-up over TX. Serialization,
// execution breakdown, serialized transactions) and §5.2's commit ratios and false conflicts, each
// benchmark beside the paper's numbers.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "smemsim/study.hpp"

namespace smemsim::study {
namespace {

struct Paper {
  const char* name;
  const char* title;
  const char* figure;
  const char* says;  // 003 §5.2's numbers, for the report
};
constexpr Paper kPaper[] = {
    {"HT", "Hash Table", "3",
     "003 §5.2.1: GPU-LocalTM close to perfect; overhead at most 16% of the cycles; commit ratio "
     "4.9% (HT2) to 100% (HT256); 189 of 3,801 transactions serialized in HT2, 9 of 36 in HT32; "
     "no work-group serialization"},
    {"KM", "K-Means", "4",
     "003 §5.2.2: speed-up about 1.5x (the transactional part is about 5% of the cycles); "
     "overhead under 10%; about 39% of the memory accesses are false conflicts; commit ratio at "
     "most 4%, 15% in KM256; GPU-LocalTM sometimes faster than perfect"},
    {"GA", "Genetic Algorithm", "5",
     "003 §5.2.3: speed-up grows as conflicts get rarer; commit ratio about 1% (GA2) to 15% "
     "(GA256); GPU-LocalTM sometimes faster than perfect (GA8: 134 vs 177 serializations, 2,578 vs "
     "3,126 conflicts)"},
};

std::optional<std::size_t> find_row(const Table& t, const std::string& b, std::int64_t size,
                                    const char* system) {
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    if (t.str(r, "benchmark") == b && std::int64_t(t.num(r, "size")) == size &&
        t.str(r, "system") == system)
      return r;
  return std::nullopt;
}

std::string tm_pct(double x) {
  return fmt::format("{:.1f}%", 100.0 * x);
}

// One benchmark's figures, table and summary (003 Fig. {3,4,5}), over its sizes; widens [lo, hi],
// the range of GPU-LocalTM's speed-ups.
void benchmark_report(const Table& t, const Paper& p, const std::vector<std::int64_t>& sizes,
                      Report& rep, double& lo, double& hi) {
  const std::string B = p.name;
  Figure fa{
      fmt::format("fig{}a_speedup_{}", p.figure, B),
      fmt::format("{}: speed-up over TX. Serialization (seed 003 Fig. {}a)", p.title, p.figure),
      B == "HT"   ? "buckets"
      : B == "KM" ? "centers"
                  : "solutions",
      "speed-up (serialized cycles / cycles)"};
  fa.logx = true;
  fa.ref_y = 1.0;
  fa.series = {{"GPU-LocalTM"}, {"perfect GPU-LocalTM"}};
  Figure fb{
      fmt::format("fig{}b_breakdown_{}", p.figure, B),
      fmt::format("{}: execution breakdown of GPU-LocalTM (seed 003 Fig. {}b)", p.title, p.figure),
      "", "share of warp-cycles"};
  fb.stacked = true;
  fb.series = {{"non-TX code"}, {"TX code"}, {"memory overheads"}, {"TX.Begin/Commit"}};
  Figure fc{fmt::format("fig{}c_serialized_{}", p.figure, B),
            fmt::format("{}: transaction type (seed 003 Fig. {}c)", p.title, p.figure), "",
            "share of transaction attempts"};
  fc.stacked = true;
  fc.series = {{"serialized"}, {"not serialized"}};
  std::vector<std::vector<std::string>> rows;
  int perfect_slower = 0;
  for (std::int64_t s : sizes) {
    const auto ser = find_row(t, B, s, "serial"), ltm = find_row(t, B, s, "localtm"),
               per = find_row(t, B, s, "perfect");
    auto num = [&](const std::optional<std::size_t>& r, const char* c) {
      return r ? t.num(*r, c) : 0.0;
    };
    const std::string cat = fmt::format("{}{}", B, s);
    nlohmann::json& js = rep.summary[B]["sizes"].emplace_back(nlohmann::json{{"size", s}});
    std::string sp_l = "-", sp_p = "-";
    if (ser && ltm) {
      const double v = num(ser, "cycles") / num(ltm, "cycles");
      fa.series[0].x.push_back(double(s));
      fa.series[0].y.push_back(v);
      sp_l = fmt::format("{:.2f}x", v);
      js["speedup_localtm"] = v;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (ser && per) {
      const double v = num(ser, "cycles") / num(per, "cycles");
      fa.series[1].x.push_back(double(s));
      fa.series[1].y.push_back(v);
      sp_p = fmt::format("{:.2f}x", v);
      js["speedup_perfect"] = v;
    }
    if (ltm && per && num(per, "cycles") > num(ltm, "cycles")) ++perfect_slower;
    if (!ltm) {
      rows.push_back({cat, fmt::format("{:.0f}", num(ser, "cycles")), "-", "-", sp_l, sp_p, "-",
                      "-", "-", "-"});
      continue;
    }
    const double parts[4] = {num(ltm, "non_tx_cycles"), num(ltm, "tx_code_cycles"),
                             num(ltm, "mem_overhead"), num(ltm, "begin_commit_overhead")};
    const double total = parts[0] + parts[1] + parts[2] + parts[3];
    fb.categories.push_back(cat);
    for (int k = 0; k < 4; ++k) fb.series[std::size_t(k)].y.push_back(total ? parts[k] / total : 0);
    const double attempts = num(ltm, "attempts");
    const double serialized = num(ltm, "wf_serial") + num(ltm, "wg_serial");
    fc.categories.push_back(cat);
    fc.series[0].y.push_back(attempts ? serialized / attempts : 0);
    fc.series[1].y.push_back(attempts ? 1 - serialized / attempts : 0);
    const double overhead = total ? (parts[2] + parts[3]) / total : 0;
    const double commit =
        num(ltm, "lane_attempts") ? num(ltm, "lane_commits") / num(ltm, "lane_attempts") : 1;
    const double conflicts = num(ltm, "conflicts_true") + num(ltm, "conflicts_false");
    const double accesses = num(ltm, "accesses");
    js["overhead"] = overhead;
    js["commit_ratio"] = commit;
    js["serialized_attempts"] = serialized;
    js["attempts"] = attempts;
    js["false_conflicts_of_accesses"] = accesses ? num(ltm, "conflicts_false") / accesses : 0;
    rows.push_back(
        {cat, fmt::format("{:.0f}", num(ser, "cycles")), fmt::format("{:.0f}", num(ltm, "cycles")),
         per ? fmt::format("{:.0f}", num(per, "cycles")) : "-", sp_l, sp_p, tm_pct(overhead),
         tm_pct(commit), fmt::format("{:.0f} of {:.0f}", serialized, attempts),
         fmt::format("{:.0f} / {:.0f} ({} of accesses)", num(ltm, "conflicts_true"),
                     num(ltm, "conflicts_false"),
                     accesses ? tm_pct(num(ltm, "conflicts_false") / accesses) : "-")});
    (void)conflicts;
  }
  rep.markdown += fmt::format("### {} (seed 003 Fig. {})\n\n", p.title, p.figure);
  rep.markdown += md_table({"run", "serialized cycles", "GPU-LocalTM cycles", "perfect cycles",
                            "speed-up", "perfect speed-up", "TM overhead", "commit ratio",
                            "serialized attempts", "conflicts true / false"},
                           rows);
  rep.markdown +=
      fmt::format("\nPerfect GPU-LocalTM slower than GPU-LocalTM in {} of {} sizes.\n\n{}.\n\n",
                  perfect_slower, sizes.size(), p.says);
  rep.summary[B]["perfect_slower"] = perfect_slower;
  rep.figures.push_back(std::move(fa));
  if (!fb.categories.empty()) rep.figures.push_back(std::move(fb));
  if (!fc.categories.empty()) rep.figures.push_back(std::move(fc));
}

}  // namespace

Report localtm_report(const Table& t) {
  Report rep;
  // Sizes per benchmark, in ascending numeric order.
  std::map<std::string, std::vector<std::int64_t>> sizes;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    auto& v = sizes[t.str(r, "benchmark")];
    const auto s = std::int64_t(t.num(r, "size"));
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  }
  for (auto& [b, v] : sizes) std::sort(v.begin(), v.end());
  double lo = 0, hi = 0;
  for (const Paper& p : kPaper)
    if (sizes.count(p.name)) benchmark_report(t, p, sizes[p.name], rep, lo, hi);
  rep.summary["speedup_range"] = {lo, hi};
  rep.markdown = fmt::format(
                     "GPU-LocalTM's speed-up over TX. Serialization across the runs: {:.2f}x to "
                     "{:.2f}x (003: 1.25x to 80x over the three benchmarks). TM overhead: the "
                     "warp-cycles transactional accesses and TX.Begin/TX.Commit added, as a share "
                     "of all warp-cycles (003: under 20%). Commit ratio: lane commits per lane "
                     "attempt. Serialized attempts: transaction attempts (a warp's TX.Begin, "
                     "retries included) in wavefront or work-group serialization mode.\n\n",
                     lo, hi) +
                 rep.markdown;
  return rep;
}

}  // namespace smemsim::study

#include "random_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

namespace smemsim::study {
namespace {

// Values within this ratio of each other read as "flat" (the patterns are random: 20,000 of them
// give a mean lock degree within about 1 % run to run).
constexpr double kFlat = 1.05;

std::vector<double> column(const Table& t, std::string_view name) {
  std::vector<double> v;
  for (std::size_t k = 0; k < t.rows.size(); ++k) v.push_back(t.num(k, name));
  return v;
}

// The first row from which every value is within kFlat of every other; rows.size() - 1 at least.
std::size_t flat_from(const std::vector<double>& v) {
  std::size_t k = v.empty() ? 0 : v.size() - 1;
  while (k > 0) {
    const auto [lo, hi] = std::minmax_element(v.begin() + std::ptrdiff_t(k - 1), v.end());
    if (*hi > kFlat * *lo) break;
    --k;
  }
  return k;
}

std::string locks_phrase(const Arch& a) {
  if (a.locks == 0) return "the arch has a lock per word";
  return fmt::format("the arch has {} locks, so addresses {} words apart share a lock",
                     grouped(a.locks), grouped(a.locks));
}

// "a, b and c".
std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
  return s;
}

// A gain counts as one when replication lowers the mean latency by at least this ratio (the
// "markedly" of 001's Fig. 7 text; random patterns vary by about 1 % run to run).
constexpr double kGain = 1.10;

}  // namespace

std::string grouped(std::int64_t v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string s = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string random_patterns_text(const Table& t, const Arch& arch) {
  if (t.rows.empty()) return {};
  const std::vector<double> lock = column(t, "lock_degree_mean");
  const std::vector<double> size = column(t, "size");
  const std::size_t f = flat_from(lock);
  const auto [lo, hi] = std::minmax_element(lock.begin() + std::ptrdiff_t(f), lock.end());
  std::string s = "Seed 001 §3 (Fig. 5), as this run measured it: the mean lock degree ";
  if (f == 0)
    s += fmt::format("is flat over every size ({:.2f} to {:.2f})", *lo, *hi);
  else if (f + 1 == lock.size())
    s += fmt::format("falls over the whole range, from {:.2f} at {} words to {:.2f} at {}",
                     lock.front(), grouped(std::int64_t(size.front())), lock.back(),
                     grouped(std::int64_t(size.back())));
  else
    s += fmt::format(
        "falls from {:.2f} at {} words to {:.2f} at {} and stays flat beyond it "
        "({:.2f} to {:.2f})",
        lock.front(), grouped(std::int64_t(size.front())), lock[f], grouped(std::int64_t(size[f])),
        *lo, *hi);
  s += "; " + locks_phrase(arch) + ". ";
  // Which penalty is the larger, size by size, and where the bank degree is the higher one.
  std::size_t lock_larger = 0, bank_higher = 0, lock_larger_there = 0;
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    const bool l = t.num(k, "lock_penalty") > t.num(k, "bank_penalty");
    lock_larger += l;
    if (t.num(k, "bank_degree_mean") > t.num(k, "lock_degree_mean")) {
      ++bank_higher;
      lock_larger_there += l;
    }
  }
  const std::size_t n = t.rows.size();
  if (lock_larger == n)
    s += "At every size most of the penalty is lock/position penalty";
  else if (lock_larger == 0)
    s += "At every size the bank penalty is the larger";
  else
    s += fmt::format("The lock/position penalty is the larger at {} of the {} sizes", lock_larger,
                     n);
  if (bank_higher && lock_larger_there == bank_higher)
    s += ", even at the sizes where the mean bank degree is higher";
  else if (bank_higher && lock_larger_there == 0)
    s += ", and the bank penalty wherever the mean bank degree is higher";
  return s + ".\n";
}

std::string random_replication_text(const Table& t, const Arch& arch) {
  if (t.rows.empty()) return {};
  // Replication helps at a size when it lowers the mean lock degree by more than kFlat.
  std::vector<std::string> helps, none;
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    const std::string size = grouped(std::int64_t(t.num(k, "size")));
    (t.num(k, "r1_lock_degree_mean") > kFlat * t.num(k, "lock_degree_mean") ? helps : none)
        .push_back(size);
  }
  std::string s = "Seed 001 §3 (Fig. 6), as this run measured it: ";
  if (none.empty())
    s += "replication lowers the mean lock degree at every size";
  else if (helps.empty())
    s += "replication does not lower the mean lock degree at any size";
  else
    s += fmt::format(
        "replication lowers the mean lock degree at {} words and leaves it within "
        "5 % at {} words",
        list(helps), list(none));
  s += "; " + locks_phrase(arch) +
       (arch.locks ? ", and copies that many words apart alias the same locks.\n" : ".\n");
  return s;
}

MappingBest mapping_best(const Table& t, double size, bool block, bool sorted, bool pad) {
  MappingBest b;
  for (std::size_t k = 0; k < t.rows.size(); ++k)
    if (t.num(k, "size") == size && t.str(k, "mapping") == (block ? "block" : "cyclic") &&
        t.num(k, "sorted") == double(sorted) && t.num(k, "pad") == double(pad)) {
      const double v = t.num(k, "latency_cycles_mean");
      if (t.num(k, "r") == 1) b.r1 = v;
      if (b.best < 0 || v < b.best) b.best = v, b.r = t.num(k, "r");
    }
  return b;
}

std::string random_mapping_text(const Table& t, const std::vector<std::int64_t>& sizes,
                                const Arch& arch) {
  if (t.rows.empty() || sizes.empty()) return {};
  double apart = 0;  // the largest gap between plain cyclic's and plain block's best
  std::vector<std::string> sorted_gains, sorted_none;
  std::size_t pad_helps = 0, pad_sizes = 0;
  double pad_most = 0, sorted_most = 0;
  std::int64_t sorted_most_at = 0;
  std::set<std::int64_t> block_rs;
  for (const std::int64_t size : sizes) {
    const double sz = double(size);
    const MappingBest c = mapping_best(t, sz, false, false, false),
                      b = mapping_best(t, sz, true, false, false),
                      cs = mapping_best(t, sz, false, true, false),
                      csp = mapping_best(t, sz, false, true, true),
                      bs = mapping_best(t, sz, true, true, false);
    if (c.best > 0 && b.best > 0)
      apart = std::max(apart, std::abs(c.best - b.best) / std::min(c.best, b.best));
    if (cs.best > 0) {
      (cs.gain() >= kGain ? sorted_gains : sorted_none).push_back(grouped(size));
      if (cs.gain() > sorted_most) sorted_most = cs.gain(), sorted_most_at = size;
    }
    if (cs.best > 0 && csp.best > 0) {
      ++pad_sizes;
      const double lower = 1 - csp.best / cs.best;
      if (lower > 0.01) ++pad_helps;
      pad_most = std::max(pad_most, lower);
    }
    if (bs.best > 0 && bs.gain() >= kGain) block_rs.insert(std::int64_t(bs.r));
  }
  std::string s = fmt::format(
      "Seed 001 §3 (Fig. 7), as this run measured it: plain cyclic and block mapping's best "
      "latencies are within {:.0f} % of each other at every size; ",
      100 * apart);
  if (sorted_gains.empty())
    s += fmt::format("with sorting, cyclic mapping gains less than {:.0f} % at every size",
                     100 * (kGain - 1));
  else if (sorted_none.empty())
    s += fmt::format(
        "with sorting, cyclic mapping gains {:.0f} % or more at every size (most: "
        "{:.2f}x at {} words)",
        100 * (kGain - 1), sorted_most, grouped(sorted_most_at));
  else
    s += fmt::format(
        "with sorting, cyclic mapping gains {:.0f} % or more at {} words (most: {:.2f}x at {}) "
        "and less at {} words",
        100 * (kGain - 1), list(sorted_gains), sorted_most, grouped(sorted_most_at),
        list(sorted_none));
  s += "; " + locks_phrase(arch) + ". ";
  s += pad_helps == 0 ? std::string("Padding does not lower sorted cyclic mapping's best latency")
                      : fmt::format(
                            "Padding lowers sorted cyclic mapping's best latency at {} of "
                            "the {} sizes, by up to {:.0f} %",
                            pad_helps, pad_sizes, 100 * pad_most);
  std::vector<std::string> rs;
  for (const std::int64_t r : block_rs) rs.push_back(fmt::format("{}", r));
  s += block_rs.empty()
           ? fmt::format("; block mapping with sorting gains less than {:.0f} % at every size",
                         100 * (kGain - 1))
           : fmt::format("; block mapping with sorting gains {:.0f} % or more only at R = {}",
                         100 * (kGain - 1), list(rs));
  return s + ".\n";
}

}  // namespace smemsim::study

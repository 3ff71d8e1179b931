#include "random_text.hpp"

#include <fmt/format.h>

#include <algorithm>
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
  const auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
      s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
    return s;
  };
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

}  // namespace smemsim::study

// Lookup by name in the explicit registries (presets, index families, latency models, studies,
// backends; DESIGN.md principle 1), and the "known: a, b, c" list their errors give.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace smemsim {

// The entry whose .name is `name`, or nullptr.
template <class Registry>
const auto* find_named(const Registry& r, std::string_view name) {
  for (const auto& e : r)
    if (e.name == name) return &e;
  return static_cast<decltype(&*std::begin(r))>(nullptr);
}

// Every entry's .name, comma-separated, in registry order.
template <class Registry>
std::string known_names(const Registry& r) {
  std::string known;
  for (const auto& e : r) known += (known.empty() ? "" : ", ") + std::string(e.name);
  return known;
}

// Levenshtein distance, ignoring case (a typo's distance to the name meant).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "did you mean 'memory.banks'?" (up to three names, in registry order) for the candidates
// nearest `name`, when within max(2, a third of the name's length) edits; "" when none is.
template <class Names>
std::string did_you_mean(std::string_view name, const Names& candidates) {
  // At most a third of the name, at least 2, and never the whole name: "" or "x" is no typo of
  // anything, "t5" may be one of "t4".
  if (name.empty()) return "";
  const std::size_t limit = std::min(std::max<std::size_t>(2, name.size() / 3), name.size() - 1);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const auto& c : candidates) {
    const std::string_view n(c);
    const std::size_t d = edit_distance(name, n);
    if (d <= limit) near.emplace_back(d, std::string(n));
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  // Only the closest (a one-letter typo is not also offered a two-letter neighbour).
  while (!near.empty() && near.back().first > near.front().first) near.pop_back();
  std::string s;
  for (std::size_t i = 0; i < near.size() && i < 3; ++i)
    s += (i == 0                                           ? "did you mean '"
          : i + 1 == std::min<std::size_t>(near.size(), 3) ? "' or '"
                                                           : "', '") +
         near[i].second;
  return s.empty() ? s : s + "'?";
}

}  // namespace smemsim

// Lookup by name in the explicit registries (presets, index families, latency models, studies,
// backends; DESIGN.md principle 1), and the "known: a, b, c" list their errors give.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace smemsim

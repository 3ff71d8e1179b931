#include "smemsim/pattern_list.hpp"

#include <charconv>

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::uint64_t number(std::string_view item, std::string_view text) {
  std::uint64_t v = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw InputError(fmt::format("--pattern: '{}' is not an address, a range a..b or '-'", item));
  return v;
}

}  // namespace

WarpAccess parse_pattern_list(std::string_view list, Op op, std::uint32_t warp_size,
                              std::uint32_t memory_words) {
  WarpAccess wa;
  wa.op = op;
  wa.lanes = static_cast<std::uint8_t>(warp_size);
  if (trim(list).empty()) throw InputError("--pattern: empty list");
  std::uint32_t lane = 0;
  auto put = [&](std::string_view item, std::uint64_t a, bool active) {
    if (lane >= warp_size)
      throw InputError(
          fmt::format("--pattern: more than {} lanes (the warp size) at '{}'", warp_size, item));
    if (active) {
      if (a >= memory_words)
        throw InputError(
            fmt::format("--pattern: address {} is beyond the memory ({} words)", a, memory_words));
      wa.set(static_cast<int>(lane), static_cast<WordAddr>(a));
    }
    ++lane;
  };
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view item = trim(list.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) throw InputError("--pattern: empty item (two commas in a row?)");
    if (item == "-") {
      put(item, 0, false);
    } else if (auto dots = item.find(".."); dots != std::string_view::npos) {
      const std::uint64_t a = number(item, trim(item.substr(0, dots)));
      const std::uint64_t b = number(item, trim(item.substr(dots + 2)));
      if (b < a) throw InputError(fmt::format("--pattern: range '{}' runs backwards", item));
      if (b - a >= kMaxLanes)
        throw InputError(
            fmt::format("--pattern: range '{}' is longer than {} lanes", item, warp_size));
      for (std::uint64_t x = a; x <= b; ++x) put(item, x, true);
    } else {
      put(item, number(item, item), true);
    }
    if (comma == list.size()) break;
  }
  return wa;
}

}  // namespace smemsim

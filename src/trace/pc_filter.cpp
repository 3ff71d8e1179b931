#include "smemsim/pc_filter.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim {
namespace {

std::uint32_t pc_number(std::string_view text, std::string_view item, std::string_view what) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v > 0xffffffffu)
    throw InputError(fmt::format(
        "{}: '{}' is not an instruction id (a PTX line as `profile` prints it), nor a range a..b",
        what, item));
  if (v == 0)
    throw InputError(fmt::format(
        "{}: '{}' {} pc 0, which is no instruction (a trace line without pc=); PTX lines start at "
        "1",
        what, item, item.find("..") == std::string_view::npos ? "is" : "starts at"));
  return static_cast<std::uint32_t>(v);
}

}  // namespace

PcFilter PcFilter::parse(std::string_view list, std::string_view what) {
  PcFilter f;
  if (list.empty()) throw InputError(fmt::format("{}: empty list of instructions", what));
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    const std::size_t dots = item.find("..");
    const std::uint32_t lo = pc_number(item.substr(0, dots), item, what);
    const std::uint32_t hi =
        dots == std::string_view::npos ? lo : pc_number(item.substr(dots + 2), item, what);
    if (hi < lo) throw InputError(fmt::format("{}: range '{}' ends before it starts", what, item));
    f.add(lo, hi);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return f;
}

PcFilter PcFilter::of(const std::vector<std::uint32_t>& pcs) {
  PcFilter f;
  for (const std::uint32_t pc : pcs)
    if (pc) f.add(pc, pc);
  return f;
}

void PcFilter::add(std::uint32_t lo, std::uint32_t hi) {
  ranges_.emplace_back(lo, hi);
  std::sort(ranges_.begin(), ranges_.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> merged;
  for (const auto& r : ranges_) {
    if (!merged.empty() && std::uint64_t(r.first) <= std::uint64_t(merged.back().second) + 1)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  ranges_ = std::move(merged);
}

bool PcFilter::keep(std::uint32_t pc) const {
  if (ranges_.empty()) return true;
  // The last range starting at or before pc.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), pc,
                             [](std::uint32_t v, const auto& r) { return v < r.first; });
  return it != ranges_.begin() && pc <= std::prev(it)->second;
}

std::string PcFilter::str() const {
  std::string s;
  for (const auto& [lo, hi] : ranges_) {
    if (!s.empty()) s += ',';
    s += lo == hi ? fmt::format("{}", lo) : fmt::format("{}..{}", lo, hi);
  }
  return s;
}

}  // namespace smemsim

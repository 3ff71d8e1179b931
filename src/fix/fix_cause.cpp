// Why a warp's access to a 2-D tile conflicts, and the change of shape that removes it
// (src/fix/fix_internal.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "fix/fix_internal.hpp"

namespace smemsim::fix {

std::string ArrayFix::atomic_cause() const {
  if (max_position < 2 || best_replication() || aggregation_recommended()) return "";
  if (max_position <= 4)
    return fmt::format(
        "at most {} lanes of a warp update one word: their serialization costs less than the "
        "copies' merge or the match that would remove it",
        max_position);
  return fmt::format(
      "up to {} lanes of a warp update one word, but removing that as written costs more than "
      "it saves (the kernel's time is elsewhere, or the merge is long); a different owner of "
      "each word would: one thread per word adding up its updates (the values sorted by word "
      "first), or a copy per warp merged once at the end",
      max_position);
}

}  // namespace smemsim::fix

namespace smemsim::fix::detail {

std::optional<WarpRows> warp_rows(const WarpAccess& wa) {
  struct Run {
    WordAddr start;
    std::uint32_t length;
  };
  std::vector<Run> runs;
  int prev = -1;
  for (int l = 0; l < wa.lanes; ++l) {
    if (!wa.is_active(l)) continue;
    const WordAddr a = wa.addr[std::size_t(l)];
    if (prev == l - 1 && prev >= 0 && a == wa.addr[std::size_t(prev)] + 1)
      ++runs.back().length;
    else
      runs.push_back({a, 1});
    prev = l;
  }
  if (runs.size() < 2 || runs[0].length < 2 || runs[1].start <= runs[0].start) return std::nullopt;
  WarpRows r;
  r.rows = std::uint32_t(runs.size());
  r.width = runs[0].length;
  r.stride = std::uint32_t(runs[1].start - runs[0].start);
  if (r.stride < r.width) return std::nullopt;
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i].start - runs[i - 1].start != r.stride ||
        runs[i].length != (i + 1 == runs.size() ? std::min(runs[i].length, r.width) : r.width))
      return std::nullopt;
  return r;
}

std::uint32_t conflict_free_width(const WarpRows& r, std::uint32_t banks, std::uint32_t at_least) {
  if (std::uint64_t(r.rows) * r.width > banks) return 0;
  // Rows W words apart with W = width (mod banks) start width banks apart: side by side.
  std::uint32_t w = r.width % banks;
  if (w == 0) w = banks;
  while (w < at_least) w += banks;
  return w;
}

std::string tile_cause(const WarpAccess& worst, std::int64_t degree, const Arch& arch) {
  const std::optional<WarpRows> r = warp_rows(worst);
  if (!r) return "";
  const std::uint32_t banks = arch.banks;
  const std::uint32_t shift = r->stride % banks;
  std::string s = fmt::format(
      "a warp reads {} rows of {} consecutive words, {} words apart: each row starts {} banks "
      "after the one before, so rows share banks ({}-way)",
      r->rows, r->width, r->stride, shift, degree);
  const std::uint32_t narrow = conflict_free_width(*r, banks, r->width);
  if (!narrow) return s;
  const std::uint32_t wide = conflict_free_width(*r, banks, r->stride + 1);
  s += fmt::format(
      "; rows {} words apart (mod {}) would not: a row width of {}{} words, or a block {} threads "
      "wide (one row per warp)",
      r->width % banks, banks, narrow, narrow == wide ? "" : fmt::format(" or {}", wide), banks);
  return s;
}

}  // namespace smemsim::fix::detail

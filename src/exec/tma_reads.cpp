// The swizzle what-if of TMA tiles (issue 46; profile's "reads of tiles TMA copies wrote"): for a
// load that reads tiles a tensor copy wrote (Cta::tma_tiles), the bank passes it takes, and would
// take had each tile been copied under every swizzle mode with the load addressed to the same
// elements. A tile's bytes sit where its mode put them, so swizzling an address again gives the
// element's unswizzled address (the XOR is its own inverse); the element's address under another
// mode is that mode's swizzle of it. Passes are counted per bank unit on `memory.banks` banks, the
// hardware's modulo mapping, for the WarpAccess as emitted (a wide load's phase).
#include <algorithm>
#include <array>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {

void tma_reads_whatif(Impl& im, const Cta& cta, const WarpAccess& wa) {
  static constexpr TmaSwizzle kModes[4] = {TmaSwizzle::None, TmaSwizzle::B32, TmaSwizzle::B64,
                                           TmaSwizzle::B128};
  // Each lane's tile (or none) and the element it reads: a tile's bytes sit where its mode put
  // them, so swizzling a byte's address again gives the element's unswizzled address (the XOR
  // is its own inverse).
  std::array<const Cta::TmaTile*, kMaxLanes> tile{};
  const Cta::TmaTile* first = nullptr;
  std::uint32_t widest = 0;  // the widest row among the tiles read
  each_lane(wa.active, [&](int l) {
    const std::uint64_t b = std::uint64_t(wa.addr[std::size_t(l)]) * 4;
    for (const Cta::TmaTile& t : cta.tma_tiles)
      if (b >= t.base && b < std::uint64_t(t.base) + t.bytes) {
        tile[std::size_t(l)] = &t;
        if (!first) first = &t;
        widest = std::max(widest, t.row_bytes);
        break;
      }
  });
  if (!first) return;
  auto& rows = im.stats.tma_reads;
  const std::uint32_t line = wa.pc;
  auto at = std::lower_bound(
      rows.begin(), rows.end(), line,
      [](const ExecStats::TmaReads& r, std::uint32_t l) { return r.ptx_line < l; });
  if (at == rows.end() || at->ptx_line != line) {
    at = rows.insert(at, ExecStats::TmaReads{});
    at->ptx_line = line;
    at->mode = first->mode;
    at->possible.fill(true);
  }
  ++at->accesses;
  const std::uint32_t banks = std::max(1u, im.arch.banks), wpu = im.words_per_unit;
  for (std::size_t m = 0; m < 4; ++m) {
    if (m > 0 && widest > (16u << m)) at->possible[m] = false;
    std::array<std::pair<std::uint32_t, std::uint64_t>, kMaxLanes> unit{};  // bank, bank unit
    int n = 0;
    each_lane(wa.active, [&](int l) {
      std::uint64_t b = std::uint64_t(wa.addr[std::size_t(l)]) * 4;
      if (const Cta::TmaTile* t = tile[std::size_t(l)]) {
        const std::uint32_t logical = tma_swizzle(std::uint32_t(b), kModes[t->mode]);
        b = tma_swizzle(logical, kModes[m]);
      }
      const std::uint64_t u = b / 4 / wpu;
      unit[std::size_t(n++)] = {std::uint32_t(u % banks), u};
    });
    std::sort(unit.begin(), unit.begin() + n);
    std::uint64_t passes = 0, run = 0;
    for (int i = 0; i < n; ++i) {
      if (i > 0 && unit[std::size_t(i)] == unit[std::size_t(i - 1)]) continue;  // one unit, once
      run = i > 0 && unit[std::size_t(i)].first == unit[std::size_t(i - 1)].first ? run + 1 : 1;
      passes = std::max(passes, run);
    }
    at->passes[m] += passes;
  }
}

}  // namespace smemsim::exec::detail

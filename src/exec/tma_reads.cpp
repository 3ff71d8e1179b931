// The swizzle what-if of TMA tiles (issue 46; profile's "reads of tiles TMA copies wrote"): for a
// load that reads tiles a tensor copy wrote (Cta::tma_tiles), the bank passes it takes, and would
// take had each tile been copied under every swizzle mode with the load addressed to the same
// elements; the element's address under another mode is that mode's swizzle of it. Passes are
// the bank degree (ConflictAnalyzer) on the arch's banks under the hardware's modulo mapping, for
// the WarpAccess as emitted (a wide load's phase).
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
  if (!im.tma_banks.p) {
    Arch modulo = im.arch;
    modulo.bank_hash = "mod";
    im.tma_banks.p = std::make_unique<ConflictAnalyzer>(modulo);
  }
  WarpAccess moved = wa;
  for (std::size_t m = 0; m < 4; ++m) {
    if (m > 0 && widest > (16u << m)) at->possible[m] = false;
    each_lane(wa.active, [&](int l) {
      if (const Cta::TmaTile* t = tile[std::size_t(l)]) {
        const std::uint32_t b = std::uint32_t(wa.addr[std::size_t(l)]) * 4;
        const std::uint32_t logical = tma_swizzle(b, kModes[t->mode]);
        moved.addr[std::size_t(l)] = static_cast<WordAddr>(tma_swizzle(logical, kModes[m]) / 4);
      }
    });
    im.tma_banks.p->load(moved, 0, int(im.arch.warp_size));
    at->passes[m] += std::uint64_t(im.tma_banks.p->bank_degree());
  }
}

}  // namespace smemsim::exec::detail

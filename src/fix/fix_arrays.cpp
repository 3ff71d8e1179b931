// `smemsim fix`: accesses attributed to arrays, the candidate layouts of an array and the
// replication model of its atomics (src/fix/fix_internal.hpp).
#include <algorithm>
#include <bit>
#include <tuple>

#include "fix/fix_internal.hpp"
#include "smemsim/hash_families.hpp"

namespace smemsim::fix::detail {

ArrayConsumer::ArrayConsumer(const Arch& arch) : arch_(arch), eval_(arch) {}

void ArrayConsumer::set_arrays(std::vector<exec::SharedLayout::Array> arrays,
                               std::uint64_t budget) {
  per_.clear();
  for (auto& a : arrays) {
    if (a.bytes == 0) continue;
    Per p;
    p.array = std::move(a);
    p.sets = std::make_unique<ReferenceSets>(arch_, HashTarget::Bank,
                                             target_geometry(arch_, HashTarget::Bank));
    p.sets->set_memory_budget(budget);
    per_.push_back(std::move(p));
  }
}

int ArrayConsumer::find(std::uint64_t byte) const {
  for (std::size_t i = 0; i < per_.size(); ++i)
    if (byte >= per_[i].array.offset && byte - per_[i].array.offset < per_[i].array.bytes)
      return int(i);
  return -1;
}

void ArrayConsumer::on_access(const WarpAccess& wa) {
  if (!wa.active) return;
  const int first = std::countr_zero(wa.active);
  const int i = find(std::uint64_t(wa.addr[std::size_t(first)]) * 4);
  if (i < 0) return;
  Per& p = per_[std::size_t(i)];
  p.lines.insert(wa.pc);
  const WordAddr base = p.array.offset / 4;
  tmp_ = wa;
  for (int l = 0; l < wa.lanes; ++l)
    if (wa.is_active(l)) tmp_.addr[std::size_t(l)] = wa.addr[std::size_t(l)] - base;
  p.sets->add(tmp_);
  if (wa.op != Op::Atomic) return;
  ++p.atomics;
  // Replication by R copies interleaved by lane (seed 001 §2.2, cyclic): word i of copy r at
  // word i * R + r of the replicated array, which starts where the array did.
  for (std::size_t k = 0; k < kCopies.size(); ++k) {
    const std::uint32_t r = kCopies[k];
    if (r > wa.lanes) break;
    tmp_ = wa;
    for (int l = 0; l < wa.lanes; ++l)
      if (wa.is_active(l))
        tmp_.addr[std::size_t(l)] =
            base + (wa.addr[std::size_t(l)] - base) * r + std::uint32_t(l) % r;
    p.replicated[k].add(eval_.evaluate(tmp_));
  }
  // Warp aggregation: the lowest lane of each group of lanes on one word updates it for them.
  tmp_ = wa;
  for (int l = 0; l < wa.lanes; ++l)
    for (int e = 0; e < l && tmp_.is_active(l); ++e)
      if (tmp_.is_active(e) && wa.addr[std::size_t(e)] == wa.addr[std::size_t(l)])
        tmp_.active &= ~(LaneMask{1} << l);
  p.aggregated.add(eval_.evaluate(tmp_));
}

std::vector<exec::SharedRemap> padding_candidates(const exec::SharedLayout::Array& a,
                                                  std::uint32_t grain,
                                                  const std::vector<exec::ProfileRow>& rows,
                                                  const Arch& arch) {
  std::vector<exec::SharedRemap> out;
  const std::uint32_t n = a.bytes / grain;
  for (const exec::ProfileRow& row : rows) {
    if (row.totals.bank_conflicts == 0) continue;
    // Rows of a tile read side by side (a 16 x 16 block on an 18-word halo tile): the padding
    // that spaces them by the width the warp's rows need (fix_cause.cpp).
    if (const auto t = warp_rows(row.worst); t && grain == 4) {
      const std::uint32_t w = conflict_free_width(*t, arch.banks, t->stride + 1);
      exec::SharedRemap r;
      r.base = a.offset;
      r.bytes = a.bytes;
      r.grain = grain;
      r.row = t->stride;
      r.pad = w - t->stride;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const exec::SharedRemap& o) {
        return o.row == r.row && o.pad == r.pad;
      });
      if (w && r.row < n && !seen) out.push_back(r);
    }
    const auto hint = exec::padding_hint(row.worst, arch);
    if (!hint || (hint->row_words * 4) % grain) continue;
    exec::SharedRemap r;
    r.base = a.offset;
    r.bytes = a.bytes;
    r.grain = grain;
    r.row = hint->row_words * 4 / grain;
    if (r.row >= n) continue;
    // The hint's pad, and the classic one element (tile[32][33]) when the hint's is larger.
    for (const std::uint32_t pad :
         {std::uint32_t{1}, std::max<std::uint32_t>(1, (hint->pad * 4 + grain - 1) / grain)}) {
      r.pad = pad;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const exec::SharedRemap& o) {
        return o.row == r.row && o.pad == r.pad;
      });
      if (!seen) out.push_back(r);
    }
  }
  return out;
}

std::vector<exec::SharedRemap> swizzle_candidates(const exec::SharedLayout::Array& a,
                                                  std::uint32_t grain, const ReferenceSets& sets,
                                                  std::uint32_t count,
                                                  std::vector<std::int64_t>& predicted) {
  const IndexGeometry& g = sets.geometry();
  const std::int64_t baseline = total_conflicts(sets, bvxor_matrix(0, 0, 0, g));
  if (baseline == 0 || count == 0) return {};
  // Word-level i ^ ((i >> k2) & M) with M free of the grain's low bits equals the grain-level
  // swizzle e ^ ((e >> k2) & (M >> lg)), lg = log2(words per grain): the grain's words stay
  // together (i >> lg = e, and the XOR leaves bits below lg alone).
  const int lg = std::countr_zero(grain / 4);
  struct Cand {
    std::int64_t conflicts;
    int bits, k2;
    std::uint32_t mask;
  };
  std::vector<Cand> cands;
  std::vector<XorMatrix> mats;
  for (int k2 = 1; k2 < g.addr_bits; ++k2)
    for (std::uint32_t m = 1; m < (1u << g.out_bits); ++m) {
      if (m & ((1u << lg) - 1)) continue;
      cands.push_back({0, std::popcount(m), k2, m});
      mats.push_back(bvxor_matrix(0, k2, m, g));
    }
  const std::vector<std::int64_t> c = total_conflicts(sets, mats);
  for (std::size_t i = 0; i < cands.size(); ++i) cands[i].conflicts = c[i];
  std::stable_sort(cands.begin(), cands.end(), [](const Cand& x, const Cand& y) {
    return std::tie(x.conflicts, x.bits, x.k2, x.mask) <
           std::tie(y.conflicts, y.bits, y.k2, y.mask);
  });
  std::vector<exec::SharedRemap> out;
  for (const Cand& cd : cands) {
    if (out.size() >= count || cd.conflicts >= baseline) break;
    exec::SharedRemap r;
    r.base = a.offset;
    r.bytes = a.bytes;
    r.grain = grain;
    r.xor_shift = std::uint32_t(cd.k2);
    r.xor_mask = cd.mask >> lg;
    if (!r.check().empty()) continue;  // not a bijection of this array's grains
    out.push_back(r);
    predicted.push_back(cd.conflicts);
  }
  return out;
}

std::int64_t merge_cycles(const Arch& arch, std::uint32_t words, std::uint32_t copies,
                          std::uint64_t blocks) {
  if (copies <= 1 || words == 0) return 0;
  AccessEvaluator ev(arch);
  Totals t;
  WarpAccess wa;
  wa.op = Op::Load;
  const std::uint32_t lanes = arch.warp_size;
  wa.lanes = static_cast<std::uint8_t>(lanes);
  for (std::uint32_t first = 0; first < words; first += lanes)  // the words a warp's lanes take
    for (std::uint32_t c = 0; c < copies; ++c) {
      wa.active = 0;
      for (std::uint32_t l = 0; l < lanes && first + l < words; ++l)
        wa.set(int(l), (first + l) * copies + (c + first + l) % copies);
      t.add(ev.evaluate(wa));
    }
  return t.total_latency * std::int64_t(blocks);
}

}  // namespace smemsim::fix::detail

// Bank-conflict-aware scheduling (bank_aware.hpp) and the hardware cost of seed 004's proposal.
#include "timing/bank_aware.hpp"

#include <bit>

namespace smemsim::timing {

ConflictHistoryCache::ConflictHistoryCache(std::uint32_t sets, std::uint32_t ways)
    : sets_(sets), ways_(ways), e_(std::size_t(sets) * ways) {}

void ConflictHistoryCache::clear() {
  for (Entry& x : e_) x = Entry{};
}

ConflictHistoryCache::Entry* ConflictHistoryCache::find(std::uint32_t pc) {
  Entry* set = &e_[std::size_t(pc % sets_) * ways_];
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (set[w].valid && set[w].tag == pc / sets_) return &set[w];
  return nullptr;
}

std::optional<std::uint32_t> ConflictHistoryCache::lookup(std::uint32_t pc) {
  Entry* x = find(pc);
  if (!x) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  x->used = ++stamp_;
  return x->value;
}

void ConflictHistoryCache::update(std::uint32_t pc, std::uint32_t value) {
  Entry* x = find(pc);
  if (!x) {
    Entry* set = &e_[std::size_t(pc % sets_) * ways_];
    x = &set[0];
    for (std::uint32_t w = 0; w < ways_; ++w) {
      if (!set[w].valid) {
        x = &set[w];
        break;
      }
      if (set[w].used < x->used) x = &set[w];
    }
    if (x->valid) ++evictions_;
    x->valid = true;
    x->tag = pc / sets_;
  }
  x->value = value;
  x->used = ++stamp_;
}

BankAwareReady::BankAwareReady(const Arch& arch, bool fill)
    : cache_(arch.sm.bkconf_sets, arch.sm.bkconf_ways),
      nsub_(arch.warp_size / arch.sm.simd_width),
      fill_(fill) {}

std::uint32_t BankAwareReady::scheduled(std::uint32_t pc, std::uint64_t now) {
  const std::uint32_t p = cache_.lookup(pc).value_or(0);  // §4.2: 0 on a miss
  // Eq. 5 with the footnote 9 offset: the next memory warp no sooner than nsub + p cycles after
  // this one (its own subwarps take the first nsub).
  until_ = now + nsub_ + p;
  return p;
}

void BankAwareReady::resolved(std::uint32_t pc, std::uint32_t passes, std::uint32_t predicted) {
  const std::uint32_t v = passes > nsub_ ? passes - nsub_ : 0;
  cache_.update(pc, v);
  if (v == predicted)
    ++correct_;
  else if (predicted < v)
    ++low_;
  else
    ++high_;
}

void BankAwareReady::count(UnitCounts& u) const {
  u.predictions_correct += correct_;
  u.predictions_low += low_;
  u.predictions_high += high_;
  u.history_hits += cache_.hits();
  u.history_misses += cache_.misses();
}

namespace {
std::uint32_t log2_ceil(std::uint32_t x) {
  return x <= 1 ? 0 : std::uint32_t(std::bit_width(x - 1));
}
}  // namespace

ElasticCost elastic_cost(const Arch& a) {
  const SmConfig& sm = a.sm;
  ElasticCost c;
  c.nonmem_entries = sm.mem_stages;
  c.premem_entries =
      sm.premem == "none" ? 0 : (a.warp_size + sm.simd_width - 1) / sm.simd_width - 1;
  c.latch_lanes = (c.nonmem_entries + c.premem_entries) * sm.simd_width;
  c.wb_mux_inputs = sm.mem_stages + 3;
  c.mem0_mux_inputs = c.premem_entries + 1;
  c.cache_entries = sm.bkconf_sets * sm.bkconf_ways;
  const std::uint32_t set_bits = log2_ceil(sm.bkconf_sets);
  c.tag_bits = sm.bkconf_pc_bits > set_bits ? sm.bkconf_pc_bits - set_bits : 0;
  c.value_bits = log2_ceil(a.warp_size);
  c.cache_bytes = (std::uint64_t(c.cache_entries) * (c.tag_bits + c.value_bits) + 7) / 8;
  c.gates = 2 * sm.max_warps;
  c.counter_bits = c.value_bits;
  return c;
}

}  // namespace smemsim::timing

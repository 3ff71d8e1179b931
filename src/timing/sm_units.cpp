// The SM's units and its shared-memory port (sm.hpp, docs/timing.md "Sub-cores" and "Units and
// lanes"): what an op costs its unit, whether the unit takes it this cycle, and which sub-core's
// bank pass the port serves.
#include <algorithm>

#include "timing/sm.hpp"

namespace smemsim::timing {

// ---- Units and the shared-memory port -----------------------------------------------------------

// Lane-cycles an op of instruction `index` on unit `u` takes: simd_width threads, or a tensor
// op's multiply-adds; 0 for a unit without a lane limit.
std::uint64_t Sm::unit_cost(Unit u, std::uint32_t index) const {
  const std::size_t m = pipe_map_[std::size_t(u)];
  if (!lanes_[m]) return 0;
  if (m == std::size_t(Unit::Tensor))
    return index < ctx_.info->size() ? (*ctx_.info)[index].tensor_work / nsub_ : 0;
  // An IMAD runs on sm.lanes_imad of the FMA unit's lanes: it holds the unit longer.
  const std::uint32_t imad = arch_.sm.lanes_imad;
  if (m == std::size_t(Unit::Fma) && imad && imad < lanes_[m] && index < ctx_.info->size() &&
      (*ctx_.info)[index].int_mul)
    return std::uint64_t(arch_.sm.simd_width) * lanes_[m] / imad;
  return arch_.sm.simd_width;
}

// A unit takes an op in cycle `now` while fewer than its lanes' lane-cycles of this cycle are
// taken: a 16-lane unit takes a 32-thread op every other cycle, a 64-lane unit two per cycle.
bool Sm::unit_free(std::uint32_t k, Unit u, std::uint32_t index, std::uint64_t now) const {
  if (!unit_cost(u, index)) return true;
  const std::size_t m = pipe_map_[std::size_t(u)];
  return units_[shared_units_ ? 0 : k][m].until < (now + 1) * lanes_[m];
}

void Sm::unit_take(std::uint32_t k, Unit u, std::uint32_t index, std::uint32_t warp,
                   std::uint64_t now) {
  const std::uint64_t cost = unit_cost(u, index);
  if (!cost) return;
  const std::size_t m = pipe_map_[std::size_t(u)];
  const std::size_t set = shared_units_ ? 0 : k;
  UnitUse& use = units_[set][m];
  use.until = std::max(use.until, now * lanes_[m]) + cost;
  use.at = now;
  use.by = k;
  use.warp = warp;
  // Some unit of the set refuses ops up to this cycle (unit_free: until < (now + 1) * lanes).
  units_busy_[set] = std::max(units_busy_[set], use.until / lanes_[m]);
}

// The unit the warp's next issue goes to (the lock loop's micro-ops have none with lanes).
Unit Sm::unit_of_next(std::uint32_t w) const {
  const Warp& wp = warps_[w];
  if (wp.step || wp.next >= ctx_.info->size()) return Unit::FsmBranch;
  const InstInfo& in = (*ctx_.info)[wp.next];
  if (in.expand != Expand::None) {
    const Expansion& e = expansion_of(wp, in);
    if (wp.pre_step < e.n) return e.steps[wp.pre_step].unit;
  }
  return in.unit;
}

// Takes the warps whose unit cannot take them this cycle out of `pool` (math_pipe_throttle, or
// dispatch when another sub-core took a shared unit in this very cycle; a warp whose unit is busy
// with its own previous op is in throttled_own: `wait`, as Nsight Compute reports ptxas's stall
// count for a pipe's interval).
void Sm::throttle(std::uint32_t k, WarpMask& pool, std::uint64_t now) {
  Subcore& sc = sub_[k];
  sc.throttled = WarpMask{};
  sc.throttled_own = WarpMask{};
  const std::size_t set = shared_units_ ? 0 : k;
  if (units_busy_[set] <= now) return;  // every unit takes an op
  // The units that take no op this cycle (unit_free), as bits.
  std::uint32_t blocked = 0;
  for (const Unit u : {Unit::Alu, Unit::Fma, Unit::Fp64, Unit::Sfu, Unit::Tensor}) {
    const std::size_t m = std::size_t(u);
    if (lanes_[m] && units_[set][m].until >= (now + 1) * lanes_[m]) blocked |= 1u << m;
  }
  if (!blocked) return;
  sc.throttle = Stall::MathPipeThrottle;
  pool.each([&](std::uint32_t w) {
    const std::size_t m = pipe_map_[std::size_t(unit_of_next(w))];
    if (!((blocked >> m) & 1)) return;
    pool.clear(w);
    sc.throttled.set(w);
    const UnitUse& use = units_[set][m];
    if (use.warp == w)
      sc.throttled_own.set(w);
    else if (use.at == now && use.by != k)
      sc.throttle = Stall::Dispatch;
  });
}

// Takes the warps whose next instruction is a shared access out of `pool` while sub-core k's MIO
// queue has no room for its subwarps (Nsight's mio_throttle).
void Sm::mio_throttle(std::uint32_t k, WarpMask& pool) {
  if (mio_.room(k, nsub_)) return;
  Subcore& sc = sub_[k];
  pool.each([&](std::uint32_t w) {
    if (next_class(w) != NextClass::Shared) return;
    pool.clear(w);
    sc.mio_held.set(w);
  });
}

// The MIO scheduler's cycle: the oldest due queue head gets the port (the sub-cores' global ops
// take it at MEM0 before, in this cycle's pipeline advance).
void Sm::mio_tick(std::uint64_t now) {
  mio_.tick(
      now, ops_, [&](std::uint32_t id) { mem0_plan(id, now); },
      [&] { return port_take(nsc_, now); }, [&](bool hold) { port_hold(nsc_, hold); },
      [&](std::uint32_t id) { mem0_done(id, now); });
}

// A bank pass from sub-core `sub` in cycle `now`: the port serves one pass per cycle, and not
// another sub-core while one holds it for an access's back-to-back passes (port_hold).
bool Sm::port_take(std::uint32_t sub, std::uint64_t now) {
  if (nsc_ == 1) return true;
  if (port_cycle_ == now) return false;
  if (port_owner_ >= 0 && std::uint32_t(port_owner_) != sub) return false;
  port_cycle_ = now;
  return true;
}

NextClass Sm::next_class(std::uint32_t w) const {
  const Warp& wp = warps_[w];
  if (wp.step) return (wp.step == 1 || wp.step == 3) ? NextClass::Shared : NextClass::Other;
  if (wp.next >= ctx_.info->size()) return NextClass::Other;
  return (*ctx_.info)[wp.next].next_class();
}

// The bank conflict history cache's PC (004 §4.2): the instruction's index; the lock loop's Write
// (seed 000 Fig. 1's STSUL) is an instruction of its own, after the kernel's.
std::uint32_t Sm::history_key(std::uint32_t w) const {
  const Warp& wp = warps_[w];
  return wp.step == 3 ? wp.next + std::uint32_t(ctx_.kernel->code.size()) : wp.next;
}

const SmStats& Sm::stats() {
  if (ready_) {
    stats_.units.predictions_correct = stats_.units.predictions_low = 0;
    stats_.units.predictions_high = stats_.units.history_hits = stats_.units.history_misses = 0;
    ready_->count(stats_.units);
  }
  return stats_;
}

LaneMask Sm::sub_lanes(std::uint8_t sub) const {
  const int w = int(arch_.sm.simd_width);
  return lanes_mask((sub + 1) * w) & ~lanes_mask(sub * w);
}

std::uint32_t Sm::pc_line(std::uint32_t index) const {
  const auto& code = ctx_.kernel->code;
  return index < code.size() ? code[index].ptx_line : 0;
}

}  // namespace smemsim::timing

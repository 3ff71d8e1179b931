// Shared-memory race checking (issue 45, docs/exec.md "racecheck"), by vector clocks: each warp of
// a block has a clock per warp of the block (what it has seen of each), and a shadow entry per
// byte of shared memory keeps the last write and up to two reads by different warps, each with its
// warp, that warp's own clock at the access and the instruction. An access is ordered after an
// earlier one by warp u when the accessing warp's clock of u has reached the earlier access's.
//
// What orders warps:
// - a barrier: each warp that arrives (bar.sync, bar.arrive, bar.red; any id and thread count)
//   adds its clocks to the barrier's and steps its own; the warps the barrier releases take the
//   barrier's. A warp that exits counts as arrived at every later barrier of all live warps (no
//   thread count, as __syncthreads, which no longer waits for it). So a named barrier with a
//   thread count orders exactly the warps that take part in it.
// - synchronizing accesses: atomics (atom, red), volatile accesses and accesses with a memory order
//   (.relaxed, .acquire, .release, .acq_rel, .sc) to a word act as both acquire and release on it:
//   the flag protocols of cooperative groups' multi-warp tiles or of a hand-written spin wait.
//   They are never hazards with each other (two atomics on one word are not a race).
// An access to a byte that another warp wrote (read after write, write after write) or read (write
// after read) and that is not ordered after that access is a hazard, as compute-sanitizer's
// racecheck defines them. The lanes of a warp run together here, so hazards are looked for between
// warps only (a same-warp race under Volta's independent thread scheduling is not). mbarrier
// objects are synchronizing accesses (an arrival releases, a wait acquires: cuda::barrier's
// producer/consumer hand-offs), and GPU-LocalTM's transactional accesses (ordered by its conflict
// detection) are not checked.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec::detail {

struct Impl::RaceState {
  struct Access {
    std::uint32_t clock = 0;  // the warp's own clock at the access; 0: none
    std::uint32_t pc = 0;
    std::uint16_t warp = 0;
    bool sync = false;
  };
  struct Entry {
    std::uint32_t gen = 0;      // the CTA it belongs to (stale when not the slot's current one)
    Access write, read, read2;  // read2: a read by a warp other than read's, not ordered after it
  };
  // Per CTA slot.
  struct Slot {
    std::uint32_t gen = 0;
    std::vector<Entry> shadow;          // per byte
    std::vector<std::uint32_t> vc;      // warps x warps: row w is warp w's clocks
    std::vector<std::uint32_t> bars;    // kBarriers x warps: what each barrier's arrivals saw
    std::vector<std::uint32_t> exited;  // warps: the clocks of the warps that exited
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> sync;  // word -> clocks
  };
  std::vector<Slot> slots;
  std::uint32_t next_gen = 0;
  std::uint32_t warps = 0;
  using Key = std::tuple<RaceHazard::Kind, std::uint32_t, std::uint32_t>;
  struct Found {
    RaceHazard h;
    std::uint64_t last_block = ~std::uint64_t{0};
  };
  std::map<Key, Found> found;

  std::uint32_t* clocks(Slot& s, std::uint32_t w) { return s.vc.data() + std::size_t(w) * warps; }
  void join(std::uint32_t* into, const std::uint32_t* from) const {
    for (std::uint32_t i = 0; i < warps; ++i) into[i] = std::max(into[i], from[i]);
  }
};

void Impl::RaceStateDeleter::operator()(RaceState* r) const {
  delete r;
}

namespace {

Impl::RaceState::Slot& slot_of(Impl& im, const Cta& cta) {
  return im.race->slots[std::size_t(&cta - im.ctas.data())];
}

}  // namespace

void race_cta_start(Impl& im, Cta& cta) {
  Impl::RaceState& r = *im.race;
  const std::size_t i = std::size_t(&cta - im.ctas.data());
  if (r.slots.size() <= i) r.slots.resize(i + 1);
  Impl::RaceState::Slot& s = r.slots[i];
  r.warps = im.warps;
  if (++r.next_gen == 0) {  // wrapped: forget every shadow entry (generations restart at 1)
    for (Impl::RaceState::Slot& t : r.slots)
      std::fill(t.shadow.begin(), t.shadow.end(), Impl::RaceState::Entry{});
    r.next_gen = 1;
  }
  s.gen = r.next_gen;
  s.shadow.resize(cta.shared.size());
  s.vc.assign(std::size_t(im.warps) * im.warps, 0);
  for (std::uint32_t w = 0; w < im.warps; ++w) r.clocks(s, w)[w] = 1;
  s.bars.assign(std::size_t(kBarriers) * im.warps, 0);
  s.exited.assign(im.warps, 0);
  s.sync.clear();
}

void race_arrive(Impl& im, const Cta& cta, const Warp& w, std::uint8_t id) {
  Impl::RaceState& r = *im.race;
  Impl::RaceState::Slot& s = slot_of(im, cta);
  std::uint32_t* c = r.clocks(s, w.index);
  r.join(s.bars.data() + std::size_t(id) * r.warps, c);
  ++c[w.index];
}

void race_released(Impl& im, const Cta& cta, const Warp& w, std::uint8_t id) {
  Impl::RaceState& r = *im.race;
  Impl::RaceState::Slot& s = slot_of(im, cta);
  std::uint32_t* c = r.clocks(s, w.index);
  r.join(c, s.bars.data() + std::size_t(id) * r.warps);
  // A barrier of every live warp (no thread count: __syncthreads) excuses the warps that exited,
  // as if they had arrived; one with a count orders only the warps that arrive at it.
  if (cta.bars[id].expected == 0) r.join(c, s.exited.data());
}

void race_reset_barrier(Impl& im, const Cta& cta, std::uint8_t id) {
  Impl::RaceState& r = *im.race;
  Impl::RaceState::Slot& s = slot_of(im, cta);
  std::fill_n(s.bars.begin() + std::ptrdiff_t(id) * r.warps, r.warps, 0u);
}

void race_exit(Impl& im, const Cta& cta, const Warp& w) {
  Impl::RaceState& r = *im.race;
  Impl::RaceState::Slot& s = slot_of(im, cta);
  r.join(s.exited.data(), r.clocks(s, w.index));
}

void race_access(Impl& im, const Cta& cta, const Warp& w, std::uint32_t pc, Op op, LaneMask m,
                 std::uint32_t bytes) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  switch (ins.op) {
    case ptx::Opcode::Ld:
    case ptx::Opcode::St:
    case ptx::Opcode::Atom:
    case ptx::Opcode::Red:
      bytes = std::uint32_t(ptx::type_bytes(ins.type)) * std::max<std::uint32_t>(1, ins.vec);
      break;
    default:
      break;
  }
  if (w.tx.depth > 0 || w.tx.retrying) return;  // GPU-LocalTM orders a transaction's accesses
  Impl::RaceState& r = *im.race;
  Impl::RaceState::Slot& s = slot_of(im, cta);
  using Access = Impl::RaceState::Access;
  const auto me = static_cast<std::uint16_t>(w.index);
  std::uint32_t* vc = r.clocks(s, w.index);
  const bool atomic = op == Op::Atomic;
  const bool writes = op != Op::Load;
  // mbarrier objects are synchronization: an arrival releases, a wait acquires.
  const bool sync =
      atomic || ins.has(ptx::kVolatile) || ins.has(ptx::kStrong) || ins.op == ptx::Opcode::Mbarrier;
  // A synchronizing access acquires what was released on its words first.
  const auto words = [&](auto&& f) {
    each_lane(m, [&](int l) {
      const std::uint64_t a = im.addr[std::size_t(l)];
      for (std::uint64_t word = a >> 2; word <= (a + bytes - 1) >> 2; ++word) f(word);
    });
  };
  if (sync)
    words([&](std::uint64_t word) {
      if (const auto it = s.sync.find(word); it != s.sync.end()) r.join(vc, it->second.data());
    });
  // The hazards this warp access found (each counted once per access).
  Impl::RaceState::Key seen[4];
  int nseen = 0;
  std::uint64_t first_offset[4] = {};
  const auto hazard = [&](RaceHazard::Kind k, std::uint32_t first, std::uint64_t off) {
    const Impl::RaceState::Key key{k, first, pc};
    for (int i = 0; i < nseen; ++i)
      if (seen[i] == key) return;
    if (nseen == 4) return;
    first_offset[nseen] = off;
    seen[nseen++] = key;
  };
  // An earlier access this one is not ordered after (and that is not a synchronization as well).
  const auto unordered = [&](const Access& a) {
    return a.clock != 0 && a.warp != me && vc[a.warp] < a.clock && !(a.sync && sync);
  };
  const Access now{vc[me], pc, me, sync};
  each_lane(m, [&](int l) {
    const std::uint64_t base = im.addr[std::size_t(l)];
    const std::uint64_t end = std::min<std::uint64_t>(base + bytes, s.shadow.size());
    for (std::uint64_t b = base; b < end; ++b) {
      Impl::RaceState::Entry& e = s.shadow[b];
      if (e.gen != s.gen) e = {s.gen, {}, {}, {}};
      if (unordered(e.write))
        hazard(writes ? RaceHazard::Kind::WriteAfterWrite : RaceHazard::Kind::ReadAfterWrite,
               e.write.pc, b);
      if (writes) {
        if (unordered(e.read))
          hazard(RaceHazard::Kind::WriteAfterRead, e.read.pc, b);
        else if (unordered(e.read2))
          hazard(RaceHazard::Kind::WriteAfterRead, e.read2.pc, b);
        e.write = now;
      }
      if (!writes || atomic) {  // an atomic reads too
        if (e.read.clock == 0 || e.read.warp == me || !unordered(e.read))
          e.read = now;
        else
          e.read2 = now;
      }
    }
  });
  // And releases what it has seen on its words, then steps its own clock.
  if (sync) {
    words([&](std::uint64_t word) {
      std::vector<std::uint32_t>& v = s.sync[word];
      v.resize(r.warps, 0);
      r.join(v.data(), vc);
    });
    ++vc[me];
  }
  for (int i = 0; i < nseen; ++i) {
    Impl::RaceState::Found& f = r.found[seen[i]];
    if (f.h.count == 0) {
      f.h.kind = std::get<0>(seen[i]);
      f.h.first = std::get<1>(seen[i]);
      f.h.second = pc;
      f.h.first_block = cta.linear;
      for (const SharedLayout::Array& a : im.shared.arrays)
        if (first_offset[i] >= a.offset && first_offset[i] < std::uint64_t(a.offset) + a.bytes)
          f.h.array = ptx::demangle(a.name);  // race_raw::slot, not _ZZ8race_rawE4slot
    }
    ++f.h.count;
    if (f.last_block != cta.linear) {
      f.last_block = cta.linear;
      ++f.h.blocks;
    }
  }
}

}  // namespace smemsim::exec::detail

namespace smemsim::exec {

using detail::Impl;

void Executor::set_racecheck(bool on) {
  Impl& im = *impl_;
  if (!on) {
    im.race.reset();
    return;
  }
  // Distributed shared memory (issue 46): an access to a partner's tile would be checked against
  // the accessing CTA's own shadow; not followed yet.
  if (im.cluster.count() > 1)
    throw InputError(located(im.module.filename, im.kernel.ptx_line,
                             fmt::format("--racecheck does not follow distributed shared memory "
                                         "yet: kernel '{}' runs in clusters of {} CTAs (issue 46)",
                                         ptx::demangle(im.kernel.name), im.cluster.count())));
  if (!im.race) im.race.reset(new Impl::RaceState);
}

std::vector<RaceHazard> Executor::race_hazards() const {
  std::vector<RaceHazard> v;
  if (impl_->race)
    for (const auto& [key, f] : impl_->race->found) v.push_back(f.h);
  return v;
}

}  // namespace smemsim::exec

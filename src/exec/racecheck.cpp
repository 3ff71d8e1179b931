// Shared-memory race checking (issue 45, docs/exec.md "racecheck"): a shadow entry per byte of each
// CTA slot's shared memory remembers the last write and up to two reads from different warps, each
// with the warp, the instruction and the phase it was made in. A CTA's phase is new when it starts
// and whenever one of its barriers opens, so two accesses in one phase have no barrier between
// them. An access of one warp to a byte another warp wrote (read after write, write after write) or
// read (write after read) in the same phase is a hazard, as compute-sanitizer racecheck defines
// them, except between two atomics. Hazards are found between warps only: the lanes of a warp run
// together (a same-warp race under Volta's independent thread scheduling is not looked for).
//
// Barriers: any barrier that opens (bar.sync/barrier.sync of any id and count, bar.red, a
// bar.arrive completing one) starts a new phase for the whole CTA, so a race between warps that a
// partial named barrier does not order can be missed (never reported falsely). mbarrier objects are
// synchronization, not data: their accesses are not checked, nor are those a transaction of
// GPU-LocalTM makes (its conflict detection orders them).
#include <algorithm>
#include <map>
#include <tuple>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {

struct Impl::RaceState {
  struct Access {
    std::uint32_t phase = 0;  // 0: none
    std::uint32_t pc = 0;
    std::uint16_t warp = 0;
    bool atomic = false;
  };
  struct Entry {
    Access write, read, read2;  // read2: a read by a warp other than read's
  };
  std::vector<std::vector<Entry>> shadow;  // per CTA slot, per byte
  std::uint32_t next_phase = 0;
  using Key = std::tuple<RaceHazard::Kind, std::uint32_t, std::uint32_t>;
  struct Found {
    RaceHazard h;
    std::uint64_t last_block = ~std::uint64_t{0};
  };
  std::map<Key, Found> found;

  std::uint32_t new_phase() {
    if (next_phase == ~std::uint32_t{0}) {  // wrapped: forget everything (phases restart at 1)
      for (auto& s : shadow) std::fill(s.begin(), s.end(), Entry{});
      next_phase = 0;
    }
    return ++next_phase;
  }
};

void Impl::RaceStateDeleter::operator()(RaceState* r) const {
  delete r;
}

namespace {

std::size_t slot_of(const Impl& im, const Cta& cta) {
  return std::size_t(&cta - im.ctas.data());
}

}  // namespace

void race_cta_start(Impl& im, Cta& cta) {
  Impl::RaceState& r = *im.race;
  const std::size_t slot = slot_of(im, cta);
  if (r.shadow.size() <= slot) r.shadow.resize(slot + 1);
  r.shadow[slot].resize(cta.shared.size());
  cta.race_phase = r.new_phase();
}

void race_barrier(Impl& im, Cta& cta) {
  cta.race_phase = im.race->new_phase();
}

void race_access(Impl& im, const Cta& cta, const Warp& w, std::uint32_t pc, Op op, LaneMask m,
                 std::uint32_t bytes) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  switch (ins.op) {
    case ptx::Opcode::Mbarrier:
      return;
    case ptx::Opcode::Ld:
    case ptx::Opcode::St:
    case ptx::Opcode::Atom:
    case ptx::Opcode::Red:
      bytes = std::uint32_t(im.xcode[pc].bytes) * std::max<std::uint32_t>(1, ins.vec);
      break;
    default:
      break;
  }
  // GPU-LocalTM (seed 003): a transaction's accesses are ordered by the transactional memory.
  if (w.tx.depth > 0 || w.tx.retrying) return;
  Impl::RaceState& r = *im.race;
  std::vector<Impl::RaceState::Entry>& shadow = r.shadow[slot_of(im, cta)];
  const std::uint32_t phase = cta.race_phase;
  const auto me = static_cast<std::uint16_t>(w.index);
  const bool atomic = op == Op::Atomic;
  const bool writes = op != Op::Load;
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
  const auto conflicts = [&](const Impl::RaceState::Access& a) {
    return a.phase == phase && a.warp != me && !(a.atomic && atomic);
  };
  each_lane(m, [&](int l) {
    const std::uint64_t base = im.addr[std::size_t(l)];
    const std::uint64_t end = std::min<std::uint64_t>(base + bytes, shadow.size());
    for (std::uint64_t b = base; b < end; ++b) {
      Impl::RaceState::Entry& e = shadow[b];
      if (conflicts(e.write))
        hazard(writes ? RaceHazard::Kind::WriteAfterWrite : RaceHazard::Kind::ReadAfterWrite,
               e.write.pc, b);
      if (writes) {
        if (conflicts(e.read))
          hazard(RaceHazard::Kind::WriteAfterRead, e.read.pc, b);
        else if (conflicts(e.read2))
          hazard(RaceHazard::Kind::WriteAfterRead, e.read2.pc, b);
        e.write = {phase, pc, me, atomic};
      }
      if (!writes || atomic) {  // an atomic reads too
        if (e.read.phase != phase || e.read.warp == me)
          e.read = {phase, pc, me, atomic};
        else
          e.read2 = {phase, pc, me, atomic};
      }
    }
  });
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
  if (!im.race) im.race.reset(new Impl::RaceState);
}

std::vector<RaceHazard> Executor::race_hazards() const {
  std::vector<RaceHazard> v;
  if (impl_->race)
    for (const auto& [key, f] : impl_->race->found) v.push_back(f.h);
  return v;
}

}  // namespace smemsim::exec

// Warp-level instructions (PTX ISA 8.x: shfl.sync, vote.sync, match.sync, redux.sync, activemask,
// bar.warp.sync; issue 15). They read other lanes' registers, so they run here on the whole warp
// rather than lane by lane in alu.cpp. Every result is computed into a temporary before any
// destination is written (a destination may be a source).
//
// Member masks. The executor runs divergent paths one after the other (a SIMT reconvergence stack,
// docs/exec.md), so a `.sync` instruction cannot wait for member lanes that are on another path.
// It therefore requires what CUDA requires of correct code: every lane that executes it is in the
// member mask, and every live member lane executes it together. Anything else is an error naming
// the lanes, not a guess at what the hardware would do.
#include <fmt/format.h>

#include <array>
#include <bit>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Opcode;
using ptx::WarpMode;

constexpr std::uint64_t kLow32 = 0xffffffffu;

// The member masks of a .sync instruction, checked as above, as the groups of executing lanes that
// take part together: one group when every lane gives the same mask; several when the lanes give
// disjoint masks that each lane's group agrees on (cooperative groups' tiled_partition<16>: lanes
// 0-15 give 0x0000ffff, lanes 16-31 0xffff0000). Returns the groups' lane sets.
std::array<LaneMask, kMaxLanes> member_groups(Impl& im, Cta& cta, Warp& w, std::uint32_t pc,
                                              LaneMask m, int& count) {
  std::array<LaneMask, kMaxLanes> groups{};
  count = 0;
  const ptx::Instruction& ins = im.kernel.code[pc];
  if (!ins.has(ptx::kSync)) {  // shfl / vote without .sync: the executing lanes
    groups[count++] = m;
    return groups;
  }
  const std::size_t at = ins.op == Opcode::Shfl ? 4 : ins.op == Opcode::BarWarp ? 0 : 2;
  const std::uint64_t* mask = im.row(w, im.xcode[pc].row[at]);
  const std::string name = ptx::to_string(im.kernel, ins);
  for (LaneMask left = m; left;) {
    const int first = std::countr_zero(left);
    const LaneMask member = mask[first] & kLow32;
    if (!((member >> first) & 1))
      im.fail(cta, w, first, pc,
              fmt::format("'{}': lane {} executes it but is not in the member mask 0x{:08x}", name,
                          first, member));
    each_lane(member & m, [&](int l) {
      if ((mask[l] & kLow32) != member)
        im.fail(cta, w, l, pc,
                fmt::format("'{}': the member mask differs between lanes {} (0x{:08x}) and {} "
                            "(0x{:08x}), which it names together",
                            name, first, member, l, mask[l] & kLow32));
    });
    if (const LaneMask missing = member & w.live & ~m)
      im.fail(cta, w, first, pc,
              fmt::format("'{}': member lanes 0x{:08x} are live but do not execute it together "
                          "with lanes 0x{:08x} (divergent paths run one after the other here; a "
                          "member lane that is predicated off or on another path never arrives)",
                          name, missing, m));
    groups[count++] = member & m;
    left &= ~member;
  }
  return groups;
}

void shuffle(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  const std::uint64_t* a = im.row(w, x.row[1]);
  const std::uint64_t* b = im.row(w, x.row[2]);
  const std::uint64_t* c = im.row(w, x.row[3]);
  std::array<std::uint64_t, kMaxLanes> value{}, ok{};
  each_lane(m, [&](int l) {
    // PTX ISA, shfl.sync: c packs the clamp value (bits 0-4) and the segment mask (bits 8-12).
    const int bval = int(b[l] & 31), cval = int(c[l] & 31), seg = int((c[l] >> 8) & 31);
    const int max_lane = (l & seg) | (cval & ~seg), min_lane = l & seg;
    int j = l;
    bool p = false;
    switch (ins.warp) {
      case WarpMode::Up:
        j = l - bval;
        p = j >= max_lane;
        break;
      case WarpMode::Down:
        j = l + bval;
        p = j <= max_lane;
        break;
      case WarpMode::Bfly:
        j = l ^ bval;
        p = j <= max_lane;
        break;
      default:  // Idx
        j = min_lane | (bval & ~seg);
        p = j <= max_lane;
        break;
    }
    if (!p) j = l;  // out of the segment: the lane keeps its own value
    value[std::size_t(l)] = a[j] & kLow32;
    ok[std::size_t(l)] = p;
  });
  std::uint64_t* d = im.row(w, x.row[0]);
  each_lane(m, [&](int l) { d[l] = value[std::size_t(l)]; });
  if (ins.has(ptx::kPredOut)) {
    std::uint64_t* q = im.row(w, x.row[5]);
    each_lane(m, [&](int l) { q[l] = ok[std::size_t(l)]; });
  }
}

void vote(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  const std::uint64_t* p = im.row(w, x.row[1]);
  LaneMask yes = 0;
  each_lane(m, [&](int l) {
    if ((p[l] ^ x.negated(1)) & 1) yes |= LaneMask{1} << l;
  });
  std::uint64_t r = 0;
  switch (ins.warp) {
    case WarpMode::All:
      r = yes == m;
      break;
    case WarpMode::Any:
      r = yes != 0;
      break;
    case WarpMode::Uni:
      r = yes == 0 || yes == m;
      break;
    default:  // Ballot: bit l for lane l
      r = yes & kLow32;
      break;
  }
  std::uint64_t* d = im.row(w, x.row[0]);
  each_lane(m, [&](int l) { d[l] = r; });
}

void match(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  const std::uint64_t width = ins.type == ptx::Type::B64 ? ~0ull : kLow32;
  const std::uint64_t* a = im.row(w, x.row[1]);
  std::array<std::uint64_t, kMaxLanes> r{};
  bool all_equal = true;
  const std::uint64_t first = a[std::countr_zero(m)] & width;
  each_lane(m, [&](int l) { all_equal &= (a[l] & width) == first; });
  each_lane(m, [&](int l) {
    if (ins.warp == WarpMode::All) {
      r[std::size_t(l)] = all_equal ? m & kLow32 : 0;
      return;
    }
    LaneMask same = 0;  // .any: the lanes holding this lane's value
    each_lane(m, [&](int k) {
      if ((a[k] & width) == (a[l] & width)) same |= LaneMask{1} << k;
    });
    r[std::size_t(l)] = same & kLow32;
  });
  std::uint64_t* d = im.row(w, x.row[0]);
  each_lane(m, [&](int l) { d[l] = r[std::size_t(l)]; });
  if (ins.has(ptx::kPredOut)) {
    std::uint64_t* q = im.row(w, x.row[5]);
    each_lane(m, [&](int l) { q[l] = all_equal; });
  }
}

void reduce(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  const std::uint64_t* a = im.row(w, x.row[1]);
  const bool sgn = ins.type == ptx::Type::S32;
  const int first = std::countr_zero(m);
  std::uint32_t r = std::uint32_t(a[first]);
  each_lane(m & (m - 1), [&](int l) {
    const std::uint32_t v = std::uint32_t(a[l]);
    switch (ins.atom) {
      case ptx::AtomOp::Add:
        r += v;
        break;
      case ptx::AtomOp::Min:
        r = sgn ? std::uint32_t(std::min(std::int32_t(r), std::int32_t(v))) : std::min(r, v);
        break;
      case ptx::AtomOp::Max:
        r = sgn ? std::uint32_t(std::max(std::int32_t(r), std::int32_t(v))) : std::max(r, v);
        break;
      case ptx::AtomOp::And:
        r &= v;
        break;
      case ptx::AtomOp::Or:
        r |= v;
        break;
      default:  // Xor
        r ^= v;
        break;
    }
  });
  std::uint64_t* d = im.row(w, x.row[0]);
  each_lane(m, [&](int l) { d[l] = r; });
}

}  // namespace

void exec_warp(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  if (ins.op == Opcode::Activemask) {  // the lanes executing it
    std::uint64_t* d = im.row(w, x.row[0]);
    each_lane(m, [&](int l) { d[l] = m & kLow32; });
    return;
  }
  int count = 0;
  const std::array<LaneMask, kMaxLanes> groups = member_groups(im, cta, w, pc, m, count);
  // Each group on its own (its lanes read only each other: a shuffle's source outside the group
  // is the program's error, as on the GPU).
  for (int g = 0; g < count; ++g) {
    switch (ins.op) {
      case Opcode::Shfl:
        shuffle(im, w, ins, x, groups[std::size_t(g)]);
        break;
      case Opcode::Vote:
        vote(im, w, ins, x, groups[std::size_t(g)]);
        break;
      case Opcode::Match:
        match(im, w, ins, x, groups[std::size_t(g)]);
        break;
      case Opcode::Redux:
        reduce(im, w, ins, x, groups[std::size_t(g)]);
        break;
      default:  // BarWarp: the member lanes are here together (checked); nothing else to do
        break;
    }
  }
}

}  // namespace smemsim::exec::detail

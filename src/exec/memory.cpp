// Memory instructions: ld, st, atom, red and cvta over the state spaces (docs/exec.md "Memory").
// Every access is bounds- and alignment-checked per lane; a failure is an InputError naming the
// PTX line, the CUDA line, the thread and the block. Shared-memory accesses are reported to the
// consumer as WarpAccesses (one per 4-byte word) before the instruction takes effect.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::AtomOp;
using ptx::Opcode;
using ptx::Space;
using ptx::Type;

std::string_view access_name(Opcode op) {
  switch (op) {
    case Opcode::Ld:
    case Opcode::Ldmatrix:
    case Opcode::WmmaLoad:
      return "load";
    case Opcode::St:
    case Opcode::Stmatrix:
    case Opcode::WmmaStore:
      return "store";
    case Opcode::CpAsync:
    case Opcode::CpBulk:
      return "copy";
    case Opcode::Wgmma:
      return "matrix read (through the wgmma descriptor)";
    default:
      return "atomic";
  }
}

// Resolves lane `l`'s address to host memory, or fails. `space` is the instruction's space;
// `shared_lane` is set when the access lands in shared memory.
struct Resolver {
  Impl& im;
  Cta& cta;
  Warp& w;
  std::uint32_t pc;
  const ptx::Instruction& ins;
  std::uint64_t total;  // bytes per lane
  std::uint64_t align;  // required alignment
  // With deferred global writes (Impl::defer_global): an atomic's global lanes are marked here and
  // keep their real address; a store's lanes get a staging address instead (DeferredGlobal).
  LaneMask* atomic_lanes = nullptr;

  [[noreturn]] void oob(int l, std::string_view space, std::uint64_t addr, std::uint64_t size,
                        std::string_view unit) const {
    im.fail(cta, w, l, pc,
            fmt::format("out-of-bounds {} {} of {} byte{} at {} {} ({} has {} bytes)", space,
                        access_name(ins.op), total, total == 1 ? "" : "s", unit, addr,
                        space == "shared" ? "the block's shared memory" : space, size));
  }
  [[noreturn]] void misaligned(int l, std::string_view space, std::uint64_t addr) const {
    im.fail(cta, w, l, pc,
            fmt::format("misaligned {} {} of {} bytes at address {:#x}", space, access_name(ins.op),
                        total, addr));
  }

  // off mod align (a mask where align is a power of two, as every load's and store's is: a
  // division a lane was a large part of a shared access's cost).
  std::uint64_t off_align(std::uint64_t off) const {
    return (align & (align - 1)) == 0 ? off & (align - 1) : off % align;
  }
  std::uint8_t* shared(int l, std::uint64_t& off) const {
    if (off >> kClusterRankShift) [[unlikely]]
      return peer(l, off);
    if (const SharedRemap& r = im.remap; r.on()) [[unlikely]]
      off = remap(l, r, off);
    if (off + total > cta.shared.size() || off + total < off)
      oob(l, "shared", off, cta.shared.size(), "byte offset");
    if (off_align(off)) misaligned(l, "shared", off);
    return cta.shared.data() + off;
  }
  // Another CTA of the cluster (issue 46): the rank in the address's high bits (mapa).
  [[gnu::noinline, gnu::cold]] std::uint8_t* peer(int l, std::uint64_t& off) const {
    const std::uint64_t rank = (off >> kClusterRankShift) - 1;
    Cta* p = rank < im.cluster.count() ? cluster_peer(cta, std::uint32_t(rank)) : nullptr;
    if (!p)
      im.fail(cta, w, l, pc,
              rank < im.cluster.count()
                  ? fmt::format("shared address {:#x} names CTA rank {} of its cluster, which has "
                                "exited (a CTA's shared memory is gone when it exits: "
                                "cluster.sync() before exiting keeps it for its partners)",
                                off, rank)
                  : fmt::format("shared address {:#x} names CTA rank {} of a cluster of {}", off,
                                rank, im.cluster.count()));
    const std::uint64_t o = off & kClusterOffsetMask;
    if (o + total > p->shared.size())
      oob(l, "distributed shared", o, p->shared.size(), "byte offset");
    if (off_align(o)) misaligned(l, "shared", o);
    off = o;
    if (p != &cta) {  // over the SM-to-SM network (the cycle model times it: IssueResult)
      im.dsm_lanes |= LaneMask{1} << l;
      im.dsm_seg[std::size_t(l)] = rank << 32 | o >> 5;
    }
    return p->shared.data() + o;
  }
  // `smemsim fix`'s relayout (SharedRemap): an access must stay inside one grain of the array.
  // Out of line and cold, so that resolve() stays small enough to inline where no remap is set.
  [[gnu::noinline, gnu::cold]] std::uint64_t remap(int l, const SharedRemap& r,
                                                   std::uint64_t off) const {
    if (r.contains(off) && (off - r.base) % r.grain + total > r.grain)
      im.fail(cta, w, l, pc,
              fmt::format("a shared {} of {} bytes at byte offset {} spans two {}-byte grains of "
                          "the remapped array",
                          access_name(ins.op), total, off, r.grain));
    return r.map(off);
  }
  std::uint8_t* local(int l, std::uint64_t off) const {
    if (off + total > im.local_bytes || off + total < off)
      oob(l, "local", off, im.local_bytes, "byte offset");
    if (off_align(off)) misaligned(l, "local", off);
    const std::uint64_t t = std::uint64_t(w.index) * im.lanes + std::uint64_t(l);
    return cta.local.data() + t * im.local_bytes + off;
  }
  std::uint8_t* param(int l, std::uint64_t off) const {
    if (off + total > im.params.size() || off + total < off)
      oob(l, "param", off, im.params.size(), "byte offset");
    return im.params.data() + off;
  }
  // Sector counting (Impl::count_sectors): the lane's global address; a local address becomes a
  // per-thread key in the local window (each thread's local memory is its own).
  void note_global(int l, std::uint64_t addr) const {
    im.gaddr[std::size_t(l)] = addr;
    im.noted |= LaneMask{1} << l;
  }
  void note_local(int l, std::uint64_t off) const {
    const std::uint64_t t = std::uint64_t(w.index) * im.lanes + std::uint64_t(l);
    im.gaddr[std::size_t(l)] = kLocalBase + t * im.local_bytes + off;
    im.noted |= LaneMask{1} << l;
  }
  // The message for a global address outside its buffer (out of line, off the hot path). An
  // address before buffer k + 1's start (0-based k) is named by that buffer when its start is
  // nearer than the end of the one below it: an index of -1 of `b`, not byte 2^40 - 4 of `a`.
  [[gnu::noinline, gnu::cold]] std::string global_oob(std::uint64_t addr) const {
    const std::uint64_t region = addr >> kRegionShift, off = addr & kOffsetMask;
    constexpr std::uint64_t kHalf = std::uint64_t{1} << (kRegionShift - 1);
    auto before = [&](std::uint64_t k) {
      const Region& next = im.regions[k];
      const std::uint64_t gap = ((k + 1) << kRegionShift) - addr;
      return fmt::format(
          "out-of-bounds global {} of {} byte{} at {} byte{} before buffer '{}' "
          "({} bytes)",
          access_name(ins.op), total, total == 1 ? "" : "s", gap, gap == 1 ? "" : "s", next.name,
          next.size);
    };
    if (region == 0 || region > im.regions.size()) {
      if (region == 0 && !im.regions.empty() && (std::uint64_t{1} << kRegionShift) - addr <= kHalf)
        return before(0);
      return fmt::format("global {} of {} bytes at address {:#x}, which is in no buffer",
                         access_name(ins.op), total, addr);
    }
    const Region& r = im.regions[region - 1];
    if (region < im.regions.size() && off >= r.size && off >= kHalf) return before(region);
    return fmt::format(
        "out-of-bounds global {} of {} byte{} at byte offset {} of buffer '{}' "
        "({} bytes)",
        access_name(ins.op), total, total == 1 ? "" : "s", off, r.name, r.size);
  }
  std::uint8_t* global(int l, std::uint64_t addr, bool write) const {
    const std::uint64_t region = addr >> kRegionShift;
    if (region == 0 || region > im.regions.size()) im.fail(cta, w, l, pc, global_oob(addr));
    const Region& r = im.regions[region - 1];
    const std::uint64_t off = addr & kOffsetMask;
    if (off + total > r.size) im.fail(cta, w, l, pc, global_oob(addr));
    if (off_align(off)) misaligned(l, "global", addr);
    if (write && !r.writable)
      im.fail(cta, w, l, pc, fmt::format("write to the read-only variable '{}'", r.name));
    if (write && im.defer_global) [[unlikely]] {
      if (!atomic_lanes) return im.deferred.stage(r.data + off, total);
      *atomic_lanes |= LaneMask{1} << l;
    }
    return r.data + off;
  }
};

// Host pointer for lane l; marks shared lanes in `shared_mask` (their offset is in im.addr[l]).
// Track: note global/local addresses for sector counting (a template parameter, so that the
// functional run without a timing model pays nothing per lane).
template <bool Track>
[[gnu::always_inline]] inline std::uint8_t* resolve(const Resolver& rs, Space space, int l,
                                                    std::uint64_t a, bool write,
                                                    LaneMask& shared_mask) {
  switch (space) {
    case Space::Shared: {
      shared_mask |= LaneMask{1} << l;
      std::uint8_t* p = rs.shared(l, a);
      rs.im.addr[std::size_t(l)] = a;
      return p;
    }
    case Space::Local:
      if constexpr (Track) rs.note_local(l, a);
      return rs.local(l, a);
    case Space::Param:
      return rs.param(l, a);
    case Space::Global:
      if constexpr (Track) rs.note_global(l, a);
      return rs.global(l, a, write);
    case Space::Const:
      return rs.global(l, a, write);
    default: {  // generic: decode the window
      const std::uint64_t region = a >> kRegionShift;
      if (region == kSharedRegion) {
        shared_mask |= LaneMask{1} << l;
        std::uint64_t off = a & kOffsetMask;
        std::uint8_t* p = rs.shared(l, off);
        rs.im.addr[std::size_t(l)] = off;
        return p;
      }
      if (region == kLocalRegion) {
        if constexpr (Track) rs.note_local(l, a & kOffsetMask);
        return rs.local(l, a & kOffsetMask);
      }
      if (region == kParamRegion) return rs.param(l, a & kOffsetMask);
      if constexpr (Track) rs.note_global(l, a);
      return rs.global(l, a, write);
    }
  }
}

}  // namespace

// Hands the shared part of an access of `words` 4-byte words per lane to the consumer.
//
// memory.wide_access = "phases" (the default; issue 15): the hardware serves a wide access in
// phases, each a group of lanes whose bank units fill one transaction (CUDA C++ Programming Guide,
// "Shared Memory" for compute capabilities 2.x-3.x: 64-bit accesses by half-warps, 128-bit by
// quarter-warps on 4-byte banks; 8-byte banks hold a 64-bit word in one unit, so a phase takes
// twice the lanes). Each phase is one WarpAccess whose slots are the bank units its lanes touch,
// slot (lane - first) * u + k holding unit k of the lane, so the analyzer's degree is the phase's
// passes. A phase with no active lane makes no access.
//
// "words": word k of every lane as one WarpAccess, `words` of them (smemsim before issue 15, and
// what a per-word trace shows); also the instructions Executor::set_word_rows names (the members
// of a timing model's merged wide access).
void emit_shared(Impl& im, const Warp& w, const Cta& cta, std::uint32_t pc, Op op,
                 LaneMask lanes_mask, int words) {
  if (!lanes_mask) return;
  if (im.race) [[unlikely]]
    race_access(im, cta, w, pc, op, lanes_mask, 4u * std::uint32_t(words));
  WarpAccess& wa = im.wa;
  wa.op = op;
  wa.pc = im.kernel.code[pc].ptx_line;
  wa.warp = static_cast<std::uint32_t>(cta.linear * im.warps + w.index);
  const int wpu = int(im.words_per_unit);
  const int units = std::max(1, words / wpu);  // bank units per lane
  const bool rows = im.wide_by_words || (pc < im.word_rows.size() && im.word_rows[pc]);
  if (words == 1 || rows || (units == 1 && words <= wpu)) {
    if (words > 1 && !rows) words = 1;  // the whole access is one bank unit
    im.stats.shared_accesses += static_cast<std::uint64_t>(words);
    if (!im.consumer) return;
    wa.lanes = static_cast<std::uint8_t>(im.lanes);
    wa.active = lanes_mask;
    for (int k = 0; k < words; ++k) {
      each_lane(lanes_mask, [&](int l) {
        wa.addr[std::size_t(l)] = static_cast<WordAddr>((im.addr[std::size_t(l)] + 4u * k) >> 2);
      });
      if (!cta.tma_tiles.empty() && op == Op::Load) [[unlikely]]
        tma_reads_whatif(im, cta, wa);
      im.consumer->on_access(wa);
    }
    return;
  }
  int per_phase = std::max(1, std::min(int(im.lanes), int(im.transaction_lanes) / units));
  // The return path packs two lanes' registers when lanes pair up (memory.wide_access = pairs):
  // a phase takes twice the lanes, and of each pair that agrees only the lower is listed (the
  // other is the same bank units), so a phase still fills one transaction's slots.
  const int pair = im.wide_pairs && op == Op::Load
                       ? lanes_pair(lanes_mask,
                                    [&](int a, int b) {
                                      return im.addr[std::size_t(a)] == im.addr[std::size_t(b)];
                                    })
                       : 0;
  if (pair) per_phase = std::min(int(im.lanes), 2 * per_phase);
  for (int first = 0; first < int(im.lanes); first += per_phase) {
    const LaneMask group = lanes_mask & (smemsim::lanes_mask(per_phase) << first);
    if (!group) continue;
    ++im.stats.shared_accesses;
    if (!im.consumer) continue;
    wa.active = 0;
    int listed = 0;
    each_lane(group, [&](int l) {
      if (pair && (l & pair) && ((group >> (l ^ pair)) & 1u)) return;  // its partner's units
      const int at = pair ? listed++ : l - first;
      for (int k = 0; k < units; ++k) {
        const int slot = at * units + k;
        wa.addr[std::size_t(slot)] =
            static_cast<WordAddr>((im.addr[std::size_t(l)] + 4u * std::uint32_t(k * wpu)) >> 2);
        wa.active |= LaneMask{1} << slot;
      }
    });
    wa.lanes = static_cast<std::uint8_t>((pair ? per_phase / 2 : per_phase) * units);
    if (!cta.tma_tiles.empty() && op == Op::Load) [[unlikely]]
      tma_reads_whatif(im, cta, wa);
    im.consumer->on_access(wa);
  }
}

std::uint8_t* lane_pointer(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int l, ptx::Space space,
                           std::uint64_t a, std::uint64_t bytes, bool write, LaneMask& shared,
                           std::uint64_t align) {
  const Resolver rs{im, cta, w, pc, im.kernel.code[pc], bytes, align ? align : bytes};
  return im.count_sectors ? resolve<true>(rs, space, l, a, write, shared)
                          : resolve<false>(rs, space, l, a, write, shared);
}

namespace {

// GPU-LocalTM: inside a transaction every shared access is transactional (003 §3). Returns the
// lanes that conflicted: they are aborted and do not take effect.
LaneMask tx_check(Impl& im, Cta& cta, Warp& w, LaneMask shared_mask, int words) {
  if (!im.has_tx || w.tx.depth == 0 || !shared_mask) return 0;
  std::array<std::uint32_t, kMaxLanes> word{};
  each_lane(shared_mask,
            [&](int l) { word[std::size_t(l)] = std::uint32_t(im.addr[std::size_t(l)] >> 2); });
  cta.tm->set_site(&im.tm_sites[w.tx_begin]);
  const tm::CtaTm::AccessResult r =
      cta.tm->access(im.first_thread(w), shared_mask, word.data(), words, cta.shared.data());
  im.tm_cycles += r.cycles;
  im.tm_conflicted |= r.conflicted;
  return r.conflicted;
}

// Loaded bytes -> register value (sign-extended for signed types, then cut to the register).
inline std::uint64_t extend(std::uint64_t raw, int bytes, bool sgn) {
  return sgn ? static_cast<std::uint64_t>(sext(raw, bytes * 8)) : raw;
}

// Returns the old value; `changed` is set when the word changed (a failed CAS writes nothing).
std::uint64_t atomic_apply(AtomOp op, Type t, std::uint8_t* p, std::uint64_t b, std::uint64_t c,
                           bool& changed) {
  const int w = ptx::type_bits(t);
  const std::uint64_t mask = width_mask(w);
  std::uint64_t old = 0;
  std::memcpy(&old, p, std::size_t(w / 8));
  std::uint64_t nv = old;
  const bool sgn = ptx::is_signed(t) && !ptx::is_float(t);
  switch (op) {
    case AtomOp::Add:
      if (t == Type::F32)
        nv = std::bit_cast<std::uint32_t>(std::bit_cast<float>(std::uint32_t(old)) +
                                          std::bit_cast<float>(std::uint32_t(b)));
      else if (t == Type::F64)
        nv = std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + std::bit_cast<double>(b));
      else
        nv = old + b;
      break;
    case AtomOp::Min:
    case AtomOp::Max: {
      bool less;
      if (t == Type::F32)
        less = std::bit_cast<float>(std::uint32_t(b)) < std::bit_cast<float>(std::uint32_t(old));
      else if (t == Type::F64)
        less = std::bit_cast<double>(b) < std::bit_cast<double>(old);
      else if (sgn)
        less = sext(b, w) < sext(old, w);
      else
        less = (b & mask) < old;
      const bool greater = !less && (b & mask) != old;
      if ((op == AtomOp::Min && less) || (op == AtomOp::Max && greater)) nv = b;
      break;
    }
    case AtomOp::Inc:
      nv = old >= (b & mask) ? 0 : old + 1;
      break;
    case AtomOp::Dec:
      nv = (old == 0 || old > (b & mask)) ? b : old - 1;
      break;
    case AtomOp::And:
      nv = old & b;
      break;
    case AtomOp::Or:
      nv = old | b;
      break;
    case AtomOp::Xor:
      nv = old ^ b;
      break;
    case AtomOp::Exch:
      nv = b;
      break;
    case AtomOp::Cas:
      nv = old == (b & mask) ? c : old;
      break;
    default:
      break;
  }
  nv &= mask;
  std::memcpy(p, &nv, std::size_t(w / 8));
  changed |= nv != old;
  return old;
}

}  // namespace

void reduce_into(ptx::AtomOp op, ptx::Type t, std::uint8_t* p, std::uint64_t v) {
  bool changed = false;
  (void)atomic_apply(op, t, p, v, 0, changed);
}

// Distinct 32-byte sectors of the lanes in `m` whose gaddr was noted, each lane covering
// [gaddr, gaddr + bytes). Resets gaddr of those lanes.
std::uint16_t count_sectors(Impl& im, LaneMask m, std::uint64_t bytes) {
  im.wide_active = false;
  // Only lanes that noted an address can have one (a shared access has none: issue 49, a walk
  // over 32 lanes and a sort of nothing at every shared access).
  m &= im.noted;
  im.noted &= ~m;
  im.nsectors = 0;
  if (!m) return 0;
  std::array<std::uint64_t, 2 * kMaxLanes>& sec = im.sectors;
  int n = 0;
  each_lane(m, [&](int l) {
    std::uint64_t& a = im.gaddr[std::size_t(l)];
    if (a == kNoSector) return;
    const std::uint64_t first = a >> 5, last = (a + bytes - 1) >> 5;
    for (std::uint64_t s = first; s <= last && n < int(sec.size()); ++s) sec[std::size_t(n++)] = s;
    a = kNoSector;
  });
  std::sort(sec.begin(), sec.begin() + n);
  im.nsectors = static_cast<std::uint16_t>(std::unique(sec.begin(), sec.begin() + n) - sec.begin());
  return im.nsectors;
}

namespace {

// Calls f with a lane's access size as a constant where it is a usual one, so that a lane's copy
// is a move, not a call to memcpy (a call a lane was 3 % of AES's instructions: issue 49).
template <typename F>
[[gnu::always_inline]] inline void with_size(int bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(std::integral_constant<std::size_t, 1>{});
    case 2:
      return f(std::integral_constant<std::size_t, 2>{});
    case 4:
      return f(std::integral_constant<std::size_t, 4>{});
    case 8:
      return f(std::integral_constant<std::size_t, 8>{});
    default:
      return f(std::size_t(bytes));
  }
}

// The instruction's effect on registers and memory.
template <bool Track>
void apply_memory(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const int bytes = ptx::type_bytes(ins.type);
  const bool is_vec = ins.vec > 1;
  const std::uint64_t total = std::uint64_t(bytes) * ins.vec;
  const Resolver rs{im, cta, w, pc, ins, total, total};
  const std::uint64_t* base = x.mem_row != kNoRow ? im.row(w, x.mem_row) : nullptr;
  const std::uint64_t off = static_cast<std::uint64_t>(std::int64_t{x.mem_off});
  const std::uint64_t amask = width_mask(x.mem_bits), dmask = width_mask(x.dst_bits);
  const Space space = ins.space;
  LaneMask shared_mask = 0;
  const int words = static_cast<int>(std::max<std::uint64_t>(1, (total + 3) / 4));
  // Every lane's pointer. An access to the CTA's own shared memory that is in bounds and aligned
  // on every lane (the usual case) is resolved for the warp at once; anything else (another
  // CTA's memory, fix's remap, a lane out of bounds or misaligned) lane by lane, which also
  // reports the first failing lane (issue 49: the per-lane call was 7 % of AES).
  auto resolve_all = [&](const Resolver& r, bool write, std::uint8_t** ptrs) {
    if (space == Space::Shared && !im.remap.on() && std::has_single_bit(total)) {
      std::uint64_t high = 0, low = 0, top = 0;
      each_lane(m, [&](int l) {
        const std::uint64_t a = ((base ? (base[l] & amask) : 0) + off) & amask;
        im.addr[std::size_t(l)] = a;
        high |= a >> kClusterRankShift;
        low |= a;
        top = std::max(top, a);
      });
      if (!high && !(low & (total - 1)) && top + total <= cta.shared.size()) {
        std::uint8_t* const data = cta.shared.data();
        each_lane(m, [&](int l) { ptrs[l] = data + im.addr[std::size_t(l)]; });
        shared_mask |= m;
        return;
      }
    }
    each_lane(m, [&](int l) {
      const std::uint64_t a = ((base ? (base[l] & amask) : 0) + off) & amask;
      ptrs[l] = resolve<Track>(r, space, l, a, write, shared_mask);
    });
  };

  switch (ins.op) {
    case Opcode::Ld: {
      const bool sgn = ptx::is_signed(ins.type) && !ptx::is_float(ins.type);
      // Resolve every lane first so that a failing lane leaves no partial effect.
      std::uint8_t* ptrs[kMaxLanes];
      resolve_all(rs, false, ptrs);
      emit_shared(im, w, cta, pc, Op::Load, shared_mask, words);
      m &= ~tx_check(im, cta, w, shared_mask, words);
      with_size(bytes, [&](auto n) {
        for (int k = 0; k < ins.vec; ++k) {
          std::uint64_t* d = im.row(w, is_vec ? x.vrow[std::size_t(k)] : x.row[0]);
          each_lane(m, [&](int l) {
            std::uint64_t raw = 0;
            std::memcpy(&raw, ptrs[l] + k * bytes, n);
            d[l] = extend(raw, bytes, sgn) & dmask;
          });
        }
      });
      return;
    }
    case Opcode::St: {
      std::uint8_t* ptrs[kMaxLanes];
      resolve_all(rs, true, ptrs);
      emit_shared(im, w, cta, pc, Op::Store, shared_mask, words);
      m &= ~tx_check(im, cta, w, shared_mask, words);
      // Lanes store in ascending order: the highest lane wins when addresses collide.
      with_size(bytes, [&](auto n) {
        for (int k = 0; k < ins.vec; ++k) {
          const std::uint64_t* v = im.row(w, is_vec ? x.vrow[std::size_t(k)] : x.row[1]);
          each_lane(m, [&](int l) { std::memcpy(ptrs[l] + k * bytes, &v[l], n); });
        }
      });
      return;
    }
    default: {  // Atom, Red: lanes apply their operation one after the other, lowest lane first
      const bool red = ins.op == Opcode::Red;
      const std::uint64_t* b = im.row(w, x.row[red ? 1 : 2]);
      const std::uint64_t* c = !red && x.row[3] != kNoRow ? im.row(w, x.row[3]) : nullptr;
      std::uint8_t* ptrs[kMaxLanes];
      LaneMask later = 0;  // global lanes whose operation waits for commit (defer_global)
      Resolver ra = rs;
      ra.atomic_lanes = &later;
      resolve_all(ra, true, ptrs);
      emit_shared(im, w, cta, pc, Op::Atomic, shared_mask, 1);
      m &= ~tx_check(im, cta, w, shared_mask, words);
      std::uint64_t* d = red ? nullptr : im.row(w, x.row[0]);
      bool changed = false;
      each_lane(m, [&](int l) {
        if ((later >> l) & 1) [[unlikely]] {
          im.deferred.atomic(
              {ptrs[l], b[l], c ? c[l] : 0, d ? d + l : nullptr, dmask, ins.atom, ins.type});
          return;
        }
        const std::uint64_t old =
            atomic_apply(ins.atom, ins.type, ptrs[l], b[l], c ? c[l] : 0, changed);
        if (d) d[l] = old & dmask;
      });
      if (changed) ++im.writes;
      return;
    }
  }
}

}  // namespace

std::uint8_t* DeferredGlobal::stage(std::uint8_t* to, std::uint64_t bytes) {
  if (used + bytes > kChunk) {
    ++chunk;
    used = 0;
  }
  if (chunk == chunks.size())
    chunks.push_back(
        std::make_unique_for_overwrite<std::uint8_t[]>(kChunk));  // written before read
  std::uint8_t* p = chunks[chunk].get() + used;
  used += bytes;
  order.push_back({false, std::uint32_t(stores.size())});
  stores.push_back({to, p, std::uint32_t(bytes)});
  return p;
}

void commit_deferred(Impl& im) {
  DeferredGlobal& d = im.deferred;
  bool changed = false;
  for (const DeferredGlobal::Entry& e : d.order) {
    if (!e.atomic) {
      const DeferredGlobal::Store& s = d.stores[e.index];
      std::memcpy(s.to, s.from, s.bytes);
      continue;
    }
    const DeferredGlobal::Atomic& a = d.atomics[e.index];
    const std::uint64_t old = atomic_apply(a.op, a.type, a.to, a.b, a.c, changed);
    if (a.dst) *a.dst = old & a.dst_mask;
  }
  if (changed) ++im.writes;
  d.clear();
}

std::uint16_t exec_memory(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  if (!im.count_sectors) {
    apply_memory<false>(im, cta, w, pc, m);
    return 0;
  }
  apply_memory<true>(im, cta, w, pc, m);
  // An atomic's lanes on one address (the L2 updates them one after another): the most of them.
  const ptx::Opcode op = im.kernel.code[pc].op;
  im.same_address = 1;
  if (op == ptx::Opcode::Atom || op == ptx::Opcode::Red) {
    std::array<std::uint64_t, kMaxLanes> a;
    std::size_t n = 0;
    each_lane(m, [&](int l) {
      if (im.gaddr[std::size_t(l)] != kNoSector) a[n++] = im.gaddr[std::size_t(l)];
    });
    std::sort(a.begin(), a.begin() + std::ptrdiff_t(n));
    for (std::size_t i = 0, run = 0; i < n; ++i) {
      run = i && a[i] == a[i - 1] ? run + 1 : 1;
      im.same_address = std::max<std::uint32_t>(im.same_address, std::uint32_t(run));
    }
  }
  const ptx::Instruction& ins = im.kernel.code[pc];
  return count_sectors(im, m, std::uint64_t(ptx::type_bytes(ins.type)) * ins.vec);
}

void exec_cvta(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m) {
  std::uint64_t* d = im.row(w, x.row[0]);
  const std::uint64_t* a = im.row(w, x.row[1]);
  std::uint64_t window = 0;  // global and const addresses are generic already
  if (ins.space == Space::Shared) window = kSharedBase;
  if (ins.space == Space::Local) window = kLocalBase;
  if (ins.space == Space::Param) window = kParamBase;
  const std::uint64_t mask = width_mask(x.bits);
  if (ins.has(ptx::kTo))
    each_lane(m, [&](int l) { d[l] = (window ? (a[l] - window) : a[l]) & mask; });
  else
    each_lane(m, [&](int l) { d[l] = (a[l] + window) & mask; });
}

}  // namespace smemsim::exec::detail

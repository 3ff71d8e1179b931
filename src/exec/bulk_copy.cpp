// The Tensor Memory Accelerator's bulk copies (issue 46; PTX ISA "cp.async.bulk",
// "cp.async.bulk.tensor"; docs/exec.md "TMA"). Each active lane issues its own copy (kernels elect
// one thread). A copy is performed at its issue, as a copy may complete at any time after it
// (under a timing model, set_defer_bulk, a copy into shared memory reads its source at issue and
// lands, with its complete_tx, when land_bulk is called for it):
//   - into shared memory: the bytes land, then the copy's complete_tx lowers the transaction count
//     of its mbarrier by the bytes written (the whole box, out-of-bound elements included);
//   - to global memory: the bytes are written; the bulk group's wait_group has nothing left to
//     wait for.
// A tensor copy moves the box at the coordinates (one signed 32-bit coordinate per dimension,
// innermost first): ceil(box / elementStride) elements along each dimension (all of box[0] along
// the first), in shared memory densely, dimension 0 fastest, each byte at the address the swizzle
// mode gives (tensor_map.hpp). Elements outside the tensor (a coordinate below 0 or at or past its
// size) read as zero, or as NaN with oob_fill = "nan" (a float type's canonical quiet NaN, our
// choice: cuda.h says "a special NaN constant"), and are not written by a store. The destination
// must be 128-byte aligned (the Programming Guide's TMA alignment table), the tensor map 64-byte
// aligned (cuda.h). Shared memory under a tensor copy is not reported as warp accesses: the TMA
// writes it, not a warp.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "exec/bulk_context.hpp"

namespace smemsim::exec::detail {
namespace {

// Deferred bulk copies an executor holds at once: a bound, not a model (a GPU's TMA queue is
// far smaller; a kernel that never waits would otherwise grow it without end).
constexpr std::size_t kMaxPendingBulk = std::size_t{1} << 16;

// The shared address of operand `o` for lane l: a generic address must fall in the shared window.
std::uint64_t shared_address(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int l,
                             const ptx::Operand& o) {
  const std::uint64_t a = operand_address(im, w, o, l);
  if (o.sym != ptx::kNone || (a >> kRegionShift) == 0) return a;  // a shared-space address
  if ((a >> kRegionShift) == kSharedRegion) return a & kOffsetMask;
  im.fail(cta, w, l, pc, fmt::format("the bulk copy's address {:#x} is not in shared memory", a));
}

}  // namespace

std::uint32_t exec_bulk(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const auto op = ptx::BulkOp(ins.comp);
  if (op == ptx::BulkOp::Commit || op == ptx::BulkOp::Wait || op == ptx::BulkOp::Prefetch)
    return 0;  // completed at issue; a prefetch changes nothing
  std::vector<std::uint64_t>& sectors = im.wide_sectors;
  sectors.clear();
  // .multicast::cluster (ops[4] the ctaMask): the bytes land in the shared memory of every CTA of
  // the mask, at the same offsets, each completing its own mbarrier at the same offset. Without a
  // timing model they land through a record of their own at the end of the instruction.
  const bool multicast = ptx::bulk_multicast(ins);
  // A copy into a CTA of the cluster lands there as a multicast to that one rank does.
  const bool peer = op == ptx::BulkOp::Peer || op == ptx::BulkOp::PeerReduce ||
                    op == ptx::BulkOp::StAsync || op == ptx::BulkOp::RedAsync;
  Impl::PendingBulk now;
  // Copies into shared memory land later under a timing model: one record for the instruction.
  Impl::PendingBulk* defer = nullptr;
  if (im.defer_bulk && (op == ptx::BulkOp::Load || op == ptx::BulkOp::TensorLoad || peer)) {
    if (im.bulk_pending.size() >= kMaxPendingBulk)
      im.fail(cta, w, std::countr_zero(m), pc,
              "more than 65,536 bulk copies in flight (a loop that never waits for its copies?)");
    Impl::PendingBulk& p = im.bulk_pending.emplace_back();
    p.id = im.bulk_next++;
    if (im.bulk_next == 0) im.bulk_next = 1;
    p.slot = std::uint32_t(&cta - im.ctas.data());
    p.cta = cta.linear;
    p.warp = w.index;
    p.pc = pc;
    im.bulk_issued = p.id;
    defer = &p;
  } else if (multicast || peer) {
    now.slot = std::uint32_t(&cta - im.ctas.data());
    now.cta = cta.linear;
    now.warp = w.index;
    now.pc = pc;
    defer = &now;
  }
  const auto complete = [&](int l, std::uint32_t mbar, std::int64_t bytes) {
    if (defer)
      defer->completions.push_back({l, mbar, bytes});
    else
      mbarrier_complete_tx(im, cta, w, pc, l, mbar, bytes);
  };
  // A non-tensor copy's size (ops[2]): a positive multiple of 16 bytes.
  const auto bulk_size = [&](int l) {
    const std::uint64_t size = im.row(w, x.row[2])[l] & 0xffffffffu;
    if (size == 0 || size % 16)
      im.fail(cta, w, l, pc,
              fmt::format("the bulk copy's size is {} bytes; it must be a positive multiple of 16",
                          size));
    return size;
  };
  std::vector<std::uint32_t>& segments = im.dsm_segments_seen;  // st.async's, red.async's
  segments.clear();
  each_lane(m, [&](int l) {
    if (multicast) {
      const std::uint64_t mask = im.row(w, x.row[ins.num_ops - 1])[l] & 0xffff;
      const std::uint64_t n = im.cluster.count();
      if (mask == 0 || mask >> n)
        im.fail(cta, w, l, pc,
                fmt::format("the multicast's ctaMask {:#x} names no CTA, or a rank past the "
                            "cluster's {}",
                            mask, n));
      if (defer->mask && defer->mask != mask)
        im.fail(cta, w, l, pc,
                fmt::format("the lanes of one multicast copy give different ctaMasks ({:#x}, "
                            "{:#x})",
                            defer->mask, mask));
      defer->mask = std::uint16_t(mask);
    }
    BulkContext bc{im, cta, w, pc, l, sectors, defer};
    switch (op) {
      case ptx::BulkOp::Load:
      case ptx::BulkOp::Store:
      case ptx::BulkOp::Reduce: {
        const std::uint64_t size = bulk_size(l);
        const bool load = op == ptx::BulkOp::Load;
        const std::uint64_t s = shared_address(im, cta, w, pc, l, ins.ops[load ? 0 : 1]);
        (void)bc.shared(s, size, 16);
        std::uint8_t* gp =
            bc.global(operand_address(im, w, ins.ops[load ? 1 : 0], l), size, !load, 16);
        if (load) {
          bc.put(s, gp, size);
          complete(l, std::uint32_t(shared_address(im, cta, w, pc, l, ins.ops[3])),
                   std::int64_t(size));
        } else if (op == ptx::BulkOp::Reduce) {
          const std::uint64_t eb = std::uint64_t(ptx::type_bits(ins.type) / 8);
          for (std::uint64_t i = 0; i < size; i += eb) {
            std::uint64_t v = 0;
            bc.get(s + i, reinterpret_cast<std::uint8_t*>(&v), eb);
            reduce_into(ins.atom, ins.type, gp + i, v);
          }
        } else {
          bc.get(s, gp, size);
        }
        break;
      }
      case ptx::BulkOp::Peer:  // [dst] (shared::cluster), [src] (shared::cta), size, [mbar]
      case ptx::BulkOp::PeerReduce:
      case ptx::BulkOp::StAsync:  // [dst] (shared::cluster), value, [mbar]
      case ptx::BulkOp::RedAsync: {
        const bool copy = op == ptx::BulkOp::Peer || op == ptx::BulkOp::PeerReduce;
        const char* what = copy ? "copy" : op == ptx::BulkOp::StAsync ? "st.async" : "red.async";
        const std::uint64_t eb = std::uint64_t(ptx::type_bits(ins.type) / 8);
        const std::uint64_t size = copy ? bulk_size(l) : eb * ins.vec;
        const std::uint64_t dst = shared_address(im, cta, w, pc, l, ins.ops[0]);
        const std::uint64_t mb = shared_address(im, cta, w, pc, l, ins.ops[copy ? 3 : 2]);
        // The CTA an address names: its rank bits (mapa), or none for the CTA's own.
        const auto rank_of = [&](std::uint64_t a) {
          return a >> kClusterRankShift ? std::uint32_t((a >> kClusterRankShift) - 1)
                                        : cta.cluster_rank;
        };
        const std::uint32_t r = rank_of(dst);
        if (rank_of(mb) != r)
          im.fail(cta, w, l, pc,
                  fmt::format("the {}'s mbarrier is in CTA rank {} of the cluster and its "
                              "destination in rank {}: they must be in the same CTA",
                              what, rank_of(mb), r));
        Cta* to = r == cta.cluster_rank ? &cta : cluster_peer(cta, r);
        if (!to)
          im.fail(cta, w, l, pc,
                  fmt::format("the {}'s destination is in CTA rank {} of its cluster, which {}",
                              what, r, r < im.cluster.count() ? "has exited" : "it does not have"));
        const std::uint64_t doff = dst & kClusterOffsetMask, moff = mb & kClusterOffsetMask;
        if (op == ptx::BulkOp::PeerReduce || op == ptx::BulkOp::RedAsync) {
          defer->reduce = ins.atom;
          defer->type = ins.type;
        }
        const std::uint64_t align = copy ? 16 : size;
        if (doff + size > to->shared.size() || doff % align)
          im.fail(cta, w, l, pc,
                  fmt::format("the {}'s destination, {} bytes at byte offset {} of CTA rank {}, "
                              "is not {}-byte aligned inside its {} bytes of shared memory",
                              what, size, doff, r, align, to->shared.size()));
        std::uint8_t value[32];
        std::vector<std::uint8_t> bytes;
        const std::uint8_t* from = value;
        if (copy) {
          const std::uint64_t src = shared_address(im, cta, w, pc, l, ins.ops[1]);
          (void)bc.shared(src, size, 16);
          bytes.resize(size);
          bc.get(src, bytes.data(), size);
          from = bytes.data();
        } else {  // the lane's value, element k from the vector's k-th register
          for (int k = 0; k < ins.vec; ++k) {
            const std::uint64_t v = im.row(w, ins.vec > 1 ? x.vrow[std::size_t(k)] : x.row[1])[l];
            std::memcpy(value + std::uint64_t(k) * eb, &v, eb);
          }
        }
        bc.put_at(doff, from, size);
        if (defer->completions.size() && defer->mask != (to != &cta ? 1u << r : 0u))
          im.fail(cta, w, l, pc,
                  fmt::format("the lanes of one {} into another CTA's shared memory name "
                              "different CTAs (not modelled)",
                              what));
        if (to != &cta) {
          defer->mask = std::uint16_t(1u << r);
          if (copy)
            im.dsm_bulk += std::uint32_t((size + 31) / 32);
          else
            segments.push_back(doff >> 5);  // counted once each below
        }
        complete(l, std::uint32_t(moff), std::int64_t(size));
        break;
      }
      case ptx::BulkOp::TensorLoad:
      case ptx::BulkOp::TensorStore:
      case ptx::BulkOp::TensorReduce: {
        const bool load = op == ptx::BulkOp::TensorLoad;
        const std::size_t map_at = load ? 1 : 0;
        const DecodedTensorMap d = read_map(bc, ins.ops[map_at]);
        if (d.map.rank != ins.vec)
          im.fail(
              cta, w, l, pc,
              fmt::format("a .{}d copy of a tensor map of rank {}", int(ins.vec), int(d.map.rank)));
        if (d.map.im2col != ins.has(ptx::kIm2col))
          im.fail(
              cta, w, l, pc,
              fmt::format("a {} copy of {} tensor map", ins.has(ptx::kIm2col) ? ".im2col" : ".tile",
                          d.map.im2col ? "an im2col (mode = \"im2col\")" : "a tiled"));
        // The lane's values of the vector operand `v`, each as its low 32 bits.
        const auto values = [&](const ptx::Operand& v, std::int32_t* out) {
          for (int k = 0; k < v.count; ++k) {
            const std::uint32_t r = im.kernel.vec(v, k);
            const std::uint64_t bits = ptx::is_vec_imm(r) ? std::uint64_t(im.kernel.vec_imm(v, r))
                                                          : im.row(w, im.reg_row(r))[l];
            out[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
          }
        };
        std::int32_t coord[5] = {};
        values(ins.ops[map_at + 1], coord);
        const std::uint64_t s = shared_address(im, cta, w, pc, l, ins.ops[load ? 0 : 2]);
        if (op == ptx::BulkOp::TensorReduce &&
            (d.map.elem_type == ptx::Type::F16 || d.map.elem_type == ptx::Type::BF16))
          im.fail(cta, w, l, pc,
                  "a bulk reduction of an f16 or bf16 tensor map is not modelled (issue 46)");
        if (op == ptx::BulkOp::TensorReduce && ptx::is_float(d.map.elem_type) &&
            ins.atom != ptx::AtomOp::Add && ins.atom != ptx::AtomOp::Min &&
            ins.atom != ptx::AtomOp::Max)
          im.fail(cta, w, l, pc, "a float tensor reduction is .add, .min or .max");
        const ptx::AtomOp reduce = op == ptx::BulkOp::TensorReduce ? ins.atom : ptx::AtomOp::None;
        if (d.map.im2col) {
          // .im2col's offsets (a load's ops[4], unsigned 16-bit); .im2col_no_offs: none.
          std::int32_t offs[3] = {};
          if (load) values(ins.ops[4], offs);
          for (std::int32_t& o : offs) o &= 0xffff;
          im2col_copy(bc, d, coord, offs, s, load, reduce);
        } else {
          tensor_copy(bc, d, coord, s, load, reduce);
        }
        if (load)
          complete(l, std::uint32_t(shared_address(im, cta, w, pc, l, ins.ops[3])),
                   std::int64_t(d.map.box_bytes()));
        break;
      }
      default:
        break;
    }
  });
  if (defer == &now) {
    land(im, now);
  } else if (defer && defer->completions.empty()) {  // no lane copied (all guarded off)
    im.bulk_pending.pop_back();
    im.bulk_issued = 0;
  }
  if (!segments.empty()) {  // the distinct 32-byte segments the lanes' values cross the network in
    std::sort(segments.begin(), segments.end());
    im.dsm_bulk += std::uint32_t(std::unique(segments.begin(), segments.end()) - segments.begin());
  }
  if (!im.count_sectors) return 0;
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  im.wide_active = true;
  return static_cast<std::uint32_t>(sectors.size());
}

void land_bulk(Impl& im, std::uint32_t id) {
  auto it = std::find_if(im.bulk_pending.begin(), im.bulk_pending.end(),
                         [id](const Impl::PendingBulk& p) { return p.id == id; });
  if (it == im.bulk_pending.end()) return;
  const Impl::PendingBulk p = std::move(*it);
  im.bulk_pending.erase(it);
  land(im, p);
}

void land(Impl& im, const Impl::PendingBulk& p) {
  if (p.slot >= im.ctas.size()) return;
  Cta& cta = im.ctas[p.slot];
  if (cta.linear != p.cta || cta.live_warps == 0) return;  // its CTA has ended: nothing lands
  Warp& w = cta.warps[p.warp];
  const auto into = [&](Cta& to) {
    std::size_t at = 0;
    const std::uint32_t eb = std::uint32_t(ptx::type_bits(p.type) / 8);
    for (const auto& [off, n] : p.pieces) {
      if (p.reduce == ptx::AtomOp::None)
        std::memcpy(to.shared.data() + off, p.bytes.data() + at, n);
      else  // a reduction: each element combined into the destination's as it lands
        for (std::uint32_t i = 0; i + eb <= n; i += eb) {
          std::uint64_t v = 0;
          std::memcpy(&v, p.bytes.data() + at + i, eb);
          reduce_into(p.reduce, p.type, to.shared.data() + off + i, v);
        }
      at += n;
    }
    for (const auto& c : p.completions) mbarrier_complete_tx(im, to, w, p.pc, c.lane, c.mbar, c.tx);
  };
  if (!p.mask) return into(cta);
  // A multicast: each CTA of the mask still resident (one that has exited gets nothing).
  for (std::uint32_t r = 0; r < 16; ++r)
    if (p.mask >> r & 1)
      if (Cta* to = cluster_peer(cta, r)) into(*to);
}

}  // namespace smemsim::exec::detail

// cp.async (issue 16; PTX ISA "cp.async", "cp.async.commit_group", "cp.async.wait_group"): each
// lane copies 4, 8 or 16 bytes from global to shared memory asynchronously. Here the source is read
// at issue (it is bounds-checked there, with the PTX and CUDA line) and the bytes land in shared
// memory at the cp.async.wait_group that covers their group: commit_group closes the group of the
// copies issued since the last one, wait_group n lands every committed group but the n most
// recent, wait_all lands them all. A kernel that reads the destination before its wait reads what
// was there before, as on a GPU it may. The shared-memory write is reported at issue, a store in
// 16-byte-per-lane phases; copies still pending when the warp exits land then.
#include <fmt/format.h>

#include <cstring>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

// A warp may not keep an unbounded number of copies in flight (no wait in a loop).
constexpr std::size_t kMaxPendingCopies = std::size_t{1} << 20;

}  // namespace

std::uint64_t operand_address(Impl& im, Warp& w, const ptx::Operand& o, int l) {
  std::uint64_t mask = ~std::uint64_t{0};
  std::uint64_t base = 0;
  if (o.reg != ptx::kNone) {
    mask = width_mask(std::max(1, ptx::type_bits(im.kernel.regs[o.reg].type)));
    base = im.row(w, im.reg_row(o.reg))[l] & mask;
  }
  const std::uint64_t off =
      static_cast<std::uint64_t>(o.imm()) + (o.sym != ptx::kNone ? im.symbol_address(o.sym) : 0);
  return (base + off) & mask;
}

void land_copies(Impl& im, Cta& cta, Warp& w, std::uint32_t keep_groups, bool all) {
  const std::uint32_t limit = w.groups >= keep_groups ? w.groups - keep_groups : 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < w.copies.size(); ++i) {
    const Warp::AsyncCopy& c = w.copies[i];
    if (all || c.group < limit) {
      std::memcpy(cta.shared.data() + c.dst, c.data.data(), c.bytes);
    } else {
      w.copies[kept++] = c;
    }
  }
  w.copies.resize(kept);
  (void)im;
}

std::uint16_t exec_cp_async(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  if (ins.op == ptx::Opcode::CpAsyncCommit) {
    ++w.groups;
    return 0;
  }
  if (ins.op == ptx::Opcode::CpAsyncWait) {
    if (ins.has(ptx::kUni)) ++w.groups;  // wait_all: commit, then wait for every group
    land_copies(im, cta, w, static_cast<std::uint32_t>(ins.ops[0].imm()), false);
    return 0;
  }
  const XInst& x = im.xcode[pc];
  const std::uint64_t size = static_cast<std::uint64_t>(ins.ops[2].imm());
  const bool has_extra = ins.num_ops == 4;
  const bool ignore_pred = has_extra && ins.ops[3].kind == ptx::OperandKind::Reg &&
                           im.kernel.regs[ins.ops[3].reg].type == ptx::Type::Pred;
  std::uint8_t* dst[kMaxLanes];
  const std::uint8_t* src[kMaxLanes];
  std::uint64_t src_bytes[kMaxLanes];
  LaneMask shared = 0, none = 0;
  each_lane(m, [&](int l) {
    std::uint64_t n = size;
    if (has_extra) {
      const std::uint64_t v = im.row(w, x.row[3])[l];
      if (ignore_pred)
        n = ((v ^ x.negated(3)) & 1) ? 0 : size;  // ignore-src: the destination is zero-filled
      else
        n = v & 0xffffffffu;
      if (n > size)
        im.fail(cta, w, l, pc,
                fmt::format("cp.async source size {} is larger than the copy size {}", n, size));
    }
    src_bytes[l] = n;
    dst[l] = lane_pointer(im, cta, w, pc, l, ptx::Space::Shared,
                          operand_address(im, w, ins.ops[0], l), size, true, shared);
    src[l] = n ? lane_pointer(im, cta, w, pc, l, ptx::Space::Global,
                              operand_address(im, w, ins.ops[1], l), n, false, none, size)
               : nullptr;
  });
  emit_shared(im, w, cta, pc, Op::Store, shared, static_cast<int>(size / 4));
  if (w.copies.size() + std::size_t(std::popcount(m)) > kMaxPendingCopies)
    im.fail(cta, w, std::countr_zero(m), pc,
            "more than a million cp.async copies in flight (a loop without cp.async.wait_group?)");
  each_lane(m, [&](int l) {
    Warp::AsyncCopy c;
    c.group = w.groups;
    c.dst = static_cast<std::uint32_t>(dst[l] - cta.shared.data());
    c.bytes = static_cast<std::uint8_t>(size);
    if (src[l]) std::memcpy(c.data.data(), src[l], src_bytes[l]);
    w.copies.push_back(c);
  });
  return im.count_sectors ? count_sectors(im, m, size) : 0;
}

}  // namespace smemsim::exec::detail

// Decoder of the Tensor Memory Accelerator's bulk copies (issue 46; PTX ISA "cp.async.bulk",
// "cp.async.bulk.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
// "cp.async.bulk.prefetch", "cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor"):
//   cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
//       {.L2::cache_hint}  [dst], [src], size, [mbar] {, ctaMask} {, policy}
//   cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}  [dst], [src], size {, policy}
//   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint}  [dst], [map, {c0..}], [mbar] {, ctaMask} {, policy}
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//       [map, {c0..}], [src] {, policy}
//   cp.async.bulk.commit_group / cp.async.bulk.wait_group{.read} n
//   cp.async.bulk.prefetch.L2.global [src], size
//   cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}  [map, {c0..}]
//   cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type  [dst], [src], size
//   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group  [map, {c0..}], [src]
// N is 1..5; `map` is the tensor map's address (a register or a parameter's name); op is add,
// min, max, inc, dec, and, or or xor, type b32 u32 s32 b64 u64 s64 f32 f64 (a tensor reduction
// takes its map's type); a multicast copy's ctaMask is ops[4]. f16/bf16 reductions and the im2col
// modes are recorded as unsupported.
//   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes  [dst], [src], size,
//       [mbar]   (the CTA's shared memory into a CTA's of the cluster, dst and mbar in that CTA)
//   cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type  [dst],
//       [src], size, [mbar]   (the same, each element combined into the destination's; op and
//       type as the PTX ISA's table allows: add u32 s32 u64, min/max u32 s32, inc/dec u32,
//       and/or/xor b32)
#include <fmt/format.h>

#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {

// The PTX ISA's table of what a reduction into .shared::cluster takes (cp.reduce.async.bulk and
// red.async alike): add on u32 s32 u64, min and max on u32 s32, inc and dec on u32, and/or/xor b32.
bool cluster_reduction(AtomOp a, Type t) {
  return (a == AtomOp::Add && (t == Type::U32 || t == Type::S32 || t == Type::U64)) ||
         ((a == AtomOp::Min || a == AtomOp::Max) && (t == Type::U32 || t == Type::S32)) ||
         ((a == AtomOp::Inc || a == AtomOp::Dec) && t == Type::U32) ||
         ((a == AtomOp::And || a == AtomOp::Or || a == AtomOp::Xor) && t == Type::B32);
}
const char* const kClusterReductions =
    "a reduction into .shared::cluster is .add (.u32 .s32 .u64), .min/.max (.u32 .s32), "
    ".inc/.dec (.u32) or .and/.or/.xor (.b32)";

AtomOp reduce_op(std::string_view m) {
  constexpr std::pair<std::string_view, AtomOp> kOps[] = {
      {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max}, {"inc", AtomOp::Inc},
      {"dec", AtomOp::Dec}, {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor}};
  for (const auto& [name, op] : kOps)
    if (m == name) return op;
  return AtomOp::None;
}

Instruction Decoder::bulk_copy() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);  // cp async bulk ...
  ins_.op = Opcode::CpBulk;
  ins_.type = Type::B8;
  const bool reduce = mods[1] == "reduce";
  std::size_t i = reduce ? 4 : 3;
  const auto operand_end = [&](std::size_t want, bool hint) {
    // The optional cache policy (.L2::cache_hint) is read and dropped: no functional effect.
    if (hint) {
      cur_.expect(',', fmt::format("before the cache policy of '{}'", text));
      (void)operand(false, false);
    }
    if (cur_.peek().is(','))
      malformed(
          fmt::format("'{}' has more operands than its modifiers take (.multicast::cluster: "
                      "a ctaMask; .im2col: the offsets; .L2::cache_hint: a policy)",
                      text));
    cur_.expect(';', fmt::format("after the operands of '{}'", text));
    ins_.num_ops = static_cast<std::uint8_t>(want);
  };
  if (mods.size() == 4 && mods[3] == "commit_group") {
    ins_.comp = std::uint8_t(BulkOp::Commit);
    read_list({});
    expect_count(0, 0);
    return ins_;
  }
  if (mods.size() >= 4 && mods[3] == "wait_group") {
    ins_.comp = std::uint8_t(BulkOp::Wait);
    for (std::size_t k = 4; k < mods.size(); ++k)
      if (mods[k] == "read")
        ins_.flags |= kNoComplete;  // .read: only the sources' reads are waited for
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", mods[k], text));
    read_list({});
    expect_count(1, 1);
    if (ins_.ops[0].kind != OperandKind::ImmInt || ins_.ops[0].imm() < 0)
      malformed(fmt::format("'{}' needs a non-negative integer", text));
    return ins_;
  }
  bool tensor = false, prefetch = false;
  if (i < mods.size() && mods[i] == "prefetch") prefetch = true, ++i;
  if (i < mods.size() && mods[i] == "tensor") {
    tensor = true;
    ++i;
    const std::string_view r = i < mods.size() ? mods[i] : std::string_view();
    if (r.size() != 2 || r[1] != 'd' || r[0] < '1' || r[0] > '5')
      malformed(fmt::format("'{}' needs a dimension .1d to .5d after .tensor", text));
    ins_.vec = std::uint8_t(r[0] - '0');
    ++i;
  }
  // The spaces in order (destination, source), the completion mechanism, the options.
  std::vector<std::string_view> spaces;
  bool mbar = false, group = false, hint = false, multicast = false;
  std::string_view im2col_name;  // .im2col (loads, prefetches) or .im2col_no_offs (stores)
  for (; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    if (m == "global" || m == "shared::cluster" || m == "shared::cta" || m == "shared")
      spaces.push_back(m);
    else if (m == "mbarrier::complete_tx::bytes")
      mbar = true;
    else if (m == "bulk_group")
      group = true;
    else if (m == "L2::cache_hint")
      hint = true;
    else if (reduce && ins_.atom == AtomOp::None && reduce_op(m) != AtomOp::None)
      ins_.atom = reduce_op(m);
    else if (reduce && !tensor && type_from_name(m) != Type::None) {
      const Type t = type_from_name(m);
      if (t == Type::F16 || t == Type::BF16) refuse("f16 and bf16 bulk reductions");
      ins_.type = t;
    } else if (reduce && m == "noftz")
      continue;
    else if (m == "L2" && prefetch)
      continue;
    else if (m == "tile" && tensor)
      continue;
    else if ((m == "im2col" || m == "im2col_no_offs") && tensor && !ins_.has(kIm2col)) {
      ins_.flags |= kIm2col;
      im2col_name = m;
    } else if (m.starts_with("im2col") || m.starts_with("tile::"))
      refuse("the im2col::w modes and the gather/scatter modes of tensor copies (sm_100)");
    else if (m == "multicast::cluster")
      multicast = true;
    else if (m.starts_with("cta_group"))
      refuse("the sm_100 CTA pairs");
    else
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
  }
  const auto is_shared = [](std::string_view s) { return s.starts_with("shared"); };
  if (prefetch) {
    ins_.comp = std::uint8_t(BulkOp::Prefetch);
    if (spaces.size() != 1 || spaces[0] != "global" || mbar || group)
      malformed(fmt::format("'{}' needs .L2.global", text));
  } else if (spaces.size() == 2 && is_shared(spaces[0]) && spaces[1] == "global") {
    if (!mbar || group)
      malformed(
          fmt::format("'{}': a copy into shared memory completes through "
                      ".mbarrier::complete_tx::bytes",
                      text));
    ins_.comp = std::uint8_t(tensor ? BulkOp::TensorLoad : BulkOp::Load);
  } else if (multicast) {
    malformed(fmt::format("'{}': .multicast::cluster is a copy into shared memory's", text));
  } else if (spaces.size() == 2 && spaces[0] == "global" && is_shared(spaces[1])) {
    if (!group || mbar)
      malformed(fmt::format("'{}': a copy to global memory completes through .bulk_group", text));
    if (spaces[1] == "shared::cluster")
      malformed(fmt::format("'{}': the source is .shared::cta", text));
    ins_.comp = std::uint8_t(reduce ? (tensor ? BulkOp::TensorReduce : BulkOp::Reduce)
                                    : (tensor ? BulkOp::TensorStore : BulkOp::Store));
    if (reduce && ins_.atom == AtomOp::None)
      malformed(
          fmt::format("'{}' needs a reduction (.add .min .max .inc .dec .and .or .xor)", text));
    if (reduce && !tensor && ins_.type == Type::B8)
      malformed(fmt::format("'{}' needs a type (.b32 .u32 .s32 .b64 .u64 .s64 .f32 .f64)", text));
    if (reduce && is_float(ins_.type) && ins_.atom != AtomOp::Add && ins_.atom != AtomOp::Min &&
        ins_.atom != AtomOp::Max)
      malformed(fmt::format("'{}': a float reduction is .add, .min or .max", text));
  } else if (reduce && spaces.size() == 2 && spaces[0] == "shared::cluster" &&
             (spaces[1] == "shared::cta" || spaces[1] == "shared") && !tensor && mbar && !group) {
    ins_.comp = std::uint8_t(BulkOp::PeerReduce);  // into a CTA of the cluster, combined there
    if (!cluster_reduction(ins_.atom, ins_.type))
      malformed(fmt::format("'{}': {}", text, kClusterReductions));
  } else if (reduce) {
    malformed(
        fmt::format("'{}': a bulk reduction is .global.shared::cta.bulk_group or "
                    ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
                    text));
  } else if (spaces.size() == 2 && spaces[0] == "shared::cluster" &&
             (spaces[1] == "shared::cta" || spaces[1] == "shared") && !tensor && mbar && !group &&
             !multicast) {
    ins_.comp = std::uint8_t(BulkOp::Peer);  // into a CTA of the cluster, completing its mbarrier
  } else if (spaces.size() == 2 && is_shared(spaces[0]) && is_shared(spaces[1])) {
    malformed(
        fmt::format("'{}': a copy between shared memories is "
                    ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
                    text));
  } else {
    malformed(
        fmt::format("'{}' needs a destination and a source space (.shared::cluster.global "
                    "or .global.shared::cta)",
                    text));
  }
  ins_.space = Space::Shared;
  if (ins_.has(kIm2col)) {
    const bool into_shared =
        BulkOp(ins_.comp) == BulkOp::TensorLoad || BulkOp(ins_.comp) == BulkOp::Prefetch;
    if (ins_.vec < 3)
      malformed(fmt::format("'{}': the im2col modes are .3d to .5d (NWC, NHWC, NDHWC)", text));
    if (im2col_name != (into_shared ? "im2col" : "im2col_no_offs"))
      malformed(fmt::format("'{}': a {} takes .{}", text,
                            into_shared ? "load or prefetch" : "store or reduction",
                            into_shared ? "im2col" : "im2col_no_offs"));
  }

  // [map, {c0, ...}]: the tensor map's address and the box's coordinates.
  const auto tensor_operand = [&](std::size_t at) {
    cur_.expect('[', fmt::format("to open the tensor map operand of '{}'", text));
    const Token& b = cur_.peek();
    if (b.kind != TokKind::Word) malformed(fmt::format("malformed tensor map {}", describe(b)));
    cur_.next();
    Operand& o = ins_.ops[at];
    o.kind = OperandKind::Memory;
    if (b.text[0] == '%' || kb_.find_reg(b.text) != kNone) {
      o.reg = reg(b);
      if (type_bits(kb_.kernel.regs[o.reg].type) != 64)
        malformed(fmt::format("'{}': the tensor map address '{}' must be a 64-bit register", text,
                              b.text));
    } else {
      o.sym = kb_.find_symbol(b.text);
      if (o.sym == kNone) cur_.fail(b, fmt::format("unknown symbol '{}'", b.text));
    }
    cur_.expect(',', fmt::format("after the tensor map of '{}'", text));
    if (!cur_.peek().is('{')) malformed(fmt::format("'{}' needs the coordinates as {{...}}", text));
    ins_.ops[at + 1] = operand(false, false);
    const Operand& v = ins_.ops[at + 1];
    if (v.count != ins_.vec)
      malformed(fmt::format("'{}' needs {} coordinate{}, got {}", text, int(ins_.vec),
                            ins_.vec == 1 ? "" : "s", int(v.count)));
    for (int k = 0; k < v.count; ++k)
      if (!is_vec_imm(kb_.kernel.vec(v, k)) &&
          type_bits(kb_.kernel.regs[kb_.kernel.vec(v, k)].type) != 32)
        malformed(fmt::format("'{}': the coordinates are 32-bit registers", text));
    cur_.expect(']', fmt::format("to close the tensor map operand of '{}'", text));
  };
  const auto comma = [&] { cur_.expect(',', fmt::format("between operands of '{}'", text)); };
  const auto address = [&](std::size_t at) {
    ins_.ops[at] = operand(true, false);
    if (ins_.ops[at].kind != OperandKind::Memory)
      malformed(fmt::format("operand {} of '{}' must be an address [...]", at + 1, text));
  };
  const auto size = [&](std::size_t at) {
    ins_.ops[at] = operand(false, false);
    need(at, is_value(at), "a register or immediate (the size in bytes)");
    if (ins_.ops[at].kind == OperandKind::ImmInt &&
        (ins_.ops[at].imm() <= 0 || ins_.ops[at].imm() % 16 != 0))
      malformed(fmt::format("'{}': the size must be a positive multiple of 16 bytes", text));
  };
  // .multicast::cluster: the 16-bit mask of the destination CTAs' ranks after [mbar] (and the
  // im2col offsets), as ops[4] or ops[5] (bulk_mask_operand).
  const auto mask = [&] {
    if (!multicast) return;
    const std::size_t at = ins_.has(kIm2col) ? 5 : 4;
    cur_.expect(',', fmt::format("before the ctaMask of '{}'", text));
    ins_.ops[at] = operand(false, false);
    need(at, is_value(at), "a register or immediate (the ctaMask of .multicast::cluster)");
  };
  // .im2col: {o0, ...}, one 16-bit offset per spatial dimension (W first), as ops[at].
  const auto offsets = [&](std::size_t at) {
    if (!ins_.has(kIm2col) ||
        (BulkOp(ins_.comp) != BulkOp::TensorLoad && BulkOp(ins_.comp) != BulkOp::Prefetch))
      return;
    cur_.expect(',', fmt::format("before the im2col offsets of '{}'", text));
    if (!cur_.peek().is('{'))
      malformed(fmt::format("'{}' needs the im2col offsets as {{...}}", text));
    ins_.ops[at] = operand(false, false);
    const Operand& v = ins_.ops[at];
    if (v.count != ins_.vec - 2)
      malformed(fmt::format("'{}' needs {} im2col offset{} (one per spatial dimension), got {}",
                            text, ins_.vec - 2, ins_.vec == 3 ? "" : "s", int(v.count)));
    for (int k = 0; k < v.count; ++k)
      if (!is_vec_imm(kb_.kernel.vec(v, k)) &&
          type_bits(kb_.kernel.regs[kb_.kernel.vec(v, k)].type) != 16)
        malformed(fmt::format("'{}': the im2col offsets are 16-bit registers", text));
  };
  switch (BulkOp(ins_.comp)) {
    case BulkOp::Peer:  // [dst], [src], size, [mbar]
    case BulkOp::PeerReduce:
    case BulkOp::Load:  // [dst], [src], size, [mbar] {, ctaMask}
      address(0), comma(), address(1), comma(), size(2), comma(), address(3), mask();
      operand_end(multicast ? 5 : 4, hint);
      break;
    case BulkOp::Store:  // [dst], [src], size
    case BulkOp::Reduce:
      address(0), comma(), address(1), comma(), size(2);
      operand_end(3, hint);
      break;
    case BulkOp::TensorLoad:  // [dst], [map, {c}], [mbar] {, {offsets}} {, ctaMask}
      address(0), comma(), tensor_operand(1), comma(), address(3), offsets(4), mask();
      operand_end(4 + (ins_.has(kIm2col) ? 1 : 0) + (multicast ? 1 : 0), hint);
      break;
    case BulkOp::TensorStore:  // [map, {c}], [src]
    case BulkOp::TensorReduce:
      tensor_operand(0), comma(), address(2);
      operand_end(3, hint);
      break;
    default:  // prefetch: [src], size or [map, {c}]
      if (tensor) {
        tensor_operand(0);
        offsets(2);
        operand_end(ins_.has(kIm2col) ? 3 : 2, hint);
      } else {
        address(0), comma(), size(1);
        operand_end(2, hint);
      }
      break;
  }
  return ins_;
}

}  // namespace smemsim::ptx::decoding

namespace smemsim::ptx::decoding {

// fence.proxy.async{.global|.shared::cta|.shared::cluster}, fence.proxy.alias,
// fence.proxy.tensormap::generic.{release|acquire}.scope {[addr], 128}, fence.mbarrier_init
// .release.cluster (PTX ISA "membar/fence"): they order the generic proxy's accesses with the
// async proxy's (the TMA's) and a tensor map's writes with its use. The executor performs every
// access at its instruction, in order, so each is a fence with no effect: a membar here.
Instruction Decoder::proxy_fence() {
  ins_.op = Opcode::Membar;
  read_list({0});
  if (ins_.num_ops != 0 && ins_.num_ops != 2)
    malformed(fmt::format("'{}' takes no operands, or an address and a size", m_.text));
  ins_.num_ops = 0;  // the tensor map's address: nothing to order here
  return ins_;
}

}  // namespace smemsim::ptx::decoding

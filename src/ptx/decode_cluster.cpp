// Decoder of the thread-block cluster instructions (issue 46; docs/exec.md "Clusters"):
// barrier.cluster, mapa, and the asynchronous stores into a partner CTA (st.async, red.async).
#include <fmt/format.h>

#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {

// barrier.cluster.arrive{.release|.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}
// (PTX ISA "barrier.cluster"): comp 0 arrives, 1 waits for the phase every thread of the cluster
// arrived in. mapa{.shared::cluster}.u32 / mapa.u64 d, a, rank (PTX ISA "mapa"): the address of
// a's place in the shared memory of the cluster's CTA `rank`.
Instruction Decoder::cluster_op() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  if (mods[0] == "barrier") {
    ins_.op = Opcode::BarCluster;
    if (mods.size() < 3 || (mods[2] != "arrive" && mods[2] != "wait"))
      malformed(fmt::format("'{}' needs .arrive or .wait", text));
    const bool arrive = mods[2] == "arrive";
    ins_.comp = arrive ? 0 : 1;
    for (std::size_t i = 3; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "aligned" || (arrive && (m == "release" || m == "relaxed")) ||
          (!arrive && m == "acquire"))
        continue;  // every access is performed in order here
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    read_list({});
    expect_count(0, 0);
    return ins_;
  }
  ins_.op = Opcode::Mapa;
  ins_.space = Space::Generic;
  for (std::size_t i = 1; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    if (m == "shared::cluster")
      ins_.space = Space::Shared;
    else if (m == "u32" || m == "u64")
      ins_.type = m == "u32" ? Type::U32 : Type::U64;
    else
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
  }
  if (ins_.type == Type::None) malformed(fmt::format("'{}' needs .u32 or .u64", text));
  read_list({});
  expect_count(3, 3);
  need(0, is_reg(0), "a register");
  need(1, is_value(1), "a register or an address");
  need(2, is_value(2), "a register or immediate (the CTA's rank in the cluster)");
  return ins_;
}

// st.async{.weak}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.v2|.v4}.type [a], b, [mbar]
//   (.type b32 b64 u32 s32 u64 s64 f32 f64; .v4 with 32-bit types)
// red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], b, [mbar]
//   (op and type as cluster_reduction allows)
// PTX ISA 8.1, sm_90: each lane's value into the shared memory of the CTA of the cluster that `a`
// names (through mapa), completing that CTA's mbarrier at `mbar` by the bytes written.
Instruction Decoder::async_store() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  const bool red = mods[0] == "red";
  ins_.op = Opcode::CpBulk;
  ins_.comp = std::uint8_t(red ? BulkOp::RedAsync : BulkOp::StAsync);
  ins_.space = Space::Shared;
  ins_.type = Type::None;
  bool space = false, mbar = false;
  for (std::size_t i = 2; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    if (m == "shared::cluster")
      space = true;
    else if (m == "mbarrier::complete_tx::bytes")
      mbar = true;
    else if ((m == "weak" && !red) || (m == "relaxed" && red) || (m == "cluster" && red))
      continue;
    else if (!red && (m == "v2" || m == "v4") && ins_.vec == 1)
      ins_.vec = m == "v2" ? 2 : 4;
    else if (red && ins_.atom == AtomOp::None && reduce_op(m) != AtomOp::None)
      ins_.atom = reduce_op(m);
    else if (ins_.type == Type::None && type_from_name(m) != Type::None)
      ins_.type = type_from_name(m);
    else
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
  }
  if (!space || !mbar)
    malformed(fmt::format("'{}' needs .shared::cluster.mbarrier::complete_tx::bytes", text));
  const Type t = ins_.type;
  if (red && (ins_.atom == AtomOp::None || !cluster_reduction(ins_.atom, t)))
    malformed(fmt::format("'{}': {}", text, kClusterReductions));
  if (!red) {
    const int bits = type_bits(t);
    if ((bits != 32 && bits != 64) || is_half(t))
      malformed(fmt::format("'{}' needs a type (.b32 .b64 .u32 .s32 .u64 .s64 .f32 .f64)", text));
    if (ins_.vec == 4 && bits == 64) malformed(fmt::format("'{}': .v4 takes a 32-bit type", text));
  }
  const auto address = [&](std::size_t at) {
    ins_.ops[at] = operand(true, false);
    if (ins_.ops[at].kind != OperandKind::Memory)
      malformed(fmt::format("operand {} of '{}' must be an address [...]", at + 1, text));
  };
  address(0);
  cur_.expect(',', fmt::format("between operands of '{}'", text));
  ins_.ops[1] = operand(false, false);
  const Operand& v = ins_.ops[1];
  if (ins_.vec > 1 ? v.kind != OperandKind::Vector || v.count != ins_.vec : !is_value(1))
    malformed(fmt::format("'{}' needs {} as its value", text,
                          ins_.vec > 1 ? fmt::format("{{...}} of {} registers", int(ins_.vec))
                                       : std::string("a register or immediate")));
  cur_.expect(',', fmt::format("between operands of '{}'", text));
  address(2);
  cur_.expect(';', fmt::format("after the operands of '{}'", text));
  ins_.num_ops = 3;
  return ins_;
}

}  // namespace smemsim::ptx::decoding

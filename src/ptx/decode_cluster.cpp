// Decoder of the thread-block cluster instructions (issue 46; docs/exec.md "Clusters").
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

}  // namespace smemsim::ptx::decoding

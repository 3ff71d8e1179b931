// Decoder of the asynchronous copies and the warp's matrix moves (issue 16; PTX ISA "Data Movement
// and Conversion Instructions", "Warp Level Matrix Load/Store"):
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16   {d}, [a]
//   stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16   [a], {b}
//   cp.async.{ca,cg}.shared.global{.L2::128B ...}                [dst], [src], size {, src-size |
//   p} cp.async.commit_group / cp.async.wait_group n / cp.async.wait_all
// Bulk copies (TMA) are decode_bulk.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {

Instruction Decoder::async_copy() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  const std::string_view op = mods[0];
  const bool sync = std::ranges::count(mods, "sync") > 0;
  const bool aligned = std::ranges::count(mods, "aligned") > 0;

  if (op == "cp") {
    if (mods.size() > 3 && mods[1] == "reduce" && mods[2] == "async" && mods[3] == "bulk")
      return bulk_copy();
    if (mods.size() < 2 || mods[1] != "async") unsupported();
    if (mods.size() == 3 && mods[2] == "commit_group") {
      ins_.op = Opcode::CpAsyncCommit;
      read_list({});
      expect_count(0, 0);
      return ins_;
    }
    if (mods.size() == 3 && (mods[2] == "wait_group" || mods[2] == "wait_all")) {
      ins_.op = Opcode::CpAsyncWait;
      read_list({});
      if (mods[2] == "wait_all") {  // = commit_group; wait_group 0 (PTX ISA)
        expect_count(0, 0);
        ins_.ops[0].kind = OperandKind::ImmInt;
        ins_.ops[0].set_imm(0);
        ins_.flags |= kUni;
        return ins_;
      }
      expect_count(1, 1);
      if (ins_.ops[0].kind != OperandKind::ImmInt || ins_.ops[0].imm() < 0)
        malformed(fmt::format("'{}' needs a non-negative integer", text));
      return ins_;
    }
    if (mods.size() > 2 && mods[2] == "bulk") return bulk_copy();
    ins_.op = Opcode::CpAsync;
    bool ca = false, cg = false, dst = false, src = false, hint = false;
    for (std::size_t i = 2; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "ca")
        ca = true;
      else if (m == "cg")
        cg = true;
      else if (m == "shared" || m == "shared::cta")
        dst = true;
      else if (m == "global" && dst)
        src = true;
      else if (m.starts_with("L2::cache_hint"))
        hint = true;
      else if (m.starts_with("L2::"))
        continue;  // a prefetch size: no functional effect
      else if (m == "shared::cluster")
        refuse("cluster shared memory");
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    if (ca == cg || !dst || !src)
      malformed(fmt::format("'{}' needs .ca or .cg, then .shared.global", text));
    ins_.space = Space::Shared;
    ins_.flags |= ca ? 0u : kNc;  // .cg: bypass L1 (kept for the printer)
    ins_.cache = ca ? CacheOp::Ca : CacheOp::Cg;
    read_list({0, 1});
    expect_count(3, hint ? 5 : 4);
    if (hint) --ins_.num_ops;  // the cache policy operand: no functional effect
    if (ins_.ops[2].kind != OperandKind::ImmInt ||
        (ins_.ops[2].imm() != 4 && ins_.ops[2].imm() != 8 && ins_.ops[2].imm() != 16))
      malformed(fmt::format("'{}': the copy size must be 4, 8 or 16 bytes", text));
    if (cg && ins_.ops[2].imm() != 16) malformed(fmt::format("'{}': .cg copies 16 bytes", text));
    if (ins_.num_ops == 4 && !is_value(3))
      malformed(fmt::format("'{}': the source size must be a register or integer", text));
    return ins_;
  }

  if (op == "ldmatrix" || op == "stmatrix") {
    ins_.op = op == "ldmatrix" ? Opcode::Ldmatrix : Opcode::Stmatrix;
    bool shape = false;
    for (std::size_t i = 1; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "sync" || m == "aligned") continue;
      if (m == "m8n8")
        shape = true;
      else if (m == "x1" || m == "x2" || m == "x4")
        ins_.vec = std::uint8_t(m[1] - '0');
      else if (m == "trans")
        ins_.flags |= kTrans;
      else if (m == "shared" || m == "shared::cta")
        ins_.space = Space::Shared;
      else if (m == "b16")
        ins_.type = Type::B16;
      else if (m == "m16n16" || m == "m8n16" || m == "b8" || m.starts_with("b8x16"))
        refuse("the sm_100 shapes and 8-bit element types");
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    const bool count = ins_.vec > 1 || text.find(".x1") != std::string_view::npos;
    if (!sync || !aligned || !shape || !count || ins_.type != Type::B16)
      malformed(fmt::format("'{}' needs .sync.aligned.m8n8, .x1, .x2 or .x4, and .b16", text));
    if (ins_.space == Space::None) ins_.space = Space::Generic;
    const bool ld = ins_.op == Opcode::Ldmatrix;
    read_list({std::size_t(ld ? 1 : 0)});
    expect_count(2, 2);
    expect_vector(ld ? 0 : 1, ins_.vec, ld ? "destination" : "source");
    for (int k = 0; k < ins_.vec; ++k)
      if (type_bits(kb_.kernel.regs[kb_.kernel.vec(ins_.ops[ld ? 0 : 1], k)].type) != 32)
        malformed(fmt::format("'{}': each register holds two b16 elements (32 bits)", text));
    return ins_;
  }

  unsupported();
}

}  // namespace smemsim::ptx::decoding

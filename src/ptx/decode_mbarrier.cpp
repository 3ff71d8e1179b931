// Decoder of the split-barrier instructions (issue 27; PTX ISA "Parallel Synchronization and
// Communication Instructions: mbarrier", "cp.async.mbarrier.arrive", "nanosleep"), which
// cuda::barrier and cuda::pipeline compile to on sm_80 and later:
//   mbarrier.init{.shared{::cta}}.b64                 [addr], count
//   mbarrier.inval{.shared{::cta}}.b64                [addr]
//   mbarrier.arrive{.noComplete}{.release}{.cta}{.shared{::cta}}.b64       state|_, [addr]{, count}
//   mbarrier.arrive_drop{.noComplete}{...}{.shared{::cta}}.b64             state|_, [addr]{, count}
//   mbarrier.test_wait{.parity}{.acquire}{.cta}{.shared{::cta}}.b64        p, [addr], state|parity
//   mbarrier.try_wait{.parity}{.acquire}{.cta}{.shared{::cta}}.b64   p, [addr], state|parity{,
//   hint} mbarrier.pending_count.b64                        count, state
//   cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64                   [addr]
//   nanosleep.u32                                     t
// and the transaction count of bulk copies (issue 46, PTX ISA "mbarrier.expect_tx",
// "mbarrier.complete_tx", "mbarrier.arrive"):
//   mbarrier.arrive.expect_tx{.release}{.cta}{.shared{::cta}}.b64   state|_, [addr], txCount
//   mbarrier.expect_tx{.relaxed}{.cta}{.shared{::cta}}.b64          [addr], txCount
//   mbarrier.complete_tx{.relaxed}{.cta}{.shared{::cta}}.b64        [addr], txCount
// With .cluster scope (no effect here), and with .shared::cluster for the arrivals and the
// transaction-count changes (issue 46): the address may name another CTA's mbarrier (mapa), and
// an arrival there returns no state.
#include <fmt/format.h>

#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {

Instruction Decoder::mbarrier() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  auto b64_reg = [&](std::size_t i, const char* what) {
    const Operand& o = ins_.ops[i];
    if (o.kind != OperandKind::Reg || type_bits(kb_.kernel.regs[o.reg].type) != 64)
      malformed(fmt::format("'{}': the {} must be a 64-bit register", text, what));
  };

  if (mods[0] == "nanosleep") {
    ins_.op = Opcode::Nanosleep;
    if (mods.size() != 2 || mods[1] != "u32") malformed(fmt::format("'{}' needs .u32", text));
    ins_.type = Type::U32;
    read_list({});
    expect_count(1, 1);
    need(0, is_value(0), "a register or immediate");
    return ins_;
  }

  ins_.op = Opcode::Mbarrier;
  ins_.type = Type::B64;
  const bool cp = mods[0] == "cp";  // cp.async.mbarrier.arrive
  std::size_t i = cp ? 3 : 1;
  if (cp && (mods.size() < 4 || mods[1] != "async" || mods[2] != "mbarrier" || mods[3] != "arrive"))
    unsupported();
  if (!cp && mods.size() < 2) malformed(fmt::format("'{}' needs an operation", text));
  const std::string_view what = mods[i];
  MbarOp kind = MbarOp::CpAsyncArrive;
  if (!cp) {
    if (what == "init")
      kind = MbarOp::Init;
    else if (what == "arrive")
      kind = MbarOp::Arrive;
    else if (what == "arrive_drop")
      kind = MbarOp::ArriveDrop;
    else if (what == "test_wait")
      kind = MbarOp::TestWait;
    else if (what == "try_wait")
      kind = MbarOp::TryWait;
    else if (what == "inval")
      kind = MbarOp::Inval;
    else if (what == "pending_count")
      kind = MbarOp::PendingCount;
    else if (what == "expect_tx")
      kind = MbarOp::ExpectTx;
    else if (what == "complete_tx")
      kind = MbarOp::CompleteTx;
    else
      malformed(fmt::format("unknown mbarrier operation '.{}' in '{}'", what, text));
  }
  ins_.comp = std::uint8_t(kind);
  const bool wait = kind == MbarOp::TestWait || kind == MbarOp::TryWait;
  const bool arrive = kind == MbarOp::Arrive || kind == MbarOp::ArriveDrop;
  bool b64 = false, remote = false;
  for (++i; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    if (m == "b64") {
      b64 = true;
    } else if (m == "shared" || m == "shared::cta") {
      ins_.space = Space::Shared;
    } else if (m == "shared::cluster") {
      ins_.space = Space::Shared;  // the address may name another CTA's (mapa): remote below
      remote = true;
    } else if (m == "cluster") {
      continue;  // the scope: the cluster's CTAs run in one order here, every access visible
    } else if (m == "expect_tx" && kind == MbarOp::Arrive) {
      kind = MbarOp::ArriveExpectTx;
      ins_.comp = std::uint8_t(kind);
    } else if (m == "noComplete" && arrive) {
      ins_.flags |= kNoComplete;
    } else if (m == "noinc" && cp) {
      ins_.flags |= kNoComplete;
    } else if (m == "parity" && wait) {
      ins_.flags |= kParity;
    } else if ((m == "release" && (arrive || kind == MbarOp::ArriveExpectTx)) ||
               (m == "acquire" && wait) || m == "relaxed" || m == "cta") {
      continue;  // one CTA's threads, executed in order: every access is already visible
    } else {
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
  }
  if (!b64) malformed(fmt::format("'{}' needs .b64", text));
  // .shared::cluster (PTX ISA): an arrival or a transaction-count change on any CTA's mbarrier of
  // the cluster, which returns no state; the other operations are on the CTA's own.
  if (remote && kind != MbarOp::Arrive && kind != MbarOp::ArriveDrop &&
      kind != MbarOp::ArriveExpectTx && kind != MbarOp::ExpectTx && kind != MbarOp::CompleteTx)
    malformed(
        fmt::format("'{}': only arrive, arrive_drop, expect_tx and complete_tx take "
                    ".shared::cluster (another CTA's mbarrier)",
                    text));
  if (ins_.space == Space::None) ins_.space = Space::Generic;
  switch (kind) {
    case MbarOp::Init:
      read_list({0});
      expect_count(2, 2);
      need(1, is_value(1), "a register or immediate (the expected arrival count)");
      break;
    case MbarOp::Inval:
    case MbarOp::CpAsyncArrive:
      read_list({0});
      expect_count(1, 1);
      break;
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop:
      read_list({1}, 0);
      expect_count(2, 3);
      if (remote && ins_.ops[0].kind != OperandKind::None)
        malformed(fmt::format("'{}': an arrival on .shared::cluster returns no state (_)", text));
      if (ins_.ops[0].kind != OperandKind::None) b64_reg(0, "state");
      if (ins_.num_ops == 3) need(2, is_value(2), "a register or immediate (the count)");
      if (ins_.has(kNoComplete) && ins_.num_ops != 3)
        malformed(fmt::format("'{}': .noComplete takes a count", text));
      break;
    case MbarOp::TestWait:
    case MbarOp::TryWait:
      read_list({1});
      expect_count(3, kind == MbarOp::TryWait ? 4 : 3);
      need(0, is_pred(0), "a predicate");
      if (ins_.has(kParity))
        need(2, is_value(2), "a register or immediate (the phase parity)");
      else
        b64_reg(2, "state");
      if (ins_.num_ops == 4) --ins_.num_ops;  // try_wait's suspend-time hint: no functional effect
      break;
    case MbarOp::ArriveExpectTx:
      read_list({1}, 0);
      expect_count(3, 3);
      if (remote && ins_.ops[0].kind != OperandKind::None)
        malformed(fmt::format("'{}': an arrival on .shared::cluster returns no state (_)", text));
      if (ins_.ops[0].kind != OperandKind::None) b64_reg(0, "state");
      need(2, is_value(2), "a register or immediate (the transaction count in bytes)");
      break;
    case MbarOp::ExpectTx:
    case MbarOp::CompleteTx:
      read_list({0});
      expect_count(2, 2);
      need(1, is_value(1), "a register or immediate (the transaction count in bytes)");
      break;
    case MbarOp::PendingCount:
      read_list({});
      expect_count(2, 2);
      need(0, is_reg(0), "a register");
      b64_reg(1, "state");
      break;
  }
  for (std::size_t k = 0; k < ins_.num_ops; ++k)
    if (ins_.ops[k].kind == OperandKind::Memory && ins_.ops[k].sym == kNone &&
        ins_.ops[k].reg == kNone)
      malformed(fmt::format("'{}': the address must name a register or a symbol", text));
  return ins_;
}

}  // namespace smemsim::ptx::decoding

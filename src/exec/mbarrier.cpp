// mbarrier (issue 27; PTX ISA "mbarrier"): a split barrier, an 8-byte object in shared memory that
// counts arrivals per phase. Ours holds the pending arrivals (bits 0-19), the expected arrivals
// (20-39), the phase number (40-62) and an "initialized" bit (63); the state token an arrive
// returns is the phase it arrived in (bits 40-62) and the pending count after it (bits 0-19).
// Lanes act one after the other, lowest first, as atomics do:
//   init      pending = expected = count (1 to 2^20 - 1), phase 0
//   arrive    pending -= count (1 by default); at 0 the phase completes: phase + 1, pending =
//             expected; .noComplete must not complete it; arrive_drop also lowers `expected`
//   test_wait / try_wait   true when the phase named by the token (or, .parity, by its parity)
//             has completed; try_wait's "potentially blocking" wait returns at once here (its time
//             limit is system-dependent: a loop around it is how every kernel uses it); the cycle
//             model times the suspension (Executor::retry_wait, timing/sm.cpp)
//   cp.async.mbarrier.arrive   the warp's cp.async copies land now (a copy may complete at any
//             time after its issue); .noinc arrives, without it the count is unchanged (PTX: it
//             is incremented, then the copies' completion arrives)
//   expect_tx / complete_tx (issue 46)   raise / lower the phase's transaction count (bytes);
//             arrive.expect_tx raises it, then arrives. A phase completes when its pending
//             arrivals and its transaction count are both 0: the arrival or the complete_tx that
//             makes them so completes it. The count lives beside the object (Cta::mbar_tx), in
//             -(2^20 - 1) .. 2^20 - 1 (PTX ISA); a bulk copy's complete_tx may come before the
//             expect_tx it answers.
// Undefined uses are errors naming the thread and line: an object not initialized (or
// invalidated), a count out of range, an arrival past the pending count.
#include <fmt/format.h>

#include <cstring>

#include <stdexcept>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

constexpr std::uint64_t kCountMask = (std::uint64_t{1} << 20) - 1;
constexpr std::uint64_t kPhaseMask = (std::uint64_t{1} << 23) - 1;
constexpr std::uint64_t kValid = std::uint64_t{1} << 63;

struct Mbar {
  std::uint64_t pending, expected, phase;
  bool valid;
  static Mbar load(const std::uint8_t* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, 8);
    return {v & kCountMask, (v >> 20) & kCountMask, (v >> 40) & kPhaseMask, (v & kValid) != 0};
  }
  void store(std::uint8_t* p) const {
    const std::uint64_t v =
        pending | (expected << 20) | ((phase & kPhaseMask) << 40) | (valid ? kValid : 0);
    std::memcpy(p, &v, 8);
  }
  std::uint64_t token() const { return ((phase & kPhaseMask) << 40) | pending; }
};

constexpr std::int64_t kTxLimit = (std::int64_t{1} << 20) - 1;

std::int32_t& tx_count(Cta& cta, std::uint32_t at) {
  for (auto& [off, n] : cta.mbar_tx)
    if (off == at) return n;
  cta.mbar_tx.emplace_back(at, 0);
  return cta.mbar_tx.back().second;
}

// Adds `delta` to the transaction count of the object at `at`; false when it leaves the range.
bool add_tx(Cta& cta, std::uint32_t at, std::int64_t delta) {
  std::int32_t& n = tx_count(cta, at);
  const std::int64_t v = std::int64_t(n) + delta;
  if (v < -kTxLimit || v > kTxLimit) return false;
  n = static_cast<std::int32_t>(v);
  return true;
}

// The CTA whose shared memory holds `p`: `cta`'s own, or a partner's of its cluster (an address
// through mapa, .shared::cluster; lane_pointer found it in one of them).
Cta& owner_of(Cta& cta, const std::uint8_t* p) {
  const auto in = [p](const Cta& c) {
    return p >= c.shared.data() && p < c.shared.data() + c.shared.size();
  };
  if (in(cta) || !cta.cl) return cta;
  for (Cta* c : cta.cl->ctas)
    if (c && in(*c)) return *c;
  return cta;
}

// The phase is complete when nothing is pending and no transaction is outstanding.
void maybe_complete(Cta& cta, std::uint32_t at, Mbar& b) {
  if (b.pending != 0 || tx_count(cta, at) != 0) return;
  ++b.phase;
  b.pending = b.expected;
}

}  // namespace

void mbarrier_complete_tx(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int l, std::uint32_t at,
                          std::int64_t bytes) {
  if (std::uint64_t(at) + 8 > cta.shared.size() || at % 8)
    im.fail(cta, w, l, pc,
            fmt::format("the bulk copy's mbarrier at shared offset {} is not an 8-byte object in "
                        "shared memory",
                        at));
  std::uint8_t* p = cta.shared.data() + at;
  Mbar b = Mbar::load(p);
  if (!b.valid)
    im.fail(cta, w, l, pc,
            fmt::format("the bulk copy's mbarrier at shared offset {} is not initialized "
                        "(mbarrier.init)",
                        at));
  if (!add_tx(cta, at, -bytes))
    im.fail(cta, w, l, pc,
            fmt::format("the transaction count of the mbarrier at shared offset {} leaves -(2^20 "
                        "- 1) .. 2^20 - 1 (a copy of {} bytes)",
                        at, bytes));
  maybe_complete(cta, at, b);
  b.store(p);
  ++im.mbar_epoch;
}

bool retry_mbar_wait(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  if (ins.op != ptx::Opcode::Mbarrier || ptx::MbarOp(ins.comp) != ptx::MbarOp::TryWait)
    throw std::logic_error("retry_wait: not an mbarrier.try_wait");
  bool all = true;
  LaneMask shared = 0;
  each_lane(m, [&](int l) {
    // The object passed its checks when the try_wait issued, and nothing moves it since.
    const std::uint8_t* p = lane_pointer(im, cta, w, pc, l, ins.space,
                                         operand_address(im, w, ins.ops[1], l), 8, false, shared);
    const Mbar b = Mbar::load(p);
    const std::uint64_t s = im.row(w, x.row[2])[l];
    const bool done =
        ins.has(ptx::kParity) ? (s & 1) != (b.phase & 1) : ((s >> 40) & kPhaseMask) != b.phase;
    im.row(w, x.row[0])[l] = done ? 1 : 0;
    all &= done;
  });
  return all;
}

bool exec_mbarrier(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const auto kind = ptx::MbarOp(ins.comp);
  if (ins.op == ptx::Opcode::Nanosleep) return false;
  if (kind == ptx::MbarOp::PendingCount) {
    const std::uint64_t* s = im.row(w, x.row[1]);
    std::uint64_t* d = im.row(w, x.row[0]);
    each_lane(m, [&](int l) { d[l] = s[l] & kCountMask; });
    return false;
  }
  std::uint8_t* ptr[kMaxLanes];
  LaneMask shared = 0;
  const bool write = kind != ptx::MbarOp::TestWait && kind != ptx::MbarOp::TryWait;
  const std::size_t mem = kind == ptx::MbarOp::Arrive || kind == ptx::MbarOp::ArriveDrop ||
                                  kind == ptx::MbarOp::ArriveExpectTx ||
                                  kind == ptx::MbarOp::TestWait || kind == ptx::MbarOp::TryWait
                              ? 1
                              : 0;
  each_lane(m, [&](int l) {
    ptr[l] = lane_pointer(im, cta, w, pc, l, ins.space, operand_address(im, w, ins.ops[mem], l), 8,
                          write, shared);
  });
  if (shared != m) {
    const int l = std::countr_zero(m & ~shared);
    im.fail(cta, w, l, pc,
            fmt::format("the mbarrier object at address {:#x} is not in shared memory (an mbarrier "
                        "lives in shared memory)",
                        operand_address(im, w, ins.ops[mem], l)));
  }
  emit_shared(im, w, cta, pc, write ? Op::Atomic : Op::Load, m, 1);
  auto value = [&](std::size_t i, int l) { return im.row(w, x.row[i])[l]; };
  auto where = [&](int l) { return fmt::format("the mbarrier at shared offset {}", im.addr[l]); };
  bool waiting = false;
  if (kind == ptx::MbarOp::CpAsyncArrive) land_copies(im, cta, w, 0, true);
  each_lane(m, [&](int l) {
    Mbar b = Mbar::load(ptr[l]);
    if (kind == ptx::MbarOp::Init) {
      const std::uint64_t n = value(1, l) & 0xffffffffu;
      if (n < 1 || n > kCountMask)
        im.fail(cta, w, l, pc,
                fmt::format("mbarrier.init count {} is outside 1 to {}", n, kCountMask));
      Mbar{n, n, 0, true}.store(ptr[l]);
      Cta& own = owner_of(cta, ptr[l]);
      tx_count(own, std::uint32_t(ptr[l] - own.shared.data())) = 0;
      ++im.mbar_epoch;
      return;
    }
    if (!b.valid)
      im.fail(cta, w, l, pc, fmt::format("{} is not initialized (mbarrier.init)", where(l)));
    switch (kind) {
      case ptx::MbarOp::Inval:
        b.valid = false;
        break;
      case ptx::MbarOp::TestWait:
      case ptx::MbarOp::TryWait: {
        const std::uint64_t s = value(2, l);
        const bool done =
            ins.has(ptx::kParity) ? (s & 1) != (b.phase & 1) : ((s >> 40) & kPhaseMask) != b.phase;
        im.row(w, x.row[0])[l] = done ? 1 : 0;
        waiting |= !done;
        return;
      }
      case ptx::MbarOp::ExpectTx:
      case ptx::MbarOp::CompleteTx: {
        Cta& own = owner_of(cta, ptr[l]);
        const std::uint32_t at = std::uint32_t(ptr[l] - own.shared.data());
        const std::int64_t n = std::int64_t(value(1, l) & 0xffffffffu);
        if (!add_tx(own, at, kind == ptx::MbarOp::ExpectTx ? n : -n))
          im.fail(
              cta, w, l, pc,
              fmt::format("the transaction count of {} leaves -(2^20 - 1) .. 2^20 - 1", where(l)));
        if (kind == ptx::MbarOp::CompleteTx) maybe_complete(own, at, b);
        break;
      }
      default: {  // arrivals
        if (kind == ptx::MbarOp::CpAsyncArrive && !ins.has(ptx::kNoComplete)) return;
        Cta& own = owner_of(cta, ptr[l]);
        const std::uint32_t at = std::uint32_t(ptr[l] - own.shared.data());
        if (kind == ptx::MbarOp::ArriveExpectTx &&
            !add_tx(own, at, std::int64_t(value(2, l) & 0xffffffffu)))
          im.fail(
              cta, w, l, pc,
              fmt::format("the transaction count of {} leaves -(2^20 - 1) .. 2^20 - 1", where(l)));
        const bool counted = ins.num_ops == 3 && kind != ptx::MbarOp::CpAsyncArrive &&
                             kind != ptx::MbarOp::ArriveExpectTx;
        const std::uint64_t n = counted ? value(2, l) & 0xffffffffu : 1;
        if (n < 1 || n > b.pending)
          im.fail(cta, w, l, pc,
                  fmt::format("an arrival count of {} at {}, whose phase awaits {}", n, where(l),
                              b.pending));
        if (ins.has(ptx::kNoComplete) && kind != ptx::MbarOp::CpAsyncArrive && n == b.pending)
          im.fail(cta, w, l, pc,
                  fmt::format(".noComplete would complete the phase of {} ({} pending)", where(l),
                              b.pending));
        if (kind == ptx::MbarOp::ArriveDrop) {
          if (n > b.expected)
            im.fail(
                cta, w, l, pc,
                fmt::format("arrive_drop of {} at {}, which expects {}", n, where(l), b.expected));
          b.expected -= n;
        }
        b.pending -= n;
        const std::uint64_t token = b.token();
        maybe_complete(own, at, b);
        if (mem == 1 && ins.ops[0].kind == ptx::OperandKind::Reg) im.row(w, x.row[0])[l] = token;
        break;
      }
    }
    b.store(ptr[l]);
    ++im.mbar_epoch;
  });
  return waiting;
}

}  // namespace smemsim::exec::detail

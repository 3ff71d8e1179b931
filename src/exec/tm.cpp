// GPU-LocalTM in the SIMT executor (seed 003 §3, docs/tm.md): TX.Begin and TX.Commit, lanes held
// back by the transaction conflict mask, register checkpoints and the serialization modes. The
// shadow memory and conflict detection are tm::CtaTm's (src/tm/).
//
// A warp's reconvergence stack carries the transaction: entry tx_outer is where it continues after
// TX.Commit, with every lane that entered. The first attempt runs in that entry (and in the
// entries divergent branches push above it); when TX.Commit finds TCM != 0, a retry entry at
// TX.Begin holding the TCM lanes is pushed above tx_outer and later attempts run there. A lane
// that conflicts leaves the masks of the attempt's entries (it is "in TCM": EXEC & ~TCM executes,
// 003 §3.1) and rejoins at the retry.
#include <fmt/format.h>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec::detail {
namespace {

// Removes `lanes` from the attempt's stack entries.
void hold_back(Warp& w, LaneMask lanes) {
  for (std::size_t i = w.tx_base; i < w.stack.size(); ++i) w.stack[i].mask &= ~lanes;
}

// Only the rows the attempt may have written (Impl::tx_rows); the others hold their checkpoint.
void restore_registers(const Impl& im, Warp& w, LaneMask lanes) {
  for (const std::uint32_t r : im.tx_rows) {
    std::uint64_t* row = w.regs + std::size_t(r) * im.lanes;
    const std::uint64_t* saved = w.shadow_regs.data() + std::size_t(r) * im.lanes;
    each_lane(lanes, [&](int l) { row[l] = saved[l]; });
  }
}

}  // namespace

void Impl::tx_event(const Cta& cta, const Warp& w, TxEvent::Kind kind, std::uint32_t pc,
                    LaneMask exec, tm::Mode mode) const {
  if (!tx_observer) return;
  TxEvent e;
  e.kind = kind;
  e.warp = static_cast<std::uint32_t>(cta.linear * warps + w.index);
  e.ptx_line = pc < kernel.code.size() ? kernel.code[pc].ptx_line : 0;
  e.exec = exec;
  e.tcm = w.tx.tcm;
  e.tcm_old = w.tx.tcm_old;
  e.mode = mode;
  tx_observer(e);
}

void Impl::tx_begin(Cta& cta, Warp& w, std::uint32_t pc, IssueResult& r) {
  StackEntry& top = w.stack.back();
  const bool retry = w.tx.retrying;
  const LaneMask path = top.mask;
  if (!retry) {
    w.tx_outer = w.tx_base = static_cast<std::uint32_t>(w.stack.size() - 1);
    w.tx_begin = pc;
    // Shadow registers (003 §3.2): the backup is taken at TX.Begin, in one cycle.
    w.shadow_regs.assign(w.regs, w.regs + std::size_t(file_rows) * lanes);
    cta.tm->set_site(&tm_sites[pc]);
    cta.tm->bump(&tm::TmStats::transactions);
  } else {
    restore_registers(*this, w, path);
  }
  tm::CtaTm& ct = *cta.tm;
  ct.set_site(&tm_sites[w.tx_begin]);
  const LaneMask run = w.tx.begin(path);
  w.tx.depth = 1;
  ct.bump(&tm::TmStats::attempts);
  ct.bump(&tm::TmStats::lane_attempts, std::uint64_t(std::popcount(run)));
  if (w.tx.mode == tm::Mode::WavefrontSerial) ct.bump(&tm::TmStats::wf_serial_attempts);
  std::uint32_t cycles = cta.tm->perfect() ? 0 : arch.tm.begin_cycles;
  if (w.tx.mode == tm::Mode::WorkgroupSerial) {
    ct.bump(&tm::TmStats::wg_serial_attempts);
    // "Transactions executing in other wavefronts are aborted and stalled at the TX.Begin
    // instruction until the current wavefront finishes its transaction" (003 §3.1). Clearing their
    // records costs the most occupied bank's entries (003 §4.2).
    if (!cta.tm->perfect()) cycles += cta.tm->busiest_bank_entries() * arch.tm.entry_cycles;
    cta.wg_owner = static_cast<int>(w.index);
    for (Warp& o : cta.warps) {
      if (&o == &w || o.tx.depth == 0) continue;
      const LaneMask lanes = o.stack[o.tx_base].mask;
      ct.set_site(&tm_sites[o.tx_begin]);
      ct.abort(first_thread(o), lanes, cta.shared.data());
      o.tx.tcm |= lanes;
      hold_back(o, lanes);
      tx_end_attempt(cta, o, kNoRow);
      tm_moved = true;
    }
  }
  top.mask = run;  // the lanes TCM holds back wait for a later attempt
  ++top.pc;
  r.tm_cycles += cycles;
  tx_event(cta, w, TxEvent::Kind::Begin, pc, path, w.tx.mode);
}

void Impl::tx_commit(Cta& cta, Warp& w, std::uint32_t pc, IssueResult& r) {
  if (w.stack.size() - 1 != w.tx_base)
    fail(cta, w, std::countr_zero(w.stack.back().mask), pc,
         "TX.Commit on a divergent path of its transaction (the warp's lanes must reach TX.Commit "
         "together: put TX_COMMIT where every path of the transaction has rejoined)");
  cta.tm->set_site(&tm_sites[w.tx_begin]);
  r.tm_cycles += cta.tm->commit(first_thread(w), w.stack.back().mask);
  tx_end_attempt(cta, w, pc);
}

bool Impl::tx_conflicts(Cta& cta, Warp& w, std::uint32_t pc, LaneMask conflicted) {
  const LaneMask path = w.stack.back().mask;
  w.tx.tcm |= conflicted;
  hold_back(w, conflicted);
  tx_event(cta, w, TxEvent::Kind::Conflict, pc, path, w.tx.mode);
  if (w.stack[w.tx_base].mask != 0) return false;
  // Every lane of the attempt is in TCM: it ends here, as its TX.Commit would (no lane is left to
  // execute the instructions up to it).
  tx_end_attempt(cta, w, kNoRow);
  return true;
}

void Impl::tx_end_attempt(Cta& cta, Warp& w, std::uint32_t commit_pc) {
  const LaneMask committed = w.stack.back().mask;
  w.tx.depth = 0;
  const tm::Mode mode = w.tx.mode;
  const bool done = w.tx.commit();
  if (cta.wg_owner == static_cast<int>(w.index)) {  // the serialized attempt is over
    cta.wg_owner = -1;
    for (Warp& o : cta.warps)
      if (o.state == WarpState::TxWait) o.state = WarpState::Ready, tm_moved = true;
  }
  tx_event(cta, w, TxEvent::Kind::Commit, commit_pc, done ? committed : w.tx.tcm, mode);
  if (done) {
    // commit_pc is a real TX.Commit here: an attempt that ends early has lanes in TCM.
    if (w.tx_base != w.tx_outer) w.stack.pop_back();  // the retry entry
    StackEntry& e = w.stack[w.tx_outer];
    e.mask = w.tx.entry;
    e.pc = commit_pc + 1;
    return;
  }
  // Retry: "copying TCM into EXEC, clearing TCM and returning to the TX.Begin instruction"
  // (003 §3.1; TCM itself is cleared by the next TX.Begin, as in Table 1).
  w.stack.resize(w.tx_base + 1);
  if (w.tx_base == w.tx_outer) {
    w.stack[w.tx_outer].mask = w.tx.entry;  // its pc is set when the transaction commits
    w.stack.push_back({w.tx_begin, kNoRow, w.tx.tcm});
    w.tx_base = w.tx_outer + 1;
  } else {
    w.stack[w.tx_base] = {w.tx_begin, kNoRow, w.tx.tcm};
  }
}

}  // namespace smemsim::exec::detail

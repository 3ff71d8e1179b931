// The baseline in-order pipelines of seed 004 §3.1 (Fig. 4):
//
//   FE0..FE(F-1) -> EXE -> [unit stages] -> MEM0 -> MEM1..MEM(M-1) -> WB        unified (Fig. 4a)
//                                        \-> NONMEM0..NONMEM(M-1) -/         split (Fig. 4b)
//
// F = sm.frontend_stages, M = sm.mem_stages. EXE is one latch shared by every unit; a unit whose
// latency needs more EXE stages continues in its own run of stages (Fermi's 18-cycle ALU and
// 32-cycle LSU). In `unified` every instruction passes MEM0; in `split` only memory instructions
// do and the others take the NONMEM path of the same length. MEM0 is the shared-memory port: an
// access of P bank passes holds it P cycles when a pass follows the next cycle (replay cost 1, 004
// Table 3: one access per bank per cycle), or leaves between passes and comes back `replay` cycles
// later with priority (Fermi: 32 cycles per conflict level, seed 001 §2.1.2). One op writes back
// per cycle: returning global data first, then the older of the MEM and NONMEM heads.
//
// A latch advances when the latch ahead is free or is vacated in the same cycle, so a blocked stage
// stops everything behind it: Fig. 4a's stall (a 2-way conflict holds MEM0 a second cycle, the
// front end cannot issue, a writeback bubble follows) and Fig. 4b's writeback conflict come out of
// this structure (tests/timing_pipeline_test.cpp derives both cycle by cycle).
//
// With sm.mio_queue > 0 (Volta-Hopper) a shared access does not make its passes at MEM0: it goes
// into its sub-core's MIO queue there (mio.hpp), MEM0 is free again the next cycle, and its data
// comes back to the writeback port as global data does.
//
// `elastic` (004 §3.2, Figs. 5-6) is `split` with two queues and forwarding buses:
//
//   FE.. -> EXE -> [unit stages] -> PREMEM queue (N) -> MEM0 -> MEM1..MEM(M-1) -> WB
//                               \-> NONMEM queue (M) ---------------------------/
//                                \---------------------------------------------/  (EXE -> WB)
//
// The NONMEM path becomes a FIFO queue of M entries (Eq. 2) whose every entry, and a non-memory op
// leaving EXE, may write back: the writeback multiplexer, whose control is the latches' valid
// signals (§3.2.4), takes global data, else the MEM path's last stage, else the queue's oldest
// entry, else the op leaving EXE (our reading of Fig. 6's priorities, which the text does not
// list). A non-memory op therefore writes back as soon as the port is free, up to M cycles before
// the baseline's fixed path would let it, and fills the writeback bubbles a bank conflict leaves:
// ops of different warps commit out of order (§3.2.2). The PREMEM queue of N = ceil(warp.size /
// simd_width) - 1 entries (Eq. 3; sm.premem = none: 0) holds memory ops (a warp's later subwarps)
// while MEM0 is busy; the MEM0 multiplexer takes a replay, else the queue's oldest entry, else the
// op leaving EXE.
//
// sm.writeback_ports = P > 1 (Volta-Hopper: two result buses per sub-core) gives each sub-core
// P - 1 more paths of M stages beside MEM0 (or NONMEM): in a cycle where MEM0 has taken its op, up
// to P - 1 further non-memory ops leaving EXE take them, and up to P ops write back per cycle
// (global data, the MEM path, NONMEM, then these paths, each in that order). Two results that reach
// the end of their units in the same cycle (a 6-cycle HFMA2 and a 4-cycle IADD3 issued two cycles
// later) then both commit, where a single port delays the younger and everything behind it. P = 1
// is seed 004's machine exactly.
#include <algorithm>
#include <array>
#include <bit>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "timing/delay_line.hpp"
#include "timing/pipeline.hpp"
#include "util/names.hpp"

namespace smemsim::timing {
namespace {

constexpr int kNone = -1;

class InOrder final : public Pipeline {
 public:
  InOrder(const SmConfig& sm, std::uint32_t premem, PipelineHost& host, bool split, bool elastic)
      : h_(host),
        ops_(&host.ops()),
        split_(split || elastic),
        elastic_(elastic),
        fixed_(elastic && sm.nonmem_ready == "fixed"),
        shared_port_(sm.subcores > 1),
        mio_(sm.mio_queue > 0),
        f_(sm.frontend_stages),
        m_(sm.mem_stages),
        n_(premem),
        ports_(std::max<std::uint32_t>(1, sm.writeback_ports)) {
    fe_.reset(f_);
    for (std::size_t u = 0; u < kUnits; ++u) {
      const std::uint32_t e = host.exe_stages(static_cast<Unit>(u));
      has_tail_[u] = e > 1;
      unit_[u].reset(std::max<std::uint32_t>(1, e - 1));
    }
    tail_.reset(std::max<std::uint32_t>(1, m_ - 1));
    nonmem_.reset(m_);
    wide_.assign(ports_ - 1, DelayLine(m_));
    premem_.reset(std::max<std::uint32_t>(1, n_));
  }

  void advance(std::uint64_t now) override {
    wb_op_ = kNone;
    // Nothing inside and no global data to write back: nothing can move (a sub-core without
    // work).
    if (shared_port_ && empty() && !h_.global_return_ready(now)) return;
    mem0_refuse_ = Stall::FrontEnd;
    writeback(now);
    mem0_out(now);
    mem0_in(now);
    if (elastic_ && n_) premem_in(now);
    if (split_) nonmem_in(now);
    if (!wide_.empty()) wide_in(now);
    exe_out(now);
    exe_in(now);
  }

  bool can_issue() const override { return !fe_.full(); }
  Stall block_cause() const override { return fe_cause_; }
  void issue(std::uint32_t op, std::uint64_t now) override { fe_.push(op, now); }

  bool empty() const override {
    if (!fe_.empty() || exe0_ != kNone || mem0_ != kNone || !replay_.empty() || !tail_.empty() ||
        !nonmem_.empty() || !premem_.empty())
      return false;
    for (const DelayLine& l : wide_)
      if (!l.empty()) return false;
    return busy_units_ == 0;
  }

  std::uint64_t next_event(std::uint64_t now) const override {
    const std::uint64_t soon = now + 1;
    std::uint64_t t = ~std::uint64_t{0};
    auto at = [&](std::uint64_t c) { t = std::min(t, std::max(c, soon)); };
    auto line = [&](const DelayLine& l) {
      if (!l.empty()) at(l.head_exit());
    };
    line(fe_);
    each_busy_unit([&](std::size_t u) { line(unit_[u]); });
    line(tail_);
    line(nonmem_);
    line(premem_);
    for (const DelayLine& l : wide_) line(l);
    if (exe0_ != kNone) at(soon);
    if (mem0_ != kNone) at(pass_end_ + 1);
    for (const Replay& r : replay_) at(r.back);
    return t;
  }

  std::vector<std::string> stage_names() const override {
    std::vector<std::string> n;
    for (std::uint32_t k = 0; k < f_; ++k) n.push_back(fmt::format("FE{}", k));
    n.push_back("EXE");
    n.push_back("EXE+");
    if (elastic_)
      for (std::uint32_t k = 0; k < n_; ++k) n.push_back(fmt::format("PRE{}", k));
    n.push_back("MEM0");
    n.push_back("RPL");
    for (std::uint32_t k = 1; k < m_; ++k) n.push_back(fmt::format("MEM{}", k));
    if (split_)
      for (std::uint32_t k = 0; k < m_; ++k)
        n.push_back((elastic_ ? "NMQ" : "NM") + std::to_string(k));
    for (std::uint32_t p = 0; p + 1 < ports_; ++p)
      for (std::uint32_t k = 0; k < m_; ++k) n.push_back(fmt::format("WP{}.{}", p + 2, k));
    n.push_back("WB");
    return n;
  }

  void stages(std::uint64_t now, std::vector<StageCell>& cells) const override {
    cells.assign(stage_names().size(), StageCell{});
    std::size_t at = 0;
    fe_.each_stage(now, [&](std::uint32_t op, std::uint32_t s) { cell(cells[at + s], op); });
    at += f_;
    if (exe0_ != kNone) cell(cells[at], std::uint32_t(exe0_));
    ++at;
    // EXE+: the unit-stage op closest to leaving (the oldest head).
    int oldest = kNone;
    each_busy_unit([&](std::size_t u) { oldest = older(oldest, int(unit_[u].head())); });
    if (oldest != kNone) cell(cells[at], std::uint32_t(oldest));
    ++at;
    if (elastic_) {
      premem_.each([&](std::uint32_t op, std::uint32_t k) { cell(cells[at + k], op); });
      at += n_;
    }
    if (mem0_ != kNone) cell(cells[at], std::uint32_t(mem0_));
    ++at;
    if (!replay_.empty()) cell(cells[at], replay_.front().op);
    ++at;
    if (m_ > 1)
      tail_.each_stage(now, [&](std::uint32_t op, std::uint32_t s) { cell(cells[at + s], op); });
    at += m_ - 1;
    if (elastic_) {
      nonmem_.each([&](std::uint32_t op, std::uint32_t k) { cell(cells[at + k], op); });
      at += m_;
    } else if (split_) {
      nonmem_.each_stage(now, [&](std::uint32_t op, std::uint32_t s) { cell(cells[at + s], op); });
      at += m_;
    }
    for (const DelayLine& l : wide_) {
      l.each_stage(now, [&](std::uint32_t op, std::uint32_t s) { cell(cells[at + s], op); });
      at += m_;
    }
    if (wb_op_ != kNone) cell(cells[at], std::uint32_t(wb_op_));
  }

 private:
  struct Replay {
    std::uint32_t op;
    std::uint64_t back;  // cycle it re-enters MEM0
  };

  void cell(StageCell& c, std::uint32_t id) const {
    Op& o = op_(id);
    c.warp = o.warp;
    c.sub = o.sub;
    c.index = o.inflight;  // resolved to an instruction by the SM's view (Sm::stage_cells)
  }
  int older(int a, int b) const {
    if (a == kNone) return b;
    if (b == kNone) return a;
    return op_(std::uint32_t(a)).seq <= op_(std::uint32_t(b)).seq ? a : b;
  }
  // Whether the op in MEM0 has finished its passes in an earlier cycle and may move on.
  bool mem0_finished(std::uint64_t now) const {
    if (mem0_ == kNone || now <= pass_end_) return false;
    const Op& o = op_(std::uint32_t(mem0_));
    return o.mem != MemWork::Global && !o.offloaded && o.passes == 0 && o.passes2 == 0 &&
           o.tm_passes == 0;
  }
  // Path of an op leaving EXE: MEM0 unless a split pipeline sends a non-memory op to NONMEM.
  bool to_mem(const Op& o) const { return !split_ || o.memory; }

  // Writes `c` back from the MEM path's last stage.
  void mem_writeback(int c, std::uint64_t now) {
    if (m_ > 1)
      tail_.pop();
    else
      mem0_ = kNone;
    h_.writeback(std::uint32_t(c), now);
    wb_op_ = c;
  }
  // The MEM path's candidate lost the writeback port.
  void mem_lost() {
    tail_cause_ = Stall::Writeback;
    if (m_ == 1) mem0_cause_ = Stall::Writeback;
    h_.writeback_conflict();
  }

  // The elastic writeback multiplexer (Fig. 6): global data, the MEM path, the NONMEM queue's
  // oldest entry, the non-memory op leaving EXE.
  // `left`: the ports global data left free.
  void writeback_elastic(std::uint64_t now, std::uint32_t left, int mem_c) {
    if (mem_c != kNone) {
      if (left == 0) return mem_lost();
      mem_writeback(mem_c, now);
      --left;
    }
    for (bool forwarded = false; left > 0; --left) {
      int c = kNone;
      if (nonmem_.head_ready(now)) {
        c = int(nonmem_.pop());
      } else if (!fixed_ && !forwarded) {
        c = oldest_candidate(now, false);  // forwarded from EXE
        if (c != kNone) take_candidate(c);
        forwarded = true;
      }
      if (c == kNone) break;
      h_.writeback(std::uint32_t(c), now);
      wb_op_ = c;
    }
    wide_writeback(now, left);
  }

  // The extra paths' heads (sm.writeback_ports), oldest first, while ports are left.
  void wide_writeback(std::uint64_t now, std::uint32_t left) {
    for (;;) {
      DelayLine* best = nullptr;
      for (DelayLine& l : wide_)
        if (l.head_ready(now) && (!best || op_(l.head()).seq < op_(best->head()).seq)) best = &l;
      if (!best) return;
      if (left == 0) {
        for (DelayLine& l : wide_)
          if (l.head_ready(now)) h_.writeback_conflict();
        return;
      }
      const std::uint32_t c = best->pop();
      h_.writeback(c, now);
      wb_op_ = int(c);
      --left;
    }
  }

  // Non-memory ops leaving EXE that MEM0 and NONMEM did not take enter the extra paths.
  void wide_in(std::uint64_t now) {
    for (DelayLine& l : wide_) {
      if (l.full()) continue;
      const int c = oldest_where(now, [](const Op& o) { return !o.memory; });
      if (c == kNone) return;
      take_candidate(c);
      l.push(std::uint32_t(c), now);
    }
  }

  void writeback(std::uint64_t now) {
    std::uint32_t left = ports_;
    if (h_.global_return_ready(now)) {
      const std::uint32_t id = h_.global_return_pop();
      h_.writeback(id, now);
      wb_op_ = int(id);
      --left;
    }
    int mem_c = kNone;
    if (m_ > 1) {
      if (tail_.head_ready(now)) mem_c = int(tail_.head());
    } else if (mem0_finished(now)) {
      mem_c = mem0_;
    }
    if (elastic_) return writeback_elastic(now, left, mem_c);
    const int non_c = split_ && nonmem_.head_ready(now) ? int(nonmem_.head()) : kNone;
    const int first = older(mem_c, non_c);
    const int second = first == mem_c ? non_c : mem_c;
    for (const int c : {first, second}) {
      if (c == kNone) continue;
      const bool from_mem = c == mem_c;
      if (left == 0) {
        if (from_mem) {
          mem_lost();
        } else {
          nonmem_cause_ = Stall::Writeback;
          h_.writeback_conflict();
        }
        continue;
      }
      --left;
      if (from_mem) {
        mem_writeback(c, now);
      } else {
        nonmem_.pop();
        h_.writeback(std::uint32_t(c), now);
        wb_op_ = c;
      }
    }
    if (!wide_.empty()) wide_writeback(now, left);
  }

  // What a further pass of `o` at MEM0 makes the issue stage wait for: a pass beyond the access's
  // phases is a bank conflict's; one of its own phases (the four of an ldmatrix.x4 or of a 16-byte
  // access) a structural hazard, as Nsight Compute separates excessive from ideal wavefronts.
  static Stall pass_stall(const Op& o) {
    const int done = int(o.total) - int(o.passes) - int(o.passes2);
    return done <= int(o.phases) ? Stall::FrontEnd : Stall::BankConflict;
  }

  // One bank pass of the op in MEM0 in cycle `now`.
  void pass(std::uint64_t now) {
    Op& o = op_(std::uint32_t(mem0_));
    tm_pass_ = false;
    if (o.passes) {
      --o.passes;
    } else if (o.passes2) {
      --o.passes2;
    } else if (o.tm_passes) {
      --o.tm_passes;
      tm_pass_ = true;
    }
    pass_end_ = now;
    const bool more = o.passes || o.passes2 || o.tm_passes;
    // Back-to-back passes keep the SM's shared-memory port (sub-cores).
    if (shared_port_) h_.port_hold(more && (o.passes ? o.replay : o.passes2 ? o.replay2 : 1) <= 1);
    if (!more) h_.mem0_done(std::uint32_t(mem0_), now);
  }
  // Whether a pass of op `id` at MEM0 gets the SM's shared-memory port this cycle (a non-memory
  // op in the unified pipeline needs none).
  bool port(std::uint32_t id, std::uint64_t now) {
    if (!shared_port_ || op_(id).mem == MemWork::None) return true;
    if (h_.port_take(now)) return true;
    mem0_refuse_ = Stall::MioThrottle;
    return false;
  }

  void mem0_out(std::uint64_t now) {
    extra_pass_ = false;
    if (mem0_ == kNone || now <= pass_end_) return;
    Op& o = op_(std::uint32_t(mem0_));
    if (o.mem == MemWork::Global || o.offloaded) {  // the memory unit or the MIO took it at MEM0
      mem0_ = kNone;
    } else if (o.passes || o.passes2 || o.tm_passes) {
      const std::uint32_t r = o.passes ? o.replay : o.passes2 ? o.replay2 : 1;
      if (r <= 1) {
        // The next pass in the next cycle: MEM0 stays busy (the port is still this op's).
        if (port(std::uint32_t(mem0_), now)) {
          pass(now);
          extra_pass_ = true;
        } else {
          mem0_cause_ = Stall::MioThrottle;
        }
      } else {
        replay_.push_back({std::uint32_t(mem0_), now + r - 1});
        mem0_ = kNone;
      }
    } else if (m_ > 1) {
      if (!tail_.full()) {
        tail_.push(std::uint32_t(mem0_), now);
        mem0_ = kNone;
      } else {
        mem0_cause_ = tail_cause_;
      }
    }
  }

  void mem0_in(std::uint64_t now) {
    if (mem0_ != kNone) {
      mem0_refuse_ = !extra_pass_ ? mem0_cause_
                     : tm_pass_   ? Stall::TmOverhead
                                  : pass_stall(op_(std::uint32_t(mem0_)));
      return;
    }
    // A replayed access re-enters first.
    auto r = std::min_element(replay_.begin(), replay_.end(),
                              [](const Replay& a, const Replay& b) { return a.back < b.back; });
    if (r != replay_.end() && r->back <= now) {
      if (!port(r->op, now)) return;
      mem0_ = int(r->op);
      replay_.erase(r);
      pass(now);
      mem0_refuse_ = pass_stall(op_(std::uint32_t(mem0_)));
      return;
    }
    // Then the PREMEM queue's oldest entry, then the op leaving EXE (the (N+1)-to-1 multiplexer).
    const bool queued = elastic_ && premem_.head_ready(now);
    const int c = queued ? int(premem_.head()) : oldest_candidate(now, true);
    if (c == kNone) return;
    Op& o = op_(std::uint32_t(c));
    if (mio_ && mio_work(o.mem) && h_.mio_send(std::uint32_t(c), now)) {
      queued ? void(premem_.pop()) : take_candidate(c);  // into the MIO queue: MEM0 for a cycle
      mem0_ = c;
      pass_end_ = now;
      return;
    }
    if (!port(std::uint32_t(c), now)) return;
    if (o.mem == MemWork::Global) {
      if (!h_.global_send(std::uint32_t(c), now)) {  // the memory queue is full
        mem0_refuse_ = Stall::LgThrottle;
        return;
      }
      queued ? void(premem_.pop()) : take_candidate(c);
      mem0_ = c;
      pass_end_ = now;
      return;
    }
    queued ? void(premem_.pop()) : take_candidate(c);
    mem0_ = c;
    h_.mem0_plan(std::uint32_t(c), now);
    pass(now);
  }

  // A memory op leaving EXE that MEM0 did not take waits in the PREMEM queue.
  void premem_in(std::uint64_t now) {
    premem_refuse_ = mem0_refuse_;
    const int c = oldest_candidate(now, true);
    if (c == kNone || premem_.full()) return;
    take_candidate(c);
    premem_.push_ready(std::uint32_t(c), now + 1);
  }

  void nonmem_in(std::uint64_t now) {
    const int c = oldest_candidate(now, false);
    if (c == kNone) return;
    if (nonmem_.full()) {
      nonmem_refuse_ = elastic_ ? Stall::Writeback : nonmem_cause_;
      return;
    }
    take_candidate(c);
    if (elastic_)  // sm.nonmem_ready = fixed: not before the split pipeline's NONMEM path
      nonmem_.push_ready(std::uint32_t(c), now + (fixed_ ? m_ : 1));
    else
      nonmem_.push(std::uint32_t(c), now);
  }

  // The oldest op ready to leave EXE (the EXE latch of a one-stage unit, or a unit's last stage)
  // for MEM0 (to_mem0) or NONMEM; the others stay and record why.
  int oldest_candidate(std::uint64_t now, bool to_mem0) {
    return oldest_where(now, [&](const Op& o) { return to_mem(o) == to_mem0; });
  }
  // The oldest op ready to leave EXE for which `want(op)` holds.
  template <typename Want>
  int oldest_where(std::uint64_t now, Want&& want) const {
    int best = kNone;
    if (exe0_ != kNone && leaves_exe0(op_(std::uint32_t(exe0_))) && want(op_(std::uint32_t(exe0_))))
      best = exe0_;
    each_busy_unit([&](std::size_t u) {
      if (unit_[u].head_ready(now) && want(op_(unit_[u].head())))
        best = older(best, int(unit_[u].head()));
    });
    return best;
  }
  // An op that leaves from the EXE latch itself: its unit has no further stages and it has no
  // extra cycles (a tensor op's shape) to spend in them.
  bool leaves_exe0(const Op& o) const { return !has_tail_[std::size_t(o.unit)] && !o.extra; }
  void take_candidate(int c) {
    if (c == exe0_) {
      exe0_ = kNone;
      return;
    }
    const std::size_t u = std::size_t(op_(std::uint32_t(c)).unit);
    unit_[u].pop();
    if (unit_[u].empty()) busy_units_ &= ~(1u << u);
  }

  // Why an op that wanted MEM0 or NONMEM this cycle did not get it.
  Stall refusal(const Op& o) const {
    if (!to_mem(o)) return nonmem_refuse_;
    return elastic_ && n_ ? premem_refuse_ : mem0_refuse_;
  }

  void exe_out(std::uint64_t now) {
    each_busy_unit([&](std::size_t u) {
      if (unit_[u].full()) unit_cause_[u] = refusal(op_(unit_[u].head()));
    });
    if (exe0_ == kNone) return;
    const Op& o = op_(std::uint32_t(exe0_));
    const std::size_t u = std::size_t(o.unit);
    if (leaves_exe0(o)) {
      exe0_cause_ = refusal(o);  // it wanted MEM0/NONMEM and did not get it
      return;
    }
    if (unit_[u].full()) {
      exe0_cause_ = unit_cause_[u];
      return;
    }
    if (o.extra)  // a tensor op whose shape takes longer than the unit's latency
      unit_[u].push_ready(std::uint32_t(exe0_),
                          now + (has_tail_[u] ? unit_[u].stages() : 0) + o.extra);
    else
      unit_[u].push(std::uint32_t(exe0_), now);
    busy_units_ |= 1u << u;
    exe0_ = kNone;
  }

  void exe_in(std::uint64_t now) {
    if (exe0_ == kNone && fe_.head_ready(now)) exe0_ = int(fe_.pop());
    if (fe_.full()) fe_cause_ = exe0_cause_;
  }

  // Calls f(u) for every unit whose own stages hold an op.
  template <typename F>
  void each_busy_unit(F&& f) const {
    for (std::uint32_t b = busy_units_; b; b &= b - 1) f(std::size_t(std::countr_zero(b)));
  }

  // The SM's ops, indexed by id (PipelineHost::ops: read directly, not through a virtual call).
  Op& op_(std::uint32_t id) const { return (*ops_)[id]; }

  PipelineHost& h_;
  std::vector<Op>* ops_;
  bool split_, elastic_, fixed_;
  bool shared_port_;  // sub-cores share the SM's shared-memory port (PipelineHost::port_take)
  bool mio_;          // shared accesses go to the MIO queues at MEM0 (sm.mio_queue > 0)
  std::uint32_t f_, m_, n_;  // n_: PREMEM entries (elastic)
  std::uint32_t ports_;      // sm.writeback_ports
  DelayLine fe_;
  int exe0_ = kNone;
  std::array<DelayLine, kUnits> unit_;
  std::array<bool, kUnits> has_tail_{};
  std::uint32_t busy_units_ = 0;  // bit u: unit_[u] is not empty
  int mem0_ = kNone;
  std::uint64_t pass_end_ = 0;
  bool extra_pass_ = false;
  bool tm_pass_ = false;  // the last pass was transactional work (Stall::TmOverhead)
  std::vector<Replay> replay_;
  DelayLine tail_;
  DelayLine nonmem_;  // split: the NONMEM stages; elastic: the NONMEM queue
  DelayLine premem_;
  std::vector<DelayLine> wide_;  // the paths of the writeback ports beyond the first
  int wb_op_ = kNone;
  // Why each blocking point last refused (propagated upstream to the issue slot).
  Stall mem0_refuse_ = Stall::FrontEnd, nonmem_refuse_ = Stall::FrontEnd;
  Stall premem_refuse_ = Stall::FrontEnd;
  Stall tail_cause_ = Stall::Writeback, nonmem_cause_ = Stall::Writeback;
  Stall mem0_cause_ = Stall::Writeback;
  Stall exe0_cause_ = Stall::FrontEnd, fe_cause_ = Stall::FrontEnd;
  std::array<Stall, kUnits> unit_cause_{};
};

}  // namespace

const std::vector<RegistryEntry>& pipelines() {
  static const std::vector<RegistryEntry> p = {
      {"unified",
       "in-order; every instruction passes MEM0, so a bank conflict stalls everything behind it",
       "seed 004 §3.1, Fig. 4a"},
      {"split",
       "in-order with separate MEM and NONMEM paths of equal length; a writeback conflict still "
       "stalls",
       "seed 004 §3.1, Fig. 4b"},
      {"elastic",
       "split with a NONMEM queue whose entries write back whenever the port is free, forwarding "
       "from EXE, and a PREMEM queue before MEM0: bank conflicts stall nothing within the safe "
       "distance",
       "seed 004 §3.2, Figs. 5-6, Eqs. 2-3"},
  };
  return p;
}

std::unique_ptr<Pipeline> make_pipeline(std::string_view name, const SmConfig& sm,
                                        std::uint32_t premem, PipelineHost& host) {
  if (name == "unified") return std::make_unique<InOrder>(sm, 0, host, false, false);
  if (name == "split") return std::make_unique<InOrder>(sm, 0, host, true, false);
  if (name == "elastic") return std::make_unique<InOrder>(sm, premem, host, true, true);
  throw InputError(fmt::format("arch key 'sm.pipeline': unknown pipeline '{}' (known: {})", name,
                               known_names(pipelines())));
}

}  // namespace smemsim::timing

// Executor::run(): the run-to-completion driver over issue(), with the step limit and deadlock
// detection (docs/exec.md).
#include <algorithm>

#include <fmt/format.h>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"
#include "smemsim/interrupt.hpp"

namespace smemsim::exec {

using namespace detail;
using ptx::Opcode;

namespace {

// "warp 1 of block (0,0,0) at k.ptx:12 (k.cu:7) `bra LOOP;`, waiting at a barrier" lines.
// `phase`: the warps wait for mbarrier phases (a warp whose test or try failed stopped just past
// it: the wait is named, not the instruction after it).
std::string describe_warps(const Impl& im, const Cta& cta, bool phase = false) {
  std::string out;
  int shown = 0;
  for (std::size_t i = 0; i < cta.warps.size(); ++i) {
    const Warp& w = cta.warps[i];
    if (w.state == WarpState::Done || w.stack.empty()) continue;
    if (++shown > 8) {
      out += "; ...";
      break;
    }
    std::uint32_t pc = w.stack.back().pc;
    // A warp at a barrier has its pc past the bar.sync: name the barrier.
    const bool at_bar = w.state == WarpState::AtBarrier;
    if (at_bar && pc > 0 && pc <= im.kernel.code.size() && im.kernel.code[pc - 1].op == Opcode::Bar)
      --pc;
    if (phase && pc > 0 && pc <= im.kernel.code.size() &&
        im.kernel.code[pc - 1].op == Opcode::Mbarrier) {
      const auto kind = ptx::MbarOp(im.kernel.code[pc - 1].comp);
      if (kind == ptx::MbarOp::TestWait || kind == ptx::MbarOp::TryWait) --pc;
    }
    out += fmt::format("{}warp {} of block ({},{},{}) {}{}", shown > 1 ? "; " : "", i, cta.id.x,
                       cta.id.y, cta.id.z, im.where(pc),
                       at_bar ? ", waiting at " + describe_barrier(im, cta, w)
                       : w.state == WarpState::TxWait ? ", waiting for a serialized transaction"
                                                      : "");
  }
  return out;
}

// Every this many warp-instructions run() arms the running warp's spin check and redraws the
// progress line.
constexpr std::uint64_t kSpinArmSteps = std::uint64_t{1} << 20;
// And this many instructions into each turn of a warp (a warp that waits for another warp of its
// block in a loop, as cooperative groups' multi-warp tiles do, is found within one turn).
constexpr std::uint64_t kTurnArmSteps = 4096;

// What one warp may execute: max(2^27, --max-steps / 8). A loop that counts forever (its registers
// change on every pass, so the spin check cannot see it) ends here: 2^27 instructions are
// 7-8 s at run()'s rate on a laptop core, where the launch's 10^9 took 56 s (issue 48). The
// cycle model's default --max-cycles 10^8 already bounds a warp below it (one issue per cycle at
// most), so a kernel `sim` finishes at its defaults also finishes here; and a larger --max-steps
// raises it.
std::uint64_t warp_step_limit(std::uint64_t max_steps) {
  return std::max<std::uint64_t>(std::uint64_t{1} << 27, max_steps / 8);
}

}  // namespace

std::string Impl::where(std::uint32_t pc) const {
  if (pc >= kernel.code.size()) return "past the end of the kernel";
  const ptx::Instruction& ins = kernel.code[pc];
  const std::string cuda = cuda_location(module, ins);
  return fmt::format("at {}:{}{} `{}`", module.filename, ins.ptx_line,
                     cuda.empty() ? "" : " (" + cuda + ")", ptx::to_string(kernel, ins));
}

void Executor::run() {
  run_ctas(0, impl_->launch.grid.count());
}

void Executor::run_ctas(std::uint64_t first, std::uint64_t end,
                        const std::function<void(std::uint64_t)>& done) {
  Impl& im = *impl_;
  const std::uint64_t n = std::min(end, im.launch.grid.count());
  std::uint64_t steps = 0;
  const std::uint64_t warp_limit = warp_step_limit(im.max_steps);
  // A cluster's CTAs run together (issue 46): slot r holds the CTA of rank r; the CTAs of a
  // cluster are started together, their warps' turns taken in rank order.
  const Dim3 k = im.cluster;
  const std::uint32_t group = static_cast<std::uint32_t>(k.count());
  if (group > 1 && (first != 0 || n != im.launch.grid.count()))
    throw InputError(
        fmt::format("{}: a kernel with clusters runs its whole grid at once", im.module.filename));
  if (im.ctas.size() < group) im.ctas.resize(group);
  const Dim3& g = im.launch.grid;
  for (std::uint64_t c = first; c < n; c += group) {
    // Cluster c / group: its CTAs, rank r at x fastest within the cluster.
    const std::uint64_t cl = c / group;
    const Dim3 per{g.x / k.x, g.y / k.y, g.z / k.z};
    const std::uint64_t cx = cl % per.x, cy = (cl / per.x) % per.y, cz = cl / (per.x * per.y);
    for (std::uint32_t r = 0; r < group; ++r) {
      const std::uint64_t x = cx * k.x + r % k.x, y = cy * k.y + (r / k.x) % k.y,
                          z = cz * k.z + r / (k.x * k.y);
      start_cta(r, group == 1 ? c : x + g.x * (y + g.y * z));
    }
    const auto live = [&] {
      for (std::uint32_t r = 0; r < group; ++r)
        if (im.ctas[r].live_warps) return true;
      return false;
    };
    while (live()) {
      bool progressed = false, only_waits = true, any_wait = false;
      std::string spin;  // the first warp found spinning in this round
      const std::uint64_t epoch = im.mbar_epoch, writes = im.writes;
      // Warps in index order, each until it arrives at a barrier, finishes, waits for an mbarrier
      // phase others must complete, or spins (comes back to the same state with nothing written:
      // it waits for another warp, as a multi-warp tile of cooperative groups does): every barrier
      // phase runs its warps in index order, and a waiting warp's turn passes to the next.
      for (std::uint32_t rank = 0; rank < group; ++rank) {
        Cta& cta = im.ctas[rank];
        for (Warp& w : cta.warps) {
          bool waited = false, ran = false;
          // A warp that spun is checked again from where it stands: unless another warp has
          // written something, it is found spinning after one more time round its loop.
          if (w.state == WarpState::Ready && w.spinning) im.spin_arm(w);
          std::uint64_t turn = 0;
          while (w.state == WarpState::Ready) {
            progressed = ran = true;
            if (++steps > im.max_steps)
              throw InputError(fmt::format(
                  "{}: the kernel did not finish within {} warp-instructions (--max-steps); "
                  "unfinished: {}",
                  im.module.filename, im.max_steps, describe_warps(im, cta)));
            if (w.issued >= warp_limit) [[unlikely]]
              throw InputError(fmt::format(
                  "{}: the kernel did not finish: warp {} of block ({},{},{}) executed {} "
                  "instructions (a warp may execute max(2^27, --max-steps / 8)) and is {}: a loop "
                  "that never ends? (raise --max-steps for a longer kernel)",
                  im.module.filename, w.index, cta.id.x, cta.id.y, cta.id.z, w.issued,
                  im.where(w.stack.empty() ? kNoRow : w.stack.back().pc)));
            if (++turn == kTurnArmSteps) [[unlikely]]
              im.spin_arm(w);
            if (steps % kSpinArmSteps == 0) [[unlikely]] {
              poll_interrupt();
              im.spin_arm(w);
              if (im.progress) im.progress(c, n);
            }
            const IssueResult r = im.issue(cta, w);
            if (r.op == Opcode::Bar) break;
            if (r.waiting || w.spinning) {
              waited = true;
              if (w.spinning && spin.empty())
                spin = fmt::format("warp {} of block ({},{},{}) spins {}", w.index, cta.id.x,
                                   cta.id.y, cta.id.z, im.where(w.spin_stack.back().pc));
              break;
            }
          }
          only_waits &= waited || !ran;
          any_wait |= waited;
        }
      }
      // The CTA the messages below name: the first of the cluster with a live warp.
      const Cta* stuck = &im.ctas[0];
      for (std::uint32_t r = group; r-- > 0;)
        if (im.ctas[r].live_warps) stuck = &im.ctas[r];
      const Cta& cta = *stuck;
      // Every warp that ran only spun or waited for an mbarrier phase, and nothing arrived or was
      // written: none can get on.
      if (any_wait && only_waits && im.mbar_epoch == epoch && im.writes == writes && !spin.empty())
        throw InputError(fmt::format(
            "{}: the kernel never ends: {}: it came back there with the same registers and no "
            "memory written in between, and no other warp of its {} writes any (run executes "
            "one {} at a time, so a wait for another never ends here; sim interleaves them)",
            im.module.filename, spin, group > 1 ? "cluster" : "block",
            group > 1 ? "cluster" : "block"));
      if (any_wait && only_waits && im.mbar_epoch == epoch && im.writes == writes) {
        // Name every live warp of the cluster, and the cluster barrier where one waits there.
        std::string warps;
        bool at_cluster_barrier = false;
        for (std::uint32_t r = 0; r < group; ++r) {
          const Cta& c2 = im.ctas[r];
          if (!c2.live_warps) continue;
          for (const Warp& w : c2.warps)
            if (w.state != WarpState::Done && !w.stack.empty() &&
                w.stack.back().pc < im.kernel.code.size() &&
                im.kernel.code[w.stack.back().pc].op == Opcode::BarCluster)
              at_cluster_barrier = true;
          warps += (warps.empty() ? "" : "; ") + describe_warps(im, c2, true);
        }
        throw InputError(fmt::format(
            "{}: deadlock: every live warp of {} waits {} that cannot complete (nothing "
            "arrives): {}",
            im.module.filename,
            group > 1 ? fmt::format("the cluster of block ({},{},{})", cta.id.x, cta.id.y, cta.id.z)
                      : fmt::format("block ({},{},{})", cta.id.x, cta.id.y, cta.id.z),
            at_cluster_barrier ? "at the cluster barrier or for an mbarrier phase"
                               : "for an mbarrier phase",
            warps));
      }
      if (!progressed)
        throw InputError(fmt::format(
            "{}: deadlock: every live warp of block ({},{},{}) waits at a barrier that cannot "
            "open: {}",
            im.module.filename, cta.id.x, cta.id.y, cta.id.z, describe_warps(im, cta)));
    }
    for (std::uint32_t r = 0; r < group; ++r) {
      if (im.progress) im.progress(c + r + 1, n);
      if (done) done(group == 1 ? c : im.ctas[r].linear);
    }
  }
}

}  // namespace smemsim::exec

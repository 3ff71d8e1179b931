// Executor::run(): the run-to-completion driver over issue(), with the step limit and deadlock
// detection (docs/exec.md).
#include <fmt/format.h>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec {

using namespace detail;
using ptx::Opcode;

namespace {

// "warp 1 of block (0,0,0) at k.ptx:12 (k.cu:7) `bra LOOP;`, waiting at a barrier" lines.
std::string describe_warps(const Impl& im, const Cta& cta) {
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
  const bool spin_throws = im.spin_throws;
  im.spin_throws = true;
  for (std::uint64_t c = first; c < n; ++c) {
    start_cta(0, c);
    Cta& cta = im.ctas[0];
    while (cta.live_warps) {
      bool progressed = false, only_waits = true, any_wait = false;
      const std::uint64_t epoch = im.mbar_epoch, writes = im.writes;
      // Warps in index order, each until it arrives at a barrier, finishes, or waits for an
      // mbarrier phase others must complete: every barrier phase runs its warps in index order.
      for (Warp& w : cta.warps) {
        bool waited = false, ran = false;
        while (w.state == WarpState::Ready) {
          progressed = ran = true;
          if (++steps > im.max_steps)
            throw InputError(fmt::format(
                "{}: the kernel did not finish within {} warp-instructions (--max-steps); "
                "unfinished: {}",
                im.module.filename, im.max_steps, describe_warps(im, cta)));
          if (steps % kSpinArmSteps == 0) [[unlikely]] {
            im.spin_arm(w);
            if (im.progress) im.progress(c, n);
          }
          const IssueResult r = im.issue(cta, w);
          if (r.op == Opcode::Bar) break;
          if (r.waiting) {
            waited = true;
            break;
          }
        }
        only_waits &= waited || !ran;
        any_wait |= waited;
      }
      // Every warp that ran only waited for an mbarrier phase, and nothing arrived or was
      // written: no phase can complete.
      if (any_wait && only_waits && im.mbar_epoch == epoch && im.writes == writes)
        throw InputError(fmt::format(
            "{}: deadlock: every live warp of block ({},{},{}) waits for an mbarrier phase that "
            "cannot complete (nothing arrives): {}",
            im.module.filename, cta.id.x, cta.id.y, cta.id.z, describe_warps(im, cta)));
      if (!progressed)
        throw InputError(fmt::format(
            "{}: deadlock: every live warp of block ({},{},{}) waits at a barrier that cannot "
            "open: {}",
            im.module.filename, cta.id.x, cta.id.y, cta.id.z, describe_warps(im, cta)));
    }
    if (im.progress) im.progress(c + 1, n);
    if (done) done(c);
  }
  im.spin_throws = spin_throws;
}

}  // namespace smemsim::exec

// The SM's residency (sm.hpp): whether a CTA fits, starting one, retiring its warps, and the
// description of the warps still resident for a kernel that cannot finish.
#include <algorithm>

#include <fmt/format.h>

#include "timing/sm.hpp"

namespace smemsim::timing {

// ---- Residency -------------------------------------------------------------------------------

bool Sm::can_take() const {
  if (ctas_used_ >= ctas_.size()) return false;
  if (warps_used_ + ctx_.warps_per_cta > arch_.sm.max_warps) return false;
  if (threads_used_ + ctx_.threads_per_cta > arch_.sm.max_threads) return false;
  if (ctx_.regs_per_cta && regs_used_ + ctx_.regs_per_cta > arch_.sm.registers) return false;
  return shared_used_ + ctx_.shared_per_cta <= arch_.memory_bytes;
}

void Sm::start_cta(std::uint64_t cta, std::uint64_t age_base, std::uint64_t now) {
  std::uint32_t c = 0;
  while (ctas_[c].used) ++c;
  Cta& ct = ctas_[c];
  ct.used = true;
  ct.linear = cta;
  ct.exec_slot = c;  // the SM's own executor has a slot per resident CTA
  ct.live = ctx_.warps_per_cta;
  ct.bars_in_flight = 0;
  ct.warps.clear();
  ct.started = now;
  ct.instructions = 0;
  ex_->start_cta(ct.exec_slot, cta, id_);
  // The SM starts warps one every sm.warp_start_cycles, those of CTAs it took before first.
  const std::uint64_t warp_start = arch_.sm.warp_start_cycles;
  std::uint64_t start = warp_start ? std::max(now, next_warp_start_) : 0;
  // The SM starts the warps once the CTA's first instruction line is in its instruction cache
  // (sm.icache_miss_cycles: the H100's empty CTA of 1,024 threads takes the warps' starts longer
  // than one of 32 threads, after the line's miss).
  if (warp_start && icache_.on())
    start =
        std::max(start, icache_.at(ex_->next_index(ct.exec_slot, 0) / kInstructionsPerLine, now));
  std::uint32_t slot = 0;
  for (std::uint32_t k = 0; k < ctx_.warps_per_cta; ++k) {
    while (warps_[slot].used) ++slot;
    Warp& w = warps_[slot];
    w = Warp{};
    w.used = true;
    w.sub = static_cast<std::uint8_t>(slot % sub_.size());
    w.exec_slot = ct.exec_slot;
    w.exec_warp = k;
    w.cta = c;
    w.age = age_base + k;
    w.next = 0;
    w.exec_next = ex_->next_index(w.exec_slot, w.exec_warp);
    note_next(w);
    w.reason = Stall::Idle;
    w.tx_since = now_;
    if (warp_start) {
      w.start_at = start;
      start += warp_start;
      next_warp_start_ = start;
    }
    ct.warps.push_back(slot);
    if (obs_) obs_->on_warp_start(id_, slot, cta, k, now);
    recompute(slot);
  }
  ++ctas_used_;
  warps_used_ += ctx_.warps_per_cta;
  threads_used_ += ctx_.threads_per_cta;
  regs_used_ += ctx_.regs_per_cta;
  shared_used_ += ctx_.shared_per_cta;
  ++stats_.ctas;
}

void Sm::retire_warp(std::uint32_t w) {
  Warp& wp = warps_[w];
  if (ctx_.uses_tm) (wp.in_tx ? stats_.tm.tx : stats_.tm.non_tx) += now_ - wp.tx_since;
  set_reason(wp, false, Stall::Idle);
  eligible_.clear(w);
  wp.used = false;
  note_next(wp);
  wp.pre_step = 0;
  const std::size_t row = rows_of(w);
  const std::uint32_t rows = ctx_.trows;
  std::fill_n(pending_.data() + row, rows, 0);
  std::fill_n(pending_global_.data() + row, rows, 0);
  std::fill_n(pending_short_.data() + row, rows, 0);
  if (!mio_ready_.empty()) std::fill_n(mio_ready_.data() + row, rows, 0);
  if (!guard_ready_.empty()) std::fill_n(guard_ready_.data() + row, rows, 0);
  if (!xpipe_.empty()) std::fill_n(xpipe_.data() + row, rows, 0);
  if (!owner_.empty()) std::fill_n(owner_.data() + row, rows, 0);
  Cta& ct = ctas_[wp.cta];
  if (--ct.live) return;
  if (cta_log_) cta_log_->push_back({ct.linear, ct.started, now_, ct.instructions});
  ct.used = false;
  --ctas_used_;
  warps_used_ -= ctx_.warps_per_cta;
  threads_used_ -= ctx_.threads_per_cta;
  regs_used_ -= ctx_.regs_per_cta;
  shared_used_ -= ctx_.shared_per_cta;
}

void Sm::describe_warps(std::vector<std::string>& out) const {
  const ptx::Kernel& k = *ctx_.kernel;
  const exec::Dim3& g = ctx_.grid;
  for (std::uint32_t w = 0; w < warps_.size(); ++w) {
    const Warp& wp = warps_[w];
    if (!wp.used || wp.finished) continue;
    const std::uint64_t cta = ctas_[wp.cta].linear;
    std::string where = "past the end of the kernel";
    if (wp.next < k.code.size()) {
      const ptx::Instruction& ins = k.code[wp.next];
      const std::string cu = exec::cuda_location(*ctx_.module, ins);
      where = fmt::format("at {}:{}{} `{}`", ctx_.module->filename, ins.ptx_line,
                          cu.empty() ? "" : " (" + cu + ")", ptx::to_string(k, ins));
    }
    out.push_back(fmt::format("warp {} of block ({},{},{}) on SM {} {} [{}]", wp.exec_warp,
                              cta % g.x, (cta / g.x) % g.y, cta / (std::uint64_t(g.x) * g.y), id_,
                              where, stall_name(wp.eligible ? Stall::NotSelected : wp.reason)));
  }
}

}  // namespace smemsim::timing

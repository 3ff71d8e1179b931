// The list scheduler's side of the GPU (sm.lower's `schedule`, src/lower/schedule.hpp): the kernel
// in the scheduled order, and the caller's numbering for what leaves GpuSim.
#include "lower/ifcvt.hpp"
#include "lower/schedule.hpp"
#include "lower/unroll.hpp"
#include "lower/vector.hpp"
#include "timing/expand.hpp"
#include "timing/gpu_impl.hpp"

namespace smemsim::timing {

namespace {

// Forwards events with instruction indices in the caller's kernel's numbering.
class Renumber final : public Observer {
 public:
  Renumber(Observer& target, const std::vector<std::uint32_t>& order)
      : target_(target), order_(order) {}
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override {
    target_.on_issue(sm, warp, at(index), micro, cycle);
  }
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t issued, std::uint64_t cycle) override {
    target_.on_complete(sm, warp, at(index), micro, issued, cycle);
  }
  void on_stall(std::uint32_t sm, Stall why, std::uint64_t cycle) override {
    target_.on_stall(sm, why, cycle);
  }
  void on_subcore_stall(std::uint32_t sm, std::uint32_t sub, Stall why,
                        std::uint64_t cycle) override {
    target_.on_subcore_stall(sm, sub, why, cycle);
  }
  void on_warp_start(std::uint32_t sm, std::uint32_t warp, std::uint64_t cta,
                     std::uint32_t warp_in_cta, std::uint64_t cycle) override {
    target_.on_warp_start(sm, warp, cta, warp_in_cta, cycle);
  }
  bool wants_stages(std::uint32_t sm) const override { return target_.wants_stages(sm); }
  void on_stages(std::uint32_t sm, std::uint64_t cycle,
                 const std::vector<StageCell>& cells) override {
    cells_ = cells;
    for (StageCell& c : cells_) c.index = at(c.index);
    target_.on_stages(sm, cycle, cells_);
  }

 private:
  std::uint32_t at(std::uint32_t i) const { return i < order_.size() ? order_[i] : i; }
  Observer& target_;
  const std::vector<std::uint32_t>& order_;
  std::vector<StageCell> cells_;
};

}  // namespace

// The list scheduler (src/lower/schedule.hpp), on the kernel if-conversion left: each
// instruction's latency to a dependent one, as the SM will time it, then the kernel in the
// scheduled order, decoded and lowered again.
void GpuSim::Impl::lower_code() {
  const SmConfig& sm = arch.sm;
  std::vector<std::uint32_t> latency(info.size());
  for (std::size_t i = 0; i < info.size(); ++i) {
    const InstInfo& in = info[i];
    switch (in.space) {
      case Space::Shared:
        latency[i] = in.store ? sm.lat_shared_st : sm.lat_shared_ld;
        break;
      case Space::Global:
      case Space::Generic:
        latency[i] = sm.lat_shared_ld + sm.global_latency;
        break;
      case Space::Const:
        latency[i] = sm.lat_const;
        break;
      default:
        latency[i] = ctx.latency[std::size_t(in.unit)];
    }
  }
  // A predicate a fixed-latency pipe writes guards an instruction sm.guard_delay cycles later
  // (Sm::complete).
  std::vector<std::uint32_t> guard_latency;
  if (sm.guard_delay) {
    guard_latency = latency;
    for (std::size_t i = 0; i < info.size(); ++i) {
      const InstInfo& in = info[i];
      if (in.writes_pred && in.space == Space::None && fixed_latency(in.unit))
        guard_latency[i] += sm.guard_delay;
    }
  }
  const std::vector<std::uint32_t> moved = lower::schedule(
      *code, reg_uses(info), latency, absorbed, rules.spaces, sm.sched_regs, guard_latency);
  if (moved.empty()) return;
  scheduled = std::make_unique<ptx::Kernel>(lower::reordered(*code, moved));
  code = scheduled.get();
  converted.reset();
  vectored.reset();
  // Composed with the vector rule's order when it moved loads (order[new] = the caller's).
  if (order.empty()) {
    order = moved;
  } else {
    std::vector<std::uint32_t> both(moved.size());
    for (std::size_t i = 0; i < moved.size(); ++i) both[i] = order[moved[i]];
    order = std::move(both);
  }
  std::vector<InstInfo>().swap(info);  // not beside its successor (issue 48: 172 bytes a line)
  info = decode_kernel(*code);
  find_unrolled();
  absorbed = apply_lowering(*code, info, rules);
  if (rules.balance) balance_pipes(*code, info, absorbed, arch.sm);
}

// sm.lower's unroll (src/lower/unroll.hpp), on the code the SMs run, while `info` holds each
// instruction's own registers (apply_lowering gives an absorbed one its group's).
void GpuSim::Impl::find_unrolled() {
  if (rules.unroll) unrolled = lower::unrolled_overhead(*code, reg_uses(info));
}

// The vector rule (src/lower/vector.hpp): each group of shared loads brought together, in a copy
// of the kernel, decoded again; only when a load moves.
void GpuSim::Impl::vectorize_code() {
  order = lower::vector_order(*code, reg_uses(info));
  if (order.empty()) return;
  vectored = std::make_unique<ptx::Kernel>(lower::reordered(*code, order));
  code = vectored.get();
  converted.reset();
  std::vector<InstInfo>().swap(info);
  info = decode_kernel(*code);
}

void GpuSim::Impl::renumber_events() {
  if (order.empty() || !options.observer) return;
  renumber = std::make_unique<Renumber>(*options.observer, order);
  options.observer = renumber.get();
}

// The branches to convert are found on `info` as the constructor decoded it (each instruction's
// own registers: nothing is absorbed yet); only when there are some is the kernel copied and
// decoded again.
void GpuSim::Impl::if_convert_code() {
  // Each instruction's issue slots once converted: 1 and its expansion's steps (a converted body
  // is guarded, and the absorbing rules take in no guarded instruction).
  lower::Rules others = rules;
  others.ifcvt = others.bssy = false;
  std::vector<InstInfo> lowered = info;
  apply_lowering(kernel, lowered, others);
  std::vector<std::uint32_t> cost(info.size(), 1);
  for (std::size_t i = 0; i < cost.size(); ++i) cost[i] = 1 + expansion(lowered[i].expand).n;
  const std::vector<std::uint32_t> branches =
      lower::if_conversions(kernel, reg_uses(info), cost, arch.sm.ifcvt_slots);
  if (branches.empty()) return;
  converted = std::make_unique<ptx::Kernel>(kernel);
  lower::if_convert(*converted, branches);
  code = converted.get();
  std::vector<InstInfo>().swap(info);
  info = decode_kernel(*code);
}

}  // namespace smemsim::timing

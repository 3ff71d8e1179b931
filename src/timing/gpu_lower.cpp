// The list scheduler's side of the GPU (sm.lower's `schedule`, src/lower/schedule.hpp): the kernel
// in the scheduled order, and the caller's numbering for what leaves GpuSim.
#include "lower/ifcvt.hpp"
#include "lower/schedule.hpp"
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
  order = lower::schedule(*code, reg_uses(info), latency, absorbed, rules.spaces);
  if (order.empty()) return;
  scheduled = std::make_unique<ptx::Kernel>(lower::reordered(*code, order));
  code = scheduled.get();
  converted.reset();
  std::vector<InstInfo>().swap(info);  // not beside its successor (issue 48: 172 bytes a line)
  info = decode_kernel(*code);
  absorbed = apply_lowering(*code, info, rules);
  if (options.observer) {
    renumber = std::make_unique<Renumber>(*options.observer, order);
    options.observer = renumber.get();
  }
}

// The branches to convert are found on `info` as the constructor decoded it (each instruction's
// own registers: nothing is absorbed yet); only when there are some is the kernel copied and
// decoded again.
void GpuSim::Impl::if_convert_code() {
  const std::vector<std::uint32_t> branches = lower::if_conversions(kernel, reg_uses(info));
  if (branches.empty()) return;
  converted = std::make_unique<ptx::Kernel>(kernel);
  lower::if_convert(*converted, branches);
  code = converted.get();
  std::vector<InstInfo>().swap(info);
  info = decode_kernel(*code);
}

}  // namespace smemsim::timing

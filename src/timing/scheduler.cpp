// The warp schedulers of the registry: loose round robin and greedy-then-oldest.
#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "timing/scheduler.hpp"
#include "util/names.hpp"

namespace smemsim::timing {

int WarpMask::next_from(std::uint32_t from, std::uint32_t n) const {
  // By words, not slot by slot (the round-robin pick of every issue slot; issue 49).
  if (n == 0) return -1;
  from %= n;
  std::array<std::uint64_t, 2> in = bits;  // the members below n
  for (std::uint32_t k = 0; k < 2; ++k) {
    const std::uint32_t lo = k * 64;
    if (n <= lo)
      in[k] = 0;
    else if (n < lo + 64)
      in[k] &= (std::uint64_t{1} << (n - lo)) - 1;
  }
  auto first = [&](std::uint32_t at) -> int {  // the first member at or after `at`
    for (std::uint32_t k = at >> 6; k < 2; ++k) {
      std::uint64_t b = in[k];
      if (k == (at >> 6)) b &= ~std::uint64_t{0} << (at & 63);
      if (b) return int(k * 64 + std::uint32_t(std::countr_zero(b)));
    }
    return -1;
  };
  const int w = first(from);
  return w >= 0 ? w : first(0);
}

namespace {

// Loose round robin (GPGPU-Sim's lrr; the baseline "round-robin" of seed 004 Table 3): the first
// eligible warp after the one issued last, in slot order.
class Lrr final : public Scheduler {
 public:
  std::uint32_t pick(const WarpMask& eligible, const SchedulerView& view) override {
    return static_cast<std::uint32_t>(eligible.next_from(last_ + 1, view.warp_slots()));
  }
  void issued(std::uint32_t warp) override { last_ = warp; }

 private:
  std::uint32_t last_ = ~0u;  // so that the first pick starts at slot 0
};

// Greedy then oldest (Rogers et al., MICRO 2012; GPGPU-Sim's Fermi default): keep issuing the same
// warp while it can, otherwise the oldest eligible warp (dispatch order).
class Gto final : public Scheduler {
 public:
  std::uint32_t pick(const WarpMask& eligible, const SchedulerView& view) override {
    if (has_last_ && eligible.test(last_)) return last_;
    std::uint32_t best = 0;
    std::uint64_t best_age = ~std::uint64_t{0};
    eligible.each([&](std::uint32_t w) {
      const std::uint64_t a = view.age(w);
      if (a < best_age) best_age = a, best = w;
    });
    return best;
  }
  void issued(std::uint32_t warp) override {
    last_ = warp;
    has_last_ = true;
  }

 private:
  std::uint32_t last_ = 0;
  bool has_last_ = false;
};

}  // namespace

const std::vector<RegistryEntry>& schedulers() {
  static const std::vector<RegistryEntry> s = {
      {"lrr", "loose round robin: the next eligible warp after the last one issued",
       "GPGPU-Sim; seed 004 Table 3 (round-robin baseline)"},
      {"gto", "greedy then oldest: the same warp while it can issue, else the oldest",
       "Rogers et al. 2012; GPGPU-Sim's Fermi configuration"},
      {"bank-aware",
       "sm.bank_aware_base's policy; memory warps are not ready within the safe distance of the "
       "last shared memory warp, predicted by a conflict history cache",
       "seed 004 §4, Eq. 5, Fig. 7"},
      {"bank-aware-fill",
       "bank-aware, but a memory warp may break the distance when no non-memory warp is ready",
       "seed 004 §5.2, footnote 10"},
  };
  return s;
}

std::unique_ptr<Scheduler> make_scheduler(const SmConfig& sm) {
  std::string_view name = sm.scheduler;
  if (name == "bank-aware" || name == "bank-aware-fill") name = sm.bank_aware_base;
  if (name == "lrr") return std::make_unique<Lrr>();
  if (name == "gto") return std::make_unique<Gto>();
  name = sm.scheduler;
  throw InputError(fmt::format("arch key 'sm.scheduler': unknown scheduler '{}' (known: {})", name,
                               known_names(schedulers())));
}

}  // namespace smemsim::timing

// --sample-ctas. The timed CTAs ran on the cycle model: the first residency starts at once (a
// ramp), the next CTAs start as those retire, into a full GPU, as every untimed CTA would have.
// Those steady CTAs' mean cycles d give the untimed CTAs' time by Little's law on the P slots that
// hold CTAs at once: N more CTAs keep the GPU busy N d / P cycles longer, after the timed part's
// own ramp and drain:
//   estimate = cycles_timed + equivalents x d / P,
// with each untimed CTA counted as its warp instructions over the steady CTAs' mean (identical
// CTAs count 1; `matched` counts those with a timed CTA's exact count). The range puts every
// untimed CTA at the steady CTAs' 10th and at their 90th percentile. With fewer than 4 steady
// CTAs, a list-scheduling model of the slots (list_makespan) extends the timed part instead.
#include "timing/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

namespace smemsim::timing {

double list_makespan(const std::vector<double>& cycles, std::uint64_t slots) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free;
  for (std::uint64_t i = 0; i < std::max<std::uint64_t>(slots, 1); ++i) free.push(0.0);
  double end = 0;
  for (const double c : cycles) {
    const double t = free.top() + c;
    free.pop();
    free.push(t);
    end = std::max(end, t);
  }
  return end;
}

void estimate_untimed(SamplingStats& s, const std::vector<std::uint64_t>& untimed_instructions) {
  std::vector<CtaRecord> timed = s.timed;
  std::sort(timed.begin(), timed.end(),
            [](const CtaRecord& a, const CtaRecord& b) { return a.cta < b.cta; });
  struct Group {
    double sum = 0, lo = 0, hi = 0;
    std::uint64_t n = 0;
  };
  std::map<std::uint64_t, Group> by_count;
  std::vector<double> measured;
  double sum = 0, sum2 = 0, instructions = 0, cpi_lo = 0, cpi_hi = 0;
  for (const CtaRecord& r : timed) {
    const double c = double(r.cycles());
    measured.push_back(c);
    sum += c;
    sum2 += c * c;
    instructions += double(r.warp_instructions);
    Group& g = by_count[r.warp_instructions];
    g.lo = g.n ? std::min(g.lo, c) : c;
    g.hi = g.n ? std::max(g.hi, c) : c;
    g.sum += c;
    ++g.n;
    if (r.warp_instructions) {
      const double cpi = c / double(r.warp_instructions);
      cpi_lo = measured.size() == 1 ? cpi : std::min(cpi_lo, cpi);
      cpi_hi = measured.size() == 1 ? cpi : std::max(cpi_hi, cpi);
    }
  }
  const double n = double(timed.size());
  if (n > 0) {
    s.cta_cycles_mean = sum / n;
    s.cta_cycles_min = *std::min_element(measured.begin(), measured.end());
    s.cta_cycles_max = *std::max_element(measured.begin(), measured.end());
    s.cta_cycles_stddev =
        std::sqrt(std::max(0.0, sum2 / n - s.cta_cycles_mean * s.cta_cycles_mean));
  }
  const double cpi = instructions > 0 ? sum / instructions : 0;
  std::vector<double> mid = measured, lo = measured, hi = measured;
  s.matched = s.scaled = 0;
  for (const std::uint64_t k : untimed_instructions) {
    const auto g = by_count.find(k);
    if (g != by_count.end()) {
      ++s.matched;
      mid.push_back(g->second.sum / double(g->second.n));
      lo.push_back(g->second.lo);
      hi.push_back(g->second.hi);
    } else {
      ++s.scaled;
      mid.push_back(cpi * double(k));
      lo.push_back(cpi_lo * double(k));
      hi.push_back(cpi_hi * double(k));
    }
  }
  // The steady CTAs: dispatched once the first timed CTA had retired.
  const std::uint64_t first_retire =
      timed.empty()
          ? 0
          : std::min_element(timed.begin(), timed.end(), [](const auto& a, const auto& b) {
              return a.end < b.end;
            })->end;
  std::vector<double> steady;
  double steady_instructions = 0;
  for (const CtaRecord& r : timed)
    if (r.start >= first_retire) {
      steady.push_back(double(r.cycles()));
      steady_instructions += double(r.warp_instructions);
    }
  s.steady_ctas = steady.size();
  if (steady.size() >= 4) {
    std::sort(steady.begin(), steady.end());
    const double d = std::accumulate(steady.begin(), steady.end(), 0.0) / double(steady.size());
    const double per_cta = steady_instructions / double(steady.size());
    s.equivalents = 0;
    for (const std::uint64_t k : untimed_instructions)
      s.equivalents += per_cta > 0 ? double(k) / per_cta : 1.0;
    const auto pct = [&](double q) { return steady[std::size_t(q * double(steady.size() - 1))]; };
    s.steady_cycles = d;
    s.steady_p10 = pct(0.1);
    s.steady_p90 = pct(0.9);
    const auto after = [&](double cycles) {
      return s.cycles_timed +
             std::uint64_t(std::llround(s.equivalents * cycles /
                                        double(std::max<std::uint64_t>(s.slots, 1))));
    };
    s.cycles_estimate = after(d);
    s.cycles_low = after(s.steady_p10);
    s.cycles_high = after(s.steady_p90);
    return;
  }
  const double base = list_makespan(measured, s.slots);
  const auto total = [&](const std::vector<double>& v) {
    return s.cycles_timed +
           std::uint64_t(std::llround(std::max(0.0, list_makespan(v, s.slots) - base)));
  };
  s.cycles_estimate = total(mid);
  s.cycles_low = total(lo);
  s.cycles_high = total(hi);
}

}  // namespace smemsim::timing

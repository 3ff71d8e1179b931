// --sample-ctas. The timed CTAs ran on the cycle model: the first residency starts at once (a
// ramp), the next CTAs start as those retire, into a full GPU, as every untimed CTA would have.
// Those steady CTAs' mean cycles d give the untimed CTAs' time by Little's law on the P slots that
// hold CTAs at once: N more CTAs keep the GPU busy N d / P cycles longer, after the timed part's
// own ramp and drain:
//   estimate = cycles_timed + equivalents x d / P,
// or, where the GPU's CTA dispatcher is slower than that (sm.dispatch_ctas), the untimed CTAs'
// count times its cycles a CTA.
// with each untimed CTA counted as its warp instructions over the steady CTAs' mean (identical
// CTAs count 1; `matched` counts those with a timed CTA's exact count). The range puts every
// untimed CTA at the steady CTAs' 10th and at their 90th percentile.
#include "timing/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace smemsim::timing {

void estimate_untimed(SamplingStats& s, const std::vector<std::uint64_t>& untimed_instructions) {
  s.cycles_estimate = s.cycles_low = s.cycles_high = s.cycles_timed;
  if (s.timed.empty()) return;
  // Every timed CTA: the spread the output reports.
  double sum = 0, sum2 = 0;
  s.cta_cycles_min = s.cta_cycles_max = double(s.timed.front().cycles());
  std::set<std::uint64_t> counts;
  std::uint64_t first_retire = s.timed.front().end;
  for (const CtaRecord& r : s.timed) {
    const double c = double(r.cycles());
    sum += c;
    sum2 += c * c;
    s.cta_cycles_min = std::min(s.cta_cycles_min, c);
    s.cta_cycles_max = std::max(s.cta_cycles_max, c);
    counts.insert(r.warp_instructions);
    first_retire = std::min(first_retire, r.end);
  }
  const double n = double(s.timed.size());
  s.cta_cycles_mean = sum / n;
  s.cta_cycles_stddev = std::sqrt(std::max(0.0, sum2 / n - s.cta_cycles_mean * s.cta_cycles_mean));

  // The steady CTAs: dispatched once the first timed CTA had retired. The timed part holds two
  // residencies at least, so there are some whenever CTAs were left untimed; should there be none,
  // every timed CTA stands in.
  std::vector<double> steady;
  double steady_instructions = 0;
  for (const bool all : {false, true}) {
    for (const CtaRecord& r : s.timed)
      if (all || r.start >= first_retire) {
        steady.push_back(double(r.cycles()));
        steady_instructions += double(r.warp_instructions);
      }
    if (!steady.empty()) break;
  }
  s.steady_ctas = steady.size();
  std::sort(steady.begin(), steady.end());
  const double per_cta = steady_instructions / double(steady.size());
  s.steady_cycles = std::accumulate(steady.begin(), steady.end(), 0.0) / double(steady.size());
  s.steady_p10 = steady[std::size_t(0.1 * double(steady.size() - 1))];
  s.steady_p90 = steady[std::size_t(0.9 * double(steady.size() - 1))];

  s.equivalents = 0;
  s.matched = s.scaled = 0;
  for (const std::uint64_t k : untimed_instructions) {
    ++(counts.count(k) ? s.matched : s.scaled);
    s.equivalents += per_cta > 0 ? double(k) / per_cta : 1.0;
  }
  const double untimed = double(untimed_instructions.size());
  const auto after = [&](double cycles) {
    const double slots = double(std::max<std::uint64_t>(s.slots, 1));
    const double more = std::max(s.equivalents * cycles / slots, untimed * s.dispatch_interval);
    return s.cycles_timed + std::uint64_t(std::llround(more));
  };
  s.cycles_estimate = after(s.steady_cycles);
  s.cycles_low = after(s.steady_p10);
  s.cycles_high = after(s.steady_p90);
}

}  // namespace smemsim::timing

// Running an SM ahead (TimingOptions::run_ahead, issue 49; docs/timing.md "Running an SM ahead").
//
// One thread ticks 80-132 SMs a cycle, and a cycle of them touches more state than the host's
// caches hold: each SM's state is fetched again every cycle. An SM whose ticks touch nothing
// another SM sees, and nothing another SM's tick changes, may tick several cycles in a row
// before the next SM ticks, with the same results. What SMs share, and how it is kept out:
// - global and local memory (the functional loads read it at issue; stores and atomics reach it
//   at the cycle's commit) and the shared L2 (read while ticking, changed at commit): no global op
//   of the SM is on its way to its memory unit, the unit holds only data returning at cycles
//   already known, and no warp's next issue group touches global, generic or local memory (kept
//   per warp as it moves: Sm::note_next);
// - CTA dispatch at the start of each cycle: the SM has no room for a CTA still to start (a tick
//   that retires one makes room, which stops it);
// - the clock: %clock reads the cycle the SM ticks;
// - the executors' count of memory writes (spin detection): summed at the commit of the cycle
//   the SM ran ahead from, and never across the spin check every 65,536 cycles;
// - errors: a tick ahead that throws is thrown when the loop reaches its cycle, at the SM's turn;
// - everything an observer, a consumer, per-instruction statistics or --sample-ctas' log sees,
//   and SMs of a cluster (distributed shared memory): run-ahead is off with any of them.
// The cycle loop then takes each SM's flags for a cycle (progress, issue, residency, sleep, a
// retired CTA) from what its tick of that cycle left.
#include <algorithm>
#include <exception>
#include <utility>

#include "timing/gpu_impl.hpp"

namespace smemsim::timing {

void GpuSim::Impl::ahead_setup() {
  if (options.run_ahead <= 1 || arena || gpc_sms || options.observer || options.consumer ||
      options.per_instruction || options.sample_ctas || ctx.uses_tm)
    return;
  ahead_k = std::min<std::uint32_t>(options.run_ahead, kAheadRing);
  const std::size_t n = info.size();
  unsafe.assign(n + 1, 0);  // one past the end: a warp that fell off the code exits
  for (std::size_t i = n; i-- > 0;) {
    const InstInfo& in = info[i];
    unsafe[i] = in.space == Space::Global || in.space == Space::Generic || in.async_copy;
    // An absorbed instruction issues with the next ones in the same slot.
    if (i < absorbed.size() && absorbed[i] != ptx::kNone) unsafe[i] |= unsafe[i + 1];
  }
  ahead.assign(sms.size(), {});
  ctx.unsafe = &unsafe;
}

void GpuSim::Impl::tick_ahead(const std::vector<std::uint32_t>& awake, bool room) {
  const std::uint64_t now = cycle;
  // The last cycle a tick ahead may be: before the next spin check (at a multiple of 65,536) and
  // within --max-cycles.
  const std::uint64_t check = ((now >> 16) + 1) << 16;
  const std::uint64_t last = std::min({now + ahead_k - 1, check - 1, options.max_cycles - 1});
  for (const std::uint32_t i : awake) {
    Ahead& a = ahead[i];
    if (a.next > now) continue;  // ticked this cycle already, running ahead
    if (a.error) std::rethrow_exception(std::exchange(a.error, nullptr));  // this cycle's
    Sm& s = *sms[i];
    std::uint32_t before = s.resident_ctas();
    s.tick(now);
    a.at[now % kAheadRing] = tick_flags(s, before);
    a.next = now + 1;
    // A tick that retires a CTA leaves room: while CTAs are left to start, that stops it.
    while (a.next <= last && !(room && s.can_take()) && s.quiet()) {
      cycle = a.next;  // what %clock reads
      before = s.resident_ctas();
      try {
        s.tick(a.next);
      } catch (...) {
        a.error = std::current_exception();  // thrown at cycle a.next's turn (above)
        break;
      }
      a.at[a.next % kAheadRing] = tick_flags(s, before);
      ++a.next;
      ++stats.ahead_ticks;
    }
    cycle = now;
  }
}

}  // namespace smemsim::timing

// The parallel SMs of GpuSim (issue 31, docs/timing.md "Parallel SMs"): each SM's executor, the
// tick of the awake SMs on the arena's threads, and the commit that ends each cycle in SM order.
#include <algorithm>
#include <atomic>
#include <exception>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "timing/gpu_impl.hpp"

// ThreadSanitizer does not see oneTBB's own synchronisation (libtbb is not instrumented): the
// parallel phase tells it that the workers start after what the calling thread did before it
// and that the calling thread goes on after what they did (tests/tsan.supp silences the reports
// inside oneTBB itself; `cmake --preset tsan`).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMEMSIM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SMEMSIM_TSAN 1
#endif
#ifdef SMEMSIM_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define TSAN_ACQUIRE(p) __tsan_acquire(p)
#define TSAN_RELEASE(p) __tsan_release(p)
#else
#define TSAN_ACQUIRE(p) (void)(p)
#define TSAN_RELEASE(p) (void)(p)
#endif

namespace smemsim::timing {

// SM `i`'s executor, made when it first takes a CTA: global writes wait for the end of the cycle.
void GpuSim::Impl::attach(std::uint32_t i) {
  auto& e = exs[i];
  e = std::make_unique<exec::Executor>(*primary, ctx.ctas_per_sm);
  e->set_clock_source(&cycle);
  e->set_count_sectors(true);
  e->set_defer_bulk(true);
  e->set_defer_global(true);
  e->set_memory_writes(writes);
  if (arena)
    outboxes[i] = std::make_unique<Outbox>(options.observer, options.consumer,
                                           options.per_instruction ? instr.size() : 0);
  sms[i]->attach(e.get(), arena ? outboxes[i].get() : nullptr);
}

// One cycle of the awake SMs: on the arena's threads when there are several (each SM touches
// only its own state and its executor's; global memory is only read until commit). An SM's error
// is thrown after the others ticked: the first in SM order, as one thread would have thrown it.
void GpuSim::Impl::tick_all(const std::vector<std::uint32_t>& awake) {
  // Fewer than options.parallel_min_sms awake SMs tick on this thread: a cycle of a few SMs takes
  // a few microseconds, about what handing it to the workers and back costs (the 8-CTA reduction
  // on volta-v100 ran at 0.58x on 2 threads when every cycle went to them).
  if (!arena || awake.size() < std::max<std::size_t>(options.parallel_min_sms, 2)) {
    for (const std::uint32_t i : awake) sms[i]->tick(cycle);
    return;
  }
  std::atomic<bool> failed{false};
  int begin = 0, end = 0;  // TSAN_*'s synchronisation objects
  // The units of work: each awake SM, or with clusters each GPC's awake SMs (`awake` is in SM
  // order, so a GPC's are a run of it), ticked in order by one worker.
  groups.clear();
  for (std::size_t j = 0; j < awake.size(); ++j)
    if (gpc_sms && !groups.empty() && awake[j] / gpc_sms == awake[groups.back().first] / gpc_sms)
      groups.back().second = j + 1;
    else
      groups.emplace_back(j, j + 1);
  TSAN_RELEASE(&begin);
  arena->execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, groups.size()),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        TSAN_ACQUIRE(&begin);
                        for (std::size_t g = r.begin(); g < r.end(); ++g)
                          for (std::size_t j = groups[g].first; j < groups[g].second; ++j) try {
                              sms[awake[j]]->tick(cycle);
                            } catch (...) {
                              errors[awake[j]] = std::current_exception();
                              failed = true;
                              break;  // the GPC's later SMs would tick on an SM's broken state
                            }
                        TSAN_RELEASE(&end);
                      });
  });
  TSAN_ACQUIRE(&end);
  if (failed)
    for (const std::uint32_t i : awake)
      if (errors[i]) std::rethrow_exception(errors[i]);
}

// The end of a cycle, in SM order: each SM's global writes reach memory, its outbox goes to the
// shared consumers, and the executors agree again on the count of memory writes.
void GpuSim::Impl::commit(const std::vector<std::uint32_t>& awake) {
  std::uint64_t added = 0;
  for (const std::uint32_t i : awake) {
    exec::Executor& e = *exs[i];
    e.commit_global();
    added += e.memory_writes() - writes;
    if (ctx.l2) sms[i]->resolve_l2(cycle);
    if (!arena) continue;
    Outbox& o = *outboxes[i];
    if (options.observer) o.observer.flush();
    if (options.consumer) o.consumer.flush();
    if (ctx.cta_log) {
      ctx.cta_log->insert(ctx.cta_log->end(), o.ctas.begin(), o.ctas.end());
      o.ctas.clear();
    }
  }
  if (!added) return;
  writes += added;
  for (const auto& e : exs)
    if (e) e->set_memory_writes(writes);
}

std::vector<const exec::Executor*> GpuSim::Impl::executors() const {
  std::vector<const exec::Executor*> v;
  for (const auto& e : exs)
    if (e) v.push_back(e.get());
  return v;
}

const exec::ExecStats& GpuSim::Impl::exec_stats() {
  merged = primary->stats();
  for (const auto& e : exs)
    if (e) merged.add(e->stats());
  return merged;
}

}  // namespace smemsim::timing

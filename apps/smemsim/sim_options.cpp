#include "sim_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <tuple>

#include "smemsim/error.hpp"
#include "smemsim/timing_views.hpp"
#include "util/names.hpp"

namespace smemsim::cli {

void add_sim_options(CLI::App* cmd, SimOptions& o) {
  cmd->add_option("--pipeline", o.pipeline,
                  "SM pipeline: unified, split (seed 004 Fig. 4) or elastic (004 §3.2); default: "
                  "the arch's sm.pipeline");
  cmd->add_option("--scheduler", o.scheduler,
                  "warp scheduler: lrr, gto, bank-aware or bank-aware-fill (seed 004 §4); "
                  "default: the arch's sm.scheduler");
  cmd->add_option("--barrel", o.barrel,
                  "strict (one instruction per warp in flight, seed 004 §6) or relaxed");
  cmd->add_option("--max-cycles", o.max_cycles,
                  "stop with an error naming the unfinished warps after this many cycles")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000'000}))
      ->capture_default_str();
  cmd->add_option("--regs", o.regs,
                  "registers per thread, for the residency limit sm.registers (default: not "
                  "limited; ptxas reports the real count)")
      ->check(CLI::Range(0, 255));
  cmd->add_option("--threads", o.threads,
                  "threads the SMs are simulated on (results are the same for any count; default: "
                  "the cores this process may use; more than the SMs or the cores are not used)")
      ->check(CLI::Range(std::uint32_t{1}, timing::kMaxThreads));
  cmd->add_flag("--warm-l2", o.warm_l2,
                "the launch's buffers start in the L2 (as a copy from the host just before the "
                "launch leaves them, while they fit in sm.l2_bytes); default: every line starts "
                "in DRAM, as under Nsight Compute's default --cache-control all (a launch spec "
                "says the same with warm_l2 = true)");
}

std::uint32_t sim_threads(const SimOptions& o) {
  return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// ": did you mean 'lrr'?" before the known list, when a name is near one.
template <class Registry>
std::string hint(const std::string& name, const Registry& r) {
  std::vector<std::string> names;
  for (const auto& e : r) names.emplace_back(e.name);
  const std::string s = did_you_mean(name, names);
  return s.empty() ? s : ": " + s;
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> timeline_window(const std::string& spec) {
  if (spec.empty()) return {0, ~std::uint64_t{0}};
  const auto bad = [&](const std::string& why) {
    return InputError(fmt::format("--timeline-window '{}': {}", spec.substr(0, 80), why));
  };
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) throw bad("give the first and the end cycle as A:B");
  auto number = [&](const std::string& t) {
    if (t.empty() || t.size() > 15 || t.find_first_not_of("0123456789") != std::string::npos)
      throw bad(fmt::format("'{}' is not a cycle (0 to 999999999999999)", t.substr(0, 80)));
    return std::stoull(t);
  };
  const std::uint64_t a = number(spec.substr(0, colon)), b = number(spec.substr(colon + 1));
  if (a >= b) throw bad("the end cycle must be after the first");
  return {a, b};
}

std::vector<std::uint32_t> timeline_sms(const std::string& spec, std::uint32_t sm_count) {
  std::vector<std::uint32_t> out;
  if (spec.empty()) return out;
  const auto bad = [&](const std::string& why) {
    return InputError(fmt::format("--timeline-sms '{}': {}", spec.substr(0, 80), why));
  };
  const auto number = [&](const std::string& t) {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos)
      throw bad(fmt::format("'{}' is not an SM number (give SMs as 0,4-7)", t.substr(0, 80)));
    const auto v = std::uint32_t(std::stoul(t));
    if (sm_count && v >= sm_count)
      throw bad(
          fmt::format("SM {}: the GPU has {} SMs (sm.count), 0 to {}", v, sm_count, sm_count - 1));
    return v;
  };
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    const std::uint32_t a = number(item.substr(0, dash));
    const std::uint32_t b = dash == std::string::npos ? a : number(item.substr(dash + 1));
    if (b < a) throw bad(fmt::format("'{}': the range's end is before its start", item));
    if (b - a >= 100000) throw bad(fmt::format("'{}': a range of over 100,000 SMs", item));
    for (std::uint32_t v = a; v <= b; ++v) out.push_back(v);
    at = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Arch resolve_sim_arch(const ArchOptions& arch, const SimOptions& sim) {
  ArchOptions a = arch;
  if (!sim.pipeline.empty()) {
    if (!find_named(timing::pipelines(), sim.pipeline))
      throw InputError(fmt::format("--pipeline: unknown pipeline '{}'{} (known: {})", sim.pipeline,
                                   hint(sim.pipeline, timing::pipelines()),
                                   known_names(timing::pipelines())));
    a.sets.push_back("sm.pipeline=" + sim.pipeline);
  }
  if (!sim.scheduler.empty()) {
    if (!find_named(timing::schedulers(), sim.scheduler))
      throw InputError(fmt::format("--scheduler: unknown scheduler '{}'{} (known: {})",
                                   sim.scheduler, hint(sim.scheduler, timing::schedulers()),
                                   known_names(timing::schedulers())));
    a.sets.push_back("sm.scheduler=" + sim.scheduler);
  }
  if (!sim.barrel.empty()) a.sets.push_back("sm.barrel=" + sim.barrel);
  return resolve_arch(a);
}

SimRun simulate(exec::Workload& w, const ptx::Kernel& kernel, const Arch& arch, const SimOptions& o,
                exec::AccessConsumer* consumer, bool per_instruction) {
  SimRun run;
  timing::TimingOptions to;
  to.max_cycles = o.max_cycles;
  to.regs_per_thread = o.regs;
  to.per_instruction = per_instruction;
  to.consumer = consumer;
  to.sample_ctas = o.sample_ctas;
  to.threads = sim_threads(o);
  to.warm_l2 = o.warm_l2 || w.warm_l2;  // the flag or the spec's warm_l2
  LaunchProgress progress;
  to.progress = progress.callback();
  timing::ObserverFan fan;
  // The timeline is written beside its target and renamed into place only after a run that ends
  // well: a kernel that fails leaves no truncated JSON and keeps an older timeline (issue 48).
  std::unique_ptr<OutputFile> tl;
  std::unique_ptr<timing::ChromeTrace> trace;
  if (!o.timeline.empty()) {
    tl = std::make_unique<OutputFile>(o.timeline, "--timeline");
    timing::TraceOptions t;
    std::tie(t.from, t.to) = timeline_window(o.timeline_window);
    t.max_spans = o.timeline_events;
    t.subcores = arch.sm.subcores;
    t.sms = timeline_sms(o.timeline_sms, arch.sm.count);
    trace = std::make_unique<timing::ChromeTrace>(tl->stream(), w.module, kernel, std::move(t));
    fan.add(trace.get());
  }
  std::unique_ptr<timing::PipeView> view;
  if (o.pipeview) {
    if (o.pipeview_sm >= arch.sm.count)
      throw InputError(fmt::format("--pipeview-sm {}: the GPU has {} SMs (sm.count)", o.pipeview_sm,
                                   arch.sm.count));
    const std::uint64_t from =
        o.pipeview_from < 0 ? arch.sm.launch_cycles : std::uint64_t(o.pipeview_from);
    view = std::make_unique<timing::PipeView>(o.pipeview_sm, o.pipeview, kernel,
                                              arch.sm.simd_width < arch.warp_size, from,
                                              arch.sm.subcores);
    fan.add(view.get());
  }
  if (!fan.empty()) to.observer = &fan;
  set_activity(
      fmt::format("simulating {}: try a smaller launch (fewer blocks, smaller buffers)", w.name));
  timing::GpuSim sim(w.module, kernel, arch, w.launch, w.memory, to);
  try {
    run.stats = sim.run();
  } catch (...) {
    emit_printf(w, &run.summary);  // what the failing launch printed before it failed
    throw;
  }
  emit_printf(w, &run.summary);
  run.summary.stats = sim.exec_stats();
  run.summary.shared = sim.shared_layout();
  run.summary.seconds = run.stats.seconds;
  if (w.check) {
    run.summary.checked = true;
    run.summary.mismatch = w.check(w.memory);
  }
  finish_workload(w);
  if (view) run.pipeview = view->render(sim.stage_names());
  if (trace) {
    trace->finish();
    tl->commit();
    run.timeline_json = {{"path", o.timeline},
                         {"events", trace->events()},
                         {"spans", trace->spans()},
                         {"truncated", trace->truncated()}};
    run.timeline_note = fmt::format(
        "wrote {} timeline spans ({} events with the tracks' names) to {}{}{}{} (open in "
        "https://ui.perfetto.dev; 1 us = 1 cycle)",
        trace->spans(), trace->events(), o.timeline,
        o.timeline_window.empty() ? "" : fmt::format(", cycles {}", o.timeline_window),
        o.timeline_sms.empty() ? "" : fmt::format(", SMs {}", o.timeline_sms),
        trace->truncated() ? fmt::format(" (stopped at --timeline-events {})", o.timeline_events)
                           : "");
  }
  return run;
}

SimPipeline simulate_pipeline(exec::Workload& w, const Arch& arch, const SimOptions& o) {
  SimPipeline p;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < w.pipeline.size(); ++i) {
    const exec::Workload::Step& step = w.pipeline[i];
    const ptx::Kernel& kernel = exec::find_kernel(w.module, step.kernel);
    timing::TimingOptions to;
    to.max_cycles = o.max_cycles;
    to.regs_per_thread = o.regs;
    to.sample_ctas = o.sample_ctas;
    to.threads = sim_threads(o);
    to.warm_l2 = o.warm_l2 || w.warm_l2;  // the flag or the spec's warm_l2
    LaunchProgress progress;
    to.progress = progress.callback();
    set_activity(fmt::format("simulating launch {} of {} ({}): try a smaller launch", i + 1,
                             w.pipeline.size(), ptx::demangle(step.kernel)));
    timing::GpuSim sim(w.module, kernel, arch, step.launch, w.memory, to);
    timing::TimingStats st;
    try {
      st = sim.run();
    } catch (...) {
      emit_printf(w, &p.summary);
      throw;
    }
    emit_printf(w, &p.summary);
    const exec::ExecStats es = sim.exec_stats();
    p.summary.stats.add(es);
    p.summary.shared = sim.shared_layout();
    p.summary.steps.push_back({step.kernel, step.launch, es, sim.shared_layout()});
    timing::TimingStats& t = p.total;
    t.cycles += st.cycles;
    t.warp_instructions += st.warp_instructions;
    t.thread_instructions += st.thread_instructions;
    t.ctas += st.ctas;
    t.issue.add(st.issue);
    t.units.add(st.units);
    p.steps.push_back(std::move(st));
  }
  p.summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.total.seconds = p.summary.seconds;
  if (w.check) {
    p.summary.checked = true;
    p.summary.mismatch = w.check(w.memory);
  }
  finish_workload(w);
  return p;
}

void print_sim_speed(const timing::TimingStats& s) {
  const double t = s.seconds > 0 ? s.seconds : 1e-9;
  std::fflush(stdout);
  if (s.sampling.on && s.sampling.ctas_timed < s.sampling.ctas_total) {
    // Sampled: the cycles simulated are the timed part's; the instructions are every CTA's.
    fmt::print(stderr,
               "sampled: {} cycles simulated ({} estimated) and {} CTAs run functionally in "
               "{:.3f} s on {} thread{}: {:.0f} simulated cycles/s, {:.2f} M "
               "thread-instructions/s\n",
               s.sampling.cycles_timed, s.cycles, s.sampling.ctas_total - s.sampling.ctas_timed,
               s.seconds, s.threads, s.threads == 1 ? "" : "s", double(s.sampling.cycles_timed) / t,
               double(s.thread_instructions) / t / 1e6);
    return;
  }
  // SM-cycles ticked ahead (TimingOptions::run_ahead): the share of the SMs' busy cycles that an
  // SM ran several in a row, which keeps its state in the host's caches.
  std::uint64_t busy = 0;
  for (const timing::SmStats& sm : s.sms) busy += sm.busy_cycles;
  fmt::print(stderr,
             "simulated {} cycles in {:.3f} s on {} thread{}: {:.0f} cycles/s, {:.2f} M "
             "thread-instructions/s, {:.3f} M warp-instructions/s; {:.1f}% of the SMs' busy "
             "cycles ticked ahead\n",
             s.cycles, s.seconds, s.threads, s.threads == 1 ? "" : "s", double(s.cycles) / t,
             double(s.thread_instructions) / t / 1e6, double(s.warp_instructions) / t / 1e6,
             busy ? 100.0 * double(s.ahead_ticks) / double(busy) : 0.0);
}

}  // namespace smemsim::cli

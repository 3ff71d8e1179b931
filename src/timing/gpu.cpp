// The GPU: CTA dispatch to SMs as their resources free, the cycle loop, and the errors for a kernel
// that cannot finish (docs/timing.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include "smemsim/error.hpp"
#include "smemsim/interrupt.hpp"
#include "smemsim/timing.hpp"
#include "timing/gpu_dispatch.hpp"
#include "timing/gpu_impl.hpp"
#include "timing/sampling.hpp"

namespace smemsim::timing {

namespace {

// How shared atomics are timed (sm.hpp AtomicMode): `loadstore` and `native` by name; `alg1` and
// `fsm` run the lock loop on lock-bit GPUs (both name seed 000/001's loop; the cycle model times it
// with the FSM's state latencies) and the native unit where there are no lock bits.
// A warp's spin check is re-armed only after it issued this many instructions (spin.cpp).
constexpr std::uint64_t kSpinMinIssued = 256;

AtomicMode atomic_mode(const Arch& a) {
  if (a.atomic_model == "loadstore") return AtomicMode::LoadStore;
  if (a.atomic_model == "native" || a.locks == 0) return AtomicMode::Native;
  return AtomicMode::LockLoop;
}

std::uint32_t checked_latency(const Arch& a, const char* key, std::int64_t v) {
  if (v < std::int64_t(a.sm.min_latency()) || v > 100000)
    throw InputError(
        fmt::format("arch key '{}': {} cycles is not between the pipeline's shortest latency {} "
                    "(sm.frontend_stages + sm.mem_stages + 2) and 100000",
                    key, v, a.sm.min_latency()));
  return static_cast<std::uint32_t>(v);
}

}  // namespace

GpuSim::Impl::Impl(const ptx::Module& m, const ptx::Kernel& k, const Arch& a, const exec::Launch& l,
                   exec::GlobalMemory& mem, const TimingOptions& o)
    : module(m), kernel(k), arch(a), launch(l), options(o), code(&k), info(decode_kernel(k)) {
  validate(arch);
  const SmConfig& sm = arch.sm;
  rules = lower::parse_rules(sm.lower);
  if (rules.ifcvt) if_convert_code();  // on the decode as written, before anything is absorbed
  if (rules.vector) vectorize_code();
  find_unrolled();
  absorbed = apply_lowering(*code, info, rules);
  if (rules.balance) balance_pipes(*code, info, absorbed, sm);
  ctx.atomics = atomic_mode(arch);
  const Timing& t = arch.timing;
  auto& lat = ctx.latency;
  lat[std::size_t(Unit::Alu)] = sm.lat_alu;
  lat[std::size_t(Unit::Sfu)] = sm.lat_sfu;
  lat[std::size_t(Unit::Cvt64)] = sm.lat_cvt64 ? sm.lat_cvt64 : sm.lat_sfu;
  lat[std::size_t(Unit::Fma)] = sm.lat_fma ? sm.lat_fma : sm.lat_alu;
  lat[std::size_t(Unit::Fp64)] = sm.lat_fp64 ? sm.lat_fp64 : sm.lat_alu;
  lat[std::size_t(Unit::Fp16)] = sm.lat_fp16 ? sm.lat_fp16 : lat[std::size_t(Unit::Fma)];
  lat[std::size_t(Unit::Imad)] = sm.lat_imad ? sm.lat_imad : lat[std::size_t(Unit::Fma)];
  lat[std::size_t(Unit::Tensor)] = sm.lat_tensor ? sm.lat_tensor : sm.lat_alu;
  lat[std::size_t(Unit::Branch)] = sm.lat_branch;
  lat[std::size_t(Unit::SharedLd)] = sm.lat_shared_ld;
  lat[std::size_t(Unit::SharedSt)] = sm.lat_shared_st;
  lat[std::size_t(Unit::Const)] = sm.lat_const;
  lat[std::size_t(Unit::Global)] = sm.lat_shared_ld;  // the LSU's address path up to MEM0
  // Keys only some modes use are checked when the kernel uses them (a shared or generic atomic).
  const bool atomics = std::any_of(info.begin(), info.end(), [](const InstInfo& i) {
    return i.atomic && (i.space == Space::Shared || i.space == Space::Generic);
  });
  const bool loop = atomics && ctx.atomics == AtomicMode::LockLoop;
  const bool native = atomics && ctx.atomics == AtomicMode::Native;  // uses timing.native_position
  // atomics.shared_float = cas: a float add's loop runs on the lock loop's micro-ops, each the
  // SASS instruction it stands for: LDS, FADD, ATOMS.CAS, BRA.
  const bool cas = native && arch.shared_float_atomics == "cas";
  lat[std::size_t(Unit::SharedAtom)] = sm.lat_shared_atom;
  lat[std::size_t(Unit::FsmRead)] = loop  ? checked_latency(arch, "timing.fsm_read", t.fsm_read)
                                    : cas ? sm.lat_shared_ld
                                          : sm.lat_alu;
  lat[std::size_t(Unit::FsmUpdate)] = loop
                                          ? checked_latency(arch, "timing.fsm_update", t.fsm_update)
                                      : cas ? lat[std::size_t(Unit::Fma)]
                                            : sm.lat_alu;
  lat[std::size_t(Unit::FsmWrite)] = loop  ? checked_latency(arch, "timing.fsm_write", t.fsm_write)
                                     : cas ? sm.lat_shared_atom
                                           : sm.lat_alu;
  lat[std::size_t(Unit::FsmBranch)] = loop
                                          ? checked_latency(arch, "timing.fsm_branch", t.fsm_branch)
                                      : cas ? sm.lat_branch
                                            : sm.lat_alu;
  // Seed 002 §4.5: a configurable bank hash sits between address generation and the banks and
  // takes memory.hash_latency cycles: every unit that reaches the banks (loads, stores, native
  // atomics, the lock loop's Read and Write) has that many more stages before MEM0. They are
  // pipelined like the others: an access arrives later, the accesses behind it are not held.
  for (const Unit u :
       {Unit::SharedLd, Unit::SharedSt, Unit::SharedAtom, Unit::FsmRead, Unit::FsmWrite})
    lat[std::size_t(u)] += arch.hash_latency;
  // Every unit needs at least one EXE stage (validate() checks the keys; this keeps the derived
  // depths from underflowing should a new unit miss its check).
  for (const std::uint32_t l : lat)
    if (l < sm.min_latency())
      throw std::logic_error("timing: a unit latency is shorter than the pipeline");
  if (t.t_bank < 1) throw InputError("arch key 'timing.t_bank': the cycle model needs >= 1");
  if (native && t.native_position < 1)
    throw InputError("arch key 'timing.native_position': the cycle model needs >= 1");
  if (options.max_cycles == 0) throw InputError("--max-cycles must be at least 1");

  if (rules.schedule) lower_code();
  renumber_events();
  // The executor checks the launch (block size, shared memory, arguments) first.
  primary = std::make_unique<exec::Executor>(module, *code, arch, launch, mem, 1, options.remap);
  const exec::Executor& probe = *primary;
  ctx.warps_per_cta = probe.warps_per_cta();
  ctx.threads_per_cta = static_cast<std::uint32_t>(launch.block.count());
  ctx.shared_per_cta = probe.shared_layout().total_bytes;
  // GPU-LocalTM's shadow memory shares the LDS with the data (seed 003 §4.3).
  ctx.uses_tm = probe.uses_tm();
  if (ctx.uses_tm) ctx.shared_per_cta += tm::shadow_bytes(ctx.shared_per_cta, ctx.threads_per_cta);
  ctx.regs_per_cta = std::uint64_t(options.regs_per_thread) * ctx.threads_per_cta;
  // Resident CTAs per SM: the tightest of the limits (each names its key when it is zero).
  struct Limit {
    const char* key;
    std::uint64_t have, need;
  };
  const Limit limits[] = {
      {"sm.max_ctas", sm.max_ctas, 1},
      {"sm.max_warps", sm.max_warps, ctx.warps_per_cta},
      {"sm.max_threads", sm.max_threads, ctx.threads_per_cta},
      {"memory.size_bytes", arch.memory_bytes, std::max<std::uint64_t>(ctx.shared_per_cta, 1)},
      {"sm.registers", ctx.regs_per_cta ? sm.registers : ~0u,
       std::max<std::uint64_t>(ctx.regs_per_cta, 1)},
  };
  std::uint64_t fit = ~std::uint64_t{0};
  for (const Limit& lim : limits) {
    const std::uint64_t n = lim.have / lim.need;
    if (n == 0)
      throw InputError(fmt::format(
          "a block of {} threads does not fit on an SM: it needs {} of '{}', the SM has {}",
          ctx.threads_per_cta, lim.need, lim.key, lim.have));
    fit = std::min(fit, n);
  }
  ctx.ctas_per_sm = static_cast<std::uint32_t>(std::min<std::uint64_t>(fit, sm.max_ctas));
  // The L1 is the SRAM the carve-out for the resident CTAs' shared memory leaves (issue 44), or
  // for the launch's preferred carve-out where that is more (a percent of the most shared memory,
  // rounded up to a carve-out the GPU has, as the driver does).
  const std::uint64_t preferred =
      launch.carveout_percent < 0
          ? 0
          : (std::uint64_t(launch.carveout_percent) * arch.memory_bytes + 99) / 100;
  ctx.l1_bytes = l1_capacity(arch, std::max(ctx.shared_per_cta * ctx.ctas_per_sm, preferred));
  // --warm-l2: the buffers, in their order, while they fit in the GPU's L2 (each at its generic
  // address, exec::GlobalMemory::base_address), as the sectors (address / 32) the caches see.
  if (options.warm_l2 && sm.l2_bytes) {
    std::uint64_t held = 0;
    for (std::uint32_t i = 0; i < mem.buffers.size(); ++i) {
      const std::uint64_t n = mem.buffers[i].bytes.size();
      if (n == 0) continue;
      if (held + n > sm.l2_bytes / std::max(options.l2_share, 1u)) break;
      held += n;
      const std::uint64_t base = exec::GlobalMemory::base_address(i);
      ctx.l2_resident.emplace_back(base / 32, (base + n + 31) / 32);  // in sectors
    }
  }

  if (sm.l2_slices && sm.l2_bytes) {
    l2 = std::make_unique<SharedL2>(sm, options.l2_share);
    l2->set_resident(&ctx.l2_resident);
    ctx.l2 = l2.get();
  }

  primary->set_clock_source(&cycle);
  primary->set_count_sectors(true);
  // The vector rule's merged accesses are built from their members' words, word k of every lane
  // (Sm::issue_warp): a member wider than a word (lavamd's doubles) comes word by word, not in the
  // phases its own width would take. The SMs' executors are copies of this one.
  if (rules.vector) {
    std::vector<std::uint8_t> rows(info.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < info.size(); ++i) any |= (rows[i] = info[i].merged_words) != 0;
    if (any) primary->set_word_rows(std::move(rows));
  }
  primary->set_defer_bulk(true);
  exs.resize(sm.count);
  ctx.module = &module;
  ctx.kernel = code;
  ctx.arch = &arch;
  ctx.info = &info;
  ctx.absorbed = &absorbed;
  // Not with GPU-LocalTM, whose retries jump back over transactions.
  if (!unrolled.empty() && !ctx.uses_tm) ctx.unroll = &unrolled;
  if (sm.const_miss_cycles) {
    const_lines = constant_lines(*code, ctx.const_lines);
    ctx.const_line = &const_lines;
  }
  ctx.options = &options;
  // One register more than the kernel's: sm.lower's sincos writes its range reduction there.
  ctx.nregs = static_cast<std::uint32_t>(code->regs.size()) + 1;
  trows = options.share_rows ? share_timing_rows(*code, info, ctx.nregs, ctx.unroll)
                             : one_row_each(ctx.nregs);
  ctx.trow = trows.row.data();
  ctx.trows = trows.rows;
  ctx.grid = launch.grid;
  if (options.per_instruction) {
    instr.resize(code->code.size());
    ctx.instr = &instr;
  }
  // An SM is built when it first takes a CTA: most of a GPU's 80-132 SMs never do in a small launch
  // (building one is a few microseconds; the 8-CTA reduction on volta-v100 spent a fifth of its
  // time building the other 72).
  sms.resize(sm.count);
  if (options.threads == 0 || options.threads > kMaxThreads)
    throw InputError(
        fmt::format("--threads {}: give between 1 and {}", options.threads, kMaxThreads));
  // More threads than SMs or than this process may use would only wait.
  threads = std::min<std::uint32_t>(
      {options.threads, sm.count,
       std::uint32_t(std::max(1, tbb::this_task_arena::max_concurrency()))});
  // Clusters (issue 46): a CTA reads and writes its partners' shared memory and barrier on other
  // SMs of its GPC as it issues, so a GPC's SMs tick on one thread, in SM order (tick_all); the
  // GPCs tick apart, as SMs do without clusters.
  if (kernel.cluster[0] * std::max(1u, kernel.cluster[1]) * std::max(1u, kernel.cluster[2]) > 1)
    gpc_sms = sm.gpc_sms;
  if (threads > 1) {
    arena = std::make_unique<tbb::task_arena>(int(threads));
    outboxes.resize(sm.count);  // made with the SM
    errors.resize(sm.count);
  }
}

void GpuSim::Impl::stuck(const std::string& why) const {
  std::vector<std::string> warps;
  for (const auto& s : sms)
    if (s) s->describe_warps(warps);
  std::string list;
  const std::size_t shown = std::min<std::size_t>(warps.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) list += (i ? "; " : "") + warps[i];
  if (warps.size() > shown) list += fmt::format("; and {} more", warps.size() - shown);
  throw InputError(fmt::format("{}: kernel '{}' {}: {}", module.filename, kernel.name, why,
                               list.empty() ? "no warp is resident" : list));
}

GpuSim::GpuSim(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch,
               const exec::Launch& launch, exec::GlobalMemory& memory,
               const TimingOptions& options) {
  // Clusters (issue 46): their CTAs run on different SMs of one GPC (sm.gpc_sms), their accesses
  // to each other's shared memory timed on the SM-to-SM network (through the MIO queues).
  const std::uint32_t cluster = std::max(1u, kernel.cluster[0]) * std::max(1u, kernel.cluster[1]) *
                                std::max(1u, kernel.cluster[2]);
  if (cluster > 1) {
    const std::string shape =
        fmt::format("{},{},{}", std::max(1u, kernel.cluster[0]), std::max(1u, kernel.cluster[1]),
                    std::max(1u, kernel.cluster[2]));
    const std::string name = ptx::demangle(kernel.name);
    if (!arch.sm.gpc_sms || !arch.sm.mio_queue)
      throw InputError(located(
          module.filename, kernel.ptx_line,
          fmt::format("kernel '{}' runs in clusters of {} CTAs (.reqnctapercluster), which need "
                      "GPCs of SMs and the MIO queues the SM-to-SM network's timing goes through: "
                      "the arch ({}) has {} (the hopper-h100 preset has both); `run` and "
                      "`profile` execute it",
                      name, shape, arch.name,
                      !arch.sm.gpc_sms ? "sm.gpc_sms = 0" : "sm.mio_queue = 0")));
    if (cluster > arch.sm.max_cluster)
      throw InputError(located(
          module.filename, kernel.ptx_line,
          fmt::format("kernel '{}' runs in clusters of {} = {} CTAs (.reqnctapercluster): the "
                      "arch ({}) allows at most {} (sm.max_cluster)",
                      name, shape, cluster, arch.name, arch.sm.max_cluster)));
    if (options.sample_ctas)
      throw InputError(
          fmt::format("--sample-ctas: kernel '{}' runs in clusters of {} CTAs, whose untimed CTAs "
                      "cannot run one at a time; leave --sample-ctas off to time every cluster",
                      name, shape));
  }
  // wgmma (issue 46) runs on sm_90's warpgroup tensor cores: a preset without them has no time
  // for it.
  if (!arch.sm.wgmma_fmas)
    for (const ptx::Instruction& ins : kernel.code)
      if (ins.op == ptx::Opcode::Wgmma &&
          ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask) == ptx::WgmmaOp::Mma)
        throw InputError(located(
            module.filename, ins.ptx_line,
            fmt::format("kernel '{}' uses wgmma.mma_async, which needs Hopper's warpgroup tensor "
                        "cores: the arch ({}) has none (sm.wgmma_fmas = 0; the hopper-h100 preset "
                        "has them); `run` and `profile` execute it",
                        ptx::demangle(kernel.name), arch.name)));
  impl_ = std::make_unique<Impl>(module, kernel, arch, launch, memory, options);
}

GpuSim::~GpuSim() = default;

const exec::ExecStats& GpuSim::exec_stats() const {
  return impl_->exec_stats();
}

const exec::SharedLayout& GpuSim::shared_layout() const {
  return impl_->primary->shared_layout();
}

std::vector<std::string> GpuSim::stage_names() const {
  const auto& first = impl_->sms.front();
  return first ? first->stage_names() : Sm(0, impl_->ctx).stage_names();
}

const TimingStats& GpuSim::run() {
  Impl& im = *impl_;
  if (im.ran) return im.stats;
  im.ran = true;
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t grid_ctas = im.launch.grid.count();
  const std::size_t n = im.sms.size();
  // --sample-ctas: the CTAs timed here (the first K per SM, at least one residency's worth); the
  // rest run functionally after the loop and their cycles are estimated.
  std::uint64_t total = grid_ctas;
  SamplingStats& sampling = im.stats.sampling;
  if (im.options.sample_ctas) {
    // Two residencies at least: the second starts as the first retires, into a full GPU, as the
    // untimed CTAs would (the steady CTAs the estimate uses).
    const std::uint64_t per_sm =
        std::max<std::uint64_t>(im.options.sample_ctas, 2 * std::uint64_t(im.ctx.ctas_per_sm));
    total = std::min<std::uint64_t>(grid_ctas, per_sm * n);
    sampling.on = true;
    sampling.ctas_total = grid_ctas;
    sampling.ctas_timed = total;
    sampling.slots = std::uint64_t(im.ctx.ctas_per_sm) * n;
    if (im.arch.sm.dispatch_ctas)
      sampling.dispatch_interval =
          double(im.arch.sm.dispatch_cycles) / double(im.arch.sm.dispatch_ctas);
    im.ctx.cta_log = &sampling.timed;
  }
  Impl::Dispatcher d(im, total);
  std::vector<std::uint32_t>& awake = d.awake;
  std::vector<std::uint32_t> resident_before;  // per awake SM: its CTAs before the tick
  const SmConfig& smc = im.arch.sm;
  im.ahead_setup();
  for (;;) {
    d.dispatch();
    bool progress = false, issued = false, resident = false, asleep = false, ahead = false;
    resident_before.clear();
    if (im.ahead_k) {  // the flags come from each SM's own tick of this cycle (gpu_ahead.cpp)
      im.tick_ahead(awake, d.left());
    } else {
      for (const std::uint32_t i : awake) resident_before.push_back(im.sms[i]->resident_ctas());
      im.tick_all(awake);
    }
    for (std::size_t j = 0; j < awake.size(); ++j) {
      const std::uint32_t i = awake[j];
      const std::uint8_t f =
          im.ahead_k ? im.ahead_flags(i) : Impl::tick_flags(*im.sms[i], resident_before[j]);
      progress |= (f & Impl::kAheadProgressed) != 0;
      issued |= (f & Impl::kAheadIssued) != 0;
      if (f & Impl::kAheadRetired) d.saturated = false;  // room again
      resident |= (f & Impl::kAheadResident) != 0;
      asleep |= (f & Impl::kAheadAsleep) != 0;
      ahead |= im.is_ahead(i);
    }
    im.commit(awake);
    d.after_tick(asleep);
    if (!d.left() && !resident) {
      ++im.cycle;
      break;
    }
    if (!progress && resident)
      im.stuck(fmt::format("cannot finish: at cycle {} no warp can issue and nothing is in flight",
                           im.cycle));
    // Skip the cycles in which nothing can happen: no CTA to dispatch, no SM with an eligible warp
    // and every op in flight still on its way (observers see every cycle: no skipping with them).
    std::uint64_t next = im.cycle + 1;
    // A CTA that may start only later (the launch's cost, the dispatcher's rate) is an event too.
    const bool waiting = d.left() && !d.saturated && d.next_at() > next;
    if (im.options.skip_idle && !im.options.observer && !issued && !ahead &&
        (!d.left() || d.saturated || waiting)) {
      std::uint64_t event = waiting ? d.next_at() : ~std::uint64_t{0};
      for (const std::uint32_t i : awake) {  // no skip once one SM has work next cycle
        event = std::min(event, im.sms[i]->next_event(im.cycle));
        if (event <= next) break;
      }
      event = std::min(event, im.options.max_cycles);
      if (event > next) {
        for (const std::uint32_t i : awake) im.sms[i]->skip(im.cycle, event - next);
        next = event;
      }
    }
    if ((next >> 16) != (im.cycle >> 16)) {
      // Every 65,536 cycles: a launch whose every live warp spins with nothing written since the
      // last look can never end, unless a CTA still waiting for a place could start (spin.cpp).
      if (!d.left() || std::none_of(im.sms.begin(), im.sms.end(),
                                    [](const auto& s) { return !s || s->can_take(); })) {
        if (exec::Executor::spin_stuck(im.executors()))
          im.stuck(fmt::format(
              "never ends: at cycle {} every live warp spins, back at the same instruction with "
              "the same registers and no memory written since, waits for an mbarrier phase "
              "nothing arrives at, or waits at a barrier none of them reaches",
              next));
        for (const auto& e : im.exs)
          if (e) e->arm_spin_checks(kSpinMinIssued);
      }
      if (im.options.progress) im.options.progress(d.next_cta, grid_ctas);
      poll_interrupt();
    }
    im.cycle = next;
    if (im.cycle >= im.options.max_cycles)
      im.stuck(fmt::format(
          "did not finish within {} cycles (--max-cycles){}", im.options.max_cycles,
          // CTAs left that the SMs had room for: the launch's cost or the dispatcher held them
          d.left() && !d.saturated && (smc.launch_cycles || smc.dispatch_ctas)
              ? fmt::format(" with {} of its {} CTAs started (the first at sm.launch_cycles = {}, "
                            "then sm.dispatch_ctas = {} every sm.dispatch_cycles = {})",
                            d.next_cta, total, smc.launch_cycles, smc.dispatch_ctas,
                            smc.dispatch_cycles)
              : ""));
  }
  d.finish();
  TimingStats& st = im.stats;
  st.cycles = im.cycle;
  if (sampling.on) {
    sampling.cycles_timed = im.cycle;
    // The untimed CTAs, functionally: outputs and instruction counts exact, their accesses to the
    // caller's consumer (not to the SMs' collector), %clock frozen at the last timed cycle.
    std::vector<std::uint64_t> counts;
    exec::Executor& ex = *im.primary;
    ex.set_consumer(im.options.consumer);
    std::uint64_t before = ex.stats().warp_instructions;
    try {
      ex.run_ctas(total, grid_ctas, [&](std::uint64_t) {
        counts.push_back(ex.stats().warp_instructions - before);
        before = ex.stats().warp_instructions;
      });
    } catch (const InputError& e) {  // the executor's words are run's: say where they apply
      throw InputError(fmt::format(
          "{} [--sample-ctas runs the untimed CTAs, from block {} on, like run: one block at a "
          "time; without --sample-ctas sim times them all, interleaved]",
          e.what(), total));
    }
    estimate_untimed(sampling, counts);
    st.cycles = sampling.cycles_estimate;
  }

  std::unique_ptr<Sm> never;  // the statistics of an SM that never took a CTA: a fresh one's
  for (auto& s : im.sms) {
    if (!s) {
      if (!never) {
        never = std::make_unique<Sm>(0, im.ctx);
        never->add_idle(im.cycle, d.last_tick);
      }
    }
    const SmStats& ss = (s ? s : never)->stats();
    st.sms.push_back(ss);
    st.warp_instructions += ss.warp_instructions;
    st.absorbed += ss.absorbed;
    st.expanded += ss.expanded;
    st.thread_instructions += ss.thread_instructions;
    st.ctas += ss.ctas;
    st.issue.add(ss.issue);
    st.units.add(ss.units);
    st.tm.add(ss.tm);
  }
  const exec::ExecStats& es = im.exec_stats();
  if (sampling.on) {  // every CTA's instructions count (the executors', exact); stalls are timed
    // Absorbed instructions are counted only in the timed CTAs: the untimed ones are estimated at
    // the timed CTAs' share, like their cycles.
    if (st.warp_instructions) {
      const double share = double(es.warp_instructions) / double(st.warp_instructions);
      st.absorbed = std::uint64_t(std::llround(double(st.absorbed) * share));
      st.expanded = std::uint64_t(std::llround(double(st.expanded) * share));
    }
    st.warp_instructions = es.warp_instructions;
    st.thread_instructions = es.thread_instructions;
    st.ctas = grid_ctas;
  }
  st.lower = lower::to_string(im.rules);
  st.warm_l2 = im.options.warm_l2;
  st.uses_tm = im.ctx.uses_tm;
  if (st.uses_tm) st.tm_counts = es.tm;
  for (const auto& o : im.outboxes)  // per-instruction statistics the SMs kept apart
    for (std::size_t k = 0; o && k < o->instr.size() && k < im.instr.size(); ++k)
      im.instr[k].add(o->instr[k]);
  if (!im.order.empty() && !im.instr.empty()) {  // back to the caller's numbering
    st.instructions.assign(im.instr.size(), InstrStats{});
    for (std::size_t i = 0; i < im.order.size() && i < im.instr.size(); ++i)
      st.instructions[im.order[i]] = im.instr[i];
  } else {
    st.instructions = std::move(im.instr);
  }
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.threads = im.threads;
  return st;
}

}  // namespace smemsim::timing

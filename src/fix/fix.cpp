// `smemsim fix` (include/smemsim/fix.hpp): the baseline run, the candidate runs and their checks.
#include "smemsim/fix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>

#include "fix/fix_apply.hpp"
#include "fix/fix_internal.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::fix {
namespace {

// What one run of the kernel gives.
struct RunResult {
  std::uint64_t cycles = 0;
  Traffic traffic;
  exec::SharedLayout layout;
  std::vector<exec::ProfileRow> rows;
  std::vector<exec::Buffer> buffers;
  std::uint64_t blocks = 0;
  std::uint32_t grain = 4;  // exec::widest_shared_access of the kernel
  ptx::Module module;       // what ran
  std::string kernel;
};

// Runs `w` on the cycle model with `remap`. `arrays`, when given, learns the kernel's arrays once
// the simulator has laid out its shared memory and then sees every access; a kernel without shared
// memory is an error before anything runs.
// An order-free digest of every shared access (instruction line, lanes, word addresses): two runs
// with equal digests made the same accesses, whatever order their warps issued them in.
class AccessDigest : public exec::AccessConsumer {
 public:
  void on_access(const WarpAccess& wa) override {
    std::uint64_t h = mix(wa.pc * 0x9e3779b97f4a7c15ull ^ wa.active);
    for (int l = 0; l < wa.lanes; ++l)
      if (wa.is_active(l)) h = mix(h ^ (std::uint64_t(wa.addr[std::size_t(l)]) + l * 0x10001ull));
    sum_ += h;
    ++count_;
  }
  bool operator==(const AccessDigest& o) const { return sum_ == o.sum_ && count_ == o.count_; }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  std::uint64_t sum_ = 0, count_ = 0;
};

RunResult run_once(exec::Workload w, const Arch& arch, const FixOptions& o,
                   const exec::SharedRemap* remap, detail::ArrayConsumer* arrays,
                   exec::AccessConsumer* also = nullptr) {
  if (!w.pipeline.empty())
    throw InputError(fmt::format(
        "{}: smemsim fix takes one launch; this launch spec has a pipeline of {} ([[launch]])",
        w.name, w.pipeline.size()));
  w.outputs.clear();  // the candidates write no files
  const ptx::Kernel& k = exec::find_kernel(w.module, w.kernel);
  exec::Profiler prof(w.module, k, arch);
  exec::TeeConsumer tee;
  tee.add(&prof);
  tee.add(arrays);
  tee.add(also);
  timing::TimingOptions to;
  to.max_cycles = o.max_cycles;
  to.regs_per_thread = o.regs;
  to.consumer = &tee;
  to.warm_l2 = w.warm_l2;  // the spec's starting L2, for the kernel and every candidate
  if (remap) to.remap = *remap;
  timing::GpuSim sim(w.module, k, arch, w.launch, w.memory, to);
  if (arrays) {
    if (sim.shared_layout().total_bytes == 0)
      throw InputError(
          fmt::format("kernel '{}' of {} uses no shared memory: nothing to fix", w.kernel, w.name));
    arrays->set_arrays(sim.shared_layout().arrays);
  }
  RunResult r;
  const timing::TimingStats st = sim.run();
  r.cycles = st.cycles;
  r.traffic.l2_sectors = st.units.global_sectors - st.units.l1_hit_sectors;
  r.traffic.dram_bytes =
      32 * (st.units.global_sectors - st.units.l1_hit_sectors - st.units.l2_hit_sectors);
  r.layout = sim.shared_layout();
  r.rows = prof.rows();
  r.blocks = w.launch.grid.count();
  r.grain = exec::widest_shared_access(k);
  r.buffers = std::move(w.memory.buffers);
  r.kernel = k.name;
  r.module = std::move(w.module);
  return r;
}

LineResult line_result(const exec::ProfileRow& row) {
  return {row.ptx_line,
          row.cuda,
          row.text,
          row.op,
          row.totals.accesses,
          row.totals.bank_conflicts,
          row.totals.max_position_degree,
          row.totals.max_lock_degree};
}

// The first difference between two runs' buffers, "" when there is none.
std::string first_difference(const std::vector<exec::Buffer>& a,
                             const std::vector<exec::Buffer>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const auto& x = a[i].bytes;
    const auto& y = b[i].bytes;
    if (x == y) continue;
    std::size_t at = 0;
    while (at < x.size() && at < y.size() && x[at] == y[at]) ++at;
    const std::size_t e = at / std::size_t(exec::elem_bytes(a[i].type));
    return fmt::format("buffer '{}' differs from the kernel's own output at element {}", a[i].name,
                       e);
  }
  return "";
}

std::vector<LineResult> lines_after(const RunResult& r, const ArrayFix& af) {
  std::vector<LineResult> out;
  for (const LineResult& before : af.lines) {
    LineResult after = before;
    after.accesses = 0, after.conflicts = 0, after.max_position = 0, after.max_lock = 0;
    for (const exec::ProfileRow& row : r.rows)
      if (row.ptx_line == before.ptx_line) after = line_result(row);
    out.push_back(after);
  }
  return out;
}

// Runs a rewritten kernel: its cycles, or nullopt with `why` set when it fails or computes
// other outputs than the kernel as written.
std::optional<RunResult> run_applied(detail::Applied a, const Target& t, const Arch& arch,
                                     const FixOptions& o, const RunResult& base, std::string& why,
                                     exec::AccessConsumer* also = nullptr) {
  if (!a.refused.empty()) {
    why = a.refused;
    return std::nullopt;
  }
  try {
    exec::Workload w = t.make();
    w.module = std::move(a.module);
    w.launch.dynamic_shared_bytes += a.dynamic_growth;
    RunResult r = run_once(std::move(w), arch, o, nullptr, nullptr, also);
    if (const std::string diff = first_difference(base.buffers, r.buffers); !diff.empty()) {
      why = "the rewritten kernel changes the output: " + diff;
      return std::nullopt;
    }
    return r;
  } catch (const InputError& e) {
    why = e.what();
    return std::nullopt;
  }
}

// The candidate applied as code (src/fix/fix_apply.hpp) and run: its cycles replace the estimate
// when it computes the same outputs and makes the remapped run's accesses.
void apply(Candidate& c, const Target& t, const Arch& arch, const FixOptions& o,
           const RunResult& base, const ArrayFix& af, const AccessDigest& remapped) {
  std::vector<std::uint32_t> lines;
  for (const LineResult& l : af.lines) lines.push_back(l.ptx_line);
  detail::Applied a = detail::apply_remap(base.module, base.kernel, af.array, lines, c.remap);
  const std::string form = a.form;
  AccessDigest d;
  std::optional<RunResult> r = run_applied(std::move(a), t, arch, o, base, c.not_applied, &d);
  if (!r) return;
  if (!(d == remapped)) {
    c.not_applied = "the rewritten kernel's shared accesses are not the layout's";
    return;
  }
  c.applied = true;
  c.applied_form = form;
  c.cycles = r->cycles;
  c.traffic = r->traffic;
  c.lines = lines_after(*r, af);
}

// The candidate's run: refused when it fails or changes an output; then applied as code.
void verify(Candidate& c, const Target& t, const Arch& arch, const FixOptions& o,
            const RunResult& base, const ArrayFix& af) {
  try {
    AccessDigest d;
    RunResult r = run_once(t.make(), arch, o, &c.remap, nullptr, &d);
    c.cycles = c.estimate_cycles = r.cycles;
    c.traffic = r.traffic;
    c.shared_bytes = r.layout.total_bytes;
    const std::string diff = first_difference(base.buffers, r.buffers);
    c.identical = diff.empty();
    if (!diff.empty()) c.refused = "the remapped run changes the output: " + diff;
    c.lines = lines_after(r, af);
    if (c.refused.empty()) apply(c, t, arch, o, base, af, d);
  } catch (const InputError& e) {
    c.refused = e.what();
  }
}

}  // namespace

std::int64_t Candidate::conflicts() const {
  std::int64_t s = 0;
  for (const LineResult& l : lines) s += l.conflicts;
  return s;
}

bool Candidate::worse_line(const std::vector<LineResult>& before) const {
  for (std::size_t i = 0; i < lines.size() && i < before.size(); ++i)
    if (lines[i].conflicts > before[i].conflicts) return true;
  return false;
}

const Candidate* ArrayFix::best() const {
  for (const Candidate& c : candidates)
    if (c.refused.empty() && c.applied && c.cycles * 100 <= baseline_cycles * 99) return &c;
  return nullptr;
}

std::string ArrayFix::why_none() const {
  if (best() || candidates.empty()) return "";
  const Candidate* fastest = nullptr;
  for (const Candidate& c : candidates)
    if (c.refused.empty() && c.applied && (!fastest || c.cycles < fastest->cycles)) fastest = &c;
  const std::string cause = this->cause.empty() ? "" : "; the cause: " + this->cause;
  if (!fastest)
    return "no layout change helps: no candidate could be applied as code and checked" + cause;
  const std::int64_t left = fastest->conflicts();
  return fmt::format(
             "no layout change helps: the best, {}, removes {} of the {} conflicts but takes {} "
             "cycles "
             "as written into the kernel against {} ({:+.1f} %){}",
             fastest->description, conflicts - left, conflicts, fastest->cycles, baseline_cycles,
             100.0 * (double(fastest->cycles) - double(baseline_cycles)) / double(baseline_cycles),
             left == conflicts ? ""
                               : ": its index arithmetic costs what the conflicts did, or the "
                                 "conflicts were not on the kernel's critical path") +
         cause;
}

bool ArrayFix::aggregation_recommended() const {
  return aggregation_applied_cycles && *aggregation_applied_cycles * 100 <= baseline_cycles * 99;
}

const Replication* ArrayFix::best_replication() const {
  // Only what ran as code counts (issue 43): a prediction or a builtin's own --replication stays
  // in the table, never recommended (its kernel is not the one the author would write).
  const Replication* best = nullptr;
  for (const Replication& r : replication)
    if (r.copies > 1 && r.applied_cycles && *r.applied_cycles * 100 <= baseline_cycles * 99 &&
        (!best || *r.applied_cycles < *best->applied_cycles))
      best = &r;
  return best;
}

FixReport find_fixes(exec::Workload as_written, const Target& target, const Arch& arch,
                     const FixOptions& options) {
  FixReport rep;
  rep.workload = as_written.name;
  rep.description = as_written.description;
  rep.kernel = as_written.kernel;
  // The baseline: the kernel as written, its accesses attributed to its arrays.
  detail::ArrayConsumer arrays(arch);
  const RunResult base = run_once(std::move(as_written), arch, options, nullptr, &arrays);
  rep.cycles = base.cycles;
  rep.traffic = base.traffic;
  rep.shared_bytes = base.layout.total_bytes;
  rep.all_arrays = base.layout.arrays;
  rep.runs = 1;
  for (const exec::ProfileRow& row : base.rows) rep.conflicts += row.totals.bank_conflicts;
  const std::uint32_t grain = base.grain;

  for (detail::ArrayConsumer::Per& p : arrays.arrays()) {
    ArrayFix af;
    af.array = p.array;
    af.name = unique_name(rep.all_arrays, af.array);
    af.grain = grain;
    af.model = arch.atomic_model;
    af.baseline_cycles = base.cycles;
    std::vector<exec::ProfileRow> rows;
    for (const exec::ProfileRow& row : base.rows)
      if (p.lines.count(row.ptx_line)) {
        rows.push_back(row);
        af.lines.push_back(line_result(row));
        af.conflicts += row.totals.bank_conflicts;
        if (row.op == Op::Atomic) {
          af.max_position = std::max(af.max_position, row.totals.max_position_degree);
          af.max_lock = std::max(af.max_lock, row.totals.max_lock_degree);
        }
      }
    const bool contended = af.max_position > 1 || af.max_lock > 1;
    if (af.conflicts == 0 && !contended) continue;

    if (af.conflicts > 0) {
      const exec::ProfileRow* worst = nullptr;
      for (const exec::ProfileRow& row : rows)
        if (!worst || row.totals.bank_conflicts > worst->totals.bank_conflicts) worst = &row;
      af.cause = detail::tile_cause(worst->worst, worst->totals.max_bank_degree, arch);
      std::vector<exec::SharedRemap> remaps;
      std::vector<std::int64_t> predicted;
      if (p.array.offset % grain || p.array.bytes % grain) {
        af.note = fmt::format(
            "not relaid out: the kernel makes {}-byte shared accesses and the array (offset {}, "
            "{} bytes) is not made of whole {}-byte elements",
            grain, p.array.offset, p.array.bytes, grain);
      } else {
        for (const exec::SharedRemap& r : detail::padding_candidates(p.array, grain, rows, arch)) {
          remaps.push_back(r);
          predicted.push_back(-1);
        }
        for (const exec::SharedRemap& r :
             detail::swizzle_candidates(p.array, grain, *p.sets, options.swizzles, predicted))
          remaps.push_back(r);
        if (remaps.empty())
          af.note = "no padding or bijective XOR swizzle of this array lowers its conflicts";
      }
      for (std::size_t i = 0; i < remaps.size(); ++i) {
        Candidate c;
        c.remap = remaps[i];
        c.kind = remaps[i].row ? "pad" : "swizzle";
        c.description = remaps[i].describe();
        c.predicted = predicted[i];
        verify(c, target, arch, options, base, af);
        rep.runs += c.applied ? 2 : 1;
        if (c.refused.empty() && c.worse_line(af.lines) && c.conflicts() >= af.conflicts)
          c.refused = "it makes a line worse and removes no conflict in all";
        af.candidates.push_back(std::move(c));
      }
      // Offered first, those applied as code before the estimates, by cycles, then conflicts;
      // the refused after, in the order tried.
      std::stable_sort(af.candidates.begin(), af.candidates.end(),
                       [](const Candidate& a, const Candidate& b) {
                         if (a.refused.empty() != b.refused.empty()) return a.refused.empty();
                         if (!a.refused.empty()) return false;
                         if (a.applied != b.applied) return a.applied;
                         return std::tuple(a.cycles, a.conflicts(), a.shared_bytes) <
                                std::tuple(b.cycles, b.conflicts(), b.shared_bytes);
                       });
    }

    if (contended && p.atomics > 0) {
      af.aggregated_cycles = p.aggregated.total_latency;
      af.aggregated_max_lock = p.aggregated.max_lock_degree;
      std::vector<std::uint32_t> lines;
      for (const LineResult& l : af.lines) lines.push_back(l.ptx_line);
      detail::Applied agg = detail::apply_aggregation(base.module, base.kernel, p.array, lines);
      af.aggregation_form = agg.form;
      if (std::optional<RunResult> run = run_applied(std::move(agg), target, arch, options, base,
                                                     af.aggregation_not_applied)) {
        af.aggregation_applied_cycles = run->cycles;
        af.aggregation_applied_traffic = run->traffic;
        ++rep.runs;
      }
      const std::uint32_t other = base.layout.total_bytes - p.array.bytes;
      for (std::size_t k = 0; k < detail::kCopies.size(); ++k) {
        const std::uint32_t r = detail::kCopies[k];
        if (r > arch.warp_size) break;
        const std::uint64_t bytes = std::uint64_t(p.array.bytes) * r;
        if (other + bytes > arch.memory_bytes) break;
        Replication rp;
        rp.copies = r;
        rp.shared_bytes = static_cast<std::uint32_t>(bytes);
        rp.atomic_cycles = p.replicated[k].total_latency;
        rp.max_position = p.replicated[k].max_position_degree;
        rp.max_lock = p.replicated[k].max_lock_degree;
        rp.merge_cycles = detail::merge_cycles(arch, p.array.bytes / 4, r, base.blocks);
        if (r == 1) rp.applied_cycles = base.cycles, rp.applied_traffic = base.traffic;
        if (r > 1) {
          detail::Applied ap =
              detail::apply_replication(base.module, base.kernel, p.array, lines, r);
          rp.applied_form = ap.form;
          if (std::optional<RunResult> run =
                  run_applied(std::move(ap), target, arch, options, base, rp.not_applied)) {
            rp.applied_cycles = run->cycles;
            rp.applied_traffic = run->traffic;
            ++rep.runs;
          }
        }
        if (r == 1 && target.replicated) rp.simulated_cycles = base.cycles;
        if (r > 1 && target.replicated) {
          try {
            if (std::optional<exec::Workload> rw = target.replicated(r)) {
              rp.simulated_cycles =
                  run_once(std::move(*rw), arch, options, nullptr, nullptr).cycles;
              ++rep.runs;
            }
          } catch (const InputError&) {
            // A replication the builtin refuses (its own limits) is predicted only.
          }
        }
        af.replication.push_back(rp);
      }
    }
    rep.arrays.push_back(std::move(af));
  }
  return rep;
}

}  // namespace smemsim::fix

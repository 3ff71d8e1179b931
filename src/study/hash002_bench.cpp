// The steps of a hash002 point (hash002.hpp): build a benchmark's workload, collect the accesses
// the hash is configured for, search every configuration, time the whole kernel. The benchmarks
// themselves are in hash002_table.cpp.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "hash002.hpp"
#include "smemsim/error.hpp"
#include "smemsim/pc_filter.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::study::h002 {
exec::Workload make_workload(const Bench& b, const Inputs& in, const Image* image,
                             std::optional<std::pair<std::uint32_t, std::uint32_t>> sw) {
  exec::BuiltinOptions o;
  o.seed = in.seed;
  o.variant = b.variant;
  b.size(o, in.quick);
  if (b.bins) {  // 002 §7.2: R = 32 sub-histograms per block
    o.bins = b.bins;
    o.replication = 32;
    o.image = image->image;
    o.seed = image->seed;
    if (in.quick) o.width = o.height = 128;
  }
  o.software_hash = sw;
  return exec::make_builtin(b.builtin, o, in.ptx_dir);
}

namespace {

// The launches of `w` in order (one, or a pipeline's).
std::vector<exec::Workload::Step> steps_of(const exec::Workload& w) {
  if (!w.pipeline.empty()) return w.pipeline;
  return {{w.kernel, w.launch, ""}};
}

// A launch counts for the benchmark unless it is another kernel of the pipeline (the _sw suffix
// of a software-hashed run aside).
bool counts(const Bench& b, const std::string& kernel) {
  if (!*b.kernel) return true;
  return kernel == b.kernel || kernel == std::string(b.kernel) + "_sw";
}

void check(const Bench& b, const exec::Workload& w, const char* how) {
  if (!w.check) return;
  const std::string bad = w.check(w.memory);
  if (!bad.empty())
    throw std::runtime_error(
        fmt::format("{} ({}) differs from its CPU reference: {}", b.name, how, bad));
}

class Collector final : public exec::AccessConsumer {
 public:
  Collector(ReferenceSets& sel, ReferenceSets& all, const PcFilter& pcs, TraceWriter* trace)
      : sel_(sel), all_(all), pcs_(pcs), trace_(trace) {}
  void on_access(const WarpAccess& wa) override {
    all_.add(wa);
    if (!pcs_.keep(wa)) return;
    sel_.add(wa);
    if (trace_) trace_->write(wa);
    ++selected;
  }
  std::uint64_t selected = 0;

 private:
  ReferenceSets& sel_;
  ReferenceSets& all_;
  const PcFilter& pcs_;
  TraceWriter* trace_;
};

}  // namespace

std::uint64_t collect(const Bench& b, exec::Workload& w, const Arch& arch, ReferenceSets& sel,
                      ReferenceSets& all, TraceWriter* trace, bool votes_only) {
  std::uint64_t selected = 0;
  for (const exec::Workload::Step& s : steps_of(w)) {
    const ptx::Kernel& k = exec::find_kernel(w.module, s.kernel);
    // A histogram's vote: the kernel's shared atomics, by PTX line (what `hash search --pc`
    // selects from a trace).
    std::vector<std::uint32_t> votes;
    for (const ptx::Instruction& ins : k.code)
      if (ins.op == ptx::Opcode::Atom && ins.space == ptx::Space::Shared)
        votes.push_back(ins.ptx_line);
    const PcFilter pcs = b.votes && votes_only ? PcFilter::of(votes) : PcFilter();
    Collector c(sel, all, pcs, trace);
    exec::Executor ex(w.module, k, arch, s.launch, w.memory);
    if (counts(b, s.kernel)) ex.set_consumer(&c);
    ex.run();
    selected += c.selected;
  }
  check(b, w, "functional run");
  return selected;
}

Timed kernel_cycles(const Bench& b, exec::Workload& w, const Arch& arch) {
  Timed t;
  for (const exec::Workload::Step& s : steps_of(w)) {
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, s.kernel), arch, s.launch, w.memory,
                       {});
    const timing::TimingStats st = sim.run();
    if (!counts(b, s.kernel)) continue;
    t.cycles += st.cycles;
    t.instructions += st.warp_instructions;
    t.conflict_passes += st.units.bank_conflict_passes;
  }
  check(b, w, "cycle-level run");
  return t;
}

std::vector<Found> search_configs(const ReferenceSets& sets) {
  const IndexGeometry& g = sets.geometry();
  std::vector<Found> out;
  for (const Config& c : configs()) {
    Found f;
    if (std::string_view(c.name) == "mod" || std::string_view(c.name) == "xor") {
      f.matrix = *xor_matrix_of(*make_index_function(c.name, g));
      f.spec = c.name;
    } else if (std::string_view(c.name) == "sw") {
      // k1 = 0, k2 >= 1, mask < 2^m: i ^ ((i >> k2) & mask), a bijection (smemsim_swhash.cuh).
      std::vector<XorMatrix> cands;
      std::vector<std::pair<std::uint32_t, std::uint32_t>> params;
      for (int k2 = 1; k2 < g.addr_bits; ++k2)
        for (std::uint32_t mask = 0; mask < (1u << g.out_bits); ++mask) {
          cands.push_back(bvxor_matrix(0, k2, mask, g));
          params.emplace_back(std::uint32_t(k2), mask);
        }
      const std::vector<std::int64_t> conf = total_conflicts(sets, cands);
      std::size_t best = 0;
      for (std::size_t i = 1; i < cands.size(); ++i) {
        const int gi = std::popcount(params[i].second), gb = std::popcount(params[best].second);
        if (conf[i] < conf[best] || (conf[i] == conf[best] && gi < gb)) best = i;
      }
      f.matrix = cands[best];
      f.k2 = params[best].first;
      f.mask = params[best].second;
      f.spec = params[best].second ? bvxor_spec(0, int(f.k2), f.mask) : "mod";
    } else {
      const SearchResult r = search_hash(sets, {c.family, c.heuristic, false});
      f.matrix = r.matrix;
      f.spec = r.spec;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string csv_spec(std::string spec) {
  std::replace(spec.begin(), spec.end(), ',', ' ');
  return spec;
}

std::string spec_of_csv(std::string text) {
  std::replace(text.begin(), text.end(), ' ', ',');
  return text;
}

}  // namespace smemsim::study::h002

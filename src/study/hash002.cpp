// Study hash002: seed 002 §7 (Tables 5 and 6, Figs. 8-11) on smemsim's versions of its benchmarks.
//
// For every benchmark (hash002_bench.cpp; kernels written for smemsim from the algorithms) a
// `conflicts` point runs the kernel functionally, checks it against its CPU reference, and
// collects the shared accesses 002 configures the hash for (one kernel of LUD's and NW's
// pipelines; a histogram's vote instructions). On them it searches every configuration of 002
// §7.1 -- the exhaustive bit-vector XOR (§5.1), the bitwise permutation and bitwise XOR hashes
// under the Givargis heuristic and the Minimum Imbalance Heuristic (§5.2) -- beside the baseline
// (mod), the fixed XOR of [17] (bits 0-4 XOR 5-9) and §7.2's software hash, and counts each one's
// bank conflicts, as Fig. 8 and Table 6. Histograms configure on one image and are evaluated on
// the others (002 §7.1: "a (randomly selected) image, ... averaging the results of 10 other
// images"). Table 5's configurations are evaluated on our accesses too.
//
// With backend = cycle the study also times the benchmarks on the cycle-level model: `hw` points
// run every hardware configuration on the study's arch (default fermi-gtx480, 002 §7's GPGPU-Sim
// configuration) with memory.hash_latency = 1 for the configurable hashes (002 §4.5), and the
// baseline with that cycle (`mod+1`: §7.1's experiment on the conflict-free five); `sw` points run
// the baseline kernel and its _sw variant (the software hash applied by extra instructions, §7.2)
// on each of sw_archs (GTX 580 and K20, §7.2's GPUs).
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hash002.hpp"
#include "kernel_runs.hpp"
#include "smemsim/error.hpp"
#include "smemsim/images.hpp"
#include "studies.hpp"
#include "util/output_file.hpp"

namespace smemsim::study {
namespace {

using namespace h002;

enum class Kind : std::uint8_t { Conflicts, Hw, Sw };

struct Point {
  Kind kind;
  const Bench* b;
  std::string arch;  // Sw: the preset
};

std::int64_t i64(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}

// Rows of the paper's configurations compared with ours: same function up to the order of the bank
// bits (which only renames banks)?
bool same_function(XorMatrix a, XorMatrix b) {
  std::sort(a.rows.begin(), a.rows.begin() + a.m);
  std::sort(b.rows.begin(), b.rows.begin() + b.m);
  return a == b;
}

class Hash002 : public Study {
 public:
  void configure(const StudyConfig& cfg) override {
    cfg_ = cfg;
    in_.ptx_dir = suite_ptx_dir();
    in_.quick = cfg.quick;
    in_.seed = cfg.seed;
    in_.images = hist_images(cfg);
    const std::string hist = cfg.params.at("hist_accesses");
    if (hist != "kernel" && hist != "vote")
      throw InputError(
          fmt::format("study parameter 'hist_accesses': '{}' is not kernel or vote", hist));
    in_.votes_only = hist == "vote";
    // The fixed configurations of 002 Tables 5-6 (bvxor masks, bit lists) name 5 index bits.
    if (const IndexGeometry g = target_geometry(cfg.arch, HashTarget::Bank); g.out_bits != 5)
      throw InputError(fmt::format(
          "study 'hash002': seed 002's hash configurations (Tables 5-6) index 32 banks; this arch "
          "has {} (memory.banks = {})",
          std::int64_t{1} << g.out_bits, cfg.arch.banks));
    if (cfg.backend != "analytic" && cfg.backend != "cycle")
      throw InputError(
          "study 'hash002': backend must be analytic (conflicts) or cycle (also "
          "whole-kernel cycles)");
    sw_archs_ = cfg.strings("sw_archs");
    for (const std::string& a : sw_archs_) {
      try {
        find_preset(a);
      } catch (const InputError& e) {
        throw InputError(fmt::format("study parameter 'sw_archs': {}", e.what()));
      }
    }
    trace_dir_ = cfg.params.at("trace_dir");
    bool hw = false, sw = false;
    for (const std::string& part : cfg.strings("cycle_parts")) {
      if (part != "hw" && part != "sw")
        throw InputError(fmt::format("study parameter 'cycle_parts': '{}' is not hw or sw", part));
      (part == "hw" ? hw : sw) = true;
    }
    points_.clear();
    for (const std::string& name : cfg.strings("benchmarks")) {
      const Bench& b = find_bench(name);
      points_.push_back({Kind::Conflicts, &b, ""});
      if (cfg.backend != "cycle") continue;
      if (hw) points_.push_back({Kind::Hw, &b, ""});
      if (sw && b.software && !b.conflict_free())
        for (const std::string& a : sw_archs_) points_.push_back({Kind::Sw, &b, a});
    }
  }

  std::vector<std::string> columns() const override {
    return {"kind",          "benchmark",       "config",        "arch",
            "spec",          "conflicts",       "baseline",      "reduction",
            "all_conflicts", "all_baseline",    "accesses",      "cycles",
            "paper_spec",    "paper_conflicts", "same_as_paper", "images",
            "instructions",  "conflict_passes", "image_cycles"};
  }
  std::size_t size() const override { return points_.size(); }

  PointResult run_point(std::size_t i) const override {
    const Point& p = points_[i];
    const Searched s = search(*p.b, p.kind == Kind::Conflicts);
    if (p.kind == Kind::Conflicts) return conflict_rows(p, s);
    if (p.kind == Kind::Hw) return hw_rows(p, s);
    return sw_rows(p, s);
  }

  Report report(const Table& t) const override;

  std::string input_digest() const override {
    std::string d;
    for (const Image& im : in_.images) d += im.image + "#" + std::to_string(im.seed) + ";";
    return d;
  }

 private:
  // The accesses of one benchmark and every configuration found on them.
  struct Searched {
    std::vector<Found> found;
    std::vector<ReferenceSets> eval, all;  // per evaluation image (one for the others)
    std::uint64_t accesses = 0;            // selected accesses evaluated
  };

  static std::vector<Image> hist_images(const StudyConfig& cfg) {
    const std::string what = cfg.params.at("images");
    const std::int64_t n = cfg.integer("max_images");
    if (n < 2) throw InputError("study parameter 'max_images' must be at least 2 (one configures)");
    std::vector<Image> out;
    if (what == "cache" || what == "auto") {
      for (const std::string& f : images::list_images(images::default_image_dir()))
        if (std::int64_t(out.size()) < n && std::filesystem::is_regular_file(f))
          out.push_back({f, 1});
      if (out.size() < 2 && what == "cache")
        throw InputError(
            fmt::format("study parameter 'images': fewer than two photographs in {} (run "
                        "scripts/fetch-images.sh, or --set images=generated)",
                        images::default_image_dir()));
    }
    if (out.size() < 2) {  // generated: soft discs over mild noise, one seed each
      out.clear();
      for (std::int64_t k = 0; k < n; ++k) out.push_back({"blobs", std::uint64_t(100 + k)});
    }
    return out;
  }

  Arch study_arch() const { return cfg_.arch; }

  ReferenceSets new_sets(const Arch& a) const {
    return ReferenceSets(a, HashTarget::Bank, target_geometry(a, HashTarget::Bank));
  }

  Searched search(const Bench& b, bool write_trace) const {
    const Arch arch = study_arch();
    Searched s;
    ReferenceSets cfg_sets = new_sets(arch), cfg_all = new_sets(arch);
    std::unique_ptr<OutputFile> file;
    std::unique_ptr<TraceWriter> trace;
    if (write_trace && !trace_dir_.empty()) {
      std::string stem = b.name;
      std::replace(stem.begin(), stem.end(), ' ', '_');
      std::filesystem::create_directories(trace_dir_);
      file = std::make_unique<OutputFile>(trace_dir_ + "/" + stem + ".trace", "trace_dir");
      trace = std::make_unique<TraceWriter>(file->stream(), arch.warp_size);
    }
    const Image* first = b.bins ? &in_.images[0] : nullptr;
    exec::Workload w = make_workload(b, in_, first);
    const std::uint64_t n = collect(b, w, arch, cfg_sets, cfg_all, trace.get(), in_.votes_only);
    if (file) file->commit();
    s.found = search_configs(cfg_sets);
    if (!b.bins) {
      s.accesses = n;
      s.eval.push_back(std::move(cfg_sets));
      s.all.push_back(std::move(cfg_all));
      return s;
    }
    for (std::size_t k = 1; k < in_.images.size(); ++k) {  // the other images evaluate
      exec::Workload e = make_workload(b, in_, &in_.images[k]);
      s.eval.push_back(new_sets(arch));
      s.all.push_back(new_sets(arch));
      s.accesses += collect(b, e, arch, s.eval.back(), s.all.back(), nullptr, in_.votes_only);
    }
    return s;
  }

  PointResult conflict_rows(const Point& p, const Searched& s) const {
    PointResult r;
    const Arch arch = study_arch();
    const IndexGeometry g = target_geometry(arch, HashTarget::Bank);
    const XorMatrix mod = s.found[0].matrix;
    for (std::size_t c = 0; c < configs().size(); ++c) {
      const Config& cf = configs()[c];
      const XorMatrix& m = s.found[c].matrix;
      std::int64_t conf = 0, base = 0, all = 0, all_base = 0;
      double red = 0;
      for (std::size_t k = 0; k < s.eval.size(); ++k) {
        const std::int64_t ck = total_conflicts(s.eval[k], m), bk = total_conflicts(s.eval[k], mod);
        conf += ck;
        base += bk;
        red += bk ? double(bk - ck) / double(bk) : 0.0;
        all += total_conflicts(s.all[k], m);
        all_base += total_conflicts(s.all[k], mod);
      }
      std::string paper_spec;
      std::int64_t paper_conf = -1, same = -1;
      if (cf.paper && !p.b->conflict_free()) {
        paper_spec = p.b->paper.*cf.paper;
        const XorMatrix pm = *xor_matrix_of(*make_index_function(paper_spec, g));
        paper_conf = 0;
        for (const ReferenceSets& e : s.eval) paper_conf += total_conflicts(e, pm);
        same = same_function(m, pm);
      }
      r.rows.push_back(
          {std::string("conflicts"), std::string(p.b->name), std::string(cf.name), arch.name,
           csv_spec(s.found[c].spec), conf, base, red / double(s.eval.size()), all, all_base,
           i64(s.accesses), std::int64_t(0), csv_spec(paper_spec), paper_conf, same,
           std::int64_t(s.eval.size()), std::int64_t(0), std::int64_t(0), std::string()});
    }
    r.accesses = s.accesses;
    return r;
  }

  // Cycles of the benchmark (summed over the evaluation images for a histogram).
  Timed cycles(const Bench& b, const Arch& arch,
               std::optional<std::pair<std::uint32_t, std::uint32_t>> sw = {}) const {
    Timed t;
    if (!b.bins) {
      exec::Workload w = make_workload(b, in_, nullptr, sw);
      return kernel_cycles(b, w, arch);
    }
    for (std::size_t k = 1; k < in_.images.size(); ++k) {
      exec::Workload w = make_workload(b, in_, &in_.images[k], sw);
      t.add_image(kernel_cycles(b, w, arch));
    }
    return t;
  }

  Row cycle_row(const Point& p, const std::string& config, const Arch& arch,
                const std::string& spec, const Timed& t) const {
    return {std::string(p.kind == Kind::Hw ? "hw" : "sw"),
            std::string(p.b->name),
            config,
            arch.name,
            csv_spec(spec),
            std::int64_t(0),
            std::int64_t(0),
            0.0,
            std::int64_t(0),
            std::int64_t(0),
            std::int64_t(0),
            i64(t.cycles),
            std::string(),
            std::int64_t(-1),
            std::int64_t(-1),
            std::int64_t(p.b->bins ? in_.images.size() - 1 : 1),
            i64(t.instructions),
            i64(t.conflict_passes),
            t.per_image};
  }

  PointResult hw_rows(const Point& p, const Searched& s) const {
    PointResult r;
    const Arch base = study_arch();
    for (std::size_t c = 0; c < configs().size(); ++c) {
      const Config& cf = configs()[c];
      if (std::string_view(cf.name) == "sw") continue;
      if (p.b->conflict_free() && c > 0) break;  // only the baseline and its extra cycle
      Arch a = base;
      a.bank_hash = s.found[c].spec;
      a.hash_latency = cf.configurable ? 1 : 0;
      validate(a);
      r.rows.push_back(cycle_row(p, cf.name, a, s.found[c].spec, cycles(*p.b, a)));
      if (c == 0) {  // the baseline with the configurable hash's extra cycle (002 §7.1)
        a.hash_latency = 1;
        r.rows.push_back(cycle_row(p, "mod+1", a, "mod", cycles(*p.b, a)));
      }
    }
    return r;
  }

  // A software-hash preset with the study's own changes (--set, an arch file) applied as well, so
  // that `--set sm.lat_alu=9` reaches every GPU the study runs. arch.derived lists them as
  // "key=value, key=value" (no value holds ", ").
  Arch sw_arch(const std::string& preset) const {
    Arch a = find_preset(preset);
    const Arch base = a;
    std::string_view d = cfg_.arch.derived;
    while (!d.empty()) {
      const std::size_t cut = d.find(", ");
      apply_override(a, d.substr(0, cut));
      d = cut == std::string_view::npos ? std::string_view() : d.substr(cut + 2);
    }
    mark_derived(a, base);
    validate(a);
    return a;
  }

  PointResult sw_rows(const Point& p, const Searched& s) const {
    PointResult r;
    const Arch a = sw_arch(p.arch);
    const Found& f = s.found.back();  // "sw"
    r.rows.push_back(cycle_row(p, "mod", a, "mod", cycles(*p.b, a)));
    if (f.mask) {
      r.rows.push_back(
          cycle_row(p, "sw", a, f.spec, cycles(*p.b, a, std::make_pair(f.k2, f.mask))));
    } else {  // no software hash helps: the kernel stays as it is
      Row same = r.rows.back();
      same[2] = std::string("sw");
      r.rows.push_back(std::move(same));
    }
    return r;
  }

  StudyConfig cfg_;
  Inputs in_;
  std::vector<std::string> sw_archs_;
  std::string trace_dir_;
  std::vector<Point> points_;
};

}  // namespace

Report hash002_report(const Table& t, const StudyConfig& cfg);  // hash002_report.cpp

Report Hash002::report(const Table& t) const {
  Report rep = hash002_report(t, cfg_);
  // Which histogram inputs ran, said first: `images = auto` takes generated images when the
  // photograph cache has fewer than two, and that must not pass unnoticed (issue 24).
  std::size_t generated = 0;
  std::string names;
  for (const Image& im : in_.images) {
    if (im.image == "blobs") {
      ++generated;
      continue;
    }
    names += (names.empty() ? "" : ", ") + std::filesystem::path(im.image).filename().string();
  }
  std::string line;
  if (generated == in_.images.size())
    line = fmt::format(
        "Histogram inputs: {} generated images (soft discs over noise){}.", generated,
        cfg_.params.at("images") == "auto"
            ? fmt::format(": images = auto, and the photograph cache {} has fewer than two "
                          "photographs (scripts/fetch-images.sh fills it)",
                          images::default_image_dir())
            : "");
  else
    line =
        fmt::format("Histogram inputs: {} photographs ({}).", in_.images.size() - generated, names);
  rep.markdown = line + "\n\n" + rep.markdown;
  return rep;
}

StudyInfo hash002_info() {
  std::string all, quick = "conv-1,FWT,hist64,LUD-1,transpose,srad";
  for (const Bench& b : benches()) {
    if (!all.empty()) all += ',';
    all += b.name;
  }
  return {
      "hash002",
      "seed 002's benchmarks (Table 5): bank conflicts removed by the fixed XOR, bit-vector "
      "XOR, bitwise permutation and bitwise XOR hashes under exhaustive search, Givargis and "
      "MIH (Table 6, Fig. 8), Table 5's configurations beside ours; with backend = cycle the "
      "whole-kernel speed-ups of hardware hashes with their extra cycle (Fig. 9, §7.1) and of "
      "software hashes on Fermi and Kepler (Fig. 11)",
      "seed 002 §7, Tables 5-6, Figs. 8-11",
      {{"benchmarks", all, quick, "benchmarks (002 Table 5's rows and §7.1's conflict-free five)"},
       {"images", "auto", "generated",
        "histogram inputs: auto (the photograph cache if it has two or more, else generated), "
        "cache, or generated"},
       {"max_images", "11", "3", "histogram images: the first configures, the others evaluate"},
       {"hist_accesses", "kernel", "kernel",
        "what a histogram's hash is configured and evaluated on: kernel (every shared access: "
        "initialization, vote, merge) or vote (the atomics only; `hash search --pc`)"},
       {"sw_archs", "fermi-gtx580,kepler-k20", "fermi-gtx580",
        "presets for the software hash (002 §7.2: GTX 580 and K20)"},
       {"cycle_parts", "hw,sw", "hw,sw",
        "with backend = cycle: hw (hardware hashes on the study's arch) and/or sw (software "
        "hashes on sw_archs)"},
       {"trace_dir", "", "", "a folder to write each benchmark's search trace to (empty: none)"},
       {"seed", "1", "1", "input seed"},
       {"backend", "analytic", "analytic",
        "analytic (bank conflicts only) or cycle (also whole-kernel cycles)"}},
      [] { return std::make_unique<Hash002>(); },
      true,
      "fermi-gtx480"};
}

}  // namespace smemsim::study

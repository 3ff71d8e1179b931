// The hash002 study (seed 002 §7, Tables 5 and 6, Figs. 8-11): its benchmarks, the hash
// configurations it compares, and the steps a point runs (hash002_bench.cpp). The study class is
// in hash002.cpp, the report in hash002_report.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/hash_search.hpp"
#include "smemsim/study.hpp"
#include "smemsim/trace.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::study::h002 {

// One row of 002 Table 5, in smemsim's spec syntax (docs/hashing.md): the bit-vector XOR hash
// (exhaustive search) and the bitwise permutation and XOR hashes under the Givargis heuristic and
// the Minimum Imbalance Heuristic. `method` is how 002 obtained the accesses (Analysis or Trace).
struct Table5 {
  const char* method;
  const char* bvxor;
  const char* bits_gh;
  const char* bits_mih;
  const char* bitsxor_gh;
  const char* bitsxor_mih;
};

// A benchmark: a builtin of the kernel suite and the part of its accesses 002 configures the hash
// for (one kernel of a multi-launch pipeline; a histogram's vote).
struct Bench {
  const char* name;     // 002 Table 5's row, or one of §7.1's conflict-free five
  const char* builtin;  // exec::make_builtin name
  const char* variant;  // its --variant ("" default)
  const char* kernel;   // only the launches of this kernel ("" every launch)
  bool votes;           // a histogram: its vote is the shared atomics (see Inputs::votes_only)
  std::uint32_t bins;   // histogram bins (0: not a histogram)
  const char* ours;     // what our kernel is, for the report
  Table5 paper;         // paper.method == nullptr: a conflict-free benchmark (no Table 5 row)
  void (*size)(exec::BuiltinOptions& o, bool quick);  // input size, full or --quick
  bool software = true;                               // has a _sw variant (seed 002 §7.2)
  bool conflict_free() const { return paper.method == nullptr; }
};
const std::vector<Bench>& benches();
const Bench& find_bench(std::string_view name);  // InputError listing the names
// Table 5's rows we do not reproduce, with the reason (for the report).
const std::vector<std::pair<std::string, std::string>>& missing();

// The hash configurations compared (002 §7.1): the baseline, the fixed XOR of seed 000 / [17], and
// the four searched ones of Table 6; `sw` is the software hash of §7.2 (bit-vector XOR with k1 =
// 0, a bijection); `mod+1` the baseline with the configurable hash's extra cycle (§7.1's
// conflict-free experiment).
struct Config {
  const char* name;            // mod, xor, bvxor, bits-gh, bits-mih, bitsxor-gh, bitsxor-mih, sw
  const char* family;          // search_hash family ("" for mod / xor / sw)
  const char* heuristic;       // its heuristic
  bool configurable;           // pays memory.hash_latency (002 §4.5)
  const char* Table5::*paper;  // the paper's column, or nullptr
};
const std::vector<Config>& configs();

// A histogram input: an image file, or a generated kind ("blobs") with its seed.
struct Image {
  std::string image;
  std::uint64_t seed = 1;
};

// How a point builds its workloads.
struct Inputs {
  std::string ptx_dir;
  bool quick = false;
  std::uint64_t seed = 1;
  std::vector<Image> images;  // histograms: images[0] configures, the rest evaluate
  // Which accesses of a histogram 002 configures its hash for: the vote alone (the atomics, as
  // `hash search --pc` selects them), or every shared access of the kernel (initialization, vote
  // and merge). 002 does not say; the study parameter `hist_accesses` picks (docs/studies.md).
  bool votes_only = false;
};

// The workload of `b` (the baseline kernel, or its _sw variant with `sw` = (k2, mask)).
exec::Workload make_workload(const Bench& b, const Inputs& in, const Image* image,
                             std::optional<std::pair<std::uint32_t, std::uint32_t>> sw = {});

// Runs `w` functionally on `arch` (every launch), checks it against its CPU reference, and adds
// the benchmark's accesses to `sel` (and, when given, writes them to `trace`) and every access of
// the benchmark's kernel to `all`; a histogram's selection is its vote when `votes_only`. Returns
// the number of selected accesses.
std::uint64_t collect(const Bench& b, exec::Workload& w, const Arch& arch, ReferenceSets& sel,
                      ReferenceSets& all, TraceWriter* trace, bool votes_only);

// Runs `w` on the cycle-level model of `arch`, checks it, and returns the cycles, warp-instructions
// and bank-conflict passes of the benchmark's launches (every launch, or those of b.kernel).
struct Timed {
  std::uint64_t cycles = 0, instructions = 0, conflict_passes = 0;
  std::string per_image;  // a histogram's cycles per evaluation image, "c1;c2;..."
  // Adds one evaluation image's run.
  void add_image(const Timed& o) {
    cycles += o.cycles;
    instructions += o.instructions;
    conflict_passes += o.conflict_passes;
    if (!per_image.empty()) per_image += ';';
    per_image += std::to_string(o.cycles);
  }
};
Timed kernel_cycles(const Bench& b, exec::Workload& w, const Arch& arch);

// Every configuration's spec found on `sets` (the search input). `sw` is the best bit-vector XOR
// with k1 = 0 and k2 >= 1 (the kernels' software hash form), ties to fewer gates, then smaller k2.
struct Found {
  std::string spec;
  XorMatrix matrix;
  std::uint32_t k2 = 0, mask = 0;  // sw: the software hash's parameters
};
std::vector<Found> search_configs(const ReferenceSets& sets);

// Specs hold commas, which points.csv does not keep: rows store them with spaces instead.
std::string csv_spec(std::string spec);
std::string spec_of_csv(std::string text);

}  // namespace smemsim::study::h002

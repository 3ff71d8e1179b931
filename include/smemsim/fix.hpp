// `smemsim fix` (issue 26, docs/fix.md): from a kernel's conflicting shared arrays to fixes that
// are verified by running the kernel again.
//
// The kernel runs once on the cycle-level model as written (the baseline). Every shared access is
// attributed to the array it lands in. For each array with bank conflicts the candidate layouts
// are a padding per row width (from the rows its conflicting lines read) and the XOR swizzles the
// bit-vector search of seed 002 §5.1 ranks best on that array's accesses alone. Each candidate runs
// again as an exec::SharedRemap of that array: its output buffers must equal the baseline's byte
// for byte (else it is refused and says so), and the run gives every line's conflicts and the
// whole-kernel cycles. For each array whose atomics have position or lock conflicts (seed 001
// §2.1.3), replication by R copies interleaved by lane is predicted with the arch's atomic model
// (Algorithm 1 or the FSM) over the recorded atomics, the merge's loads counted, for every R whose
// copies fit the shared memory; a builtin with a --replication option is also simulated with it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::fix {

struct FixOptions {
  std::uint32_t swizzles = 2;  // swizzle candidates verified per array
  std::uint64_t max_cycles = 100'000'000;
  std::uint32_t regs = 0;
};

// One shared-memory instruction's conflicts in one run.
struct LineResult {
  std::uint32_t ptx_line = 0;
  std::string cuda, text;  // "transpose.cu:20", the instruction
  Op op = Op::Load;
  std::uint64_t accesses = 0;
  std::int64_t conflicts = 0;     // bank conflicts (sum of degree - 1)
  std::int64_t max_position = 0;  // atomics: lanes on one word, at most
  std::int64_t max_lock = 0;      // atomics: lanes on one lock, at most
};

// The global memory traffic of a whole run (issue 44): the sectors past the L1s (L2 lookups:
// L1 misses, stores, atomics) and the bytes neither cache held (from DRAM, or a store's and an
// atomic's written through), as `profile --timing` counts them (docs/timing.md "Caches"). A
// layout change moves what its shared-memory size does to the L1 (the carve-out, the CTAs an SM
// holds) and what its index arithmetic does to the kernel's own loads.
struct Traffic {
  std::uint64_t l2_sectors = 0, dram_bytes = 0;
  bool operator==(const Traffic&) const = default;
};

// A candidate run: the kernel with one array relaid out.
struct Candidate {
  std::string kind;            // "pad", "swizzle"
  exec::SharedRemap remap;     // of the array
  std::string description;     // remap.describe()
  std::int64_t predicted = 0;  // the array's conflicts the search predicted (swizzle; pad: -1)
  bool identical = false;      // the output buffers equal the baseline's
  std::string refused;         // why the candidate is not offered ("" when it is)
  // Applied as code (issue 43, src/fix/fix_apply.hpp): the kernel's PTX rewritten as the emitted
  // CUDA compiles, run, its outputs and every shared access's addresses checked against the
  // remapped run. `cycles` are then the rewritten kernel's; otherwise they are the estimate.
  bool applied = false;
  std::string applied_form;           // how it was written ("row stride 132 bytes: ...")
  std::string not_applied;            // why it could not be, when it was not
  std::uint64_t estimate_cycles = 0;  // the remapped run's (the executor relays out addresses)
  std::uint64_t cycles = 0;
  Traffic traffic;                 // of the run `cycles` are of
  std::uint32_t shared_bytes = 0;  // per block
  std::vector<LineResult> lines;   // the array's lines, in the baseline's order
  std::int64_t conflicts() const;  // summed over `lines`
  bool worse_line(const std::vector<LineResult>& before) const;  // some line got worse
};

// Replication of an atomically updated array (seed 001 §2.2): R copies, copy r of word i at word
// i * R + r, lane l updating copy l % R, then a merge that reads the R copies of every word.
struct Replication {
  std::uint32_t copies = 1;
  std::uint32_t shared_bytes = 0;  // the replicated array's
  std::int64_t atomic_cycles = 0;  // the array's atomics under the model, summed
  std::int64_t merge_cycles = 0;   // the merge's loads under the model, summed
  std::int64_t max_position = 0, max_lock = 0;
  // A builtin run with --replication R, whole-kernel cycles (R = 1: the baseline's).
  std::optional<std::uint64_t> simulated_cycles;
  // Applied as code (issue 43, src/fix/fix_apply.hpp): the copies, the lane's copy in every
  // atomic and the merge in every load written into the kernel, its outputs checked; the whole
  // kernel's cycles. R = 1: the baseline's.
  std::optional<std::uint64_t> applied_cycles;
  std::optional<Traffic> applied_traffic;
  std::string applied_form, not_applied;
};

struct ArrayFix {
  exec::SharedLayout::Array array;
  std::string name;  // its CUDA name, told apart from the kernel's other arrays (unique_name)
  std::uint32_t grain = 4;
  std::vector<LineResult> lines;                // baseline, every line that touched the array
  std::int64_t conflicts = 0;                   // baseline bank conflicts of those lines
  std::int64_t max_position = 0, max_lock = 0;  // baseline, of its atomics
  std::vector<Candidate> candidates;            // layouts, best first (offered, then refused)
  std::vector<Replication> replication;         // R = 1 (as written), then each R that fits
  // Warp aggregation (__match_any_sync, then one lane per word adds for its group): the array's
  // atomics under the model with each warp's lanes on one word combined; the match and the
  // reduction's own instructions are not counted. Valid when the atomics are adds (or inc).
  std::int64_t aggregated_cycles = 0, aggregated_max_lock = 0;
  // Aggregation applied as code (match.any, the leader's add; src/fix/fix_apply.hpp), its outputs
  // checked: the whole kernel's cycles.
  std::optional<std::uint64_t> aggregation_applied_cycles;
  std::optional<Traffic> aggregation_applied_traffic;
  std::string aggregation_form, aggregation_not_applied;
  std::string model;  // the atomic model's name
  std::string note;   // why no layout candidate was tried, or ""
  // Why its worst line conflicts, when a warp reads rows of a tile side by side, and the row
  // width or block shape that would remove it (a change of the kernel's structure); or "".
  std::string cause;
  std::uint64_t baseline_cycles = 0;  // the kernel as written
  // The first offered candidate, applied as code, at least 1 % faster than the kernel as written;
  // null when none is (why_none says why).
  const Candidate* best() const;
  std::string why_none() const;
  // R > 1 applied as code with the fewest cycles, when at least 1 % fewer than the kernel as
  // written; null otherwise (predictions are never recommended).
  const Replication* best_replication() const;
  // Aggregation applied as code and at least 1 % faster than the kernel as written.
  bool aggregation_recommended() const;
  // Why no atomic fix helps where a warp's lanes update one word (a warp on one word) and neither
  // fix is recommended, and the change of owner that would remove it; "" otherwise.
  std::string atomic_cause() const;
};

struct FixReport {
  std::string workload, description, kernel;  // of the workload as written (exec::Workload)
  std::uint64_t cycles = 0;                   // baseline
  Traffic traffic;                            // baseline
  std::uint32_t shared_bytes = 0;
  std::int64_t conflicts = 0;    // every shared line
  std::vector<ArrayFix> arrays;  // arrays with conflicts or atomic contention
  std::vector<exec::SharedLayout::Array> all_arrays;
  std::uint32_t runs = 0;  // kernel runs made
};

// `make` builds a fresh workload (the same inputs every call), once per candidate run.
// `replicated`, when set, builds the builtin with `--replication R`; nullopt when the workload has
// none.
struct Target {
  std::function<exec::Workload()> make;
  std::function<std::optional<exec::Workload>(std::uint32_t)> replicated;
};

// `as_written` is the workload the baseline runs (one that `target.make` would build). Throws
// InputError for a kernel with no shared memory, a pipeline of launches, or a kernel that does not
// finish.
FixReport find_fixes(exec::Workload as_written, const Target& target, const Arch& arch,
                     const FixOptions& options);

// The code to paste (src/fix/fix_cuda.cpp). short_name: the array's CUDA name ("tile" for
// _ZZ9transposePfS_E4tile) as an identifier. candidate_code: a padded declaration and index
// function, or the swizzle function (`cute`: CuTe's Swizzle<B,M,S> where it has that form).
// `suffix` is appended to the names the code defines (functions, CuTe aliases), so that several
// candidates of one array can be pasted together.
std::string short_name(const std::string& array);
// The array's short name where no other array of `all` has it; else with its function's name
// ("f::smem"), then the template's arguments ("f<1>::smem"), then the whole demangled name.
std::string unique_name(const std::vector<exec::SharedLayout::Array>& all,
                        const exec::SharedLayout::Array& a);
std::string identifier(const std::string& name);  // "f<1>::smem" -> "f_1_smem"
std::string candidate_code(const ArrayFix& a, const Candidate& c, const Arch& arch, bool cute,
                           const std::string& suffix = "");
// The skeleton and merge of a replication; warp aggregation (__match_any_sync, __reduce_add_sync).
std::string replication_code(const ArrayFix& a, const Replication& r,
                             const std::string& suffix = "");
std::string aggregation_code(const ArrayFix& a, const std::string& suffix = "");

}  // namespace smemsim::fix

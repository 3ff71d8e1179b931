// What `smemsim profile` shows per shared-memory instruction (issue 5, issue 10 item 6): the row,
// its hints (a padding computed on its worst execution, a swizzle found on its accesses), their
// JSON and CSV forms, and the tables for people, fitted to a width (100 columns unless --wide).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "smemsim/exec.hpp"
#include "smemsim/line_hints.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::cli {

struct ProfileLine {
  exec::ProfileRow row;
  std::optional<exec::PaddingHint> padding;  // conflicting rows only
  std::optional<SwizzleHint> swizzle;        // conflicting rows only
  // A CUDA line's row (by_cuda_line): the PTX lines of its instructions and their ops, in code
  // order; empty for an instruction's own row.
  std::vector<std::uint32_t> ptx_lines;
  std::vector<Op> ops;
};

// Collects every access into per-line reference sets (for the swizzle hints).
class LineSetsConsumer : public exec::AccessConsumer {
 public:
  explicit LineSetsConsumer(const Arch& arch) : sets_(arch) {}
  void on_access(const WarpAccess& wa) override { sets_.add(wa); }
  const LineSets& sets() const { return sets_; }

 private:
  LineSets sets_;
};

// The profiler's rows with the hints of the conflicting ones.
std::vector<ProfileLine> profile_lines(const exec::Profiler& p, const LineSets& sets,
                                       const Arch& arch);
// One row per CUDA line (issue 26 item 3, as Nsight Compute's source view): the instructions of a
// line (its unrolled copies, an inlined helper's body at that call) summed; the hints are those of
// its instruction with the most bank conflicts. An inlined helper's line used from several lines
// gives a row per calling line; instructions without line information keep their own rows.
// With `sets`, a grouped row's swizzle hint counts the conflicts of all its instructions.
std::vector<ProfileLine> by_cuda_line(const std::vector<ProfileLine>& lines,
                                      const ptx::Module& module, const ptx::Kernel& kernel,
                                      const LineSets* sets = nullptr);
// A row's JSON form (json::to_json of the row) with "hints": {"padding", "swizzle"}.
nlohmann::json line_json(const ProfileLine& l, const ptx::Module& m, const ptx::Kernel& k);
// The CSV columns of --csv: --json's row fields, locations as ptx.file, ptx.line, cuda.file, ...
std::vector<std::string> csv_columns();
// The one-line hint under a conflicting row ("" when it has none).
std::string hint_text(const ProfileLine& l, std::size_t width);
// Every hint the text output prints under the row, in its order: hint_text, then the atomic hint
// where a layout hint took hint_text's place (the HTML page shows the same, issue 47).
std::vector<std::string> line_hints(const ProfileLine& l);

// The table (per instruction, or per CUDA line for by_cuda_line's rows), its CUDA source and hint
// lines, and the totals; `width` 0: no limit.
void print_profile_table(const std::vector<ProfileLine>& lines, const Totals& all,
                         const ptx::Module& module, const ptx::Kernel& kernel, std::size_t width);
// After the table: each swizzle hint's search as a command that runs as printed (on the trace
// `trace` that this profile wrote, or, without --emit-trace, the note to write one).
void print_hint_commands(const std::vector<ProfileLine>& lines, const std::string& trace,
                         const std::string& arch);
// GPU-LocalTM transaction sites, when the kernel has transactions.
// Reads of TMA-written tiles and their bank passes under each swizzle mode (issue 46).
void print_tma_reads(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k,
                     std::size_t width);
nlohmann::json tma_reads_json(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k);
void print_tx_sites(const exec::ExecStats& s, const ptx::Module& m, const ptx::Kernel& k,
                    std::size_t width);
// The cycle model's per-instruction view (profile --timing).
void print_timing(const timing::TimingStats& s, const Arch& arch, const ptx::Module& module,
                  const ptx::Kernel& kernel, std::size_t width);

}  // namespace smemsim::cli

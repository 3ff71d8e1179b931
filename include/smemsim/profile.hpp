// Per-instruction shared-memory profile of an executed kernel (issue 5, docs/exec.md "Profile"):
// the CPU counterpart of a source view. One row per shared-memory instruction of the kernel with
// its PTX line and CUDA line: executions (WarpAccesses), bank conflicts (sum of degree - 1), bank
// degree mean/max, position and lock degree mean/max and the modeled latency under the arch.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "smemsim/evaluate.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/trace.hpp"

namespace smemsim::exec {

struct ProfileRow {
  std::uint32_t index = 0;     // instruction index in Kernel::code
  std::uint32_t ptx_line = 0;  // = WarpAccess::pc
  std::string cuda;            // "histogram.cu:45" ("" without line info)
  std::string text;            // the instruction, PTX-like
  Op op = Op::Load;
  Totals totals;  // accesses = executions (one per word for .v2/.v4/64-bit accesses)
  std::int64_t max_position_degree = 0;
  std::uint64_t active_lanes = 0;
  WarpAccess worst;  // the first execution with the highest bank degree (max_bank_degree)
};

// A padding that lowers an access's bank conflict, computed on the access itself: read as a 2D
// array whose rows are `row_words` words (the word distance between its first two active lanes),
// padding every row to `row_words + pad` words changes the bank degree from `before` to `after`.
struct PaddingHint {
  std::uint32_t row_words = 0, pad = 0;
  std::int64_t before = 0, after = 0;
};

// The smallest pad of 1..banks words per row that gives the lowest bank degree on `wa`, if it is
// lower than the access's own; nothing for accesses without a stride of 2 or more words.
std::optional<PaddingHint> padding_hint(const WarpAccess& wa, const Arch& arch);

class Profiler : public AccessConsumer {
 public:
  // Rows for every ld/st/atom/red of the kernel in the shared or generic space, in code order.
  Profiler(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch);
  void on_access(const WarpAccess& wa) override;

  // Shared-space instructions, and generic ones that touched shared memory.
  std::vector<ProfileRow> rows() const;
  const Totals& totals() const { return all_; }
  const AccessEvaluator& evaluator() const { return eval_; }

 private:
  std::vector<ProfileRow> rows_;
  std::vector<std::uint32_t> row_of_line_;  // PTX line -> row + 1 (0: none)
  std::vector<std::int64_t> worst_;         // per row: the bank degree of `worst`
  AccessEvaluator eval_;
  Totals all_;
};

// Hands every access to several consumers in order.
class TeeConsumer : public AccessConsumer {
 public:
  void add(AccessConsumer* c) {
    if (c) to_.push_back(c);
  }
  void on_access(const WarpAccess& wa) override {
    for (AccessConsumer* c : to_) c->on_access(wa);
  }

 private:
  std::vector<AccessConsumer*> to_;
};

// Writes every access to a smemsim-trace v1 stream (pc = PTX line).
class TraceConsumer : public AccessConsumer {
 public:
  TraceConsumer(std::ostream& out, std::uint32_t warp_size) : writer_(out, warp_size) {}
  void on_access(const WarpAccess& wa) override { writer_.write(wa); }
  std::uint64_t written() const { return writer_.written(); }

 private:
  TraceWriter writer_;
};

// Keeps every access (tests, small runs).
class CollectConsumer : public AccessConsumer {
 public:
  void on_access(const WarpAccess& wa) override { accesses.push_back(wa); }
  std::vector<WarpAccess> accesses;
};

}  // namespace smemsim::exec

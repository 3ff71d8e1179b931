// Evaluation of whole warp accesses and aggregation over a stream (what `smemsim analyze` prints).
// A warp access is split into transactions of Arch::transaction_lanes lanes; its cost sums theirs
// and its degrees are the maximum over them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "smemsim/conflict.hpp"
#include "smemsim/latency_model.hpp"

namespace smemsim {

struct AccessResult {
  Degrees degrees;                  // max over transactions
  std::int64_t bank_conflicts = 0;  // sum over transactions of (bank degree - 1)
  std::int64_t latency = 0;         // cycles, sum over transactions
  int transactions = 0;             // with at least one active lane
};

class AccessEvaluator {
 public:
  AccessEvaluator(const Arch& arch, std::shared_ptr<const IndexFunction> bank_fn,
                  std::shared_ptr<const IndexFunction> lock_fn);
  explicit AccessEvaluator(const Arch& arch);  // hashes and model from the arch

  AccessResult evaluate(const WarpAccess& wa);
  // The analyzer holds the last transaction evaluated (for explanations).
  ConflictAnalyzer& analyzer() { return analyzer_; }
  const Arch& arch() const { return analyzer_.arch(); }

 private:
  ConflictAnalyzer analyzer_;
  OpLatency model_;
};

struct Totals {
  std::uint64_t accesses = 0;
  std::uint64_t transactions = 0;
  std::int64_t bank_conflicts = 0;
  std::int64_t sum_bank_degree = 0;
  std::int64_t sum_position_degree = 0;
  std::int64_t sum_lock_degree = 0;
  std::int64_t max_bank_degree = 0;
  std::int64_t max_position_degree = 0;
  std::int64_t max_lock_degree = 0;
  std::int64_t total_latency = 0;

  void add(const AccessResult& r);
  void merge(const Totals& o);
  double mean(std::int64_t sum) const { return accesses ? double(sum) / double(accesses) : 0.0; }
};

struct StreamStats {
  Totals all;
  std::map<std::uint32_t, Totals> per_pc;  // filled only for accesses with pc != 0
  std::array<std::uint64_t, 3> per_op{};   // accesses per Op (indexed by its value)
  void add(const WarpAccess& wa, const AccessResult& r);
};

}  // namespace smemsim

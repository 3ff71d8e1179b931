// Analytic latency models of one shared-memory transaction, chosen by name from a registry:
//   alg1     Algorithm 1 of seed 001 §2.1.4 (lock-loop atomics, Fermi)
//   fsm      the Read/Update/Write/Branch state machine of seed 000 §III
//   native   native shared atomics without lock aliasing (Maxwell+, AMD LDS) -- uncalibrated
//   loadstore plain loads/stores: base + t_bank per extra conflict level (seed 001 §2.1.2)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "smemsim/conflict.hpp"

namespace smemsim {

class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  // Cycles for the transaction loaded in `a` (0 when no lane is active).
  virtual std::int64_t latency(const ConflictAnalyzer& a, Op op) const = 0;
  virtual std::string_view name() const = 0;
};

struct LatencyModelInfo {
  std::string name;
  std::string description;
  std::string source;
  bool atomic;  // selectable with --model for atomics
  std::function<std::unique_ptr<LatencyModel>(const Timing&)> make;
};

const std::vector<LatencyModelInfo>& latency_models();
// Throws InputError listing the names.
std::unique_ptr<LatencyModel> make_latency_model(std::string_view name, const Timing& t);

// One round of the lock loop (seed 001 Algorithm 1 / seed 000 Fig. 1): the lanes still pending, the
// bank degree of their read, the lanes that win a lock, and the bank degree of the winners' write.
struct LockRound {
  LaneMask pending = 0;
  int read_degree = 0;
  LaneMask winners = 0;
  int write_degree = 0;
};
// Rounds until every active lane has updated; their count equals the lock degree.
std::vector<LockRound> lock_rounds(const ConflictAnalyzer& a);

// Model for an op: loads/stores always use loadstore; atomics use `atomic`.
class OpLatency {
 public:
  OpLatency(std::string_view atomic_model, const Timing& t);
  std::int64_t latency(const ConflictAnalyzer& a, Op op) const {
    return (op == Op::Atomic ? atomic_ : plain_)->latency(a, op);
  }
  std::string_view atomic_name() const { return atomic_->name(); }

 private:
  std::unique_ptr<LatencyModel> atomic_;
  std::unique_ptr<LatencyModel> plain_;
};

}  // namespace smemsim

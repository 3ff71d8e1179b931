#include "smemsim/evaluate.hpp"

#include <algorithm>

namespace smemsim {

AccessEvaluator::AccessEvaluator(const Arch& arch, std::shared_ptr<const IndexFunction> bank_fn,
                                 std::shared_ptr<const IndexFunction> lock_fn)
    : analyzer_(arch, std::move(bank_fn), std::move(lock_fn)),
      model_(arch.atomic_model, arch.timing) {}

AccessEvaluator::AccessEvaluator(const Arch& arch)
    : analyzer_(arch), model_(arch.atomic_model, arch.timing) {}

AccessResult AccessEvaluator::evaluate(const WarpAccess& wa) {
  AccessResult r;
  const int tl = static_cast<int>(analyzer_.arch().transaction_lanes);
  for (int first = 0; first < wa.lanes; first += tl) {
    const int count = std::min(tl, wa.lanes - first);
    if (!((wa.active >> first) & lanes_mask(count))) continue;
    analyzer_.load(wa, first, count);
    const Degrees d = analyzer_.degrees();
    r.degrees.bank = std::max(r.degrees.bank, d.bank);
    r.degrees.position = std::max(r.degrees.position, d.position);
    r.degrees.lock = std::max(r.degrees.lock, d.lock);
    r.bank_conflicts += d.bank - 1;
    r.latency += model_.latency(analyzer_, wa.op);
    ++r.transactions;
  }
  return r;
}

void Totals::add(const AccessResult& r) {
  ++accesses;
  transactions += static_cast<std::uint64_t>(r.transactions);
  bank_conflicts += r.bank_conflicts;
  sum_bank_degree += r.degrees.bank;
  sum_position_degree += r.degrees.position;
  sum_lock_degree += r.degrees.lock;
  max_bank_degree = std::max<std::int64_t>(max_bank_degree, r.degrees.bank);
  max_position_degree = std::max<std::int64_t>(max_position_degree, r.degrees.position);
  max_lock_degree = std::max<std::int64_t>(max_lock_degree, r.degrees.lock);
  total_latency += r.latency;
}

void Totals::merge(const Totals& o) {
  accesses += o.accesses;
  transactions += o.transactions;
  bank_conflicts += o.bank_conflicts;
  sum_bank_degree += o.sum_bank_degree;
  sum_position_degree += o.sum_position_degree;
  sum_lock_degree += o.sum_lock_degree;
  max_bank_degree = std::max(max_bank_degree, o.max_bank_degree);
  max_position_degree = std::max(max_position_degree, o.max_position_degree);
  max_lock_degree = std::max(max_lock_degree, o.max_lock_degree);
  total_latency += o.total_latency;
}

void StreamStats::add(const WarpAccess& wa, const AccessResult& r) {
  all.add(r);
  if (wa.pc != 0) per_pc[wa.pc].add(r);
  ++per_op[static_cast<std::size_t>(wa.op)];
}

}  // namespace smemsim

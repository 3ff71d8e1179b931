// Analytic latency models. Each cites the seed section it implements; every constant is in Timing.
#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/latency_model.hpp"
#include "util/names.hpp"

namespace smemsim {

std::vector<LockRound> lock_rounds(const ConflictAnalyzer& a) {
  std::vector<LockRound> rounds;
  LaneMask pending = a.active();
  for (const LaneMask winners : a.round_winners()) {
    LockRound r;
    r.pending = pending;
    r.read_degree = a.bank_degree(pending);
    r.winners = winners;
    r.write_degree = a.bank_degree(winners);
    rounds.push_back(r);
    pending &= ~winners;
  }
  return rounds;
}

namespace {

// Seed 001 §2.1.4, Algorithm 1. Per lock round: the read of every pending lane pays
// (bank degree - 1) x t_bank; one lane per lock acquires it (Algorithm_lock; we take the lowest
// lane); the winners' write pays (bank degree - 1) x t_bank; the first round costs t_base and each
// further one t_position. The loop runs lock-degree times.
class Alg1 final : public LatencyModel {
 public:
  explicit Alg1(const Timing& t) : t_(t) {}
  std::int64_t latency(const ConflictAnalyzer& a, Op) const override {
    std::int64_t cycles = 0;
    bool first = true;
    LaneMask pending = a.active();
    for (const LaneMask winners : a.round_winners()) {
      cycles += first ? t_.t_base : t_.t_position;
      first = false;
      cycles += (a.bank_degree(pending) - 1) * t_.t_bank;  // every round has a pending lane
      cycles += (a.bank_degree(winners) - 1) * t_.t_bank;
      pending &= ~winners;
    }
    return cycles;
  }
  std::string_view name() const override { return "alg1"; }

 private:
  Timing t_;
};

// Seed 000 §III: the atomic as an FSM Read -> Update -> Write -> Branch, repeated per lock round
// (Fig. 1: LDSLK, IADD, STSUL, BRA). Read and Write cost their per-level latency times the bank
// degree of the lanes taking part (all pending lanes read; the lock winners write); Update and
// Branch are fixed. A conflict-free warp costs 32 + 18 + 36 + 32 = 118 cycles (000 §III: "108 vs.
// 118 cycles").
class Fsm final : public LatencyModel {
 public:
  explicit Fsm(const Timing& t) : t_(t) {}
  std::int64_t latency(const ConflictAnalyzer& a, Op) const override {
    std::int64_t cycles = 0;
    LaneMask pending = a.active();
    for (const LaneMask winners : a.round_winners()) {
      cycles += t_.fsm_read * a.bank_degree(pending) + t_.fsm_update +
                t_.fsm_write * a.bank_degree(winners) + t_.fsm_branch;
      pending &= ~winners;
    }
    return cycles;
  }
  std::string_view name() const override { return "fsm"; }

 private:
  Timing t_;
};

// Native shared atomics (no lock loop, no lock aliasing): the update is performed at the bank.
// Cost = native_base + (bank degree - 1) x t_bank + (position degree - 1) x native_position:
// distinct words of one bank serialize like a load, and each extra update of the same word
// serializes in the bank's ALU. An additive model chosen by us (not from a seed); its constants are
// uncalibrated.
class Native final : public LatencyModel {
 public:
  explicit Native(const Timing& t) : t_(t) {}
  std::int64_t latency(const ConflictAnalyzer& a, Op) const override {
    if (!a.active()) return 0;
    return t_.native_base + (a.bank_degree() - 1) * t_.t_bank +
           (a.position_degree() - 1) * t_.native_position;
  }
  std::string_view name() const override { return "native"; }

 private:
  Timing t_;
};

// Loads and stores: seed 001 §2.1.2, "the penalty increases in steps of t_bank" per conflict level;
// the bases are the Read (32) and Write (36) latencies of seed 000 §III on Fermi.
class LoadStore final : public LatencyModel {
 public:
  explicit LoadStore(const Timing& t) : t_(t) {}
  std::int64_t latency(const ConflictAnalyzer& a, Op op) const override {
    if (!a.active()) return 0;
    const std::int64_t base = op == Op::Store ? t_.st_base : t_.ld_base;
    return base + (a.bank_degree() - 1) * t_.t_bank;
  }
  std::string_view name() const override { return "loadstore"; }

 private:
  Timing t_;
};

template <class M>
std::unique_ptr<LatencyModel> make(const Timing& t) {
  return std::make_unique<M>(t);
}

}  // namespace

const std::vector<LatencyModelInfo>& latency_models() {
  static const std::vector<LatencyModelInfo> models = {
      {"alg1",
       "lock-loop atomics: Algorithm 1 (t_base, t_position per extra lock round, t_bank per "
       "extra bank-conflict level of each read and write)",
       "seed 001 §2.1.4", true, make<Alg1>},
      {"fsm",
       "lock-loop atomics as the Read/Update/Write/Branch state machine, repeated per lock round",
       "seed 000 §III", true, make<Fsm>},
      {"native", "native shared atomics without lock aliasing (uncalibrated)",
       "ours; see docs/models.md", true, make<Native>},
      {"loadstore",
       "plain loads and stores: base + t_bank per extra bank-conflict level; for atomics, "
       "GPGPU-Sim's original timing (an atomic is a load: the same word is a broadcast)",
       "seed 001 §2.1.2; seed 000 §III, Fig. 4", true, make<LoadStore>},
  };
  return models;
}

std::unique_ptr<LatencyModel> make_latency_model(std::string_view name, const Timing& t) {
  if (const auto* m = find_named(latency_models(), name)) return m->make(t);
  throw InputError(
      fmt::format("unknown latency model '{}' (known: {})", name, known_names(latency_models())));
}

OpLatency::OpLatency(std::string_view atomic_model, const Timing& t)
    : atomic_(make_latency_model(atomic_model, t)), plain_(make_latency_model("loadstore", t)) {}

}  // namespace smemsim

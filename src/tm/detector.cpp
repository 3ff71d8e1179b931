// Conflict detectors (seed 003 §3.3): the paper's Bloom-filter signatures and an exact reference.
#include <fmt/format.h>

#include <bit>

#include "smemsim/error.hpp"
#include "smemsim/tm.hpp"

namespace smemsim::tm {
namespace {

// One signature of tm.bloom_bits bits per thread and bank: "Signatures are private per work-item
// and per bank ... a single signature is used for both, reads and writes" (003 §3.3). A count per
// (bank, bit) of the threads whose signature has it answers "does any other thread's filter hit"
// in one step, as the paper's parallel check of the bank's filters does.
class BloomDetector final : public Detector {
 public:
  BloomDetector(const Arch& arch, std::uint32_t threads)
      : by_word_(arch.tm.bloom_index == "word"),
        banks_(arch.banks),
        bits_(arch.tm.bloom_bits),
        per_(std::size_t(banks_ + 63) / 64),
        sig_(std::size_t(threads) * banks_, 0),
        touched_(std::size_t(threads) * per_, 0),
        count_(std::size_t(banks_) * bits_, 0) {}
  std::string_view name() const override { return "bloom"; }

  Outcome query(std::uint32_t thread, std::uint32_t word, const Ownership&) const override {
    const std::uint32_t bank = word % banks_, bit = bit_of(word);
    const bool mine = (sig_[std::size_t(thread) * banks_ + bank] >> bit) & 1;
    const std::uint32_t others = count_[std::size_t(bank) * bits_ + bit] - (mine ? 1 : 0);
    if (others) return Outcome::Conflict;
    return mine ? Outcome::MaybeOwn : Outcome::NewAccess;
  }
  void insert(std::uint32_t thread, std::uint32_t word) override {
    const std::uint32_t bank = word % banks_, bit = bit_of(word);
    std::uint64_t& s = sig_[std::size_t(thread) * banks_ + bank];
    if ((s >> bit) & 1) return;
    s |= std::uint64_t{1} << bit;
    ++count_[std::size_t(bank) * bits_ + bit];
    touched_[std::size_t(thread) * per_ + bank / 64] |= std::uint64_t{1} << (bank % 64);
  }
  // Only the banks its signature has a bit in (a transaction touches a few of them: looking at
  // every bank of every thread at each commit was 4 % of tm_hashtable's time, issue 49).
  void clear(std::uint32_t thread) override {
    for (std::size_t i = 0; i < per_; ++i) {
      std::uint64_t& t = touched_[std::size_t(thread) * per_ + i];
      for (; t; t &= t - 1) {
        const std::uint32_t bank = std::uint32_t(i * 64 + std::size_t(std::countr_zero(t)));
        std::uint64_t& s = sig_[std::size_t(thread) * banks_ + bank];
        for (std::uint64_t m = s; m; m &= m - 1)
          --count_[std::size_t(bank) * bits_ + std::uint32_t(std::countr_zero(m))];
        s = 0;
      }
    }
  }

 private:
  // bloom_bit() below, with the arch's keys read once.
  std::uint32_t bit_of(std::uint32_t word) const {
    return (by_word_ ? word : word / banks_) % bits_;
  }

  bool by_word_;
  std::uint32_t banks_, bits_;
  std::size_t per_;                     // words of a thread's touched banks
  std::vector<std::uint64_t> sig_;      // thread x bank
  std::vector<std::uint64_t> touched_;  // thread x per_: the banks its signature has a bit in
  std::vector<std::uint32_t> count_;    // bank x bit: threads whose signature has the bit
};

// Perfect ownership tracking: the ownership record itself answers, so only a location another
// thread has accessed in its transaction conflicts (no false conflicts).
class ExactDetector final : public Detector {
 public:
  std::string_view name() const override { return "exact"; }
  Outcome query(std::uint32_t thread, std::uint32_t word, const Ownership& own) const override {
    const std::uint16_t o = own.owner[word];
    if (o == Ownership::kNone) return Outcome::NewAccess;
    return o == thread ? Outcome::MaybeOwn : Outcome::Conflict;
  }
  void insert(std::uint32_t, std::uint32_t) override {}
  void clear(std::uint32_t) override {}
};

}  // namespace

std::uint32_t bloom_bank(const Arch& arch, std::uint32_t word) {
  // "This memory location is stored in the bank 35 % 32 = 3" (003 §3.3): consecutive words in
  // consecutive banks.
  return word % arch.banks;
}

std::uint32_t bloom_bit(const Arch& arch, std::uint32_t word) {
  // "inside this bank it is stored in the position 35 / 32 = 1. Then work-item 3 must check the
  // bit 1 % 8 = 1" (003 §3.3).
  const std::uint32_t key = arch.tm.bloom_index == "word" ? word : word / arch.banks;
  return key % arch.tm.bloom_bits;
}

const std::vector<DetectorInfo>& detectors() {
  static const std::vector<DetectorInfo> d = {
      {"bloom",
       "per-thread, per-bank Bloom signatures of tm.bloom_bits bits (seed 003 §3.3); false "
       "positives abort like conflicts"},
      {"exact", "perfect ownership tracking: only a word another thread owns conflicts"},
  };
  return d;
}

std::unique_ptr<Detector> make_detector(const Arch& arch, std::uint32_t threads) {
  if (arch.tm.detector == "bloom") return std::make_unique<BloomDetector>(arch, threads);
  if (arch.tm.detector == "exact") return std::make_unique<ExactDetector>();
  std::string known;
  for (const DetectorInfo& d : detectors())
    known += (known.empty() ? "" : ", ") + std::string(d.name);
  throw InputError(fmt::format("arch key 'tm.detector': unknown detector '{}' (known: {})",
                               arch.tm.detector, known));
}

}  // namespace smemsim::tm

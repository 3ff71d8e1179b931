// The lock index of an arch: which lock bit a word address takes (seed 000 §II.A, §IV).
//
// Seed 000 leaves open which lock-address bits its lock hash changes; atomics.lock_hash_bits
// chooses (docs/models.md, "Which lock bits the hash changes"):
//   in-bank  the lock is (bank, lock within the bank): the low log2(banks x words per bank unit)
//            bits of the word address select the bank and stay as they are; the hash maps the
//            address above them to the lock-within-bank bits. On Fermi the bits 10..14 above the
//            1,024 locks fold into lock bits 5..9 (000 Fig. 3: 32 lock bits in each bank; §IV:
//            five-bit hashes, ten gates for banks and locks together).
//   all      the hash maps the word address to all log2(locks) lock bits: word bits 10..19 fold
//            into lock bits 0..9 (smemsim before issue 14).
#include <bit>

#include <fmt/format.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/index_function.hpp"

namespace smemsim {
namespace {

// in-bank: lock = (a mod 2^low) | inner(a >> low) << low.
class InBankLock final : public IndexFunction {
 public:
  InBankLock(IndexGeometry g, int low, std::unique_ptr<IndexFunction> inner)
      : IndexFunction(g), low_(low), low_mask_((1u << low) - 1), inner_(std::move(inner)) {}
  std::uint32_t index(std::uint32_t a) const override {
    return (a & low_mask_) | (inner_->index(a >> low_) << low_);
  }
  void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const override {
    for (int i = 0; i < n; ++i) out[i] = in[i] >> low_;
    inner_->index_many(out, out, n);
    for (int i = 0; i < n; ++i) out[i] = (in[i] & low_mask_) | (out[i] << low_);
  }
  // The function within the bank (make_index_function(spec()) over the lock-within-bank geometry
  // rebuilds it); the arch key atomics.lock_hash_bits says where it applies.
  std::string spec() const override { return inner_->spec(); }

 private:
  int low_;
  std::uint32_t low_mask_;
  std::unique_ptr<IndexFunction> inner_;
};

}  // namespace

int lock_bank_bits(const Arch& a) {
  return std::countr_zero(a.banks) + std::countr_zero(a.words_per_bank_unit());
}

std::unique_ptr<IndexFunction> make_lock_function(const Arch& a) {
  // locks == 0: one lock per word, the identity on valid word addresses.
  if (a.locks == 0) return make_index_function("mod", {a.word_addr_bits(), a.word_addr_bits()});
  const IndexGeometry whole{a.lock_bits(), a.word_addr_bits()};
  if (a.lock_hash_bits == "all") return make_index_function(a.lock_hash, whole);
  if (a.lock_hash_bits != "in-bank")
    throw InputError(
        fmt::format("atomics.lock_hash_bits: '{}' is not in-bank or all", a.lock_hash_bits));
  const int low = lock_bank_bits(a);
  const int bits = a.lock_bits() - low;
  if (bits <= 0) {
    // No lock-within-bank bits: only the identity (mod) is meaningful.
    auto f = make_index_function(a.lock_hash, whole);
    if (f->fixed_kind() == FixedIndex::Mod) return f;
    throw InputError(fmt::format(
        "atomics.lock_hash_bits = in-bank: {} locks on {} banks leave no lock-within-bank bits "
        "for lock hash '{}' (use atomics.lock_hash_bits = all)",
        a.locks, a.banks, a.lock_hash));
  }
  auto inner = make_index_function(a.lock_hash, {bits, a.word_addr_bits() - low});
  // mod within the bank is mod over the whole lock: keep the function the analyzer's vector kernel
  // recognises.
  if (inner->fixed_kind() == FixedIndex::Mod) return make_index_function("mod", whole);
  return std::make_unique<InBankLock>(whole, low, std::move(inner));
}

}  // namespace smemsim

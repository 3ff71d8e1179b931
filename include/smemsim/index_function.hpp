// Index functions map an address to a bank or a lock index (seed 000 §IV, seed 002 §4).
// One interface, implementations chosen by spec string from an explicit registry (DESIGN.md
// principle 1):
//   mod          low m bits                                    (the conventional addr % 2^m)
//   xor          bits [0,m) XOR bits [m,2m)                    (seed 000 Table I; 002 §7.1 fixed
//   hash) add          (bits [0,m) + bits [m,2m)) mod 2^m            (seed 000 Table I)
// Banks are indexed on the bank-unit address (word address / (bank width / 4)); locks on the word
// address. m is log2(#banks) or log2(#locks).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace smemsim {

struct IndexGeometry {
  int out_bits = 5;    // m: the index has 2^m values
  int addr_bits = 14;  // n: address bits that exist (the search space of the configurable families)
};

// The fixed functions above, which the conflict analyzer's vector kernel recognises.
enum class FixedIndex : std::uint8_t { None, Mod, Xor, Add };

class IndexFunction {
 public:
  virtual ~IndexFunction() = default;
  virtual std::uint32_t index(std::uint32_t addr) const = 0;
  // Batch form: one virtual call per warp on the hot path.
  virtual void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const {
    for (int i = 0; i < n; ++i) out[i] = index(in[i]);
  }
  // Which fixed function this is (None for every configurable family).
  virtual FixedIndex fixed_kind() const { return FixedIndex::None; }
  // Canonical spec string; make_index_function(spec()) rebuilds an equal function.
  virtual std::string spec() const = 0;
  int out_bits() const { return geometry_.out_bits; }
  const IndexGeometry& geometry() const { return geometry_; }

 protected:
  explicit IndexFunction(IndexGeometry g) : geometry_(g) {}
  IndexGeometry geometry_;
};

struct IndexFamily {
  std::string name;         // the spec's prefix before ':'
  std::string syntax;       // e.g. "bv:k=K"
  std::string description;  // one line
  std::string source;       // seed and section
  // Builds from the text after "name:" (empty when the spec has no ':'); throws InputError.
  std::function<std::unique_ptr<IndexFunction>(std::string_view args, const IndexGeometry&)> make;
};

// The registry: every family, in listing order.
const std::vector<IndexFamily>& index_families();

// Parses "family[:args]". Throws InputError naming the spec and what is wrong.
std::unique_ptr<IndexFunction> make_index_function(std::string_view spec, const IndexGeometry& g);

struct Arch;
// The lock index function of an arch (src/mapping/lock_index.cpp): atomics.lock_hash applied to
// the lock bits atomics.lock_hash_bits names (in-bank: the lock-within-bank bits above the low
// lock_bank_bits(arch) bits; all: every lock bit); the identity when atomics.locks = 0 (one lock
// per word). Throws InputError when the spec does not fit that geometry.
std::unique_ptr<IndexFunction> make_lock_function(const Arch& arch);
// The low word-address bits that select a lock's bank: log2(banks x words per bank unit).
int lock_bank_bits(const Arch& arch);

}  // namespace smemsim

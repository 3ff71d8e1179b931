#include "fixed_hashes.hpp"

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim {
namespace {

class ModIndex final : public IndexFunction {
 public:
  explicit ModIndex(IndexGeometry g) : IndexFunction(g), mask_((1u << g.out_bits) - 1) {}
  std::uint32_t index(std::uint32_t a) const override { return a & mask_; }
  void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const override {
    for (int i = 0; i < n; ++i) out[i] = in[i] & mask_;
  }
  std::string spec() const override { return "mod"; }
  FixedIndex fixed_kind() const override { return FixedIndex::Mod; }

 private:
  std::uint32_t mask_;
};

// Seed 000 §IV, Table I: XOR of the least and the next m significant bits (LSB XOR MSB), m =
// log2(N).
class XorIndex final : public IndexFunction {
 public:
  explicit XorIndex(IndexGeometry g) : IndexFunction(g), m_(g.out_bits), mask_((1u << m_) - 1) {}
  std::uint32_t index(std::uint32_t a) const override { return (a ^ (a >> m_)) & mask_; }
  void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const override {
    for (int i = 0; i < n; ++i) out[i] = (in[i] ^ (in[i] >> m_)) & mask_;
  }
  std::string spec() const override { return "xor"; }
  FixedIndex fixed_kind() const override { return FixedIndex::Xor; }

 private:
  int m_;
  std::uint32_t mask_;
};

// Seed 000 §IV, Table I: (bits [0,m) + bits [m,2m)) mod 2^m.
class AddIndex final : public IndexFunction {
 public:
  explicit AddIndex(IndexGeometry g) : IndexFunction(g), m_(g.out_bits), mask_((1u << m_) - 1) {}
  std::uint32_t index(std::uint32_t a) const override {
    return ((a & mask_) + ((a >> m_) & mask_)) & mask_;
  }
  void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const override {
    for (int i = 0; i < n; ++i) out[i] = ((in[i] & mask_) + ((in[i] >> m_) & mask_)) & mask_;
  }
  std::string spec() const override { return "add"; }
  FixedIndex fixed_kind() const override { return FixedIndex::Add; }

 private:
  int m_;
  std::uint32_t mask_;
};

// Hopper's TMA swizzle modes (issue 46; cuda.h CU_TENSOR_MAP_SWIZZLE_32B/64B/128B, "swizzle 16B
// chunks within a 32/64/128B span"), as bank mappings of 4-byte word addresses: the byte
// address's 16-byte chunk bits 4.. XORed with its bits 7.. (1, 2 or 3 of them) -- in words, bits
// 2.. with bits 5.. -- then the low m bits.
class TmaIndex final : public IndexFunction {
 public:
  TmaIndex(IndexGeometry g, int span)
      : IndexFunction(g),
        span_(span),
        xor_mask_((span == 32   ? 1u
                   : span == 64 ? 3u
                                : 7u)
                  << 2),
        mask_((1u << g.out_bits) - 1) {}
  std::uint32_t index(std::uint32_t a) const override {
    return (a ^ ((a >> 3) & xor_mask_)) & mask_;
  }
  std::string spec() const override { return fmt::format("tma{}", span_); }

 private:
  int span_;
  std::uint32_t xor_mask_, mask_;
};

void no_args(std::string_view family, std::string_view args) {
  if (!args.empty())
    throw InputError(
        fmt::format("hash spec '{}:{}': '{}' takes no arguments", family, args, family));
}

}  // namespace

std::unique_ptr<IndexFunction> make_mod(std::string_view args, const IndexGeometry& g) {
  no_args("mod", args);
  return std::make_unique<ModIndex>(g);
}
std::unique_ptr<IndexFunction> make_xor(std::string_view args, const IndexGeometry& g) {
  no_args("xor", args);
  return std::make_unique<XorIndex>(g);
}
std::unique_ptr<IndexFunction> make_add(std::string_view args, const IndexGeometry& g) {
  no_args("add", args);
  return std::make_unique<AddIndex>(g);
}
std::unique_ptr<IndexFunction> make_tma(int span, std::string_view args, const IndexGeometry& g) {
  no_args(span == 32 ? "tma32" : span == 64 ? "tma64" : "tma128", args);
  return std::make_unique<TmaIndex>(g, span);
}

}  // namespace smemsim

// The configurable XOR-based index families of seed 002 §4 (and a general XOR matrix beyond it).
// Every one is a linear map over GF(2): index bit j = parity(addr & row_j) (seed 002 §4, Fig. 3:
// the XOR-based class of Vandierendonck and De Bosschere). Spec syntax (bank bit 0 is the first
// selected):
//   bv:k=K                       bits K..K+m-1                                  (002 §4.1)
//   bvxor:k1=A,k2=B,mask=M       (a >> A) ^ ((a >> B) & M), M < 2^m             (002 §4.2)
//   bits:i0,i1,...               index bit j = address bit i_j (m distinct bits) (002 §4.3)
//   bitsxor:0^3,4,1^6,...        index bit j = one address bit or the XOR of two (002 §4.4, T. 3)
//   xormask:0x..,0x..,...        index bit j = parity(a & mask_j), masks < 2^n  (beyond 002)
// mod and xor of the foundation are XOR-based too (xor_matrix_of() knows them); add is not.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smemsim/index_function.hpp"

namespace smemsim {

inline constexpr int kMaxIndexBits = 24;  // make_index_function's limit on m
inline constexpr int kMaxAddrBits = 32;

// m rows over n address bits. Row j is the set of address bits whose parity is index bit j.
struct XorMatrix {
  int m = 0;
  int n = 0;
  std::array<std::uint32_t, kMaxIndexBits> rows{};

  std::uint32_t apply(std::uint32_t a) const {
    std::uint32_t r = 0;
    for (int j = 0; j < m; ++j) r |= std::uint32_t(std::popcount(a & rows[j]) & 1) << j;
    return r;
  }
  // Hardware cost in XOR gates (seed 000 §IV: one 2-input XOR per combined bit; 002 §4.5): the tie
  // rule of the search prefers fewer gates.
  int xor_gates() const;
  // GF(2) rank of the rows: m when every index value is used equally often.
  int rank() const;
  // The software hash of `--emit` keeps address bits >= m and replaces bits 0..m-1 with the index
  // (docs/hashing.md). It is a bijection iff the m x m block of the rows over address bits 0..m-1
  // is invertible over GF(2).
  bool software_bijective() const;
  bool operator==(const XorMatrix& o) const { return m == o.m && n == o.n && rows == o.rows; }
};

// Builders (the registry's families). Throw InputError with the spec and the reason.
std::unique_ptr<IndexFunction> make_bv(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_bvxor(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_bits(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_bitsxor(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_xormask(std::string_view args, const IndexGeometry& g);

// Canonical specs.
std::string bv_spec(int k);
std::string bvxor_spec(int k1, int k2, std::uint32_t mask);
std::string bits_spec(const std::vector<int>& bits);
// Each term is (i, j): j < 0 for a single bit.
std::string bitsxor_spec(const std::vector<std::pair<int, int>>& terms);
std::string xormask_spec(const XorMatrix& x);

// Matrices of the bit-vector form, for the search.
XorMatrix bvxor_matrix(int k1, int k2, std::uint32_t mask, const IndexGeometry& g);

// The matrix of an XOR-based function (every family here, mod and xor); nullopt for add.
std::optional<XorMatrix> xor_matrix_of(const IndexFunction& f);

}  // namespace smemsim

// Code a CUDA author can paste (seed 002 §6, §7.2): the found configuration as a software hash of
// the shared array's index, or the equivalent CuTe Swizzle<B,M,S>.
//
// The software hash keeps index bits >= m and replaces bits 0..m-1 by the configured bank (so that
// the hardware's mod-2^m banking sees the configured function). It is a bijection on every aligned
// group of 2^m words exactly when XorMatrix::software_bijective() holds; otherwise two indices
// share a word and data is lost, so nothing is emitted.
#pragma once

#include <optional>
#include <string>

#include "smemsim/hash_families.hpp"

namespace smemsim {

struct Emission {
  bool ok = false;
  std::string code;    // when ok
  std::string reason;  // when not ok: why nothing was emitted
};

// A `__device__ __forceinline__ unsigned NAME(unsigned i)`; shift/xor/and (and __popc only for
// rows of more than two bits).
Emission emit_cuda(const XorMatrix& x, const std::string& spec,
                   const std::string& name = "smemsim_hash");

struct CuteSwizzle {
  int bits = 0, base = 0, shift = 0;  // Swizzle<B, M, S>
};
// CuTe's Swizzle<B,M,S>(o) = o ^ ((o >> S) & (((1 << B) - 1) << M)) with S >= B, offsets in 4-byte
// words. nullopt when the software hash of `x` is not of that form.
std::optional<CuteSwizzle> find_cute_swizzle(const XorMatrix& x);
Emission emit_cute(const XorMatrix& x, const std::string& spec);

}  // namespace smemsim

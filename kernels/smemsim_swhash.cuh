// Software bank hash (seed 002 §6 and §7.2): the bit-vector XOR hash applied by extra instructions
// in the kernel instead of by the hardware. Every shared-memory word index i of a hashed array
// goes through
//
//     swhash<true>(i, k2, mask) = i ^ ((i >> k2) & mask)       (002 §4.2 with k1 = 0)
//
// so that the GPU's mod-32 banking sees bank = i[0..4] ^ (i[k2..k2+4] & mask): a shift, an AND and
// an XOR per index, as 002 §7.2's lavaMD example. With mask < 32 and k2 >= 1 the map only changes
// bits 0..4, and bank bit j becomes a_j ^ a_(j+k2) (mask bit j set): an upper unitriangular matrix
// over GF(2), so it is a bijection on every aligned group of 32 words. A hashed array therefore
// needs no padding, only a size that is a multiple of 32 words (the kernels round theirs up).
// (`smemsim hash search --family bvxor --bijective` finds such configurations; the hash002 study
// searches the k1 = 0 candidates for them.)
//
// swhash<false> is the identity: the baseline kernel, with no extra instruction. Kernels that take
// a software hash are templates on it, instantiated twice: NAME (baseline) and NAME_sw, with the
// same parameters, `k2` and `mask` last (the baseline ignores them).
#pragma once

template <bool HASH>
__device__ __forceinline__ unsigned swhash(unsigned i, unsigned k2, unsigned mask) {
  return HASH ? i ^ ((i >> k2) & mask) : i;
}

// Shared arrays of a hashed kernel are allocated in whole groups of 32 words.
#define SWHASH_ROUND32(words) ((((words) + 31) / 32) * 32)

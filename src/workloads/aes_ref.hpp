// AES-128 (FIPS-197), byte-oriented: the CPU reference of kernels/aes_tbox.cu, written from the
// standard's round functions (SubBytes, ShiftRows, MixColumns, AddRoundKey and their inverses),
// independent of the kernel's T-box formulation. Also the host-side tables the kernel needs.
#pragma once

#include <array>
#include <cstdint>

namespace smemsim::exec::aes {

using Block = std::array<std::uint8_t, 16>;      // s[r, c] = byte r + 4c (FIPS-197 §3.4)
using Schedule = std::array<std::uint32_t, 44>;  // w[i]: bytes of word i, byte r in bits 8r..

std::uint8_t sbox(std::uint8_t x);      // GF(2^8) inverse, then the affine map (§5.1.1)
std::uint8_t inv_sbox(std::uint8_t x);  // its inverse
Schedule expand_key(const std::array<std::uint8_t, 16>& key);  // §5.2
Block encrypt(const Schedule& w, const Block& in);             // §5.1
Block decrypt(const Schedule& w, const Block& in);             // §5.3

// The kernel's tables: T0..T3 and the S-box (encryption) or Td0..Td3 and the inverse S-box, 1,280
// words; and its 44 round-key words (decryption: the equivalent inverse cipher's, §5.3.5).
std::array<std::uint32_t, 1280> kernel_tables(bool decrypt);
Schedule kernel_keys(const Schedule& w, bool decrypt);

}  // namespace smemsim::exec::aes

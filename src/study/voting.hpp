// Vote-space layouts shared by the voting studies (seed 001 §3-§4, seed 000 §V).
//   replication: R copies of a vote space of S words placed one after another, copy c starting at
//                c * (S + pad) (pad = 1: "padding", seed 001 §3 Fig. 7; seed 000 §V.B);
//   bin-stretching: OUR layout, not the paper's. Seed 000 §V.B-§V.C cites [2] (the same authors'
//                voting work, most likely GPU-Vote, Euro-Par 2012) for bin-stretching but does not
//                define it, and [2]'s text was not found (docs/studies.md). Ours: the same R copies
//                interleaved, bin b of copy c at b * R + c, each bin stretched over R consecutive
//                words (000: "only the ordering of the sub-histogram bins in the scratchpad memory
//                is different"). Under mod the copies of a bin lie in R consecutive banks, so lanes
//                voting one bin never share a bank, and from R = 32 a warp's votes are free of bank
//                and lock conflicts: a hash has little to gain on the votes (000: up to 1.80x).
// A thread's copy is given by the mapping (seed 001 Eq. 1-2) of its thread id within the block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "smemsim/error.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim::study {

enum class Mapping { Cyclic, Block };

// Seed 001 Eq. 1 (cyclic: copy = ThId % R) and Eq. 2 (block: copy = (ThId / floor(N / R)) % R).
inline std::uint32_t copy_of(Mapping m, std::uint32_t tid, std::uint32_t r, std::uint32_t n) {
  if (m == Mapping::Cyclic) return tid % r;
  return (tid / std::max<std::uint32_t>(1, n / r)) % r;
}

enum class Layout { Replication, Stretch };

inline std::uint32_t vote_address(Layout l, std::uint32_t bin, std::uint32_t copy,
                                  std::uint32_t space, std::uint32_t r, std::uint32_t pad) {
  return l == Layout::Stretch ? bin * r + copy : copy * (space + pad) + bin;
}
inline std::uint64_t vote_footprint(Layout l, std::uint64_t space, std::uint64_t r,
                                    std::uint64_t pad) {
  return l == Layout::Stretch ? space * r : r * (space + pad) - pad;
}

// The bank/lock hashes a voting study compares (seed 000 §IV Table I: the same function for banks
// and locks). xor and add run twice: with the lock hash on the lock bits the arch's
// atomics.lock_hash_bits names (in-bank on the Fermi presets, seed 000's reading) and on all lock
// bits ("all", the reading of smemsim before issue 14; docs/models.md). `column` names the
// study's cycles_ and speedup_ columns.
struct HashVariant {
  const char* column;
  const char* hash;
  bool whole_lock;  // atomics.lock_hash_bits = all
};
inline const std::vector<HashVariant>& hash_variants() {
  static const std::vector<HashVariant> v{{"mod", "mod", false},
                                          {"xor", "xor", false},
                                          {"add", "add", false},
                                          {"xor_all", "xor", true},
                                          {"add_all", "add", true}};
  return v;
}

// Speed-up of a hash over mod: modeled cycles with mod / with the hash (1 when nothing voted).
inline double speedup(std::int64_t mod_cycles, std::int64_t hash_cycles) {
  return hash_cycles ? double(mod_cycles) / double(hash_cycles) : 1.0;
}

// The voting kernels' warps: items [0, n) in warps of `lanes` consecutive items (item i on lane
// i % lanes, the last warp partial). address(i) is item i's word; on_warp(wa) gets each warp's
// atomic access.
template <class Address, class OnWarp>
void for_each_vote_warp(std::size_t n, std::uint32_t lanes, Address address, OnWarp on_warp) {
  WarpAccess wa;
  wa.op = Op::Atomic;
  wa.lanes = static_cast<std::uint8_t>(lanes);
  for (std::size_t base = 0; base < n; base += lanes) {
    wa.active = 0;
    for (std::uint32_t l = 0; l < lanes && base + l < n; ++l)
      wa.set(static_cast<int>(l), address(base + l));
    on_warp(wa);
  }
}

inline const char* mapping_name(Mapping m) {
  return m == Mapping::Cyclic ? "cyclic" : "block";
}

}  // namespace smemsim::study

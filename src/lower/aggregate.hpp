// ptxas's aggregation of atomics (sm.lower's `aggregate`, issue 42).
//
// ptxas 13.0 (sm_75, sm_80, sm_90) turns some atomics of a warp into one lane's: the warp votes
// (VOTEU.ANY), the lowest active lane (FLO/UFLO) does the whole warp's update, and the others
// skip it (`@P ATOM`). From the SASS of this repository's kernels
// (calibration/runs/h200-2026-11-28/sass.tar.gz):
//   - an integer atomicAdd of a warp-uniform value to a warp-uniform address: POPC of the vote,
//     one lane adds count x value, and a used result is each lane's share of it (SHFL.IDX of the
//     old value, IMAD by the lane's rank): rep_atomic_conflict's `sum += atomicAdd(&word[0], 10)`;
//   - an and/or/xor to a warp-uniform address whose result is unused: REDUX of the lanes' values
//     (sm_80 on; a shuffle tree on sm_75), then one lane's ATOMS/ATOM: isa_mix's atomicAnd,
//     atomicOr, atomicXor on flags[k], cg_tiles' atomicAnd (with the result used it is not:
//     cg_tiles' `ATOM.E.OR ... R11`);
//   - an add of zero whose result is unused, at any address (it changes nothing; one lane keeps
//     the ordering): rep_shared_atomic_contention's atomicAdd(&s[p], 0).
// Not aggregated: inc, dec, min, max, exch, cas (isa_mix's atomicInc/atomicDec on a uniform
// address are every lane's ATOMS.INC/DEC), float adds.
//
// The timing model times an aggregated atomic as its lowest active lane's access (one word: no
// bank or same-address contention, one update at the L2); the set-up around it (the vote, POPC or
// REDUX, a result's SHFL and IMAD) takes no issue slots here. The executor still runs every
// lane's atomic: the memory's result is the PTX's.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// Per instruction: 1 for an atomic ptxas aggregates (above). Warp-uniform: not one of
// varying_registers (converge.hpp), the analysis the `bssy` rule uses.
std::vector<std::uint8_t> aggregated_atomics(const ptx::Kernel& k, const std::vector<RegUse>& uses);

}  // namespace smemsim::lower

// If-conversion, the timing's view of a short forward branch (sm.lower rule `ifcvt`, issue 42):
// ptxas turns `@p bra L; <a few instructions>; L:` into those instructions guarded by !p, so the
// warp neither branches nor diverges and the instructions before and after are one block its
// scheduler moves loads across (sm_90 SASS of kernels/convolution.cu: conv_rows's ten
// `@%p bra` round one `ld.global` each are ten predicated LDGs, issued one after another).
//
// The pass rewrites a copy of the kernel the cycle model and its executor run: each converted
// branch becomes `mov.pred p, p` flagged ptx::kIfConverted (it does nothing; the lowering absorbs
// it, so it takes no issue slot) and the instructions it jumped over take its guard, negated.
// Positions do not change, so every per-instruction count keeps the PTX's numbering. Results do
// not change: a lane that branched executes none of them either way.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"

#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// The most issue slots a converted branch may jump over when no arch says (sm.ifcvt_slots;
// assumed: conv_rows's bodies are one instruction each; ptxas's own limit is not published).
inline constexpr std::uint32_t kIfcvtBody = 4;

// The branches of `k` to convert, in order: each a guarded `bra` to a label after it in the same
// function, at most `slots` issue slots ahead, over instructions that are unguarded, end no
// block, are no branch's target, and do not write the branch's predicate (`uses`: each
// instruction's registers, lower.hpp).
// `cost[j]`: the issue slots instruction j takes once converted (1 and its expansion's steps);
// empty: 1 each. The body's slots must be at most `slots`.
std::vector<std::uint32_t> if_conversions(const ptx::Kernel& k, const std::vector<RegUse>& uses,
                                          const std::vector<std::uint32_t>& cost = {},
                                          std::uint32_t slots = kIfcvtBody);

// Converts them (if_conversions' result, for this kernel).
void if_convert(ptx::Kernel& k, const std::vector<std::uint32_t>& branches);

}  // namespace smemsim::lower

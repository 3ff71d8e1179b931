// ptxas's unrolling of counted loops (sm.lower's `unroll`, issue 42).
//
// ptxas 13.0 unrolls an innermost loop whose trip count is known only at run time four times
// (sm_75, sm_80 and sm_90 alike). In the SASS of this repository's kernels
// (calibration/runs/h200-2026-11-28/sass.tar.gz; docs/timing.md "Lowering" gives the survey):
//   - rep_ffma's loop, 16 fma.rn.f32, an add of -4 to a counter, setp and bra, is a SASS loop of
//     64 FFMAs with one IADD3, one ISETP and one BRA; a 2x copy and the 1x loop take the rest;
//   - of the suite's and the microbenchmarks' 310 PTX loops, all 39 innermost loops with a
//     counter stepped by a constant, a run-time trip count and at most 59 PTX instructions are
//     4x in SASS; none of the 154 loops stepped by a register, a shift or a spin is unrolled;
//     no loop that holds another is; and none with `.pragma "nounroll"` (PTX ISA, "Pragma
//     Strings"). Larger loops (79-203 instructions) and loops with an atomic whose result is
//     read (or a generic, or a shared float add's retry loop) stay 1x.
//   - A trip count known at compile time is unrolled by various factors (3x-5x, fully, or not:
//     9 of 18); those loops are left as written here.
//
// The timing model keeps the PTX loop and charges its overhead in one trip of four: the loop's
// branch, the setp that only it reads, and each counter's add of a constant to itself (ptxas
// folds the other trips' counters into immediate offsets) issue in trips 4, 8, ... of a warp's
// pass through the loop; in the other trips they execute with no issue slot, unit or latency.
// A loop's remainder (a trip count not a multiple of 4: ptxas's 2x copy and 1x loop) is not
// modelled.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

inline constexpr std::uint32_t kUnrollFactor = 4;
// The most PTX instructions of a loop ptxas unrolls: the survey's unrolled loops have up to 59,
// the smallest of those it left has 79 (a value between is assumed).
inline constexpr std::uint32_t kUnrollMaxInstructions = 64;

// Per instruction: the index of its loop's backward branch when it is the overhead of a loop
// ptxas unrolls (above), else ptx::kNone. Empty when no loop qualifies.
std::vector<std::uint32_t> unrolled_overhead(const ptx::Kernel& k, const std::vector<RegUse>& uses);

}  // namespace smemsim::lower

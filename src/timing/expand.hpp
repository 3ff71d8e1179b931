// sm.lower's expansions (issue 42): PTX instructions the GPU runs as several, timed as the
// instruction sequences ptxas emits for them. The sequences are those of ptxas 13.0 for sm_90
// (cuobjdump of scripts/memory_scaling's kernels and of small kernels of one division each, on
// our H100/H200 lease of 2026-11-27: docs/timing.md "Lowering"). Before the PTX instruction
// issues, its steps issue in order, each on its unit: a `chain` step reads the previous chain
// step's result (the first reads the instruction's sources) and writes the next one's; any other
// step reads the instruction's sources and writes nothing the sequence waits for (an issue slot
// and its unit: the SASS consumes those results later, off the critical path). The PTX
// instruction issues last, on `last`, reading the last chain step's result, and computes the
// result.
#pragma once

#include <array>
#include <cstdint>

#include "timing/inst_info.hpp"

namespace smemsim::timing {

// `pred`: a chain step that writes a predicate (ISETP, FSETP); `guarded`: a chain step guarded by
// the predicate the last such step wrote (@P IMAD.IADD after ISETP.GE), which it reads
// sm.guard_delay later than a register (docs/timing.md "Guard delay").
// `hold`: a branch or BSYNC step, which holds its warp until it completes as a branch does
// (sm.lat_branch; ptxas gives every BRA and BSYNC a stall count of 5, a BSSY as little as 1).
struct ExpandStep {
  Unit unit;
  bool chain;
  bool pred = false, guarded = false, hold = false;
};

struct Expansion {
  Unit last;       // the unit the PTX instruction itself issues to
  std::uint8_t n;  // steps before it
  std::array<ExpandStep, 48> steps;
};

const Expansion& expansion(Expand e);

}  // namespace smemsim::timing

// Wide shared loads and stores, the timing's view (sm.lower rule `vector`, issue 42): ptxas
// merges scalar shared loads of adjacent words from one base into one 64- or 128-bit load when it
// knows the address is aligned to the width (sm_90 SASS of kernels/conflict_free.cu's matmul,
// measured on an H200: the inner loop's sixteen `ld.shared.f32 [%r7+4k]` from As[ty][k] are four
// LDS.128, 16,384 scalar loads executed as 10,240 LDS in all; calibration/runs/h100-2026-11-27/
// ncu_opcodes_h200.csv), and scalar stores likewise (grid3d's 1,536 `st.shared.f32` are 768 STS on
// the H100, scan_blelloch's 616 are 552: calibration/runs/h100-2026-11-26/ncu.csv). A load group
// moves its later loads up to the first, over instructions that touch neither their registers nor
// shared memory's contents; a store group moves its earlier stores down to the last, over
// instructions that neither access shared memory nor change the stored values.
//
// The pass brings each group together (vector_order: the executors run that order, as they run
// the list scheduler's; results do not change) and the lowering pass absorbs all but the last of
// a run into it (lower.hpp): one issue slot, one shared access whose words are the group's (the
// timing's SharedMemoryUnit serves it as one wide access).
//
// Alignment. ptxas knows an address's alignment from how it was computed; known_alignment()
// derives it the same way for every register from its writers (a shared variable's address is
// taken as 16-byte aligned: ptxas places shared variables itself, and it vectorises matmul's
// As, declared `.align 4`).
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::lower {

// The largest alignment known_alignment() reports.
inline constexpr std::uint32_t kAlignCap = 256;
// What a shared variable's address is taken to be a multiple of (above).
inline constexpr std::uint32_t kSharedVarAlign = 16;

// Per register of k, a power of two its value is always a multiple of (1: nothing known): the
// greatest solution over every instruction that writes it (mov, cvt, add, sub, shl, mul, mad,
// and, or of registers, immediates and shared variables' addresses; anything else 1).
std::vector<std::uint32_t> known_alignment(const ptx::Kernel& k, const std::vector<RegUse>& uses);

// The groups of shared loads or stores ptxas would issue as one: each 2 or 4 instructions of one
// block, in program order, unguarded, non-volatile scalar 32- or 64-bit `ld.shared` (or
// `st.shared`; two 64-bit ones make 16 bytes) from
// one base (a register or a shared variable) at offsets that tile 8 or 16 bytes aligned to that
// width. Loads: between the first and each later one no instruction writes the base, writes
// shared memory, reads a clock, or reads or writes that load's registers. Stores: between each
// earlier one and the last no instruction writes the base or the stored value, accesses shared
// memory (but the list's own stores to other words), orders memory or reads a clock. 16-byte
// groups are formed first. lavamd's doubles pair into LDS.128 and STS.128 as ptxas pairs them
// (the H200's SASS counts: 64,512 LDS and 832 STS, what the rule gives).
std::vector<std::vector<std::uint32_t>> vector_groups(const ptx::Kernel& k,
                                                      const std::vector<RegUse>& uses);

// The order that moves each group's later members up to just after its first (order[new
// position] = old index, for reordered() in schedule.hpp); empty when nothing moves.
std::vector<std::uint32_t> vector_order(const ptx::Kernel& k, const std::vector<RegUse>& uses);

}  // namespace smemsim::lower

// Static facts about each PTX instruction that the timing model needs, decoded once per kernel:
// which unit executes it, which memory it touches, and the registers it reads and writes (the
// scoreboard's sets).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lower/lower.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim {
struct SmConfig;
}

namespace smemsim::timing {

// sm.lower's expansions (expand.hpp): an instruction the GPU runs as a sequence.
enum class Expand : std::uint8_t {
  None,
  SinCos,
  Ex2,  // ex2.approx.f32 without .ftz: the subnormal range's scaling round MUFU.EX2
  DivU32,
  RemU32,
  DivS32,
  RemS32,
  DivF32,
  SqrtF32,
  Wide,
  Bssy,   // a branch that may split the warp: BSSY first (src/lower/converge.hpp)
  Bsync,  // where its lanes meet: BSYNC first (the instruction keeps its own unit)
  // DivF32 whose warp has a lane the fast path cannot divide (Executor::fdiv_slow): the slow
  // path's call as well. Chosen per issue (Sm::expansion_of), never stored in InstInfo.
  DivF32Slow,
};

// Execution classes: each has its own latency (arch keys) and so its own EXE depth.
enum class Unit : std::uint8_t {
  Alu,
  Sfu,
  Branch,      // bra, ret, exit: the warp waits for it (control dependence)
  SharedLd,    // ld.shared; atom.shared under atomics.model = loadstore
  SharedSt,    // st.shared
  SharedAtom,  // native shared atomic unit (locks = 0)
  Const,       // ld.param, ld.const
  Global,      // ld/st/atom/red on global or local memory
  FsmRead,     // the lock loop of seed 000 Fig. 1: LDSLK
  FsmUpdate,   //   IADD
  FsmWrite,    //   STSUL
  FsmBranch,   //   BRA
  // Modern SMs' math pipes (docs/timing.md "Units"): FP32 arithmetic and integer multiply (the FMA
  // pipe), FP64 arithmetic, and the tensor core (mma, wmma.mma). Without their own latencies
  // (sm.lat_fma = 0 ...) they take the ALU's.
  Fma,
  Fp64,
  Tensor,
  // Half-precision arithmetic: the FMA pipe's lanes with its own latency (sm.lat_fp16; 0: the
  // FMA pipe's).
  Fp16,
  // A conversion to or from f64: the SFU's lanes with its own latency (sm.lat_cvt64; 0: the
  // SFU's).
  Cvt64,
  // An integer multiply(-add), IMAD: the FMA pipe's lanes (sm.lanes_imad of them) with its own
  // latency (sm.lat_imad; 0: the FMA pipe's).
  Imad,
};
inline constexpr std::size_t kUnits = 18;

// A pipe whose results are ready a fixed latency after issue (no scoreboard): their predicates
// guard sm.guard_delay late.
constexpr bool fixed_latency(Unit u) {
  return u == Unit::Alu || u == Unit::Fma || u == Unit::Fp16 || u == Unit::Imad || u == Unit::Fp64;
}
// The pipe of sm.xpipe_delay: 1 the ALU, 2 the FMA pipe (FP32, FP16, IMAD), 0 neither.
constexpr std::uint8_t xpipe_of(Unit u) {
  return u == Unit::Alu ? 1 : u == Unit::Fma || u == Unit::Fp16 || u == Unit::Imad ? 2 : 0;
}

// The memory an instruction addresses, as far as the PTX says (generic: decided at run time).
enum class Space : std::uint8_t { None, Shared, Global, Const, Generic };

// 004 §4.2: the scheduler knows whether a warp's next instruction accesses shared memory, another
// memory, or none.
enum class NextClass : std::uint8_t { Other, Memory, Shared };

struct InstInfo {
  Unit unit = Unit::Alu;
  Space space = Space::None;
  bool atomic = false;   // atom, red
  bool store = false;    // st
  bool barrier = false;  // bar.sync / barrier.sync / bar.red: the warp may wait
  bool arrive = false;   // bar.arrive: counts towards a barrier without waiting
  bool exit = false;     // ret, exit
  // cp.async (issue 25): a global read whose data lands in shared memory asynchronously; its
  // commit_group closes the warp's open group; wait_group N (wait_all: commit, then N = 0) lets the
  // warp's next instruction issue only when at most N of its committed groups are outstanding.
  bool async_copy = false, async_commit = false, async_wait = false;
  std::uint32_t async_keep = 0;  // wait_group's N
  // Which groups commit and wait name: 0 cp.async's, 1 wgmma's (issue 46). A wgmma.mma_async
  // (`wgmma`) joins the open wgmma group; its group is done when its tensor work is.
  std::uint8_t async_kind = 0;
  bool wgmma = false;
  // wgmma.fence (WARPGROUP.ARRIVE): the warp's register writes in flight finish first.
  bool wgmma_fence = false;
  std::uint8_t nsrc = 0, ndst = 0;
  // A tensor op's work in dense-FP16 multiply-adds: m*n*k scaled by its type's rate (TF32 x2,
  // INT8 / 2, FP64 x16; sm.tensor_fmas).
  std::uint32_t tensor_work = 0;
  // An mma whose accumulator (C) is f16: its steps do twice the work (sm.tensor_step_fmas).
  bool tensor_acc16 = false;
  bool int_mul = false;  // an integer mul/mad on the FMA pipe (sm.lanes_imad)
  // sm.lower's sincos and divide: the instruction issues after the steps of its expansion
  // (expand.hpp), then itself on `unit` reading only the last chain step's result.
  Expand expand = Expand::None;
  // sm.lower's vector: the shared load issues the words of the loads absorbed into it too, one
  // access of their width (src/lower/vector.hpp).
  bool merged_words = false;
  // sm.lower's aggregate: an atomic ptxas makes one lane's (src/lower/aggregate.hpp), timed as its
  // lowest active lane's access.
  bool aggregated = false;
  // The guard predicate's register (ptx::kNone: unguarded; it is among `src` too), and whether
  // the instruction writes a predicate (sm.guard_delay: a guard reads a fixed-latency pipe's
  // predicate late).
  std::uint32_t guard = ptx::kNone;
  bool writes_pred = false;
  std::array<std::uint32_t, 28> src{};  // wmma.mma reads up to 24 fragment registers
  std::array<std::uint32_t, 8> dst{};
  NextClass next_class() const {
    if (space == Space::Shared) return NextClass::Shared;
    if (space != Space::None) return NextClass::Memory;
    return NextClass::Other;
  }
};

std::vector<InstInfo> decode_kernel(const ptx::Kernel& kernel);

// The lowering pass (src/lower/) over the decoded kernel: per instruction, the index of the
// instruction an absorbed one issues with (ptx::kNone for the instructions that issue); empty
// when `rules` has none. An absorbed
// instruction's InstInfo becomes its group's: the unit, memory space and flags of the instruction
// it issues with, and the registers of every instruction from it to that one (what the
// scoreboard checks before the group issues). An add that absorbed an integer multiply runs on
// the FMA pipe (IMAD). A group whose registers do not fit InstInfo's sets is not absorbed.
// Each instruction's scoreboard registers, as the lowering pass and the scheduler read them.
std::vector<lower::RegUse> reg_uses(const std::vector<InstInfo>& info);

std::vector<std::uint32_t> apply_lowering(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
                                          const lower::Rules& rules);

// sm.lower's balance (pipe_balance.cpp): in each basic block, integer adds, subs, moves and
// shifts by an immediate that issue on the ALU move, in program order, to the FMA pipe as IMAD
// forms (unit Imad, at sm.lanes_imad) while that lowers the busier pipe's cycles, as ptxas
// spreads them. `absorbed` is apply_lowering's result.
void balance_pipes(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
                   const std::vector<std::uint32_t>& absorbed, const SmConfig& sm);

}  // namespace smemsim::timing

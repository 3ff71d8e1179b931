// PTX front-end: the decoded IR of a PTX module and the parser that builds it (docs/ptx.md).
//
// A PTX text is lexed and parsed once into a Module. Everything an executor needs is resolved here:
// registers are dense per-kernel numbers with a type, symbols are indices into the kernel's symbol
// table, branch targets are instruction indices and every modifier is an enum. Stepping a warp
// through Kernel::code therefore needs no string handling. Anything the parser does not support is
// an InputError `file:line: unsupported PTX instruction 'X'`; malformed text is an InputError with
// `file:line:` too. Nothing is skipped silently.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace smemsim::ptx {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// A vector element that is an immediate: Kernel::vec_imm(o, element) reads it.
inline constexpr std::uint32_t kVecImm = kNone - 8;
inline bool is_vec_imm(std::uint32_t v) {
  return v >= kVecImm && v != kNone;
}

// clang-format off
enum class Opcode : std::uint8_t {
  Ld, St, Cvta, Mov,                                   // data movement
  Add, Sub, Mul, Mad, Div, Rem, Min, Max, Abs, Neg,    // integer / float arithmetic
  And, Or, Xor, Not, Shl, Shr, Shf, Popc, Clz, Brev,   // bits
  Bfe, Bfi, Prmt,                                      // bit fields, byte permute
  Setp, Selp, Set, Cvt,                                // compare, select, convert
  Fma, Rcp, Sqrt, Rsqrt, Sin, Cos, Ex2, Lg2,           // floating point
  Bra, Bar, Membar, Atom, Red, Ret, Exit,              // control, sync, atomics
  TxBegin, TxCommit,  // GPU-LocalTM markers `tx.begin;` / `tx.commit;` (seed 003 §3, docs/tm.md)
  // Warp-level: shfl(.sync), vote(.sync), match.sync, redux.sync, activemask, bar.warp.sync.
  Shfl, Vote, Match, Redux, Activemask, BarWarp,
  // Integer intrinsics (issue 15): bit find, n-th set bit, dot products, 24-bit multiplies, sum
  // of absolute difference; float class test and copysign.
  Bfind, Fns, Dp4a, Dp2a, Mul24, Mad24, Sad, Testp, Copysign,
  Call,  // a device function call: ops[0].imm() indexes Kernel::calls
  // Texture fetches on texture objects (issue 15): tex (point/linear sampling, integer fetch) and
  // tld4 (the four texels of the bilinear footprint, one component each).
  Tex, Tld4,
  // Tensor-core kernels (issue 16): ldmatrix/stmatrix (8x8 b16 matrices between shared memory and
  // a warp's registers), cp.async and its groups, mma.sync, and the wmma API's load/mma/store.
  Ldmatrix, Stmatrix, CpAsync, CpAsyncCommit, CpAsyncWait, Mma, WmmaLoad, WmmaStore, WmmaMma,
  // Split barriers in shared memory (issue 27: cuda::barrier, cuda::pipeline): mbarrier.* and
  // cp.async.mbarrier.arrive (the kind in Instruction::comp, MbarOp), and nanosleep.
  Mbarrier, Nanosleep,
  // Issue 45: bmsk (a bit-field mask: libcu++'s cuda::bitmask, every CUB radix sort), prefetch /
  // prefetchu (no functional effect) and createpolicy (an L2 cache policy for .L2::cache_hint:
  // opaque, no functional effect).
  Bmsk, Prefetch, Createpolicy,
  // Issue 46: the Tensor Memory Accelerator's bulk copies (the kind in Instruction::comp, BulkOp;
  // a tensor copy's rank in Instruction::vec); the cluster barrier (comp 0: arrive, 1: wait) and
  // mapa (a shared address of another CTA of the cluster).
  CpBulk, BarCluster, Mapa,
  // Issue 46: Hopper's warpgroup matrix multiply (wgmma.mma_async, .fence, .commit_group,
  // .wait_group; the kind in the low bits of Instruction::comp, WgmmaOp).
  Wgmma,
};
// What an Opcode::Wgmma does (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// the product, the fence before it, the commit of the warp's open group, the wait for groups.
// An mma_async's comp also holds its immediates (kWgmma*), its N / 8 is Instruction::vec.
enum class WgmmaOp : std::uint8_t { Mma, Fence, Commit, Wait };
inline constexpr std::uint8_t kWgmmaOpMask = 3;
inline constexpr std::uint8_t kWgmmaNegA = 4;     // imm-scale-a = -1
inline constexpr std::uint8_t kWgmmaNegB = 8;     // imm-scale-b = -1
inline constexpr std::uint8_t kWgmmaTransA = 16;  // imm-trans-a = 1: A is M-major in shared memory
inline constexpr std::uint8_t kWgmmaTransB = 32;  // imm-trans-b = 1: B is N-major
inline constexpr std::uint8_t kWgmmaADesc = 64;   // A from shared memory through a descriptor
// What an Opcode::CpBulk does (PTX ISA "cp.async.bulk", "cp.async.bulk.tensor"): a contiguous copy
// global -> shared (completing an mbarrier's transactions) or shared -> global (a bulk group), the
// same for a box of a tensor map, the bulk groups' commit and wait, and the L2 prefetches.
enum class BulkOp : std::uint8_t {
  Load, Store, TensorLoad, TensorStore, Commit, Wait, Prefetch,
  // cp.reduce.async.bulk{.tensor} to global memory: Instruction::atom is the operation.
  Reduce, TensorReduce,
  // cp.async.bulk.shared::cluster.shared::cta: the CTA's shared memory into a CTA's of its
  // cluster, completing that CTA's mbarrier (issue 46).
  Peer,
  // cp.reduce.async.bulk.shared::cluster.shared::cta: Peer's copy combined into the destination's
  // elements by Instruction::atom on Instruction::type.
  PeerReduce,
  // st.async / red.async (.shared::cluster.mbarrier::complete_tx::bytes): each lane's value (a
  // vector of Instruction::vec elements of Instruction::type) into a CTA of the cluster, stored or
  // combined by Instruction::atom, completing that CTA's mbarrier with its bytes; ops[0] the
  // address, ops[1] the value, ops[2] the mbarrier.
  StAsync, RedAsync,
};
// What an Opcode::Mbarrier does (PTX ISA "mbarrier"): init, arrive, arrive_drop, test_wait,
// try_wait, inval, pending_count, and cp.async.mbarrier.arrive.
enum class MbarOp : std::uint8_t {
  Init, Arrive, ArriveDrop, TestWait, TryWait, Inval, PendingCount, CpAsyncArrive,
  // Issue 46: the transaction count of bulk copies: arrive.expect_tx (an arrival that first raises
  // the count), expect_tx and complete_tx.
  ArriveExpectTx, ExpectTx, CompleteTx,
};
// The matrix shapes of mma.sync and wmma (m, n, k).
enum class MmaShape : std::uint8_t {
  None, M16N8K16, M16N8K8, M16N16K16, M32N8K16, M8N32K16, M16N16K8,
  // issue 27: f64, integer and single-bit shapes, and Volta's m8n8k4
  M8N8K4, M8N8K16, M8N8K32, M8N8K128, M16N8K4, M16N8K32, M16N8K64, M16N8K128, M16N8K256,
  // issue 46: wgmma's m64nNkK (N, 8 to 256, in Instruction::vec as N / 8)
  M64K8, M64K16, M64K32,
};
// clang-format on

// clang-format off
enum class Type : std::uint8_t {
  None, Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64,
  BF16, F16X2, BF16X2, TF32,  // issue 16: half precision pairs and TensorFloat-32
  S4, U4, B1,  // issue 27: the sub-byte elements of mma and wmma (no other instruction takes them)
  E4M3, E5M2,  // issue 46: the 8-bit floats of wgmma (no other instruction takes them yet)
};
// clang-format on

// State space. Generic is an ld/st/atom without a space (a generic address).
enum class Space : std::uint8_t { None, Generic, Param, Global, Shared, Local, Const };
// The cache operator of a ld/st (PTX ISA "Cache Operators"): none written, then .ca .cg .cs .lu
// .cv (loads) and .wb .wt (stores), in kCache's order (src/ptx/decode.cpp).
enum class CacheOp : std::uint8_t { None, Ca, Cg, Cs, Lu, Cv, Wb, Wt };

// clang-format off
enum class CmpOp : std::uint8_t {
  None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
};
// clang-format on
enum class BoolOp : std::uint8_t { None, And, Or, Xor };  // setp/set combining predicate
enum class AtomOp : std::uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
// .rna: to nearest, ties away from zero (cvt.rna.tf32.f32). Integer roundings (.rni ...) last.
enum class Rounding : std::uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
enum class MulMode : std::uint8_t { None, Lo, Hi, Wide };  // mul/mad result part
// Texture geometry of tex/tld4: 1-D, 2-D, 3-D, and layered 1-D/2-D (a1d, a2d).
enum class TexGeom : std::uint8_t { None, D1, D2, D3, A1d, A2d };
// shfl, vote, match, redux, activemask, bar.warp.sync: they read or wait for other lanes.
inline bool is_warp_level(Opcode op) {
  return op >= Opcode::Shfl && op <= Opcode::BarWarp;
}
// testp's class test.
enum class TestOp : std::uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
// shfl: up, down, bfly, idx; vote: all, any, uni, ballot; match: any, all.
enum class WarpMode : std::uint8_t { None, Up, Down, Bfly, Idx, All, Any, Uni, Ballot };

// Special (read-only) registers: every one of the PTX ISA (8.x, "Special Registers"). The first
// kStoredSpecials are rows of each warp's register file (set when a CTA starts, the clock ones at
// each issue that reads them); the others are constants of the launch or another special's row
// (resolved by the executor, exec/prepare.cpp), or refused at launch where smemsim does not model
// what they report (performance counters, driver environment registers, the reserved shared
// memory).
// clang-format off
enum class Special : std::uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NwarpId, SmId, Clock, Clock64,
  ClockHi,
  // Aliases of those (the global timer reads the clock: docs/exec.md), launch constants (the lane
  // masks: the same per-lane row for every warp).
  GlobalTimer, GlobalTimerLo, GlobalTimerHi,
  LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe, LanemaskGt,
  NsmId, GridId, IsExplicitCluster,
  ClusterIdX, ClusterIdY, ClusterIdZ, NclusterIdX, NclusterIdY, NclusterIdZ,
  ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ, ClusterNctaidX, ClusterNctaidY, ClusterNctaidZ,
  ClusterCtarank, ClusterNctarank,
  DynamicSmemSize, TotalSmemSize, AggrSmemSize, CurrentGraphExec,
  // Refused at launch.
  ReservedSmemOffsetBegin, ReservedSmemOffsetEnd, ReservedSmemOffsetCap, ReservedSmemOffset0,
  ReservedSmemOffset1,
  Pm0, Pm1, Pm2, Pm3, Pm4, Pm5, Pm6, Pm7, Pm0_64, Pm1_64, Pm2_64, Pm3_64, Pm4_64, Pm5_64, Pm6_64,
  Pm7_64,
  EnvReg0,  // %envreg0 .. %envreg31: EnvReg0 + n
  EnvRegLast = EnvReg0 + 31,
};
// clang-format on
inline constexpr std::uint32_t kStoredSpecials = std::uint32_t(Special::ClockHi) + 1;
inline constexpr std::uint32_t kSpecials = std::uint32_t(Special::EnvRegLast) + 1;

// Modifier flags of an instruction (bit set).
enum Flag : std::uint32_t {
  kFtz = 1 << 0,        // flush subnormals to zero
  kSat = 1 << 1,        // saturate
  kApprox = 1 << 2,     // .approx
  kFull = 1 << 3,       // div.full
  kUni = 1 << 4,        // bra.uni: non-divergent branch
  kTo = 1 << 5,         // cvta.to.<space> (generic -> space); without it, <space> -> generic
  kVolatile = 1 << 6,   // ld/st .volatile
  kNc = 1 << 7,         // ld.global.nc
  kArrive = 1 << 8,     // bar.arrive (otherwise bar.sync / barrier.sync)
  kSetpQ = 1 << 9,      // setp writes a second predicate (p|q); see Instruction::ops[4]
  kShfLeft = 1 << 10,   // shf.l (otherwise shf.r)
  kShfClamp = 1 << 11,  // shf.clamp (otherwise shf.wrap); bfind.shiftamt
  kSync = 1 << 12,      // shfl.sync / vote.sync (a member mask operand; otherwise every lane)
  kPredOut = 1 << 13,   // shfl and match.all write a predicate too (d|p); it is ops[5]
  kCc = 1 << 14,        // add.cc / sub.cc / mad.cc / addc.cc ...: write the carry flag CC.CF
  kCarryIn = 1 << 15,   // addc / subc / madc: add the carry (subtract the borrow) CC.CF
  kTexLevel = 1 << 16,  // tex.level: an explicit level of detail (ops[3])
  kTexGrad = 1 << 17,   // tex.grad: gradients dPdx, dPdy (ops[3], ops[4])
  kBarRed = 1 << 18,    // bar.red.{popc,and,or}: `atom` is Add (popc), And or Or
  kTrans = 1 << 19,     // ldmatrix/stmatrix .trans
  kColA = 1 << 20,  // mma/wmma.mma: A is column-major; wmma.load/store: the memory layout is col
  kColB = 1 << 21,  // mma/wmma.mma: B is column-major
  kSatfinite = 1 << 22,   // cvt .satfinite: no infinities
  kRelu = 1 << 23,        // cvt .relu, max/min .relu: negative results become 0
  kNaN = 1 << 24,         // max/min .NaN: a NaN operand gives NaN
  kXorPopc = 1 << 25,     // mma/wmma.mma on .b1: .xor.popc (otherwise .and.popc)
  kNoComplete = 1 << 26,  // mbarrier.arrive(_drop).noComplete; cp.async.mbarrier.arrive.noinc
  kParity = 1 << 27,      // mbarrier.test_wait/try_wait.parity: the operand is a phase parity
  // ld/st/atom/red with a memory order (.relaxed, .acquire, .release, .acq_rel, .sc): a strong
  // access that synchronizes (racecheck, issue 45); no functional effect here.
  kStrong = 1 << 28,
  // ld .L1::no_allocate: a load that misses the L1 does not allocate there (PTX ISA, "Cache
  // Eviction Priority Hints"; issue 44). The other eviction priorities are accepted and not
  // modelled (an LRU L1).
  kL1NoAllocate = 1 << 29,
  // A forward branch round a few instructions that the timing's lowering made predicates of them
  // (sm.lower's `ifcvt`, src/lower/ifcvt.hpp): the branch became `mov.pred p, p`, which does
  // nothing and takes no issue slot. Set by that pass only, never by the parser.
  kIfConverted = 1u << 30,
  // cp.async.bulk.tensor .im2col (a load or prefetch: its im2col offsets follow [mbar], or the
  // coordinates, as ops[4] / ops[2]) and .im2col_no_offs (a store or reduction), issue 46.
  kIm2col = 1u << 31,
};

enum class OperandKind : std::uint8_t {
  None,
  Reg,       // reg
  ImmInt,    // imm (integer literal; bit pattern as int64)
  ImmFloat,  // fimm (0f/0d hex or decimal literal)
  Symbol,    // address of Kernel::symbols[sym] (+ imm)
  Special,   // special register
  Memory,    // [base + imm]: base is reg, else sym, else none (absolute address imm)
  Vector,    // {e0, e1, ...}: Kernel::vec(o, 0..count) (ld/st .v2/.v4, mma fragments, packing)
  Label,     // branch target: target = instruction index in Kernel::code
};

// The largest address offset an operand keeps: [reg+immOff] and [var+immOff] are signed 32-bit and
// [immAddr] is 32-bit (PTX ISA "Addresses as Operands"); the parser refuses larger ones.
inline constexpr bool fits_operand_offset(std::int64_t v) {
  return v >= std::numeric_limits<std::int32_t>::min() &&
         v <= std::numeric_limits<std::int32_t>::max();
}

// 16 bytes (issue 48: it was 80, with a vector's elements inline, and an instruction 552; then 20,
// with a 64-bit immediate beside the symbol word). A vector's elements live in its kernel
// (Kernel::vec_elems, read with Kernel::vec). The symbol and the label or vector index share a word
// (no kind has both), and an integer or float immediate, which has neither, keeps its high 32 bits
// there: imm() is 64 bits for ImmInt and ImmFloat, a signed 32-bit offset for the other kinds.
struct Operand {
  OperandKind kind = OperandKind::None;
  bool negate = false;     // !%p for predicate sources
  std::uint8_t count = 0;  // Vector: number of elements
  Special special = Special::TidX;
  std::uint32_t reg = kNone;  // Reg, Memory base register
  union {
    std::uint32_t sym = kNone;  // Symbol, Memory base symbol
    // Label: the instruction index in Kernel::code. Vector: where its elements start in
    // Kernel::vec_elems.
    std::uint32_t target;
  };

  // ImmInt value, Memory/Symbol byte offset; ImmFloat: the double's bits. Set the kind first: it
  // says where the bits go.
  std::int64_t imm() const {
    if (!wide()) return static_cast<std::int32_t>(imm_lo_);
    return static_cast<std::int64_t>(std::uint64_t{imm_lo_} | std::uint64_t{sym ^ kNone} << 32);
  }
  // Throws InputError when an offset does not fit in 32 bits (fits_operand_offset).
  void set_imm(std::int64_t v);
  double fimm() const { return std::bit_cast<double>(imm()); }  // ImmFloat value
  void set_fimm(double v) { set_imm(std::bit_cast<std::int64_t>(v)); }

 private:
  // The high word is kept inverted in `sym`, so that an immediate whose kind was set and its value
  // not is 0, as it was when the value had a field of its own.
  bool wide() const { return kind == OperandKind::ImmInt || kind == OperandKind::ImmFloat; }
  std::uint32_t imm_lo_ = 0;
};
static_assert(sizeof(Operand) == 16 && alignof(Operand) == 4);

// A location in a source file named by .file (file is the .file index; 0 = unknown).
struct SourceLoc {
  std::uint32_t file = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
  friend auto operator<=>(const SourceLoc&, const SourceLoc&) = default;
};

// Where an instruction comes from in the CUDA source (nvcc -lineinfo): the last .loc before it,
// where that inlined code was called, and the innermost call site. Instructions share them: a
// module keeps each distinct one once (Module::sites) and an instruction its index (issue 48: three
// SourceLocs in every instruction were 36 of its bytes).
struct SourceSite {
  SourceLoc loc;  // from the last .loc before it (file 0 when none)
  // Where inlined code was called (file 0 when not inlined): for code of a header (atomicAdd's
  // body, tex2D's handlers) the innermost call site outside headers, across nested inlining.
  SourceLoc inlined_at;
  // The innermost site its code was inlined at, whatever the file (file 0 when not inlined): the
  // line that called a kernel author's own helper (a profile row names it when the helper's line
  // alone does not tell its uses apart).
  SourceLoc call_site;
  friend bool operator==(const SourceSite&, const SourceSite&) = default;
  friend auto operator<=>(const SourceSite&, const SourceSite&) = default;
};

// One decoded instruction. Operand layout per opcode (destination first, PTX order):
//   ld: d|{v}, [a]      st: [a], b|{v}       atom: d, [a], b [, c]   red: [a], b
//   mov/cvt/cvta/abs/neg/not/popc/clz/brev/rcp/sqrt/rsqrt/sin/cos/ex2/lg2: d, a
//   add...shr: d, a, b   mad/fma/shf: d, a, b, c   selp: d, a, b, p
//   setp: p, a, b [, c] (c: combining predicate with BoolOp; the optional q of p|q is ops[4])
//   set: d, a, b [, c]   bra: label   bar: id [, count]   ret/exit/membar: none
//   shfl.sync: d, a, b, c, membermask (shfl: no membermask; the optional p of d|p is ops[5])
//   vote.sync: d, {!}p, membermask   match.sync: d, a, membermask   redux.sync: d, a, membermask
//   activemask: d   bar.warp.sync: membermask   (redux's operation is in `atom`)
//   bfind/testp: d, a   fns: d, mask, base, offset   dp4a/dp2a/mad24/sad: d, a, b, c
//   mul24/copysign: d, a, b   (dp4a/dp2a: type = a's type, type2 = b's)
//   bar.red: d, a [, b], {!}c (the predicate is the last operand)
//   ldmatrix: {d} (1, 2 or 4 b32 registers), [a]   stmatrix: [a], {b}   (vec = matrices)
//   cp.async: [dst], [src], cp-size [, src-size]   cp.async.wait_group: n
//   mma: {d}, {a}, {b}, {c}   wmma.load: {d}, [a] [, stride]   wmma.store: [a], {b} [, stride]
//   wmma.mma: {d}, {a}, {b}, {c}
//   mov.b32/.b64 packing: d, {a, b}; unpacking: {d, e}, a
//   tex/tld4: {d} (4 registers), handle (a 64-bit register), {c} (coordinates; .a1d/.a2d: the
//     layer first) [, lod (tex.level) | , {dPdx}, {dPdy} (tex.grad)]; type = d's type, type2 =
//     the coordinates' (s32 or f32); geom; tld4's component in comp (r g b a = 0..3)
// 132 bytes (issue 48: 552 before; see Operand and SourceSite).
struct Instruction {
  Opcode op = Opcode::Ret;
  Type type = Type::None;   // instruction type (cvt/set: destination type)
  Type type2 = Type::None;  // cvt/set: source type
  Space space = Space::None;
  CmpOp cmp = CmpOp::None;
  BoolOp bool_op = BoolOp::None;
  AtomOp atom = AtomOp::None;
  Rounding rounding = Rounding::None;
  MulMode mode = MulMode::None;
  WarpMode warp = WarpMode::None;
  TestOp test = TestOp::None;
  TexGeom geom = TexGeom::None;
  MmaShape shape = MmaShape::None;  // mma/wmma
  Type type3 = Type::None;          // mma: C's type (type = D's, type2 = A's)
  Type type4 = Type::None;          // mma: B's type (u8 and s8 may mix)
  // tld4: the component gathered (r g b a = 0..3); prmt: the mode (0 default, then f4e b4e rc8
  // ecl ecr rc16 = 1..6); wmma.load: the matrix (a b c = 0..2); mbarrier: its MbarOp.
  std::uint8_t comp = 0;
  std::uint8_t vec = 1;           // .v2/.v4 width of ld/st
  CacheOp cache = CacheOp::None;  // ld/st: the cache operator written (the timing's caches)
  bool guard_negated = false;     // @!%p
  std::uint8_t num_ops = 0;
  std::uint32_t flags = 0;      // Flag bits
  std::uint32_t guard = kNone;  // guard predicate register (@%p), kNone if unguarded
  std::array<Operand, 6> ops{};
  std::uint32_t ptx_line = 0;  // line in the PTX text
  std::uint32_t site = 0;      // its CUDA source: Module::sites[site] (0: none)

  bool has(Flag f) const { return (flags & f) != 0; }
};
static_assert(sizeof(Instruction) == 132);

// A bulk copy into shared memory with .multicast::cluster: its ctaMask is the last operand, after
// [mbar] and any im2col offsets (ops[4], or ops[5] after .im2col's).
inline bool bulk_multicast(const Instruction& ins) {
  const auto op = BulkOp(ins.comp);
  return ins.op == Opcode::CpBulk && (op == BulkOp::Load || op == BulkOp::TensorLoad) &&
         ins.num_ops == (ins.has(kIm2col) ? 6 : 5);
}

struct Register {
  std::string name;  // e.g. "%r12"
  Type type = Type::None;
};

enum class SymbolKind : std::uint8_t { Param, Variable };

// A named memory object visible to a kernel: a kernel parameter, a variable declared in the kernel,
// or a module-level variable (copied into every kernel's table; module_level = true).
struct Symbol {
  std::string name;
  SymbolKind kind = SymbolKind::Variable;
  Space space = Space::None;   // Param, Global, Shared, Local, Const
  Type type = Type::None;      // element type
  std::uint32_t align = 0;     // .align (0: natural alignment of type)
  std::uint64_t elements = 1;  // array length (1 for scalars; 0 for an unsized .extern array)
  bool is_extern = false;      // .extern (dynamic shared memory when space == Shared)
  bool module_level = false;
  std::vector<std::uint8_t> init;  // initializer bytes (little endian), empty if none

  std::uint64_t size_bytes() const;
};

// A `call` of a kernel (or of a function linked into it): the caller's .param slots for the return
// values and the arguments (symbol indices), and, once linked, the function called.
// A library function a kernel may call without its body in the module, which the executor runs
// itself (issue 45): printf's vprintf(format, args) and assert's __assertfail(message, file, line,
// function, char size).
enum class Builtin : std::uint8_t { None, Printf, AssertFail };

struct CallSite {
  std::string callee;
  std::vector<std::uint32_t> rets, args;
  std::uint32_t line = 0;
  std::uint32_t function = kNone;   // index into Kernel::functions (kNone: not linked)
  Builtin builtin = Builtin::None;  // a builtin (function stays kNone)
};

// A device function linked into a kernel (ptx::parse appends each .func a kernel calls, directly or
// not, to its code, registers and symbols): its code and register ranges and its per-thread slots
// (parameters, return values, .local variables), which a call saves and restores so that recursion
// gets fresh ones.
struct LinkedFunction {
  std::string name;
  std::uint32_t entry = 0, end = 0;
  std::uint32_t reg_begin = 0, reg_end = 0;
  std::uint32_t nret = 0;
  std::vector<std::uint32_t> params;  // return values, then parameters (symbol indices)
  std::vector<std::uint32_t> locals;  // every per-thread slot of the function, params included
  std::uint32_t calls_begin = 0, calls_end = 0;  // its own call sites (Kernel::calls)
  // It can reach itself through calls: only then does a call save and restore its registers and
  // slots (a non-recursive function's are not live across its own calls).
  bool recursive = false;
};

struct Kernel {
  std::string name;
  bool visible = false;
  std::uint32_t ptx_line = 0;
  std::vector<std::uint32_t> params;  // indices into symbols, in parameter order
  std::vector<Symbol> symbols;        // params, kernel variables, module variables
  std::vector<Register> regs;         // dense register numbering
  std::vector<Instruction> code;
  // The elements of the code's vector operands: Operand::count of them from Operand::target (a
  // register, or kVecImm + j for its immediate j), then its immediates, two words each.
  std::vector<std::uint32_t> vec_elems;
  std::uint32_t vec(const Operand& o, int k) const {
    return vec_elems[o.target + std::uint32_t(k)];
  }
  std::int64_t vec_imm(const Operand& o, std::uint32_t element) const {
    const std::size_t at = o.target + o.count + 2 * std::size_t(element - kVecImm);
    return std::int64_t(std::uint64_t(vec_elems[at]) | std::uint64_t(vec_elems[at + 1]) << 32);
  }
  // Stores a vector operand's elements and immediates; sets o.target and o.count.
  void add_vector(Operand& o, std::span<const std::uint32_t> elems,
                  std::span<const std::int64_t> imms);
  std::array<std::uint32_t, 3> reqntid{0, 0, 0};  // .reqntid/.maxntid (0 = none)
  // Thread-block clusters (issue 46; __cluster_dims__): .explicitcluster, .reqnctapercluster
  // (0 = none) and .maxclusterrank (0 = none).
  bool explicit_cluster = false;
  std::array<std::uint32_t, 3> cluster{0, 0, 0};
  std::uint32_t max_cluster_rank = 0;
  // Instructions the executor does not implement (PTX line, message), left out of `code`: the
  // module parses and only a launch of this kernel fails (issue 15).
  struct Unsupported {
    std::uint32_t line = 0;
    std::string message;
    SourceLoc loc;  // the CUDA line (.loc) it came from, file 0 when none
    // Where a CUDA header's line was inlined into the kernel's source (as Instruction::inlined_at),
    // so that a refusal names the user's line, not the header's.
    SourceLoc inlined_at;
  };
  std::vector<Unsupported> unsupported;
  std::vector<CallSite> calls;
  std::vector<LinkedFunction> functions;
  std::uint32_t nret = 0;  // a .func's return parameters (the first `nret` of params)
  // .pragma "nounroll" (PTX ISA, "Pragma Strings"): the index of the instruction each statement-
  // level one stood before (it names the loop whose header block holds it), and whether one stood
  // at module or entry-function scope (every loop). Only the timing's unroll rule reads them.
  std::vector<std::uint32_t> nounroll;
  bool nounroll_all = false;

  std::uint32_t find_symbol(std::string_view name) const;  // kNone if absent
};

struct Module {
  std::string filename;  // the PTX file name used in messages
  std::string version;   // .version
  std::string target;    // .target (first target name, e.g. "sm_75")
  std::uint32_t address_size = 64;
  std::vector<std::string> files;  // .file table: files[i] is the path of file index i ("" if none)
  std::vector<Symbol> globals;     // module-level variables
  std::vector<Kernel> kernels;
  // Device functions (.func): parsed like kernels (parameters, body) so that a module that has
  // them loads; calls are not executed yet (a kernel with `call` lists it as unsupported).
  std::vector<Kernel> functions;
  // The CUDA source sites of the instructions (Instruction::site), each once; sites[0] is none.
  std::vector<SourceSite> sites{SourceSite{}};

  const SourceSite& site(const Instruction& i) const { return sites[i.site]; }
  const Kernel* find_kernel(std::string_view name) const;  // nullptr if absent
  std::string file_name(std::uint32_t index) const;        // "" when unknown
};

// Appends to every kernel the device functions it calls (ptx::parse does this): call sites of a
// function the module only declares, or that has unsupported instructions, become unsupported.
void link_calls(Module& m);

// Parses PTX text. `filename` prefixes every error message. Throws InputError.
Module parse(std::string_view text, const std::string& filename);
// Reads and parses a .ptx file. Throws InputError (also when the file cannot be read).
Module parse_file(const std::string& path);

// The C++ signature of a mangled kernel name ("transposeNaive(float*, float*, int, int)", "void
// reduce<256u>(float*, float*, unsigned int)"), by the C++ runtime's demangler; the name itself
// when it is not a mangled C++ name (an extern "C" kernel).
std::string demangle(std::string_view name);
// The kernels `query` names (issue 15): the one with exactly that (mangled) name; otherwise every
// kernel whose demangled signature, name with template arguments, or name without them (with or
// without its namespace) equals `query`, spaces ignored. Several: the name is ambiguous.
std::vector<const Kernel*> match_kernels(const Module& m, std::string_view query);

// A path of a header file (.h, .hpp, .cuh, or under an include/ directory): CUDA's own inlined
// functions, whose lines a kernel author does not want to see.
bool is_header_path(std::string_view path);

std::string_view opcode_name(Opcode op);
std::string_view special_name(Special s);  // "%tid.x", "%lanemask_lt", ...
std::string_view type_name(Type t);        // "u32", "" for None
std::string_view space_name(Space s);      // "shared", "" for None/Generic
int type_bits(Type t);                     // 1 for Pred, 0 for None
int type_bytes(Type t);                    // bytes in memory: at least 1 (Pred, None: 1)
bool is_float(Type t);
bool is_half(Type t);  // f16, bf16, f16x2, bf16x2
// s4 s8 s16 s32 s64 (a bit mask: the executor asks on every integer instruction).
constexpr bool is_signed(Type t) {
  constexpr std::uint32_t kSigned = 1u << unsigned(Type::S4) | 1u << unsigned(Type::S8) |
                                    1u << unsigned(Type::S16) | 1u << unsigned(Type::S32) |
                                    1u << unsigned(Type::S64);
  return ((kSigned >> unsigned(t)) & 1u) != 0;
}

struct MmaDims {
  int m = 0, n = 0, k = 0;
};
MmaDims mma_shape_dims(MmaShape s);       // {0, 0, 0} for None
std::string_view shape_name(MmaShape s);  // "m16n8k16", "" for None

// One line of PTX-like text for an instruction (debugging, profile output).
std::string to_string(const Kernel& kernel, const Instruction& ins);

}  // namespace smemsim::ptx

// Internal state of the SIMT executor, shared by executor.cpp (launch, CTAs, control flow),
// alu.cpp (arithmetic, compare), convert.cpp (cvt) and memory.cpp (ld/st/atom/red/cvta, WarpAccess
// emission).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "smemsim/conflict.hpp"
#include "smemsim/exec.hpp"

namespace smemsim::exec::detail {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

inline constexpr std::uint32_t kNoRow = 0xffffffffu;
// Launch limits checked before allocating (prepare.cpp): CUDA's local memory per thread, and the
// simulated register file of one CTA.
inline constexpr std::uint64_t kMaxLocalBytes = 512 * 1024;
inline constexpr std::uint64_t kMaxRegisterBytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t kNoSector = ~std::uint64_t{0};

// Generic-address windows (addr >> 40 is the region). Global buffers are regions 1..N
// (GlobalMemory::base_address); shared, local and param memory sit in three fixed windows far
// above.
inline constexpr std::uint64_t kRegionShift = 40;
inline constexpr std::uint64_t kSharedRegion = 0x7f0000;
inline constexpr std::uint64_t kLocalRegion = 0x7e0000;
inline constexpr std::uint64_t kParamRegion = 0x7d0000;
inline constexpr std::uint64_t kSharedBase = kSharedRegion << kRegionShift;
inline constexpr std::uint64_t kLocalBase = kLocalRegion << kRegionShift;
inline constexpr std::uint64_t kParamBase = kParamRegion << kRegionShift;
inline constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kRegionShift) - 1;

// An instruction with its operands resolved to register-file rows (docs/exec.md "Registers").
// Row r < local_rows is warp-local (a row of the warp's file: registers, then special registers;
// Impl::place_rows), rows above are constants shared by every warp (immediates and symbol
// addresses, one value broadcast over the lanes).
// 56 bytes (issue 48: it was 168, then 104, a PTX line's share of a launch). Masks became widths;
// a branch's target and reconvergence point share the words of a vector's rows; a symbol's address
// is a constant row, so that the offset is the operand's 32 bits; the predicates' negations are
// bits; the element sizes are the type's.
struct XInst {
  // Register rows (Impl::row) of the operands: a register, or a constant row holding an immediate,
  // a special register or a symbol address.
  std::array<std::uint32_t, 6> row{kNoRow, kNoRow, kNoRow, kNoRow, kNoRow, kNoRow};
  // The rows of a vector operand (ld/st .v2/.v4, mov packing, tex's destination); a branch, which
  // has none, keeps its target and reconvergence index in the first two (target(), reconv()).
  std::array<std::uint32_t, 4> vrow{kNoRow, kNoRow, kNoRow, kNoRow};
  // The memory operand's base: a register, or the constant row of a symbol's address.
  std::uint32_t mem_row = kNoRow;
  std::uint32_t guard = kNoRow;
  std::int32_t mem_off = 0;  // the memory operand's offset (ptx::fits_operand_offset)
  // The address wraps at the base register's width: [%r4+68] with a 32-bit %r4 is computed modulo
  // 2^32 as the hardware does (a "negative" %r4 plus 68 is a small offset), a 64-bit base modulo
  // 2^64 (issue 15). width_mask(mem_bits) masks the base and the sum.
  std::uint8_t mem_bits = 64;
  std::uint8_t dst_bits = 64;  // destination register width (ld/cvt/atom): width_mask(dst_bits)
  // Bit k < 6: operand k is a negated predicate; kGuardNeg: the guard is (@!p); kReadsClock: an
  // operand is %clock, %clock64, %clock_hi or the global timer.
  std::uint8_t neg = 0;
  std::uint8_t bits = 0;  // instruction type width (a cvt's or set's source: ptx::type_bits(type2))
  static constexpr std::uint8_t kGuardNeg = 1u << 6, kReadsClock = 1u << 7;

  std::uint32_t target() const { return vrow[0]; }  // bra
  std::uint32_t reconv() const { return vrow[1]; }  // bra: reconvergence index
  std::uint64_t negated(std::size_t k) const { return (neg >> k) & 1u; }
  std::uint64_t guard_negated() const { return (neg >> 6) & 1u; }
  bool reads_clock() const { return (neg & kReadsClock) != 0; }
};
static_assert(sizeof(XInst) == 56);

struct StackEntry {
  std::uint32_t pc;
  std::uint32_t rpc;  // reconvergence index; kNoRow for the bottom entry
  LaneMask mask;
};

// A device function call in progress (call.cpp): the stack entry its lanes run in, the lanes that
// called, and the callee's registers and per-thread slots as they were before the call.
struct CallFrame {
  std::size_t base = 0;
  LaneMask lanes = 0;
  std::uint32_t call = 0;  // index into Impl::calls (= Kernel::calls)
  std::vector<std::uint64_t> regs;
  std::vector<std::uint8_t> local;
};

// One of a CTA's 16 hardware barriers (bar.sync / bar.arrive / bar.red, barrier.cpp): the warps
// arrived in this phase, the count it completes at (0: every live warp of the CTA), and bar.red's
// reduction so far.
struct Barrier {
  std::uint32_t arrived = 0;
  std::uint32_t expected = 0;  // in warps (the thread count / warp size); 0: all live warps
  std::uint32_t threads = 0;   // the thread count as written (0: none), for messages
  std::uint32_t popc = 0;      // bar.red.popc: threads whose predicate held
  bool all = true, any = false;
};
inline constexpr std::uint32_t kBarriers = 16;

struct Warp {
  // What every issue reads comes first, in one cache line (issue 49): a cycle-level run visits
  // thousands of warps in turn, and each line it touches is likely a miss.
  // (The cluster barrier's arrivals of this warp are kept at the end: cl_arrive.)
  std::uint64_t* regs = nullptr;  // file_rows x lanes
  std::vector<StackEntry> stack;
  LaneMask live = 0;
  std::uint64_t issued = 0;  // instructions issued
  std::uint32_t index = 0;
  // Spin detection (spin.cpp, docs/exec.md "A kernel that never ends"): armed at spin_pc with a
  // copy of the warp's state and Impl::writes; the warp's next visit of spin_pc compares.
  std::uint32_t spin_pc = kNoRow;
  WarpState state = WarpState::Done;
  // GPU-LocalTM (tm.cpp, docs/tm.md). The transaction's continuation is stack entry tx_outer (it
  // resumes after TX.Commit with the lanes that entered); its attempt runs in entry tx_base and
  // above (tx_outer itself on the first attempt, the retry entry above it on later ones).
  tm::WarpTx tx;
  std::uint32_t tx_begin = 0;  // instruction index of the outermost TX.Begin
  std::uint32_t tx_outer = 0, tx_base = 0;
  std::vector<std::uint64_t> shadow_regs;  // registers at the first TX.Begin (003 §3.2)
  std::vector<CallFrame> frames;           // device function calls, innermost last
  // The barrier the warp waits at (state AtBarrier), and for bar.red the instruction whose
  // destination gets the reduction when the barrier completes, and the lanes that executed it.
  std::uint8_t bar_id = 0;
  std::uint32_t bar_red_pc = kNoRow;
  LaneMask bar_lanes = 0;
  // cp.async copies in flight (cp_async.cpp): each lane's bytes, read at issue, land in shared
  // memory at the wait that covers their group; `groups` counts the committed groups.
  struct AsyncCopy {
    std::uint32_t group = 0, dst = 0;
    std::uint8_t bytes = 0;
    std::array<std::uint8_t, 16> data{};
  };
  std::vector<AsyncCopy> copies;
  std::uint32_t groups = 0;
  bool spin_fresh = false;  // the visit that armed it is still to issue
  bool spin_bar = false;    // a barrier was passed since arming
  bool spinning = false;    // came back to the armed state with no memory written in between
  std::uint64_t spin_writes = 0;
  // Since arming: an mbarrier test_wait or try_wait found its phase incomplete (a warp that waits
  // for a phase in a loop that reads %globaltimer and sleeps, as cuda::barrier's wait does, never
  // comes back with the same registers), and Impl::mbar_epoch when armed.
  bool mbar_waited = false;
  std::uint64_t spin_mbar_epoch = 0;
  std::uint64_t spin_armed_at = 0;  // `issued` when armed
  std::vector<std::uint64_t> spin_regs;
  std::vector<StackEntry> spin_stack;
  LaneMask spin_live = 0;
  std::uint32_t cl_arrive = 0;  // barrier.cluster.arrive issued (issue 46)
};

// A call site resolved for execution: the callee's entry, its register rows and per-thread byte
// range (saved across the call), and the argument and return-value copies (source and destination
// byte offsets in a thread's local memory, bytes).
struct CallInfo {
  std::uint32_t entry = 0, reg_begin = 0, reg_end = 0;
  std::uint64_t local_begin = 0, local_end = 0;
  bool save = false;  // the callee is recursive: save and restore its registers and slots
  // printf or assert, run by the executor (builtin.cpp): `args` and `rets` hold the caller's slots
  // (src) and their bytes.
  ptx::Builtin builtin = ptx::Builtin::None;
  struct Copy {
    std::uint64_t src = 0, dst = 0, bytes = 0;
  };
  std::vector<Copy> args, rets;
};

struct Cta {
  std::vector<std::uint64_t> regs;
  std::vector<std::uint8_t> shared;
  std::vector<std::uint8_t> local;  // threads x local_bytes
  std::vector<Warp> warps;
  std::uint32_t live_warps = 0;
  std::array<Barrier, kBarriers> bars{};
  Dim3 id;
  std::uint64_t linear = 0;
  std::unique_ptr<tm::CtaTm> tm;  // kernels with TX.Begin only
  int wg_owner = -1;              // the warp running in work-group serialization mode, or -1
  std::uint32_t smid = 0;         // %smid (start_cta)
  // The transaction counts of the CTA's mbarriers (issue 46), by shared offset; an object absent
  // here has a count of 0 (mbarrier.cpp).
  std::vector<std::pair<std::uint32_t, std::int32_t>> mbar_tx;
  // Its cluster (issue 46): its rank, and the record of the cluster's resident CTAs and barrier
  // (null without clusters, and once the CTA has exited).
  std::uint32_t cluster_rank = 0;
  struct ClusterRec* cl = nullptr;
  // The tiles TMA tensor copies wrote (issue 46): where, how wide a row, under which swizzle (0
  // none, 1 32B, 2 64B, 3 128B); for the swizzle what-if of their reads (tma_reads).
  struct TmaTile {
    std::uint32_t base = 0, bytes = 0, row_bytes = 0;
    std::uint8_t mode = 0;
  };
  std::vector<TmaTile> tma_tiles;
};

// A cluster with a CTA resident (issue 46): its CTAs by rank (null: not started, or exited) and
// its barrier (barrier.cluster): the threads arrived in the current phase and the phases
// completed. Every executor of a launch shares one board of them (ClusterBoard): run() has one
// executor, the cycle model one per SM, and a cluster's CTAs are on different SMs there.
struct ClusterRec {
  std::vector<Cta*> ctas;
  std::uint32_t members = 0;  // CTAs resident
  std::uint64_t arrived = 0;
  std::uint32_t phase = 0;
};
struct ClusterBoard {
  std::unordered_map<std::uint64_t, ClusterRec> live;  // by the cluster's linear index
  // The cycle model ticks GPCs on several threads: CTAs of different clusters exit at once. A
  // record is reached through its CTAs' pointers (stable across others' erasure), the map itself
  // only under this lock.
  std::mutex lock;
};

// A shared address with a CTA's rank in it (issue 46, mapa): bits 24 and up hold rank + 1; below
// them the offset in that CTA's shared memory (at most 228 KiB). 0 there: the CTA's own.
inline constexpr int kClusterRankShift = 24;
inline constexpr std::uint64_t kClusterOffsetMask = (std::uint64_t{1} << kClusterRankShift) - 1;

struct Region {
  std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
  bool writable = true;
  std::string name;
};

// The pre-decoded kernel: a copy shares it (sibling executors read one copy, not one each).
class SharedCode {
 public:
  void resize(std::size_t n) {
    v_ = std::make_shared<std::vector<XInst>>(n);
    data_ = v_->data();
  }
  XInst& operator[](std::size_t i) { return data_[i]; }  // written only while it is prepared
  const XInst& operator[](std::size_t i) const { return data_[i]; }

 private:
  std::shared_ptr<std::vector<XInst>> v_;
  XInst* data_ = nullptr;
};

// The resident CTAs. A copy is empty: a sibling executor (Executor's sibling constructor) copies
// the decoded kernel, not the CTAs.
struct CtaSlots : std::vector<Cta> {
  CtaSlots() = default;
  CtaSlots(const CtaSlots&) : std::vector<Cta>() {}
  CtaSlots(CtaSlots&&) = default;
  CtaSlots& operator=(const CtaSlots&) = delete;
  CtaSlots& operator=(CtaSlots&&) = default;
};

// Global writes held back until commit (Executor::set_defer_global; the cycle model's parallel
// SMs, issue 31): a store's bytes wait in a staging arena, an atomic waits with its operands and
// the register its old value goes to. commit() applies them in the order they were made.
struct DeferredGlobal {
  DeferredGlobal() = default;
  DeferredGlobal(const DeferredGlobal&) {}  // a sibling starts with none
  DeferredGlobal(DeferredGlobal&&) = default;
  DeferredGlobal& operator=(const DeferredGlobal&) = delete;
  DeferredGlobal& operator=(DeferredGlobal&&) = default;
  struct Store {
    std::uint8_t* to;
    const std::uint8_t* from;
    std::uint32_t bytes;
  };
  struct Atomic {
    std::uint8_t* to;
    std::uint64_t b, c;
    std::uint64_t* dst;  // the destination register's lane (nullptr: red)
    std::uint64_t dst_mask;
    ptx::AtomOp op;
    ptx::Type type;
  };
  // Entries in the order made: a store (index into stores) or an atomic (into atomics).
  struct Entry {
    bool atomic;
    std::uint32_t index;
  };
  std::vector<Entry> order;
  std::vector<Store> stores;
  std::vector<Atomic> atomics;
  // The staging arena: fixed-size chunks, so that a pointer handed out stays valid until commit.
  static constexpr std::size_t kChunk = 64 * 1024;
  std::vector<std::unique_ptr<std::uint8_t[]>> chunks;
  std::size_t chunk = 0, used = 0;

  std::uint8_t* stage(std::uint8_t* to, std::uint64_t bytes);
  void atomic(const Atomic& a) {
    order.push_back({true, std::uint32_t(atomics.size())});
    atomics.push_back(a);
  }
  bool empty() const { return order.empty(); }
  void clear() {
    order.clear();
    stores.clear();
    atomics.clear();
    chunk = used = 0;
  }
};

struct Impl {
  Impl(const ptx::Module& m, const ptx::Kernel& k, const Arch& a, const Launch& l, GlobalMemory& g,
       const SharedRemap& r);

  const ptx::Module& module;
  const ptx::Kernel& kernel;
  Arch arch;
  Launch launch;
  GlobalMemory& memory;
  SharedRemap remap;  // `smemsim fix`'s relayout of one array (off by default)

  std::uint32_t lanes = 32;
  // Wide shared accesses (memory.cpp emit): bank-unit words, lanes per transaction, and
  // memory.wide_access = "words".
  std::uint32_t words_per_unit = 1, transaction_lanes = 32;
  // The swizzle what-if's bank passes (tma_reads.cpp): the arch's banks under the hardware's
  // modulo mapping, made at the first read of a TMA tile (a copy of the Impl makes its own).
  struct LazyAnalyzer {
    std::unique_ptr<ConflictAnalyzer> p;
    LazyAnalyzer() = default;
    LazyAnalyzer(const LazyAnalyzer&) {}
    LazyAnalyzer& operator=(const LazyAnalyzer&) { return *this; }
  } tma_banks;
  bool wide_by_words = false;
  // Executor::set_word_rows: per instruction, 1 where a wide shared access goes word by word.
  std::vector<std::uint8_t> word_rows;
  // memory.wide_access = "pairs": a wide load whose lanes pair up (lanes_pair) takes twice the
  // lanes a phase.
  bool wide_pairs = false;
  std::uint32_t threads = 0;  // per CTA
  std::uint32_t warps = 0;    // per CTA
  std::uint32_t nregs = 0;
  // The row of each stored special register the kernel reads (kNoRow: not read, no row); they
  // follow the registers in Special order (prepare.cpp; issue 49: a warp keeps rows only for the
  // specials its kernel reads).
  // Rows of the specials kept per warp: the stored ones and the per-CTA cluster ones (issue 46).
  std::array<std::uint32_t, ptx::kSpecials> special_at{};
  Dim3 cluster{1, 1, 1};  // the kernel's cluster shape (.reqnctapercluster; 1 x 1 x 1 without)
  // The clusters' records, shared with the sibling executors (made with clusters only).
  std::shared_ptr<ClusterBoard> board;
  // Of the memory instruction being executed: its lanes that reached another CTA's shared memory
  // (distributed shared memory, issue 46) and, per such lane, rank << 32 | its 32-byte segment.
  LaneMask dsm_lanes = 0;
  std::array<std::uint64_t, kMaxLanes> dsm_seg{};
  // Of the bulk copy being executed: the 32-byte segments it moves into other CTAs' shared memory.
  std::uint32_t dsm_bulk = 0;
  std::uint32_t local_rows = 0;
  std::uint32_t cc_row = 0;
  // Where each warp-local row r < local_rows lies in a warp's register file, file_rows rows of
  // `lanes` values (place_rows: registers whose ranges never meet share one, regalloc.hpp). The
  // decoded code, special_at and cc_row hold file rows; a register number from an operand is
  // turned into one by reg_row.
  std::vector<std::uint32_t> file_row;
  std::uint32_t file_rows = 0;
  // GPU-LocalTM: the rows a retry restores (tm.cpp's restore_registers): each row an instruction
  // from the first TX.Begin to the last TX.Commit names, and the carry flag's. Every row, where
  // that span calls a function or branches out of it (an attempt may then write any row).
  std::vector<std::uint32_t> tx_rows;
  void place_tx_rows();  // tx_rows (after place_rows)
  std::uint32_t reg_row(std::uint32_t r) const { return r < local_rows ? file_row[r] : r; }
  std::vector<CallInfo> calls;  // per Kernel::calls entry (prepare.cpp)  // the carry flag CC.CF
                                // (add.cc, addc, ...): the last warp-local row
  std::vector<std::uint64_t> consts;  // constant rows, `lanes` values each
  SharedCode xcode;  // shared with sibling executors (one copy in the cache for every SM)
  SharedLayout shared;
  std::uint64_t local_bytes = 0;  // per thread
  // The reserved shared memory's offset (prepare.cpp: only for a kernel that reads a
  // %reserved_smem_* register; kNoRow otherwise) and size.
  std::uint32_t reserved_smem = kNoRow;
  static constexpr std::uint32_t kReservedSmemBytes = 1024;
  std::vector<std::uint8_t> params;
  std::vector<Region> regions;  // region id - 1
  // The module's variables: a copy is empty (a sibling's regions point at the primary's; a
  // kernel's large __device__ array is not copied for every SM).
  struct Vars : std::vector<std::vector<std::uint8_t>> {
    Vars() = default;
    Vars(const Vars&) : std::vector<std::vector<std::uint8_t>>() {}
    Vars(Vars&&) = default;
    Vars& operator=(const Vars&) = delete;
    Vars& operator=(Vars&&) = default;
  } module_vars;
  CtaSlots ctas;
  AccessConsumer* consumer = nullptr;
  WarpAccess wa;
  std::array<std::uint64_t, kMaxLanes> addr{};  // byte address per lane of the current access
  ExecStats stats;
  std::uint64_t clock = 0;
  const std::uint64_t* clock_source = nullptr;  // a timing model's cycle counter
  // Global/local sectors of the current instruction (set_count_sectors): per lane the generic
  // address of its global access (local: a per-thread key), kNoSector for none.
  bool count_sectors = false;
  std::uint64_t max_steps = 1'000'000'000;  // Executor::kDefaultMaxSteps
  std::array<std::uint64_t, kMaxLanes> gaddr{};
  LaneMask noted = 0;  // lanes whose gaddr may hold an address (count_sectors looks at no other)
  // The last count_sectors' distinct sectors (byte address / 32), ascending (Executor::sectors).
  std::array<std::uint64_t, 2 * kMaxLanes> sectors{};
  std::uint16_t nsectors = 0;
  // A bulk copy's sectors (issue 46: up to a whole box), ascending; wide_active while they are the
  // last instruction's (Executor::sectors).
  std::vector<std::uint64_t> wide_sectors;
  bool wide_active = false;
  // Bulk copies into shared memory whose landing waits for the timing model (issue 46;
  // Executor::set_defer_bulk, land_bulk): the bytes, read at issue, land with the complete_tx of
  // each lane's mbarrier when the copy's memory operation completes.
  struct PendingBulk {
    std::uint32_t id = 0;
    std::uint32_t slot = 0;  // the CTA's slot, and its linear index (a reused slot drops it)
    std::uint64_t cta = 0;
    std::uint32_t warp = 0, pc = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pieces;  // shared offset, bytes
    std::vector<std::uint8_t> bytes;
    struct Completion {
      int lane;
      std::uint32_t mbar;
      std::int64_t tx;
    };
    std::vector<Completion> completions;
    // .multicast::cluster: the ranks of the CTAs it lands in (0: the issuing CTA alone).
    std::uint16_t mask = 0;
    // A reduction into a CTA of the cluster (BulkOp::PeerReduce): each element of `bytes` is
    // combined into the destination's as it lands, by `reduce` on `type`.
    ptx::AtomOp reduce = ptx::AtomOp::None;
    ptx::Type type = ptx::Type::B8;
  };
  bool defer_bulk = false;
  std::vector<std::uint32_t> dsm_segments_seen;  // exec_bulk's scratch (st.async, red.async)
  std::uint32_t bulk_next = 1;
  std::uint32_t bulk_issued = 0;  // the id the current instruction's copies got (0: none)
  std::vector<PendingBulk> bulk_pending;
  std::uint32_t same_address = 1;  // the last global atomic's most lanes on one address
  // GPU-LocalTM: the kernel has TX.Begin; counts of finished CTAs; the event observer.
  bool has_tx = false;
  tm::TmStats tm_done;
  std::vector<tm::TmStats> tm_sites;  // per instruction index of a TX.Begin: its transactions
  std::function<void(const TxEvent&)> tx_observer;
  std::function<void(std::uint64_t, std::uint64_t)> progress;  // Executor::set_progress
  std::uint32_t tm_cycles = 0;  // of the instruction being executed (memory.cpp -> issue)
  bool tm_moved = false;        // the instruction moved other warps (IssueResult::moved_others)
  // Instructions that wrote (or may have written) memory: stores, reductions, atomics that changed
  // a value, stmatrix, wmma.store, cp.async, calls (spin.cpp).
  std::uint64_t writes = 0;
  // mbarrier inits and arrivals so far: run() tells a wait that others can end from a deadlock.
  std::uint64_t mbar_epoch = 0;
  LaneMask tm_conflicted = 0;
  bool defer_global = false;  // Executor::set_defer_global
  DeferredGlobal deferred;
  // Executor::set_racecheck (racecheck.cpp): the shadow of each CTA slot's shared memory and the
  // hazards found; null when off.
  struct RaceState;
  struct RaceStateDeleter {
    void operator()(RaceState* r) const;
  };
  struct RacePtr : std::unique_ptr<RaceState, RaceStateDeleter> {
    RacePtr() = default;
    RacePtr(const RacePtr&) : std::unique_ptr<RaceState, RaceStateDeleter>() {}  // a sibling: none
    RacePtr(RacePtr&&) = default;
    RacePtr& operator=(const RacePtr&) = delete;
    RacePtr& operator=(RacePtr&&) = default;
  } race;

  std::uint64_t* row(Warp& w, std::uint32_t r) {
    return r < local_rows ? w.regs + std::size_t(r) * lanes
                          : consts.data() + std::size_t(r - local_rows) * lanes;
  }

  // Construction steps (executor.cpp).
  void layout_memory();
  void check_tm();
  void setup_params();
  std::uint32_t const_row(std::uint64_t bits);
  std::uint32_t special_row(ptx::Special sp, const ptx::Instruction& ins);
  void place_specials();  // special_at, cc_row and local_rows from the kernel's operands
  void place_rows();      // file_row and file_rows, and the decoded code's rows made file rows
  std::uint32_t lane_row(const std::function<std::uint64_t(std::uint32_t)>& value);
  // The row of each uniform constant (const_row; a hash, not a search of the rows: a kernel of
  // 200,000 distinct immediates took 3.8 s to prepare, and 4 M lines hours; issue 48). Rows that
  // differ by lane (lane_row) are never in it.
  std::unordered_map<std::uint64_t, std::uint32_t> const_index;
  std::uint32_t vector_row(const ptx::Operand& o, int k, const ptx::Instruction& ins);
  std::uint64_t symbol_address(std::uint32_t sym) const;
  void predecode();
  void setup_calls();  // Impl::calls from the linked functions' slots (call.cpp uses them)

  IssueResult issue(Cta& cta, Warp& w);
  void warp_done(Cta& cta, Warp& w);
  // Spin detection (spin.cpp).
  void spin_arm(Warp& w);
  void spin_check(const Cta& cta, Warp& w);
  bool spin_stuck() const;
  // What spin_stuck() looks at, over one or more executors: false as soon as a live warp neither
  // spins nor waits at a barrier.
  struct SpinScan {
    bool any = false, at_barrier = false, passes_bar = false;
    bool stuck() const { return any && !(at_barrier && passes_bar); }
  };
  bool spin_scan(SpinScan& s) const;

  // GPU-LocalTM (tm.cpp).
  void tx_begin(Cta& cta, Warp& w, std::uint32_t pc, IssueResult& r);
  void tx_commit(Cta& cta, Warp& w, std::uint32_t pc, IssueResult& r);
  // After a transactional shared access: aborts the conflicted lanes (TCM) and, when no lane of
  // the attempt is left, ends it at once.
  // Returns true when the attempt ended.
  bool tx_conflicts(Cta& cta, Warp& w, std::uint32_t pc, LaneMask conflicted);
  void tx_end_attempt(Cta& cta, Warp& w, std::uint32_t commit_pc);
  // `mode`: the attempt's (a TX.Commit reports the mode it ended, as 003 Table 1's line 16 does).
  void tx_event(const Cta& cta, const Warp& w, TxEvent::Kind kind, std::uint32_t pc, LaneMask exec,
                tm::Mode mode) const;
  std::uint32_t first_thread(const Warp& w) const { return w.index * lanes; }

  // Thread and block of a lane, for messages.
  std::string who(const Cta& cta, const Warp& w, int lane) const;
  [[noreturn]] void fail(const Cta& cta, const Warp& w, int lane, std::uint32_t pc,
                         const std::string& what) const;
  // "at k.ptx:12 (k.cu:7) `bra LOOP;`" (run.cpp).
  std::string where(std::uint32_t pc) const;
  std::vector<std::uint64_t> sym_addr;
};

// alu.cpp: everything that is not memory or control flow.
// cvt of one register value (convert.cpp).
std::uint64_t convert(std::uint64_t src, const ptx::Instruction& ins);
void exec_alu(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m);
// Device function calls (call.cpp): `call` for the lanes `m`; `ret` inside a function (the warp has
// frames); after an exit, the frames whose lanes have all gone.
// Returns the global sectors a builtin's call writes (printf's arguments), 0 otherwise.
std::uint16_t exec_call(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
void exec_function_return(Impl& im, Cta& cta, Warp& w, LaneMask m);
void finish_exited_frames(Impl& im, Cta& cta, Warp& w);
// printf and assert (builtin.cpp) for the lanes `m` of a call to them.
std::uint16_t exec_builtin(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m,
                           const CallInfo& ci);
// Race checking (racecheck.cpp): a shared access of the lanes `m` (offsets in im.addr, `bytes`
// each); a CTA started; a warp arrived at barrier `id`, was released from it, exited; the barrier
// opened (after its warps were released).
void race_access(Impl& im, const Cta& cta, const Warp& w, std::uint32_t pc, Op op, LaneMask m,
                 std::uint32_t bytes);
void race_cta_start(Impl& im, Cta& cta);
void race_arrive(Impl& im, const Cta& cta, const Warp& w, std::uint8_t id);
void race_released(Impl& im, const Cta& cta, const Warp& w, std::uint8_t id);
void race_reset_barrier(Impl& im, const Cta& cta, std::uint8_t id);
void race_exit(Impl& im, const Cta& cta, const Warp& w);
inline constexpr std::size_t kMaxCallDepth = 1024;
// Half precision and packing (alu_half.cpp): f16/bf16/x2 arithmetic, setp on halves, cvt to a
// pair, mov {a, b}; false when `ins` is none of these (exec_alu goes on).
bool exec_half(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m);
// The arithmetic exec_half computes on halves and pairs (add sub mul fma mad min max neg abs).
bool half_arithmetic(ptx::Opcode op);
// A PTX float comparison (ordered and unordered forms) of two values.
bool float_compare(ptx::CmpOp op, double x, double y);
// Carries (add.cc ... madc) and the integer/float intrinsics of alu_int.cpp; false when `ins` is
// neither (exec_alu goes on).
bool exec_int_intrinsic(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m);
// shfl, vote, match, redux, activemask, bar.warp.sync (warp_ops.cpp): `m` executes the instruction
// (the guard applied), the member mask must name exactly the live lanes that reach it together.
void exec_warp(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// bar.sync / bar.arrive / bar.red (barrier.cpp) for the lanes `m` (the guard applied); a warp that
// exits may complete the barriers that wait for every live warp.
void exec_barrier(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
void release_barriers(Impl& im, Cta& cta);
// "barrier 1 (128 threads: 2 of 4 warps arrived)", for messages about a waiting warp.
std::string describe_barrier(const Impl& im, const Cta& cta, const Warp& w);
// memory.cpp: the host address of lane l's access of `bytes` bytes (aligned to `bytes`) at address
// `a` in `space` (generic decodes its window), bounds- and alignment-checked, or an InputError
// naming the instruction and the thread; a shared lane gets its offset in im.addr[l] and joins
// `shared`, a global one is noted for sector counting.
std::uint8_t* lane_pointer(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int l, ptx::Space space,
                           std::uint64_t a, std::uint64_t bytes, bool write, LaneMask& shared,
                           std::uint64_t align = 0);
// The address a memory operand names for lane l: its base register at the register's width, plus
// the symbol's address and the offset (instructions with two memory operands: cp.async).
std::uint64_t operand_address(Impl& im, Warp& w, const ptx::Operand& o, int l);
// ldmatrix, stmatrix, mma, wmma (matrix_exec.cpp): the warp executes them together (`m` must be
// the full warp).
void exec_matrix(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// wgmma (wgmma.cpp, issue 46): the warp's 16 rows of the warpgroup's product, at issue.
void exec_wgmma(Impl& im, Cta& cta, Warp& w, std::uint32_t pc);
// cp.async, cp.async.commit_group, cp.async.wait_group/wait_all (cp_async.cpp); land_copies
// writes every pending copy of the warp (at its exit).
std::uint16_t exec_cp_async(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
void land_copies(Impl& im, Cta& cta, Warp& w, std::uint32_t keep_groups, bool all);
// mbarrier.*, cp.async.mbarrier.arrive and nanosleep (mbarrier.cpp); returns true when a
// test_wait/try_wait found a lane's phase not yet complete (run() then runs the other warps).
bool exec_mbarrier(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// Executor::retry_wait: a try_wait's predicates again, nothing else (mbarrier.cpp).
bool retry_mbar_wait(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// complete_tx of `bytes` on the mbarrier at shared offset `at` for lane l (a bulk copy's
// completion; mbarrier.cpp): an error naming the thread when it is not an initialized object.
void mbarrier_complete_tx(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int l, std::uint32_t at,
                          std::int64_t bytes);
// barrier.cluster.arrive/wait and mapa (bulk_copy.cpp, issue 46); returns true when a wait found
// its phase incomplete (the warp stays at the instruction).
bool exec_cluster(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// A warp of `cta` exited: the cluster barrier's phase may now be complete; when it was the CTA's
// last, the CTA leaves its cluster's record.
void cluster_warp_done(Impl& im, Cta& cta);
// `cta` (started in this executor) joins its cluster's record on the board.
void cluster_join(Impl& im, Cta& cta);
// The CTA of rank `rank` in `cta`'s cluster, or null when it is not resident (not started, or
// exited).
inline Cta* cluster_peer(const Cta& cta, std::uint32_t rank) {
  return cta.cl && rank < cta.cl->ctas.size() ? cta.cl->ctas[rank] : nullptr;
}
// A suspended barrier.cluster.wait (the cycle model's): true, and the warp moves past it, when
// the phase it arrived in has completed.
bool retry_cluster_wait(Cta& cta, Warp& w);
// The distinct 32-byte segments of other CTAs' shared memory the instruction's lanes touched
// (dsm_lanes), which it clears.
std::uint32_t dsm_segments(Impl& im);
// cp.async.bulk{.tensor}, its groups and prefetches (bulk_copy.cpp): returns the global sectors.
std::uint32_t exec_bulk(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
// *p = op(*p, v) at type t's width, as atom does (memory.cpp): a bulk reduction's element.
void reduce_into(ptx::AtomOp op, ptx::Type t, std::uint8_t* p, std::uint64_t v);
// A load `wa` of `cta` (emit_shared): where it reads TMA-written tiles, its bank passes under
// each swizzle mode go to ExecStats::tma_reads (tma_reads.cpp).
void tma_reads_whatif(Impl& im, const Cta& cta, const WarpAccess& wa);
// Lands the deferred bulk copy `id` (bulk_copy.cpp; nothing when its CTA has ended).
void land_bulk(Impl& im, std::uint32_t id);
// A bulk copy's record lands: its bytes and complete_tx in its CTA, or in each of its multicast's.
void land(Impl& im, const Impl::PendingBulk& p);
// Hands the shared access of `lanes` (im.addr holds their byte offsets), `words` 4-byte words per
// lane, to the consumer as WarpAccesses: wide accesses in phases (docs/exec.md).
void emit_shared(Impl& im, const Warp& w, const Cta& cta, std::uint32_t pc, Op op, LaneMask lanes,
                 int words);
// The distinct 32-byte sectors of the lanes in `m` whose global address was noted, `bytes` each.
std::uint16_t count_sectors(Impl& im, LaneMask m, std::uint64_t bytes);
// memory.cpp: returns the distinct global/local sectors touched (0 unless count_sectors).
// Applies the deferred global writes in order (memory.cpp).
void commit_deferred(Impl& im);
std::uint16_t exec_memory(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);
void exec_cvta(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, LaneMask m);
// tex / tld4 (texture_exec.cpp): returns the distinct global sectors of the texels read (0 unless
// count_sectors).
std::uint16_t exec_texture(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m);

inline std::uint64_t width_mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
}
inline std::int64_t sext(std::uint64_t v, int bits) {
  return bits >= 64 ? static_cast<std::int64_t>(v)
                    : static_cast<std::int64_t>(v << (64 - bits)) >> (64 - bits);
}

// The lanes of `m` in ascending order. A whole 32-lane warp is a counted loop the compiler can
// unroll and vectorize (issue 49: most warp instructions have every lane on).
template <typename F>
inline void each_lane(LaneMask m, F&& f) {
  if (m == 0xffffffffu) {
    for (int l = 0; l < 32; ++l) f(l);
    return;
  }
  while (m) {
    f(std::countr_zero(m));
    m &= m - 1;
  }
}

}  // namespace smemsim::exec::detail

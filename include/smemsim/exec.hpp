// SIMT functional executor (issue 5, docs/exec.md): runs a decoded PTX kernel (ptx.hpp) on the CPU.
//
// Grid -> CTAs -> warps of Arch::warp_size lanes. Each warp has a reconvergence stack: a divergent
// branch reconverges at the immediate post-dominator of its block (src/exec/cfg.cpp). bar.sync
// blocks a warp until every live warp of its CTA has arrived. Every shared-memory ld/st/atom/red
// hands WarpAccesses (one per 4-byte word touched by a lane: .v2/.v4 and 64-bit accesses give one
// per word) to an AccessConsumer; WarpAccess::pc is the PTX line of the instruction.
//
// The executor is built to be stepped one warp-instruction at a time by a timing model ("execute at
// issue"): issue(slot, warp) executes the next instruction of one warp and reports what it did.
// run() is the run-to-completion driver on top. Out-of-bounds or misaligned accesses are
// InputErrors naming the PTX line, the CUDA line, the thread and the block.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/debug.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/tensor_map.hpp"
#include "smemsim/texture.hpp"
#include "smemsim/tm.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim::exec {

namespace detail {
struct Impl;
}

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t(x) * y * z; }
};
// "X[,Y[,Z]]" (each >= 1). Throws InputError naming `what`.
Dim3 parse_dim3(const std::string& text, const std::string& what);
std::string to_string(const Dim3& d);  // "4,2,1"

// Element type of a global buffer (also used by the launch spec).
// F16 and BF16: IEEE binary16 and bfloat16 (__half, __nv_bfloat16), stored from numbers rounded to
// nearest even, written out as their exact values.
enum class ElemType : std::uint8_t { U8, S8, U16, S16, U32, S32, U64, S64, F32, F64, F16, BF16 };
int elem_bytes(ElemType t);
bool elem_is_float(ElemType t);
bool elem_is_signed(ElemType t);
std::string_view elem_name(ElemType t);
// Throws InputError listing the names (u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 f16 bf16).
ElemType parse_elem_type(std::string_view name, const std::string& where);

struct Buffer {
  std::string name;
  ElemType type = ElemType::U32;
  std::vector<std::uint8_t> bytes;  // little endian

  std::uint64_t elements() const { return bytes.size() / std::uint64_t(elem_bytes(type)); }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
};

// Global memory of a launch: the buffers the kernel's pointer arguments refer to, and the texture
// objects over them. Buffer i lives at generic address (i + 1) << 40, so an address decodes to its
// buffer with one shift; texture i is the handle kTextureHandleBase + i.
struct GlobalMemory {
  std::vector<Buffer> buffers;
  std::vector<Texture> textures;
  std::vector<TensorMap> tensor_maps;  // issue 46: CUtensorMap parameters of the launch
  PrintfLog printf_log;                // the kernels' printf output (issue 45)

  std::uint32_t add(Buffer b);           // returns the index
  Buffer& get(const std::string& name);  // throws InputError if absent
  const Buffer* find(const std::string& name) const;
  static std::uint64_t base_address(std::uint32_t index) { return std::uint64_t(index + 1) << 40; }
};

// One kernel argument. Pointers name a buffer, texture objects a texture (GlobalMemory::textures);
// numbers are converted to the parameter's PTX type.
struct Arg {
  // Bytes: a struct or array passed by value (issue 27), as `bytes`, with buffer addresses and
  // texture handles put at `relocs`.
  // TensorMap: tensor map `buffer` (GlobalMemory::tensor_maps), its 128-byte image.
  enum class Kind : std::uint8_t { Buffer, Int, Float, Texture, Bytes, TensorMap };
  Kind kind = Kind::Int;
  std::uint32_t buffer = 0;
  std::int64_t i = 0;
  double f = 0.0;
  bool boolean = false;  // written as true/false: only a bool (8-bit) parameter takes it
  // Bytes: the image (C layout of the fields given, trailing padding to `align` included), the
  // largest field alignment, and the 8-byte slots that hold a buffer's address (buffer index and
  // bytes into it) or a texture object (texture index).
  struct Reloc {
    std::uint32_t at = 0;
    bool texture = false;
    std::uint32_t index = 0;
    std::int64_t offset = 0;
  };
  std::vector<std::uint8_t> bytes;
  std::vector<Reloc> relocs;
  std::uint32_t align = 1;

  // A buffer's address, `offset_bytes` into it (`kernel<<<...>>>(d + n)`; Buffer: `i` holds it).
  static Arg buf(std::uint32_t index, std::int64_t offset_bytes = 0) {
    return make(Kind::Buffer, index, offset_bytes, 0.0);
  }
  static Arg integer(std::int64_t v) { return make(Kind::Int, 0, v, 0.0); }
  static Arg truth(bool v) {
    Arg a = make(Kind::Int, 0, v ? 1 : 0, 0.0);
    a.boolean = true;
    return a;
  }
  static Arg real(double v) { return make(Kind::Float, 0, 0, v); }
  static Arg texture(std::uint32_t index) { return make(Kind::Texture, index, 0, 0.0); }
  static Arg tensor_map(std::uint32_t index) { return make(Kind::TensorMap, index, 0, 0.0); }

 private:
  static Arg make(Kind k, std::uint32_t index, std::int64_t i, double f) {
    Arg a;
    a.kind = k;
    a.buffer = index;
    a.i = i;
    a.f = f;
    return a;
  }
};

// A relayout of one shared array (issue 26, `smemsim fix`; Executor's `remap`,
// TimingOptions::remap): the kernel runs unchanged while every access that lands in the array goes
// to the remapped place, as if its index expression had been rewritten. The array is cut into
// grains of `grain` bytes that move whole (a lane's access must not span two: such an access is an
// error naming it). Grain e moves to
//   e' = e ^ ((e >> xor_shift) & xor_mask)          (an XOR swizzle; xor_mask 0: none)
//   e' + (e' / row) * pad                           (padding: `pad` unused grains after every row)
// and every byte after the array moves up by added_bytes(), so the map is injective over the whole
// shared memory and a kernel that only reads what it wrote computes the same outputs. check() says
// when the map is not a bijection of the array's grains onto its new place.
struct SharedRemap {
  std::uint32_t base = 0, bytes = 0;  // the array in the kernel's own layout; bytes 0: no remap
  std::uint32_t grain = 4;
  std::uint32_t row = 0, pad = 0;  // in grains; row 0: no padding
  std::uint32_t xor_shift = 0, xor_mask = 0;

  bool on() const { return bytes != 0; }
  bool contains(std::uint64_t off) const { return off >= base && off - base < bytes; }
  std::uint32_t added_bytes() const;  // the padded array's bytes minus its own
  std::uint64_t map(std::uint64_t off) const;
  std::string check() const;     // "" when valid, else why not (one line)
  std::string describe() const;  // "pad 1 word per 32-word row", "swizzle i ^ ((i >> 5) & 31)"
};

// The widest access (bytes per lane) a shared or generic memory instruction of `kernel` makes: the
// grain a SharedRemap of its arrays needs (ldmatrix, stmatrix, cp.async and wmma count 16).
std::uint32_t widest_shared_access(const ptx::Kernel& kernel);

struct Launch {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<Arg> args;  // one per kernel parameter, in order
  // cudaFuncAttributePreferredSharedMemoryCarveout: the shared memory wanted of the SRAM it shares
  // with the L1, percent of the most the GPU allows (0: the most L1, 100: the most shared memory);
  // -1: the driver's default (the smallest carve-out that holds the launch's shared memory). The
  // cycle model's caches only (docs/timing.md "Caches").
  std::int32_t carveout_percent = -1;
  // cudaLimitPrintfFifoSize: the bytes of printf output kept (the newest; 1 MiB as CUDA's default).
  std::uint64_t printf_bytes = std::uint64_t{1} << 20;
};

// Receives every shared-memory WarpAccess, in issue order. The reference is valid during the call.
class AccessConsumer {
 public:
  virtual ~AccessConsumer() = default;
  virtual void on_access(const WarpAccess& wa) = 0;
};

// TxWait: stalled at TX.Begin while another warp of the CTA runs its transaction in work-group
// serialization mode (seed 003 §3.1).
enum class WarpState : std::uint8_t { Ready, AtBarrier, Done, TxWait };

// What one issue() did.
struct IssueResult {
  std::uint32_t index = 0;  // instruction index in Kernel::code
  ptx::Opcode op = ptx::Opcode::Ret;
  LaneMask active = 0;                 // lanes on the executing path
  LaneMask executed = 0;               // active lanes whose guard held
  std::uint8_t shared_accesses = 0;    // WarpAccesses handed to the consumer
  WarpState state = WarpState::Ready;  // the warp's state after the instruction
  // Distinct 32-byte sectors of global and local memory the instruction touched (ld, st, atom,
  // red; counted only after set_count_sectors(true)): the coalesced requests of a timing model.
  std::uint16_t global_sectors = 0;
  // Distinct 32-byte segments of other CTAs' shared memory (distributed shared memory, issue 46)
  // the instruction's lanes touched, or a bulk copy into one moved: the SM-to-SM network's
  // traffic.
  std::uint16_t dsm_segments = 0;
  // GPU-LocalTM (docs/tm.md): the warp executed inside a transaction (TX.Begin and TX.Commit
  // included), and the cycles its transactional work adds (003 §4.2; 0 under tm.timing = perfect).
  bool in_tx = false;
  std::uint32_t tm_cycles = 0;
  // GPU-LocalTM moved other warps of the CTA without an issue of theirs: a work-group-serialized
  // TX.Begin aborted their attempts (they go back to their TX.Begin), or the end of its attempt
  // let the warps waiting at TX.Begin go (TxWait -> Ready).
  bool moved_others = false;
  // An mbarrier test_wait/try_wait found a lane's phase not yet complete, or a
  // barrier.cluster.wait its phase open (run() yields the warp; retry_wait).
  bool waiting = false;
  // The instruction the warp issues next (next_index after this issue; Kernel::code.size() when
  // it is done): only the warp's own issues move it.
  std::uint32_t next = 0;
  // A bulk copy into shared memory deferred by set_defer_bulk (issue 46): land_bulk(bulk) when
  // its memory operation completes. 0: none.
  std::uint32_t bulk = 0;
};

// A transactional event of one warp, for tests and traces (003 Table 1's rows): the masks after
// TX.Begin, after a conflict and after TX.Commit. `exec` is the lanes on the path, with the lanes
// TCM holds back; after a TX.Commit that retries it is the TCM copied into EXEC.
struct TxEvent {
  enum class Kind : std::uint8_t { Begin, Conflict, Commit };
  Kind kind = Kind::Begin;
  std::uint32_t warp = 0;      // CTA-linear index x warps per CTA + warp index
  std::uint32_t ptx_line = 0;  // of the instruction
  LaneMask exec = 0, tcm = 0, tcm_old = 0;
  tm::Mode mode = tm::Mode::Normal;
};

struct ExecStats {
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;  // sum of active lanes over issued instructions
  std::uint64_t shared_accesses = 0;      // WarpAccesses produced
  std::uint64_t ctas = 0;
  tm::TmStats tm;  // transactional counts (kernels with TX_BEGIN/TX_COMMIT)
  // The same per transaction site: (instruction index of its outermost TX.Begin, counts).
  std::vector<std::pair<std::uint32_t, tm::TmStats>> tm_sites;
  // Shared loads of tiles a TMA tensor copy wrote (issue 46), per PTX line (ascending): the bank
  // passes they took, and would take had the tile been written under each swizzle mode with the
  // reads addressed to match (the same elements): none, 32B, 64B, 128B; `possible` is false where
  // the mode cannot hold the tile's rows (a row wider than its span).
  struct TmaReads {
    std::uint32_t ptx_line = 0;
    std::uint64_t accesses = 0;
    std::uint8_t mode = 0;  // the tile's own swizzle: 0 none, 1 32B, 2 64B, 3 128B
    std::array<std::uint64_t, 4> passes{};
    std::array<bool, 4> possible{};
  };
  std::vector<TmaReads> tma_reads;
  // Adds another run's counts (a site of both: its counts summed; tm_sites stays in PC order).
  void add(const ExecStats& o);
};

// Layout of a kernel's shared memory: static symbols in declaration order, then dynamic
// (.extern) shared memory.
struct SharedLayout {
  std::uint32_t static_bytes = 0;
  std::uint32_t dynamic_offset = 0;  // byte offset of the .extern arrays
  std::uint32_t total_bytes = 0;     // dynamic_offset + dynamic bytes (+ a remap's added bytes)
  // Each static array and the dynamic region (one entry, named after the first .extern array),
  // in the kernel's own layout.
  struct Array {
    std::string name;
    std::uint32_t offset = 0, bytes = 0;
    bool dynamic = false;
  };
  std::vector<Array> arrays;
};

class Executor {
 public:
  // Checks the launch (block size, arguments, shared memory against arch.memory_bytes) and
  // pre-decodes the kernel. `module` and `memory` must outlive the executor. Throws InputError.
  // `slots` CTAs can be resident at once (run() uses slot 0). `remap` relays out one shared array
  // (its added bytes count in shared_layout().total_bytes).
  Executor(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch,
           const Launch& launch, GlobalMemory& memory, std::uint32_t slots = 1,
           const SharedRemap& remap = {});
  // A sibling of `primary` with `slots` CTA slots of its own: the same kernel, launch and global
  // memory, the module's variables shared with `primary` (which must outlive it), its own CTAs,
  // statistics and consumer (the cycle model gives each SM one, issue 31).
  Executor(const Executor& primary, std::uint32_t slots);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  void set_consumer(AccessConsumer* consumer);  // nullptr: accesses are dropped
  // %clock / %clock64 read *cycles when set (a timing model's cycle counter); otherwise they read
  // the number of warp-instructions issued so far.
  void set_clock_source(const std::uint64_t* cycles);
  // Count IssueResult::global_sectors (off by default: the functional run does not pay for it).
  void set_count_sectors(bool on);
  // Bulk copies into shared memory (cp.async.bulk{.tensor}, issue 46) land when land_bulk(id) is
  // called with IssueResult::bulk, not at issue (off by default: run() lands them at once). A
  // timing model calls it when the copy's memory operation completes.
  void set_defer_bulk(bool on);
  void land_bulk(std::uint32_t id);
  // Per instruction index: 1 where a wide shared access is handed to the consumer word by word
  // (word k of every lane, one WarpAccess each, as memory.wide_access = "words" does), whatever
  // memory.wide_access says. A timing model that issues several loads as one wider access (its
  // lowering's `vector` rule) builds that access from its members' words. Empty: none.
  void set_word_rows(std::vector<std::uint8_t> by_index);
  // The mbarrier.try_wait at `pc` once more for the lanes `lanes` (IssueResult::executed), as when
  // its suspended threads resume: each lane's predicate is written again; true when every lane's
  // phase is complete. Nothing else changes and no access is counted (a timing model holds a
  // try_wait whose phase is incomplete until it is, as the GPU suspends the thread). For a
  // barrier.cluster.wait (issue 46): true, and the warp moves past it, once its phase completed.
  bool retry_wait(std::uint32_t slot, std::uint32_t warp, std::uint32_t pc, LaneMask lanes);
  // The distinct 32-byte sectors (byte address / 32, ascending) of the last issue() whose
  // global_sectors is non-zero: its first global_sectors entries (a local address is a per-thread
  // key in a window of its own).
  const std::uint64_t* sectors() const;
  // Of the last issue() that was a global atomic (atom, red), the most lanes on one address.
  std::uint32_t same_address_lanes() const;
  // Receives every transactional event (nullptr: none).
  void set_tx_observer(std::function<void(const TxEvent&)> observer);
  // The kernel has TX.Begin: its shared accesses are transactional inside transactions.
  bool uses_tm() const;

  std::uint64_t cta_count() const;
  std::uint32_t warps_per_cta() const;
  std::uint32_t slots() const;
  const SharedLayout& shared_layout() const;

  // Loads CTA `cta` (linear index, x fastest) into `slot`: fresh registers, zeroed shared and local
  // memory, every warp Ready at instruction 0. %smid reads `smid` (default: the slot).
  void start_cta(std::uint32_t slot, std::uint64_t cta);
  void start_cta(std::uint32_t slot, std::uint64_t cta, std::uint32_t smid);
  WarpState state(std::uint32_t slot, std::uint32_t warp) const;
  // Inside a transaction: between TX.Begin and the TX.Commit that commits, retries included.
  bool in_transaction(std::uint32_t slot, std::uint32_t warp) const;
  bool cta_done(std::uint32_t slot) const;
  // Next instruction index of a Ready warp.
  std::uint32_t next_index(std::uint32_t slot, std::uint32_t warp) const;
  // Whether the warp's next instruction, an f32 division of two registers, has a lane (on its
  // path, its guard holding) whose operands as they are now fail the GPU's fast-path check
  // (FCHK): a dividend or divisor that is zero, subnormal, infinite or NaN, or exponents whose
  // difference takes the quotient out of the normal range (docs/timing.md "Lowering": divide).
  bool fdiv_slow(std::uint32_t slot, std::uint32_t warp) const;
  // Executes the next instruction of warp `warp` of the CTA in `slot`; the warp must be Ready.
  IssueResult issue(std::uint32_t slot, std::uint32_t warp);

  // Runs every CTA of the grid in order, each to completion: warps in index order, each until it
  // blocks at a barrier or finishes. Throws InputError naming the unfinished warps (block, PTX and
  // CUDA line, instruction) when the launch issues more than max_steps warp-instructions, or when
  // every live warp of a CTA waits at a barrier that cannot open.
  void run();
  // The same for CTAs [first, end) only, in slot 0 (the cycle model's --sample-ctas runs the CTAs
  // it does not time this way); `done(cta)` after each.
  void run_ctas(std::uint64_t first, std::uint64_t end,
                const std::function<void(std::uint64_t)>& done = {});
  // The step limit of run() (default kDefaultMaxSteps; `run`/`profile --max-steps`).
  void set_max_steps(std::uint64_t steps);
  // Called by run() after each CTA with (CTAs done, CTAs in the grid): a progress display.
  void set_progress(std::function<void(std::uint64_t, std::uint64_t)> progress);
  static constexpr std::uint64_t kDefaultMaxSteps = 1'000'000'000;

  // Spin detection for a driver that interleaves warps (the cycle model; run() does its own):
  // arm_spin_checks() snapshots every Ready warp that issued at least `min_issued` instructions
  // since it was last armed; spin_stuck() is true when every live warp has since come back to its
  // snapshot with no memory written by anyone (or waits at a barrier none of them passes), so the
  // launch can never end (src/exec/spin.cpp).
  void arm_spin_checks(std::uint64_t min_issued);
  bool spin_stuck() const;
  // The same over sibling executors that share global memory: every live warp of all of them.
  static bool spin_stuck(const std::vector<const Executor*>& group);
  // Instructions that wrote memory so far (the count spin detection compares); siblings share one
  // count by adding their increments and setting it back (the cycle model, once per cycle).
  std::uint64_t memory_writes() const;
  void set_memory_writes(std::uint64_t n);

  // Deferred global writes (issue 31): when on, a global store or atomic does not change global
  // memory at issue; commit_global() applies the ones made since the last commit, in issue order
  // (an atomic's old value reaches its destination register then). Loads read global memory as
  // it was at the last commit. The cycle model commits every SM's writes at the end of each cycle,
  // in SM order, so that SMs can execute on different threads and give the same results.
  void set_defer_global(bool on);
  void commit_global();

  // Shared-memory race checking (issue 45, `smemsim racecheck`): off by default; when on, every
  // shared access is checked against the block's earlier accesses since its last barrier.
  void set_racecheck(bool on);
  // The hazards found so far, by kind, then the first and second instruction.
  std::vector<RaceHazard> race_hazards() const;

  const ExecStats& stats() const;

 private:
  std::unique_ptr<detail::Impl> impl_;
};

// "histogram.cu:45" for an instruction: its .loc, or the .loc's inlined_at call site when the .loc
// points into a CUDA header (atomicAdd's body). "" when the PTX has no line information.
std::string cuda_location(const ptx::Module& module, const ptx::Instruction& ins);
std::string cuda_location(const ptx::Module& module, const ptx::SourceSite& site);
// The CUDA file (path as in the PTX's .file table) and line of that location; "" without one.
std::string cuda_file(const ptx::Module& module, const ptx::Instruction& ins, std::uint32_t& line);
std::string cuda_file(const ptx::Module& module, const ptx::SourceSite& site, std::uint32_t& line);
// Where a .file path of the module is on this machine: the path itself, or a relative path (the
// shipped suite PTX's "../histogram.cu") from the PTX file's folder when it is not found from the
// current one; "" when neither is a regular file.
std::string cuda_source_path(const ptx::Module& module, const std::string& file);
// The text of that CUDA line, leading blanks removed, as source_display shows it; "" when the file
// cannot be read.
std::string cuda_source_text(const ptx::Module& module, const ptx::Instruction& ins);
std::string cuda_source_text(const ptx::Module& module, const ptx::SourceSite& site);
// A line of a CUDA file as the profile shows it (issue 48: a file's escape sequences drove the
// terminal and its NUL bytes went into the HTML): control bytes other than a tab as \xNN, and at
// most 500 bytes, then "...(N more bytes)".
std::string source_display(std::string_view line);
// The line that called the inlined function the instruction belongs to (SourceSite::call_site), as
// cuda_location writes it, "" when it was not inlined; `text` gets that line's source text.
std::string cuda_call_site(const ptx::Module& module, const ptx::Instruction& ins,
                           std::string* text = nullptr);

}  // namespace smemsim::exec

// Architecture description: shared-memory geometry, lock unit and every latency, as typed data.
// "Timing is data" (DESIGN.md principle 3): constants live here and in the presets
// (src/arch/presets.cpp) with the seed section they come from, never as literals in a model.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace smemsim {

struct Timing {
  // Lock-loop atomics, Algorithm 1 of seed 001 §2.1.4 (GTX 580: 108 / 120 / 32, 001 §2.1.1-2.1.2).
  std::int64_t t_base = 108;      // latency of a conflict-free warp atomic
  std::int64_t t_position = 120;  // each extra lock round (position or lock conflict)
  std::int64_t t_bank = 32;       // each extra bank-conflict level of a read or a write
  // The Read/Update/Write/Branch state machine of seed 000 §III (asfermi microbenchmarks).
  std::int64_t fsm_read = 32;    // Read state, per bank-conflict level
  std::int64_t fsm_update = 18;  // Update state (IADD)
  std::int64_t fsm_write = 36;   // Write state, per bank-conflict level
  std::int64_t fsm_branch = 32;  // Branch state (BRA)
  // Native shared atomics (Maxwell and later; AMD LDS atomics): no lock loop.
  std::int64_t native_base = 0;
  std::int64_t native_position = 0;  // each extra lane updating the same word
  // Plain loads and stores: base latency, plus t_bank per extra conflict level (001 §2.1.2).
  std::int64_t ld_base = 32;
  std::int64_t st_base = 36;
};

// The SM around the shared memory, for the cycle-level timing model (src/timing/, docs/timing.md).
// Every member is a key `sm.<name>`; the key table (src/arch/arch_toml.cpp) holds each one's
// description, unit, valid range and seed source. Latencies (lat_*) are issue-to-dependent-issue
// cycles of one warp instruction without conflicts: the pipeline's front end, the unit's EXE
// stages, the memory stages and writeback together (docs/timing.md, "Pipeline").
struct SmConfig {
  std::uint32_t count = 16;  // SMs on the GPU
  // The launch's own cost (issue 44): no CTA starts before cycle launch_cycles (the front end's
  // work on the launch; a kernel's cycles include it), and the CTA dispatcher starts at most
  // dispatch_ctas CTAs every dispatch_cycles cycles GPU-wide (0: no limit beyond one CTA per SM
  // per cycle). docs/timing.md "The GPU".
  std::uint32_t launch_cycles = 0, dispatch_ctas = 0, dispatch_cycles = 0;
  // An SM starts the warps of the CTAs it takes one every warp_start_cycles cycles (its first
  // at once; 0: all at once).
  std::uint32_t warp_start_cycles = 0;
  std::uint32_t max_threads = 1536;      // resident threads per SM
  std::uint32_t max_warps = 48;          // resident warps per SM
  std::uint32_t max_ctas = 8;            // resident CTAs per SM
  std::uint32_t max_cta_threads = 1024;  // threads per CTA (CUDA: 1024; 003 Table 2's GCN: 256)
  std::uint32_t registers = 32768;       // 32-bit registers per SM
  std::uint32_t simd_width = 32;      // lanes per cycle: a warp is warp.size / simd_width subwarps
  std::uint32_t frontend_stages = 2;  // fetch/decode/issue stages before EXE
  std::uint32_t mem_stages = 2;       // MEM0 (shared-memory banks) .. MEM(M-1)
  std::uint32_t smem_ports = 1;       // shared-memory ports: accesses per bank per pass
  // Results a sub-core writes back per cycle (its result buses): with more than one, non-memory
  // ops that finish their units in the same cycle commit together (docs/timing.md "Writeback
  // ports"). The seeds' pipelines: 1.
  std::uint32_t writeback_ports = 1;
  // Processing blocks (sub-partitions): each has its own warp scheduler, front end, execution
  // units and writeback port, over the warp slots w with w % subcores == its index; the
  // shared-memory port (MEM0's bank passes) and the global memory unit are the SM's, one pass per
  // cycle for all of them (docs/timing.md "Sub-cores"). Fermi's seeds: 1.
  std::uint32_t subcores = 1;
  // Whether each sub-core has its own units (subcore: Volta-Hopper's processing blocks) or the
  // sub-cores' schedulers share one set (sm: Fermi's two schedulers dual-issue to different unit
  // groups).
  std::string unit_scope = "subcore";
  // Entries of each sub-core's MIO (load/store-unit) instruction queue, counted from issue: a
  // shared-memory op leaves its sub-core's pipeline at MEM0 into the queue and the SM's MIO
  // scheduler gives the shared-memory port to the oldest queue head, one bank pass per cycle; a
  // warp whose shared access does not fit waits (mio_throttle). 0: no queue, an op holds MEM0
  // until the port serves it (the seeds' SMs). docs/timing.md "MIO queues".
  std::uint32_t mio_queue = 0;
  // Lanes per unit (per sub-core, or per SM when unit_scope = sm): an op of sm.simd_width threads
  // holds its unit ceil(simd_width / lanes) cycles (its initiation interval).
  std::uint32_t lanes_alu = 32, lanes_fma = 32, lanes_fp64 = 32, lanes_sfu = 32;
  // Lanes of the FMA pipe that run an integer multiply(-add) (IMAD): an IMAD holds the pipe
  // simd_width x lanes_fma / lanes_imad lane-cycles. 0: all of lanes_fma (Volta-Ampere, where the
  // pipe is 16 lanes that all run it). Hopper's 32 FP32 lanes a block run IMAD on 16.
  std::uint32_t lanes_imad = 0;
  std::uint32_t lat_alu = 18;
  std::uint32_t lat_sfu = 40;
  // FP32 (and IMAD) pipe, FP64 pipe and tensor core; 0: sm.lat_alu (Fermi's CUDA cores run
  // integer and float alike). A tensor op's latency is lat_tensor + its initiation interval - 1.
  std::uint32_t lat_fma = 0, lat_fp64 = 0, lat_tensor = 0;
  // Half-precision arithmetic (f16, f16x2, bf16, bf16x2 add/mul/fma/min/max): issued to the FMA
  // pipe, with its own latency (Volta's HFMA2 takes 6 where FFMA takes 4); 0: sm.lat_fma's.
  std::uint32_t lat_fp16 = 0;
  // An integer multiply(-add) (IMAD, IMAD.WIDE, IMAD.HI: mul.lo/.wide/.hi, mad): issued to the
  // FMA pipe, with its own latency (Turing's IMAD takes 5 where FFMA takes 4); 0: sm.lat_fma's.
  std::uint32_t lat_imad = 0;
  // A conversion to or from f64 (F2F.F64.F32, F2F.F32.F64, I2F.F64, F2I.F64): on the SFU's lanes,
  // with its own latency (Hopper's F2F takes 18 where a MUFU takes 17); 0: sm.lat_sfu's.
  std::uint32_t lat_cvt64 = 0;
  // The operand delay of an MIO instruction (shared load, store or atomic; SFU): the cycles it
  // waits, beyond a dependent's one after writeback, for a register the ALU (mio_delay_alu) or
  // the FMA pipe (mio_delay_fma: FP32, FP16, IMAD) or the FP64 pipe (mio_delay_fp64) wrote. A
  // variable-latency result (a load, a MUFU) feeds it with no delay. 0: none (the seeds' GPUs;
  // docs/timing.md "Operand delay").
  std::uint32_t mio_delay_alu = 0, mio_delay_fma = 0, mio_delay_fp64 = 0;
  // The guard delay: an instruction's guard predicate (@p) is read at issue, earlier than its
  // register operands, so it waits this many cycles more than a register reader for a predicate a
  // fixed-latency pipe wrote (setp, ...: ISETP, FSETP, PLOP3). ptxas's control codes put 13
  // cycles from an ISETP to the instruction it guards on sm_80 and sm_90 (12 on sm_75), 4 to a
  // SEL reading the same predicate as an operand. 0: none (docs/timing.md "Guard delay").
  std::uint32_t guard_delay = 0;
  // The cross-pipe delay: a result of the ALU (IADD3, LOP3, SHF, LEA, ISETP) reaches an FMA-pipe
  // instruction (FFMA, FMUL, IMAD, HFMA2), and the FMA pipe's an ALU instruction, this many cycles
  // later than an instruction of its own pipe. ptxas's control codes put 5 cycles from an IMAD to
  // a dependent IADD3, LOP3, SHF, LEA or ISETP and from those to an IMAD, 4 within a pipe, on
  // sm_75, sm_80 and sm_90. 0: none (docs/timing.md "Cross-pipe delay").
  std::uint32_t xpipe_delay = 0;
  // The taken branch's fetch: a guarded branch that leaves the fall-through path has its
  // target's first instruction issue no earlier than this many cycles after the branch issued:
  // the target is fetched once the branch has gone (Nsight Compute's branch_resolving and
  // no_instruction states). A branch that falls through costs nothing more. 0: none
  // (docs/timing.md "Taken-branch fetch").
  std::uint32_t taken_branch_fetch = 0;
  // The SM's instruction cache, cold at a launch's start (docs/timing.md "Instruction and
  // constant caches"): a warp whose next instruction lies in a 128-byte line (eight 16-byte
  // instructions) the SM has not fetched waits this many cycles from the line's request
  // (no_instruction); a warp reaching a line for the first time has the SM request the next
  // icache_prefetch_lines lines. 0: every instruction is in the cache.
  std::uint32_t icache_miss_cycles = 0;
  std::uint32_t icache_prefetch_lines = 0;
  // The SM's constant cache, cold at a launch's start: an instruction that reads a kernel
  // parameter or a constant at a constant address (ld.param, ld.const [symbol+imm]) whose 64-byte
  // line the SM has not fetched waits this many cycles from the line's request (imc_miss). 0: every
  // constant is in the cache.
  std::uint32_t const_miss_cycles = 0;
  // Dense FP16 multiply-adds per cycle of one tensor unit (per sub-core); an mma of m x n x k
  // holds it ceil(m*n*k / tensor_fmas) cycles (TF32 at half, INT8 at twice, INT4 at 4x, b1 at
  // 16x, FP64 at 1/16 that rate: A100's ratios). 0: no tensor core, an mma issues like an ALU
  // instruction.
  std::uint32_t tensor_fmas = 0;
  // Dense FP16 multiply-adds one step of a tensor op does with an f32 accumulator; with an f16
  // one a step does twice as many. Volta runs a wmma m16n16k16 as four sets of HMMA.884.F32
  // STEP0-STEP3 (16 steps) or of HMMA.884.F16 STEP0-STEP1 (8), each holding the unit its share of
  // I; the result is ready lat_tensor after the last step starts, lat_tensor + I - step. 0: steps
  // of one cycle (lat_tensor + I - 1).
  std::uint32_t tensor_step_fmas = 0;
  // Hopper's warpgroup multiply (wgmma, issue 46): dense FP16 multiply-adds per cycle of one
  // sub-core's tensor core for it (a warp's 16 rows of the 64 x N x K product; the same type
  // ratios as tensor_fmas), and the fewest cycles a product holds it (its pipeline's: a chain of
  // small products into one accumulator goes no faster). 0: no wgmma (a kernel with one is
  // refused by the cycle model).
  std::uint32_t wgmma_fmas = 0, lat_wgmma = 0;
  // Thread-block clusters (issue 46): the SMs of a GPC (SM i is in GPC i / gpc_sms; a cluster's
  // CTAs run on different SMs of one GPC) and the most CTAs a cluster may have; 0: no clusters in
  // the cycle model. Distributed shared memory: the cycles from issue to the result of an access
  // to another SM's shared memory (in place of sm.lat_shared_*), and the bytes a cycle of the
  // SM's port to the SM-to-SM network (an access takes ceil(32 x its 32-byte segments / this)
  // cycles of the SM's shared-memory port).
  std::uint32_t gpc_sms = 0, max_cluster = 0;
  std::uint32_t lat_dsm = 0, dsm_bytes_per_cycle = 0;
  std::uint32_t lat_branch = 32;
  std::uint32_t lat_shared_ld = 32;
  std::uint32_t lat_shared_st = 36;
  std::uint32_t lat_shared_atom = 108;       // native shared atomic unit (no lock loop)
  std::uint32_t lat_const = 32;              // ld.param / ld.const (constant cache hit)
  std::uint32_t global_latency = 400;        // global/local load: request to data return
  std::uint32_t global_bytes_per_cycle = 8;  // per SM
  std::uint32_t global_atomic_latency = 600;
  // Caches of global and local memory (issue 44, docs/timing.md "Caches"): a sectored L1 per SM
  // in the SRAM shared memory leaves it, and each SM's share of the L2. 0 bytes: no such cache
  // (the seeds' GPUs: every global access takes sm.global_latency).
  std::uint32_t l1_unified_bytes = 0;  // the SRAM L1 and shared memory share, per SM
  // The shared-memory carve-outs the SRAM can be split at, KiB, ascending ("0,8,16,32,64,96"):
  // the launch takes the smallest that holds its resident CTAs' shared memory, L1 the rest;
  // "": the carve-out is memory.size_bytes.
  std::string carveouts;
  std::uint32_t l1_sets = 4;             // 128-byte lines of four sectors; ways: the rest
  std::uint32_t l1_latency = 0;          // an L1 hit: request to data return
  std::uint32_t l1_bytes_per_cycle = 0;  // L1 hits' sectors per SM (0: no limit)
  std::uint32_t l2_bytes = 0;            // the whole L2; each SM models sm.count's share
  std::uint32_t l2_ways = 16;
  std::uint32_t l2_latency = 0;  // an L1 miss that hits in L2: request to data return
  // L2 hits' sectors per SM (0: no limit); with sm.l2_slices, the SM's port to the L2: every
  // sector its L1 did not hold (hits, misses, stores and atomics) leaves at this rate.
  std::uint32_t l2_bytes_per_cycle = 0;
  // With sm.l2_slices, the other way of the port: the bytes a cycle of stores' sectors (their
  // data) an SM sends toward the L2; 0: stores take sm.l2_bytes_per_cycle as loads do.
  std::uint32_t l2_write_bytes_per_cycle = 0;
  // One L2 shared by every SM (docs/timing.md "The shared L2"): sm.l2_slices slices, a line's
  // by sm.l2_hash, each l2_bytes / l2_slices of tags and l2_slice_bytes_per_cycle of data path,
  // behind sm.dram_channels DRAM channels that together move sm.dram_bytes_per_cycle bytes a
  // cycle (0: sm.global_bytes_per_cycle x sm.count). A slice holds sm.l2_queue_sectors sectors
  // waiting and a channel sm.dram_queue_sectors before they push back. 0 slices: each SM models its
  // share of the L2.
  std::uint32_t l2_slices = 0;
  std::uint32_t l2_slice_bytes_per_cycle = 0;
  std::string l2_hash = "xor";  // xor | mod: how a line's address picks its slice
  std::uint32_t dram_channels = 1;
  std::uint32_t dram_bytes_per_cycle = 0;
  std::uint32_t l2_queue_sectors = 64;
  std::uint32_t dram_queue_sectors = 64;
  // Cycles the L2 takes per update of one address: a global atomic whose N lanes hit one word
  // returns (N - 1) x this later (0: lanes on one word cost nothing more, the seeds' GPUs).
  std::uint32_t l2_atomic_cycles = 0;
  std::string pipeline = "unified";  // unified | split | elastic (004 Fig. 4a/4b, Figs. 5-6)
  std::string scheduler = "gto";     // lrr | gto | bank-aware | bank-aware-fill (004 §4)
  std::string barrel = "relaxed";    // strict: one instruction per warp in flight (004 §6)
  // The elastic pipeline (004 §3.2): the PREMEM queue of Eq. 3, or none.
  std::string premem = "eq3";  // eq3 | none
  // When a non-memory op may write back in the elastic pipeline: from the cycle after EXE (`exe`,
  // our reading of Fig. 6: the multiplexer's control is the latches' valid signals) or not before
  // the baseline's fixed NONMEM path would deliver it (`fixed`, the other reading of "matured").
  std::string nonmem_ready = "exe";  // exe | fixed
  // Bank-conflict-aware scheduling (004 §4): the baseline policy it masks, the conflict history
  // cache's geometry and the PC width its tags assume (Table 2).
  std::string bank_aware_base = "lrr";  // lrr | gto
  std::uint32_t bkconf_sets = 256;
  std::uint32_t bkconf_ways = 2;
  std::uint32_t bkconf_pc_bits = 14;
  // Relaxed barrel processing in the elastic pipeline (004 §6): out-of-order (instructions of a
  // warp may commit out of order) or in-order (no more instructions of a warp while its shared
  // access is predicted to conflict).
  std::string relaxed_commit = "out-of-order";
  // What the cycle model times (issue 42, src/lower/lower.hpp): the PTX as written ("none", the
  // seeds' machines) or as ptxas would emit it, a comma list of the rules that make PTX
  // instructions free (fma, imad, lea, addr, scaled, cvt, mov) and `schedule`, the list scheduler
  // ("all": every one). The functional result never changes.
  std::string lower = "none";
  // sm.lower's ifcvt: a forward branch is predicated when what it jumps over issues at most this
  // many instructions once predicated (an expansion's steps counted; no rule absorbs a guarded
  // instruction): ptxas's limit is not published (docs/timing.md "Lowering").
  std::uint32_t ifcvt_slots = 4;
  // sm.lower's schedule: the register words of values defined and still to be read in a block
  // that the list scheduler keeps to where it can (0: no bound; src/lower/schedule.hpp). 16 is
  // fitted: of 8, 12, 16, 24 and 32 on hopper-h100 against an H100's cycles of the suite, the
  // one with the most launches within 25 % and none above 1.15 (docs/timing.md "Lowering").
  std::uint32_t sched_regs = 16;

  // Front end + memory stages + one EXE stage + writeback: the shortest latency the pipeline has.
  std::uint32_t min_latency() const { return frontend_stages + mem_stages + 2; }
};

// GPU-LocalTM (seed 003): hardware transactions over shared memory, for kernels that use
// TX_BEGIN/TX_COMMIT (kernels/smemsim_tm.cuh; docs/tm.md). Every member is a key `tm.<name>`.
struct TmConfig {
  // Conflict detector (003 §3.3): bloom (per-thread, per-bank signatures) or exact (perfect
  // ownership tracking: no false conflicts); tm::detectors() lists them (docs/tm.md).
  std::string detector = "bloom";
  std::uint32_t bloom_bits = 8;  // bits per signature (003 §3.3: 8)
  // What a signature hashes: position ((word / banks) % bloom_bits, 003 §3.3's worked example) or
  // word (word % bloom_bits, the text's "address % 8" read literally).
  std::string bloom_index = "position";
  // Timing (003 §4.2): paper (the costs below) or perfect (none of them, 003 §5.1.4).
  std::string timing = "paper";
  std::uint32_t begin_cycles = 1;        // TX.Begin: EXEC/TCM evaluation and register backup
  std::uint32_t commit_cycles = 1;       // TX.Commit: clearing the committing lanes' signatures
  std::uint32_t bloom_cycles = 1;        // a transactional access: the signature query
  std::uint32_t new_access_cycles = 2;   // a new access: backup and ownership write
  std::uint32_t owner_check_cycles = 1;  // a repeated access: the ownership-record check
  std::uint32_t entry_cycles = 1;  // per shadow entry cleared or restored, in the slowest bank
};

struct Arch {
  std::string name;
  // What reports call it where it is not a preset's name (issue 47: `arch import` names the
  // result after its file, "SM7_QV100"); "" for the presets. arch_label() leads with it.
  std::string title;
  std::string description;
  std::string source;       // where the numbers come from (seed and section)
  bool calibrated = false;  // true only when every latency was measured on the named GPU
  // The keys changed from preset `name` ("memory.banks=16, timing.t_bank=40"); empty for a preset
  // as shipped. A derived arch is reported as such and is never calibrated (mark_derived).
  std::string derived;
  // The NVIDIA compute capability x 10 the preset models (20 = c.c. 2.0, 80 = sm_80); 0 for a
  // design that is no NVIDIA GPU (cf11, southern-islands). `--arch sm_80` picks the preset by it.
  std::uint32_t compute_capability = 0;

  std::uint32_t memory_bytes = 48 * 1024;
  std::uint32_t banks = 32;
  std::uint32_t bank_width_bytes = 4;  // 4 or 8
  std::string bank_hash = "mod";       // index-function spec over the bank-unit address
  // Cycles the bank hash adds to every shared-memory access between address generation and the
  // banks (seed 002 §4.5: a configurable hash needs 250 ps of a ~700 ps cycle, so 002 §7 extends
  // every access by one cycle; a fixed XOR is negligible). The cycle-level model gives the
  // shared-memory units this many more pipeline stages before MEM0. Not set by the hash: 0 unless
  // chosen (the hash002 study sets 1 for its configurable hashes).
  std::uint32_t hash_latency = 0;
  // How an access of more than 4 bytes per lane (.v2/.v4, 64-bit) is served (issue 15): "phases"
  // as the hardware does, lane groups whose bank units fill one transaction (64-bit: half-warps,
  // 128-bit: quarter-warps on 4-byte banks; 8-byte banks take twice the lanes); "pairs": the
  // same, but a load whose lanes pair up (lanes n and n^1, or n and n^2, the same address
  // wherever both are active) takes twice the lanes a phase, the return path packing two lanes'
  // registers (Volta and later; docs/exec.md); "words": one access per 4-byte word over the
  // whole warp (smemsim before issue 15).
  std::string wide_access = "phases";

  std::uint32_t warp_size = 32;
  std::uint32_t transaction_lanes = 32;  // lanes served by one shared-memory transaction

  std::string atomic_model = "alg1";  // alg1 | fsm | native
  // How a shared-memory float add (atom/red .add.f32/.f64) runs where atomics are native:
  // "native", one atomic instruction; "cas", a compare-and-swap loop, as ptxas emits it for sm_90
  // (LDS, FADD, ATOMS.CAST.SPIN, a compare and a branch a round; a lane retries while another
  // lane or warp changed its word between its read and its swap). The cycle model runs the loop
  // on the lock loop's micro-ops with one lock per word (docs/timing.md "Shared atomics").
  std::string shared_float_atomics = "native";
  std::uint32_t locks = 1024;     // 0 = one lock per word (native atomics, no aliasing)
  std::string lock_hash = "mod";  // index-function spec over the word address
  // Which lock bits lock_hash produces (seed 000 leaves it open; docs/models.md): "in-bank", the
  // lock-within-bank bits above the bank's (000 Fig. 3, §IV: the Fermi presets' reading), or "all"
  // of them (smemsim before issue 14). Both are the same function for mod.
  std::string lock_hash_bits = "in-bank";

  Timing timing;
  SmConfig sm;
  TmConfig tm;

  std::uint32_t memory_words() const { return memory_bytes / 4; }
  std::uint32_t words_per_bank_unit() const { return bank_width_bytes / 4; }
  std::uint32_t bank_units() const { return memory_bytes / bank_width_bytes; }
  int bank_bits() const;  // log2(banks)
  int lock_bits() const;  // log2(locks); 0 when locks == 0
  // Address bits the hash functions see: ceil(log2(bank units)) / ceil(log2(words)).
  int bank_addr_bits() const;
  int word_addr_bits() const;
};

// Throws InputError naming the key when a value is impossible.
void validate(const Arch& arch);
// sm.carveouts as KiB (InputError naming the key when malformed); the L1 a launch whose resident
// CTAs use `shared_in_use` bytes of shared memory per SM gets: sm.l1_unified_bytes less the
// smallest carve-out holding them (memory.size_bytes where none is listed), 0 without an L1.
std::vector<std::uint32_t> carveout_list(const Arch& arch);
std::uint64_t l1_capacity(const Arch& arch, std::uint64_t shared_in_use);

// Presets (src/arch/presets.cpp). The first is the default.
const std::vector<Arch>& arch_presets();
const Arch& default_arch();
// Throws InputError listing the known names.
// A preset by name, or by an sm_NN alias (sm_20 fermi-gtx580, sm_35 kepler-k20, sm_70 volta-v100,
// sm_75 turing-t4, sm_80/86/89 ampere-a100, sm_90 hopper-h100). Throws InputError listing both.
const Arch& find_preset(std::string_view name);
// The preset for the GPU a PTX `.target` names (issue 24): `name` is the sm_NN alias's preset
// (sm_75 -> turing-t4; a feature suffix as in sm_90a is ignored); a target between two of them
// takes the newest older one (sm_61 -> kepler-k20) and `note` says so; a target that is not
// sm_NN, or older than every preset, gives no name and a note.
struct TargetPreset {
  std::string name;  // "" when no preset fits
  std::string note;  // "" when the target has a preset of its own
};
TargetPreset preset_for_target(std::string_view target);

// TOML (src/arch/arch_toml.cpp). Loading starts from `base` (a preset or the default) and overrides
// the keys present; an unknown key, a wrong type or an impossible value is an InputError naming the
// key.
// With `comments`, each key is preceded by its description, unit, seed source and range.
std::string to_toml(const Arch& arch, bool comments = false);
// Records in `arch.derived` the keys whose values differ from `base` (the preset it started from)
// and clears `calibrated` when there are any.
void mark_derived(Arch& arch, const Arch& base);
// A GPGPU-Sim configuration (gpgpusim.config) mapped onto `base` (src/arch/gpgpusim_import.cpp):
// the shared-memory and SM options become arch keys (`mapped`: one entry per key set); every other
// option is listed in `ignored`, and a value smemsim had to adjust in `notes`. Throws InputError
// "file:line: option: why" on a bad value.
struct GpgpuSimImport {
  struct Entry {
    int line = 0;               // in the configuration file
    std::string option, value;  // as written there
    std::string key, setting;   // mapped and notes: the arch key and the value it was set to
    std::string why;            // ignored: why (may be empty); notes: what was adjusted
  };
  std::string origin;  // the configuration's file name, as messages give it
  Arch arch;
  std::vector<Entry> mapped, ignored, notes;
  // One line for people: "g.config:5: -gpgpu_clock_domains 325.0:650.0 (why)",
  // "-gpgpu_shmem_num_banks 16 -> memory.banks = 16" for mapped entries.
  std::string describe(const Entry& e, bool as_mapping = false) const;
};
// `tensor_shape` (m, n, k; all 0: not given): the mma shape the file's tensor-core latency and
// initiation interval describe (GPGPU-Sim's wmma: 16 x 16 x 16; an sm_80 HMMA trace: 16 x 8 x 16);
// with it they map to sm.tensor_fmas and sm.lat_tensor, without it they are listed as ignored.
GpgpuSimImport import_gpgpusim(std::string_view text, const std::string& origin, const Arch& base,
                               std::array<std::uint32_t, 3> tensor_shape = {});

// Where a timing key's value comes from (issue 25, item 2; docs/sources.md): a seed's measurement,
// a published microbenchmark, vendor data, a correlated simulator configuration, an assumption, or
// a value the user set (a key changed from the preset).
// Calibrated: solved by `smemsim calibrate`, running the replica of the measurement it cites (issue
// 42), with the residual it leaves.
enum class SourceKind : std::uint8_t {
  Seed,
  Measured,
  Calibrated,
  Vendor,
  Config,
  Assumed,
  User,
  Untraced
};
std::string_view source_kind_name(SourceKind k);  // "seed", "measured", ..., "not traced"
struct TimingKeySource {
  std::string key, value;
  SourceKind kind = SourceKind::Untraced;
  std::string text;  // the source, precise enough to check
};
// The keys the cycle model and the latency models read (latencies, rates, structure).
const std::vector<std::string>& timing_keys();
// Each timing key that applies to `arch` (no lock-loop keys on a native-atomic GPU, ...) with its
// source; presets without a per-key table give Untraced.
std::vector<TimingKeySource> timing_sources(const Arch& arch);
// "27 of 31 timing keys sourced, 11 measured" (seed, measured and calibrated count as measured),
// then ", 5 of them calibrated" when some are.
std::string sources_summary(const Arch& arch);

// "fermi-gtx580" or "fermi-gtx580 derived (memory.banks=16), uncalibrated": how results name it.
std::string arch_label(const Arch& arch);
Arch load_arch_toml(const std::string& path, const Arch& base);
Arch parse_arch_toml(std::string_view text, const std::string& origin, const Arch& base);
// Applies one `key=value` override (keys as in the TOML: memory.banks, timing.t_bank, ...).
void apply_override(Arch& arch, std::string_view assignment);
// Every settable key, for --help and error messages.
const std::vector<std::string>& arch_keys();
// A key's description (with its unit and seed source) and, for integers, its valid range.
struct ArchKeyInfo {
  std::string_view name;
  std::string_view doc;
  std::int64_t min = 0, max = 0;  // both 0: no range (strings, booleans)
};
const std::vector<ArchKeyInfo>& arch_key_info();
// Visits every key with its current value (in the order of arch_keys(); values are int64, string or
// bool). The one table behind TOML output, --set and JSON results.
using ArchValue = std::variant<std::int64_t, std::string, bool>;
void visit_arch(const Arch& arch,
                const std::function<void(std::string_view key, const ArchValue&)>& f);
// A value as the TOML's right-hand side reads without quotes: "32", "true", "mod".
std::string arch_value_text(const ArchValue& v);

}  // namespace smemsim

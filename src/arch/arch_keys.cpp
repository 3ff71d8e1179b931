// The arch key table: one entry per settable key (arch_keys.hpp).
#include "arch/arch_keys.hpp"

namespace smemsim::arch_detail {
namespace {

Key u32(const char* n, std::uint32_t Arch::*m, std::int64_t lo, std::int64_t hi, const char* doc) {
  Key k{n, Kind::U32, m};
  k.min = lo;
  k.max = hi;
  k.doc = doc;
  return k;
}
Key i64(const char* n, std::int64_t Timing::*m, const char* doc) {
  Key k{n, Kind::I64, nullptr, m};
  k.min = 0;
  k.max = 1'000'000;
  k.doc = doc;
  return k;
}
Key str(const char* n, std::string Arch::*m, const char* doc) {
  Key k{n, Kind::Str, nullptr, nullptr, m};
  k.doc = doc;
  return k;
}
Key sm(const char* n, std::uint32_t SmConfig::*m, std::int64_t lo, std::int64_t hi,
       const char* doc) {
  Key k{n, Kind::SmU32};
  k.sm_u32 = m;
  k.min = lo;
  k.max = hi;
  k.doc = doc;
  return k;
}
Key sm_str(const char* n, std::string SmConfig::*m, const char* doc) {
  Key k{n, Kind::SmStr};
  k.sm_str = m;
  k.doc = doc;
  return k;
}

Key tm(const char* n, std::uint32_t TmConfig::*m, std::int64_t lo, std::int64_t hi,
       const char* doc) {
  Key k{n, Kind::TmU32};
  k.tm_u32 = m;
  k.min = lo;
  k.max = hi;
  k.doc = doc;
  return k;
}
Key tm_str(const char* n, std::string TmConfig::*m, const char* doc) {
  Key k{n, Kind::TmStr};
  k.tm_str = m;
  k.doc = doc;
  return k;
}

}  // namespace

const std::vector<Key>& key_table() {
  static const std::vector<Key> k = {
      str("name", &Arch::name, "the preset this arch is or was derived from"),
      str("title", &Arch::title,
          "what reports call this arch, before `name` (arch import: the configuration's name; "
          "empty: `name` alone)"),
      str("description", &Arch::description, "what it models"),
      str("source", &Arch::source, "where its numbers come from (seed and section)"),
      [] {
        Key k{"calibrated", Kind::Bool, nullptr, nullptr, nullptr, &Arch::calibrated};
        k.doc = "true only when every latency was measured on the named GPU";
        return k;
      }(),
      str("derived", &Arch::derived,
          "the keys changed from preset `name` by --set, --arch-file or an option (empty: the "
          "preset as shipped); a derived arch is never calibrated"),
      u32("compute_capability", &Arch::compute_capability, 0, 999,
          "the NVIDIA compute capability x 10 it models (70: sm_70; 0: no NVIDIA GPU); an arch "
          "file keeps its generation by it (a PTX .target newer than it is warned about)"),
      u32("memory.size_bytes", &Arch::memory_bytes, 4, 1 << 30,
          "bytes of shared memory per SM (GTX 580: 48 KiB, seed 000 §V; 004 Table 3: 16 KiB)"),
      u32("memory.banks", &Arch::banks, 1, 1024,
          "banks, a power of two (Fermi: 32, seed 001 §2.1; 004 Table 3: 8)"),
      u32("memory.bank_width_bytes", &Arch::bank_width_bytes, 4, 8,
          "bytes per bank per cycle: 4 or 8 (Kepler's 8-byte mode)"),
      str("memory.bank_hash", &Arch::bank_hash,
          "bank index function spec over the bank-unit address: mod, xor, add (seed 000 §IV) or "
          "a family of seed 002 §4 (smemsim hash list)"),
      u32("memory.hash_latency", &Arch::hash_latency, 0, 16,
          "cycles, what the bank hash adds to every shared access before the banks: extra "
          "pipeline stages of the shared-memory units (seed 002 §4.5: 1 for a configurable hash, "
          "0 for mod and the fixed xor; not implied by memory.bank_hash)"),
      str("memory.wide_access", &Arch::wide_access,
          "accesses over 4 bytes per lane: phases (lane groups filling one transaction: 64-bit "
          "half-warps, 128-bit quarter-warps; CUDA Programming Guide, shared memory), pairs "
          "(phases, and a load whose lanes n and n^1, or n and n^2, read the same address takes "
          "twice the lanes a phase: NVIDIA's answer for cc 7.x, forums.developer.nvidia.com/t/"
          "77228; 2 wavefronts an LDS.128 measured on an H200) or words (one access per word "
          "over the warp)"),
      u32("warp.size", &Arch::warp_size, 1, 64, "threads per warp (NVIDIA: 32; AMD GCN: 64)"),
      u32("warp.transaction_lanes", &Arch::transaction_lanes, 1, 64,
          "lanes served by one shared-memory transaction (Fermi: 32; GT200: 16, a half-warp; "
          "seed 002 §3)"),
      str("atomics.model", &Arch::atomic_model,
          "atomic latency model: alg1 (seed 001 Algorithm 1), fsm (seed 000 §III), native, "
          "loadstore (smemsim model list)"),
      str("atomics.shared_float", &Arch::shared_float_atomics,
          "a shared float add where atomics are native: native (one instruction) or cas (a "
          "compare-and-swap loop: LDS, FADD, ATOMS.CAS, compare, branch a round; the SASS ptxas "
          "13.0 emits for sm_90, an H200's opcode counts of kmeans)"),
      u32("atomics.locks", &Arch::locks, 0, 1 << 24,
          "lock bits per SM, a power of two; 0 = one lock per word (Fermi: 1,024, seed 000 §II.A)"),
      str("atomics.lock_hash", &Arch::lock_hash,
          "lock index function spec over the word address (seed 000 §IV)"),
      str("atomics.lock_hash_bits", &Arch::lock_hash_bits,
          "which lock bits atomics.lock_hash makes: in-bank (the lock is (bank, lock within the "
          "bank); the low log2(banks) word bits keep the bank and the hash of the bits above them "
          "gives the lock within it: on Fermi word bits 10..14 fold into lock bits 5..9; seed 000 "
          "Fig. 3 and §IV's five-bit hashes) or all (every lock bit: word bits 10..19 into lock "
          "bits 0..9)"),
      i64("timing.t_base", &Timing::t_base,
          "cycles, conflict-free warp atomic (seed 001 §2.1.4 Algorithm 1; GTX 580: 108)"),
      i64("timing.t_position", &Timing::t_position,
          "cycles per extra lock round, position or lock conflict (001 §2.1.1; GTX 580: 120)"),
      i64("timing.t_bank", &Timing::t_bank,
          "cycles per extra bank-conflict level of a read or write (001 §2.1.2; GTX 580: 32; 004 "
          "Table 3: 1)"),
      i64("timing.fsm_read", &Timing::fsm_read,
          "cycles, the lock loop's Read state per bank-conflict level (seed 000 §III: 32)"),
      i64("timing.fsm_update", &Timing::fsm_update,
          "cycles, the lock loop's Update state (seed 000 §III: IADD, 18)"),
      i64("timing.fsm_write", &Timing::fsm_write,
          "cycles, the lock loop's Write state per bank-conflict level (seed 000 §III: 36)"),
      i64("timing.fsm_branch", &Timing::fsm_branch,
          "cycles, the lock loop's Branch state (seed 000 §III: BRA, 32)"),
      i64("timing.native_base", &Timing::native_base,
          "cycles, conflict-free native shared atomic (uncalibrated placeholders on modern GPUs)"),
      i64("timing.native_position", &Timing::native_position,
          "cycles per extra lane updating the same word, native atomics"),
      i64("timing.ld_base", &Timing::ld_base,
          "cycles, conflict-free shared load (001 §2.1.2; Fermi: 32)"),
      i64("timing.st_base", &Timing::st_base, "cycles, conflict-free shared store (Fermi: 36)"),
      // The SM of the cycle-level model (docs/timing.md). Latencies are issue-to-dependent-issue
      // cycles and must be at least sm.frontend_stages + sm.mem_stages + 2 (checked by validate).
      sm("sm.count", &SmConfig::count, 1, 1024, "SMs on the GPU (GTX 580: 16, seed 000 §V)"),
      sm("sm.launch_cycles", &SmConfig::launch_cycles, 0, 1000000,
         "cycles before a launch's first CTA starts (the launch's fixed cost; an H100's empty "
         "kernel of one CTA: 4,054 cycles; 0: none)"),
      sm("sm.dispatch_ctas", &SmConfig::dispatch_ctas, 0, 1 << 20,
         "CTAs the GPU's dispatcher starts every sm.dispatch_cycles cycles (H100: 5 every 6); "
         "0: no limit beyond one CTA per SM per cycle"),
      sm("sm.dispatch_cycles", &SmConfig::dispatch_cycles, 0, 1 << 20,
         "the period of sm.dispatch_ctas, cycles"),
      sm("sm.warp_start_cycles", &SmConfig::warp_start_cycles, 0, 100000,
         "cycles between the starts of two warps of the CTAs an SM takes (H100: 4; 0: a CTA's "
         "warps start at once)"),
      sm("sm.max_threads", &SmConfig::max_threads, 1, 4096,
         "resident threads per SM (Fermi: 1536, GPGPU-Sim GTX480 config; 004 Table 3: 1024)"),
      sm("sm.max_warps", &SmConfig::max_warps, 1, 128,
         "resident warps per SM (Fermi: 48; 004 Table 3: 32)"),
      sm("sm.max_ctas", &SmConfig::max_ctas, 1, 64,
         "resident CTAs per SM (Fermi: 8, GPGPU-Sim GTX480 config; 004 Table 3: 8)"),
      sm("sm.max_cta_threads", &SmConfig::max_cta_threads, 1, 1024,
         "threads per CTA (work-group) a launch may have (CUDA: 1024; AMD Southern Islands: 256, "
         "seed 003 §2)"),
      sm("sm.registers", &SmConfig::registers, 0, 1 << 20,
         "32-bit registers per SM (Fermi: 32768; 004 Table 3: 16384); they limit residency when "
         "`sim --regs` gives the registers per thread"),
      sm("sm.simd_width", &SmConfig::simd_width, 1, 64,
         "SIMD lanes: a warp passes each stage as warp.size / simd_width subwarps in consecutive "
         "cycles (004 §3.2.3; 004 Table 3: 8)"),
      sm("sm.frontend_stages", &SmConfig::frontend_stages, 1, 64,
         "pipeline stages from fetch to EXE; the first is the warp scheduler's (004 Table 3: 24 "
         "stages = 18 front end + 1 EXE + 4 MEM + 1 writeback)"),
      sm("sm.mem_stages", &SmConfig::mem_stages, 1, 16,
         "memory stages MEM0..MEM(M-1); MEM0 accesses the banks (004 Fig. 4; Table 3: 4)"),
      sm("sm.smem_ports", &SmConfig::smem_ports, 1, 64,
         "shared-memory ports: a bank serves this many distinct words per pass (004 Eq. 1)"),
      sm("sm.writeback_ports", &SmConfig::writeback_ports, 1, 8,
         "results a sub-core writes back per cycle: beside MEM0 (or NONMEM), ports - 1 more "
         "paths of sm.mem_stages take non-memory ops leaving EXE in the same cycle (seeds: 1; "
         "Volta-Hopper: 2, Accel-Sim's EX_WB width per scheduler)"),
      sm("sm.subcores", &SmConfig::subcores, 1, 8,
         "processing blocks (sub-partitions) per SM, each with its own scheduler, front end, units "
         "and writeback; warp slot w runs on sub-core w % subcores; the shared-memory port is the "
         "SM's (Fermi seeds: 1; Volta-Hopper: 4)"),
      sm_str("sm.unit_scope", &SmConfig::unit_scope,
             "subcore (each sub-core has its own units: Volta-Hopper) or sm (the sub-cores' "
             "schedulers share the units and dual-issue to different ones: Fermi)"),
      sm("sm.mio_queue", &SmConfig::mio_queue, 0, 1024,
         "entries of each sub-core's MIO (load/store) instruction queue: a shared access leaves "
         "the sub-core's pipeline at MEM0 into it, the SM's MIO scheduler serves the oldest queue "
         "head one bank pass per cycle, and a warp whose access does not fit waits "
         "(mio_throttle); 0: no queue, the access holds MEM0 until the port serves it (the seeds' "
         "SMs)"),
      sm_str("sm.lower", &SmConfig::lower,
             "what the cycle model times: none (the PTX as written) or a comma list of the rules "
             "that make PTX instructions free as ptxas would (fma: mul+add fused; imad: integer "
             "mul+add; lea: shl+add; addr: an immediate offset in the address; scaled: a shared "
             "index shifted by 2-4 plus a constant base, [R.X4+imm]; cvt: integer truncation; mov: "
             "register copies; imm: constants as their readers' operands, zero as RZ; iadd3: two "
             "integer adds one; ifcvt: short forward branches predicated; lop3: two bitwise ops "
             "one; vector: adjacent scalar shared loads one LDS.64/128), schedule (each block "
             "reordered by a list scheduler, results unchanged) and spaces (memory reordered "
             "where spaces cannot alias), and the rules that add instructions (sincos, ex2, "
             "divide: ptxas's sequences; wide: 64-bit integer ops as two; bssy: BSSY/BSYNC round a "
             "branch whose lanes may part), aggregate (an atomic ptxas makes one lane's: a warp's "
             "add of one value to one word), unroll (a counted innermost loop's counter, compare "
             "and branch issued one trip in four, as ptxas unrolls it), balance (integer adds, "
             "moves and shifts spread over the ALU and the FMA pipe as IMAD forms), or all; "
             "docs/timing.md \"Lowering\""),
      sm("sm.ifcvt_slots", &SmConfig::ifcvt_slots, 1, 64,
         "sm.lower's ifcvt: the most issue slots (expansions' steps counted) a forward branch "
         "may jump over to be predicated instead"),
      sm("sm.sched_regs", &SmConfig::sched_regs, 0, 4096,
         "sm.lower's schedule: the 32-bit register words of a block's values still to be read "
         "that the list scheduler keeps to where it can, finishing a chain before starting "
         "another (0: no bound)"),
      sm("sm.lanes_alu", &SmConfig::lanes_alu, 1, 64,
         "lanes of the integer/logic unit: an op of sm.simd_width threads holds it "
         "ceil(simd_width / lanes) cycles (Volta-Ampere: 16 per sub-core)"),
      sm("sm.lanes_fma", &SmConfig::lanes_fma, 1, 64,
         "lanes of the FP32 (and IMAD) unit (Volta, Turing, A100: 16 per sub-core)"),
      sm("sm.lanes_imad", &SmConfig::lanes_imad, 0, 64,
         "lanes of the FMA unit that run an integer multiply(-add): an IMAD holds the unit "
         "lanes_fma / lanes_imad times as long as an FFMA (Hopper: 16 of 32); 0: sm.lanes_fma"),
      sm("sm.lanes_fp64", &SmConfig::lanes_fp64, 1, 64, "lanes of the FP64 unit"),
      sm("sm.lanes_sfu", &SmConfig::lanes_sfu, 1, 64,
         "lanes of the special-function unit (Volta-Hopper: 4 per sub-core)"),
      sm("sm.lat_alu", &SmConfig::lat_alu, 1, 100000,
         "cycles, integer/logic ALU instruction, and float ones when sm.lat_fma is 0 (Fermi "
         "IADD: 18, seed 000 §III)"),
      sm("sm.lat_fma", &SmConfig::lat_fma, 0, 100000,
         "cycles, FP32 add/mul/fma/min/max and integer mul/mad (the FMA pipe); 0: sm.lat_alu"),
      sm("sm.lat_fp16", &SmConfig::lat_fp16, 0, 100000,
         "cycles, half-precision add/mul/fma/min/max (f16, f16x2, bf16, bf16x2) on the FMA pipe; "
         "0: sm.lat_fma's"),
      sm("sm.lat_imad", &SmConfig::lat_imad, 0, 100000,
         "cycles, an integer multiply or multiply-add (IMAD, IMAD.WIDE, IMAD.HI) on the FMA pipe "
         "(Turing: 5); 0: sm.lat_fma's"),
      sm("sm.mio_delay_alu", &SmConfig::mio_delay_alu, 0, 1000,
         "cycles an MIO instruction (shared load/store/atomic, SFU) waits, beyond a dependent's "
         "one, for a register the ALU wrote (Hopper: 2; 0: none)"),
      sm("sm.mio_delay_fma", &SmConfig::mio_delay_fma, 0, 1000,
         "the same for a register the FMA pipe wrote (FP32, FP16, IMAD; Hopper: 2; 0: none)"),
      sm("sm.mio_delay_fp64", &SmConfig::mio_delay_fp64, 0, 1000,
         "the same for a register the FP64 pipe wrote (DADD, DMUL, DFMA; Hopper: 3; 0: none)"),
      sm("sm.guard_delay", &SmConfig::guard_delay, 0, 1000,
         "cycles an instruction waits, beyond a dependent's one, for its guard predicate (@p) "
         "when a fixed-latency pipe wrote it (setp: ISETP, FSETP; Hopper: 9; 0: none)"),
      sm("sm.xpipe_delay", &SmConfig::xpipe_delay, 0, 1000,
         "cycles more an ALU instruction waits for the FMA pipe's result (FP32, FP16, IMAD), and "
         "an "
         "FMA-pipe instruction for the ALU's, than for its own pipe's (Hopper: 1; 0: none)"),
      sm("sm.taken_branch_fetch", &SmConfig::taken_branch_fetch, 0, 1000,
         "cycles from a taken guarded branch's issue to the first issue of its target, fetched "
         "once the branch has issued (Hopper: 11; 0: none)"),
      sm("sm.icache_miss_cycles", &SmConfig::icache_miss_cycles, 0, 100000,
         "cycles from the request of an instruction line (128 bytes, eight instructions) the SM "
         "has not fetched in this launch to its arrival; warps wait in no_instruction (0: no "
         "instruction cache misses)"),
      sm("sm.icache_prefetch_lines", &SmConfig::icache_prefetch_lines, 0, 4096,
         "instruction lines after the one a warp first reaches that the SM requests with it"),
      sm("sm.const_miss_cycles", &SmConfig::const_miss_cycles, 0, 100000,
         "cycles from the request of a constant line (64 bytes of the parameters or of .const) the "
         "SM has not fetched in this launch to its arrival; warps wait in imc_miss (0: no "
         "constant cache misses)"),
      sm("sm.lat_fp64", &SmConfig::lat_fp64, 0, 100000,
         "cycles, FP64 arithmetic (the FP64 pipe); 0: sm.lat_alu"),
      sm("sm.lat_cvt64", &SmConfig::lat_cvt64, 0, 100000,
         "cycles, a conversion to or from f64 (F2F.F64.F32, F2F.F32.F64, I2F.F64, F2I.F64) on the "
         "SFU's lanes (Hopper: 18); 0: sm.lat_sfu"),
      sm("sm.lat_tensor", &SmConfig::lat_tensor, 0, 100000,
         "cycles, an mma whose tensor unit interval is 1; a shape holding the unit I cycles takes "
         "lat_tensor + I - 1; 0: sm.lat_alu"),
      sm("sm.tensor_fmas", &SmConfig::tensor_fmas, 0, 1 << 20,
         "dense FP16 multiply-adds per cycle of a sub-core's tensor unit: mma.mMnNkK holds it "
         "ceil(M*N*K / tensor_fmas) cycles (TF32 half, INT8 twice, INT4 4x, b1 16x, FP64 1/16 the "
         "rate); 0: no "
         "tensor core"),
      sm("sm.tensor_step_fmas", &SmConfig::tensor_step_fmas, 0, 1 << 20,
         "dense FP16 multiply-adds one step of an mma does with an f32 accumulator, twice that "
         "with an f16 one (Volta's HMMA.884: 256); the result is ready lat_tensor after the last "
         "step starts; 0: steps of one cycle"),
      sm("sm.wgmma_fmas", &SmConfig::wgmma_fmas, 0, 1 << 20,
         "dense FP16 multiply-adds per cycle of a sub-core's tensor core for wgmma: a warp's 16 "
         "rows of m64nNkK hold it ceil(16*N*K / wgmma_fmas) cycles (TF32 half, INT8 twice the "
         "rate); 0: no wgmma"),
      sm("sm.lat_wgmma", &SmConfig::lat_wgmma, 0, 100000,
         "the fewest cycles a wgmma holds its sub-core's tensor core (a chain of small products "
         "into one accumulator goes no faster)"),
      sm("sm.gpc_sms", &SmConfig::gpc_sms, 0, 1024,
         "SMs of a GPC (SM i is in GPC i / gpc_sms): a cluster's CTAs run on different SMs of one "
         "GPC; 0: no clusters in the cycle model"),
      sm("sm.max_cluster", &SmConfig::max_cluster, 0, 1024,
         "the most CTAs a thread-block cluster may have (.reqnctapercluster)"),
      sm("sm.lat_dsm", &SmConfig::lat_dsm, 0, 100000,
         "cycles from issue to the result of a load or atomic on another CTA's shared memory "
         "(distributed shared memory, over the SM-to-SM network)"),
      sm("sm.dsm_bytes_per_cycle", &SmConfig::dsm_bytes_per_cycle, 0, 4096,
         "bytes a cycle of the SM's port to the SM-to-SM network: an access to another CTA's "
         "shared memory holds the SM's shared-memory port ceil(32 x segments / this) cycles"),
      sm("sm.lat_sfu", &SmConfig::lat_sfu, 1, 100000,
         "cycles, special-function unit (sin, cos, ex2, lg2, rcp, sqrt, rsqrt, div, rem)"),
      sm("sm.lat_branch", &SmConfig::lat_branch, 1, 100000,
         "cycles, bra/ret/exit: the warp's next instruction waits for it (Fermi BRA: 32, seed 000 "
         "§III)"),
      sm("sm.lat_shared_ld", &SmConfig::lat_shared_ld, 1, 100000,
         "cycles, conflict-free shared load (Fermi: 32, seed 000 §III Read state)"),
      sm("sm.lat_shared_st", &SmConfig::lat_shared_st, 1, 100000,
         "cycles, conflict-free shared store (Fermi: 36, seed 000 §III Write state)"),
      sm("sm.lat_shared_atom", &SmConfig::lat_shared_atom, 1, 100000,
         "cycles, conflict-free shared atomic on a native atomic unit (atomics.locks = 0 or "
         "atomics.model = native; Fermi's would be its t_base, 108)"),
      sm("sm.lat_const", &SmConfig::lat_const, 1, 100000,
         "cycles, ld.param / ld.const (constant-cache hit)"),
      sm("sm.global_latency", &SmConfig::global_latency, 1, 100000,
         "cycles from a global/local load's request to its data returning for writeback"),
      sm("sm.global_bytes_per_cycle", &SmConfig::global_bytes_per_cycle, 1, 4096,
         "bytes per cycle one SM's global requests may move, counted in 32-byte sectors"),
      sm("sm.global_atomic_latency", &SmConfig::global_atomic_latency, 1, 100000,
         "cycles, global atomic (a fixed cost; no DRAM model)"),
      sm("sm.l1_unified_bytes", &SmConfig::l1_unified_bytes, 0, 1u << 20,
         "bytes of SRAM L1 and shared memory share per SM; what the launch's carve-out leaves is "
         "the L1 of global and local loads (0: no L1)"),
      sm_str("sm.carveouts", &SmConfig::carveouts,
             "shared-memory carve-outs of that SRAM, KiB, ascending (\"0,8,16,32,64,96\"): the "
             "launch takes the smallest holding its resident CTAs' shared memory; \"\": "
             "memory.size_bytes"),
      sm("sm.l1_sets", &SmConfig::l1_sets, 1, 65536,
         "sets of the L1 (128-byte lines of four 32-byte sectors, LRU); its ways are its "
         "capacity's"),
      sm("sm.l1_latency", &SmConfig::l1_latency, 0, 100000,
         "cycles an L1 hit's data takes to return after its request, beyond the LSU's path "
         "(sm.lat_shared_ld), as sm.global_latency for DRAM"),
      sm("sm.l1_bytes_per_cycle", &SmConfig::l1_bytes_per_cycle, 0, 65536,
         "bytes per cycle of L1 hits one SM's requests may move (0: no limit)"),
      sm("sm.l2_bytes", &SmConfig::l2_bytes, 0, 1u << 28,
         "bytes of L2 on the GPU, in sm.l2_slices slices (0 slices: each SM models its share, "
         "l2_bytes / sm.count; 0 bytes: no L2)"),
      sm("sm.l2_ways", &SmConfig::l2_ways, 1, 1024,
         "ways of the L2 (128-byte sectored lines, LRU)"),
      sm("sm.l2_latency", &SmConfig::l2_latency, 0, 100000,
         "cycles an L2 hit's data (an L1 miss) takes to return after its request, beyond the "
         "LSU's path (sm.lat_shared_ld)"),
      sm("sm.l2_bytes_per_cycle", &SmConfig::l2_bytes_per_cycle, 0, 65536,
         "bytes per cycle of L2 hits one SM's requests may move (0: no limit); with sm.l2_slices, "
         "of every sector its L1 did not hold: the SM's port to the L2"),
      sm("sm.l2_write_bytes_per_cycle", &SmConfig::l2_write_bytes_per_cycle, 0, 65536,
         "with sm.l2_slices, bytes per cycle of stores' sectors one SM sends toward the L2 (its "
         "port's other way; 0: stores share sm.l2_bytes_per_cycle with the loads)"),
      sm("sm.l2_slices", &SmConfig::l2_slices, 0, 4096,
         "slices of one L2 every SM shares (0: each SM models its share, l2_bytes / sm.count, "
         "and its share of the L2's and DRAM's bandwidth)"),
      sm("sm.l2_slice_bytes_per_cycle", &SmConfig::l2_slice_bytes_per_cycle, 0, 65536,
         "bytes per cycle one L2 slice moves (sm.l2_slices; hits, fills and writes alike)"),
      sm_str("sm.l2_hash", &SmConfig::l2_hash,
             "how a 128-byte line picks its L2 slice: xor (the line's address folded by XOR, "
             "then modulo the slices) or mod (the line's address modulo the slices)"),
      sm("sm.dram_channels", &SmConfig::dram_channels, 1, 4096,
         "DRAM channels behind a shared L2 (sm.l2_slices): slice s is channel s x channels / "
         "slices's; together they move sm.dram_bytes_per_cycle bytes a cycle"),
      sm("sm.dram_bytes_per_cycle", &SmConfig::dram_bytes_per_cycle, 0, 1u << 20,
         "bytes per cycle the DRAM channels behind a shared L2 (sm.l2_slices) move together, "
         "split evenly among them (0: sm.global_bytes_per_cycle x sm.count)"),
      sm("sm.l2_queue_sectors", &SmConfig::l2_queue_sectors, 1, 65536,
         "sectors an L2 slice holds waiting before an SM's request to it must wait"),
      sm("sm.dram_queue_sectors", &SmConfig::dram_queue_sectors, 1, 65536,
         "sectors a DRAM channel holds waiting before its L2 slices must wait"),
      sm("sm.l2_atomic_cycles", &SmConfig::l2_atomic_cycles, 0, 100000,
         "cycles the L2 takes per update of one address: a global atomic with N lanes on one word "
         "returns (N - 1) x this later (0: no serialization)"),
      sm_str("sm.pipeline", &SmConfig::pipeline,
             "pipeline: unified (004 Fig. 4a), split (004 Fig. 4b) or elastic (004 §3.2, Figs. "
             "5-6)"),
      sm_str("sm.scheduler", &SmConfig::scheduler,
             "warp scheduler: lrr (loose round robin), gto (greedy then oldest), bank-aware (004 "
             "§4: memory warps masked within the safe distance of a conflicting shared warp) or "
             "bank-aware-fill (004 footnote 10: ... unless no other warp is ready)"),
      sm_str("sm.barrel", &SmConfig::barrel,
             "relaxed (a warp issues while its independent instructions are in flight) or strict "
             "(one instruction per warp in flight: barrel processing, 004 §6)"),
      sm_str("sm.premem", &SmConfig::premem,
             "elastic pipeline: eq3 (a PREMEM queue of ceil(warp.size / simd_width) - 1 entries "
             "before MEM0, 004 Eq. 3) or none"),
      sm_str("sm.nonmem_ready", &SmConfig::nonmem_ready,
             "elastic pipeline: a non-memory op may write back from the cycle after EXE (exe: the "
             "multiplexer is driven by valid signals, 004 §3.2.4) or not before the fixed NONMEM "
             "path's M stages (fixed: the other reading of 004's \"matured\")"),
      sm_str("sm.bank_aware_base", &SmConfig::bank_aware_base,
             "the policy a bank-aware scheduler applies to the warps it does not mask: lrr or gto "
             "(004 §4.3: the baseline's)"),
      sm("sm.bkconf_sets", &SmConfig::bkconf_sets, 1, 65536,
         "sets of the bank conflict history cache (004 §4.4: 256)"),
      sm("sm.bkconf_ways", &SmConfig::bkconf_ways, 1, 64,
         "ways of the bank conflict history cache (004 §4.4: 2)"),
      sm("sm.bkconf_pc_bits", &SmConfig::bkconf_pc_bits, 1, 32,
         "PC bits the history cache's tags assume, for its size in bytes (004 §4.4: 14)"),
      sm_str("sm.relaxed_commit", &SmConfig::relaxed_commit,
             "relaxed barrel processing in the elastic pipeline: out-of-order (a warp's "
             "instructions may commit out of order) or in-order (the scheduler issues nothing more "
             "from a warp whose shared access is predicted to conflict; 004 §6)"),
      // GPU-LocalTM (seed 003; docs/tm.md): only kernels with TX_BEGIN/TX_COMMIT read these.
      tm_str(
          "tm.detector", &TmConfig::detector,
          "transactional conflict detector: bloom (per-thread, per-bank signatures, 003 §3.3) or "
          "exact (perfect ownership tracking, no false conflicts)"),
      tm("tm.bloom_bits", &TmConfig::bloom_bits, 1, 64, "bits per Bloom signature (003 §3.3: 8)"),
      tm_str("tm.bloom_index", &TmConfig::bloom_index,
             "what a signature hashes: position ((word / banks) % bloom_bits, 003 §3.3's example) "
             "or word (word % bloom_bits)"),
      tm_str("tm.timing", &TmConfig::timing,
             "transactional costs in the cycle model: paper (the tm.*_cycles below, 003 §4.2) or "
             "perfect (none, 003 §5.1.4)"),
      tm("tm.begin_cycles", &TmConfig::begin_cycles, 0, 1000,
         "cycles TX.Begin adds: masks and register backup in parallel (003 §4.2: 1)"),
      tm("tm.commit_cycles", &TmConfig::commit_cycles, 0, 1000,
         "cycles TX.Commit adds to clear the committing lanes' signatures (003 §4.2: 1)"),
      tm("tm.bloom_cycles", &TmConfig::bloom_cycles, 0, 1000,
         "cycles a transactional shared access adds for the signature query (003 §4.2: 1)"),
      tm("tm.new_access_cycles", &TmConfig::new_access_cycles, 0, 1000,
         "cycles per new access in a bank: backup and ownership write (003 §4.2: 2)"),
      tm("tm.owner_check_cycles", &TmConfig::owner_check_cycles, 0, 1000,
         "cycles per repeated access in a bank: the ownership check (003 §4.2: 1)"),
      tm("tm.entry_cycles", &TmConfig::entry_cycles, 0, 1000,
         "cycles per shadow entry cleared or restored, in the slowest bank (003 §4.2: 1)"),
  };
  return k;
}

}  // namespace smemsim::arch_detail

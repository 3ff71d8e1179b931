// Architecture presets. Every number names its source; presets whose latencies were not measured on
// that GPU say so (calibrated = false) and inherit the Fermi values or a documented placeholder.
#include <fmt/format.h>

#include <cctype>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "util/names.hpp"

namespace smemsim {
namespace {

Arch fermi(std::string name, std::string description) {
  Arch a;
  a.name = std::move(name);
  a.description = std::move(description);
  // Seed 000 §II: 48 KB, 32 banks of 4-byte words, 1024 lock bits indexed by word-address bits 0..9
  // (byte-address bits 11:2). Seed 001 §2.1.1-2.1.2: t_base 108, t_position 120, t_bank 32 (GTX
  // 580). Seed 000 §III: FSM Read 32, Update 18, Write 36, Branch 32 (asfermi microbenchmarks).
  a.memory_bytes = 48 * 1024;
  a.banks = 32;
  a.bank_width_bytes = 4;
  a.warp_size = 32;
  a.transaction_lanes = 32;
  a.atomic_model = "alg1";
  a.locks = 1024;
  // A lock hash (seed 000 §IV) maps the word bits above the locks to the lock-within-bank bits:
  // 32 lock bits in each of the 32 banks (000 Fig. 3). docs/models.md gives both readings.
  a.lock_hash_bits = "in-bank";
  a.timing = Timing{};  // the Timing defaults are the GTX 580 values above
  a.timing.native_base = a.timing.t_base;
  a.timing.native_position = a.timing.t_position;
  // Plain load/store base latencies: the FSM's Read (32) and Write (36) state of seed 000 §III;
  // each extra conflict level adds t_bank (seed 001 §2.1.2).
  a.timing.ld_base = 32;
  a.timing.st_base = 36;
  // The SM (cycle-level model, docs/timing.md): the SmConfig defaults are the GTX 580 setting.
  // Seed 000 §V simulates a GTX 580 (16 SMs); residency limits are GPGPU-Sim's Fermi config
  // (1536 threads, 8 CTAs, 32768 registers per SM). Latencies from the asfermi measurements of 000
  // §III: ALU (IADD) 18, branch 32, shared load 32 and store 36 cycles. A warp passes in one cycle
  // (GPGPU-Sim models Fermi's two 16-wide groups the same way). Front end 2 stages and 2 memory
  // stages are our choice; the EXE depth of each unit makes up the rest of its latency. SFU,
  // constant and global latencies and the 8 bytes/cycle per SM (GTX 580: 192.4 GB/s over 16 SMs at
  // 1544 MHz = 7.8) are uncalibrated assumptions.
  a.sm = SmConfig{};
  return a;
}

std::vector<Arch> build() {
  std::vector<Arch> v;

  Arch gtx580 = fermi("fermi-gtx580", "NVIDIA GTX 580 (Fermi, c.c. 2.0): lock-loop shared atomics");
  gtx580.source = "seed 001 §2.1 (t_base/t_position/t_bank, 1024 locks); seed 000 §II-III (FSM)";
  gtx580.calibrated = true;
  gtx580.compute_capability = 20;
  v.push_back(gtx580);

  Arch gtx480 = fermi("fermi-gtx480", "NVIDIA GTX 480 (Fermi GF100): same SM memory as GTX 580");
  gtx480.sm.count = 15;  // GF100 enables 15 of its 16 SMs
  gtx480.compute_capability = 20;
  // Fermi's SM (NVIDIA Fermi whitepaper, 2009): two warp schedulers, each issuing one warp
  // instruction per cycle to one of the unit groups they share: 2 x 16 CUDA cores, 16 LD/ST
  // units, 4 SFUs (GPGPU-Sim's GTX480 config: -gpgpu_num_sched_per_core 2). The cores and SFUs
  // run at twice the schedulers' clock: 64 and 8 lanes per scheduler cycle, so both schedulers can
  // issue an ALU instruction in one cycle and an SFU instruction holds the SFUs 4 cycles. The
  // seeds' GTX 580 keeps one issue slot (its exact-cycle studies were derived on it).
  gtx480.sm.subcores = 2;
  gtx480.sm.unit_scope = "sm";
  gtx480.sm.lanes_alu = 64;
  gtx480.sm.lanes_sfu = 8;
  gtx480.source =
      "geometry of seed 000 §II (Fermi); two schedulers and unit groups of the Fermi whitepaper; "
      "latencies assumed equal to the GTX 580 of seed 001 §2.1";
  v.push_back(gtx480);

  Arch k20 =
      fermi("kepler-k20", "NVIDIA K20 (Kepler GK110): 32 banks x 8 bytes, lock-loop atomics");
  k20.bank_width_bytes = 8;
  k20.sm.count = 13;  // K20: 13 SMX, 2048 threads, 16 CTAs and 65536 registers each (cc 3.5)
  k20.sm.max_threads = 2048;
  k20.sm.max_warps = 64;
  k20.sm.max_ctas = 16;
  k20.sm.registers = 65536;
  k20.compute_capability = 35;
  k20.source =
      "seed 002 §2 (48 KB, 32 banks of 8 bytes); lock unit and latencies assumed equal to Fermi "
      "(seed 001 §2.1), uncalibrated";
  v.push_back(k20);

  Arch gt200 = fermi("tesla-gt200", "NVIDIA GT200 (Tesla, c.c. 1.3): 16 banks, half-warp requests");
  gt200.memory_bytes = 16 * 1024;
  gt200.banks = 16;
  gt200.transaction_lanes = 16;
  gt200.sm.count = 30;  // GTX 280: 30 SMs of 8 SPs, 1024 threads, 8 CTAs, 16384 registers
  gt200.sm.max_threads = 1024;
  gt200.sm.max_warps = 32;
  gt200.sm.registers = 16384;
  gt200.sm.simd_width = 8;
  gt200.compute_capability = 13;
  gt200.source =
      "seed 002 §7.2 (GTX 280: 16 banks); 16 KB and half-warp transactions per the CUDA guide for "
      "c.c. 1.x; lock unit and latencies assumed equal to Fermi, uncalibrated";
  v.push_back(gt200);

  Arch si = fermi("southern-islands",
                  "AMD Southern Islands (GCN) as in Multi2Sim 4.2: 64 KB LDS, 32 banks, 64-wide "
                  "wavefronts served as two half-wavefronts");
  si.memory_bytes = 64 * 1024;  // seed 003 Table 2 prints 65546 bytes, a typo for 65536
  si.banks = 32;
  si.warp_size = 64;
  si.transaction_lanes = 32;   // seed 002 §3: a transaction is a half-wavefront on AMD
  si.atomic_model = "native";  // LDS atomics execute in the LDS, no lock loop
  si.locks = 0;
  si.timing.ld_base = 2;  // seed 003 Table 2: LDS latency 2 cycles
  si.timing.st_base = 2;
  si.timing.t_bank = 1;  // one access per bank per cycle (seed 003 §2: conflicts serialize)
  si.timing.native_base = 2;
  si.timing.native_position = 1;
  // HD 7970 as in Multi2Sim 4.2: 32 compute units, 40 wavefronts of 64 each, 16-wide SIMDs (a
  // wavefront passes in 4 cycles). The cycle-level latencies are uncalibrated placeholders: a
  // 1-stage front end and memory stage, LDS accesses the pipeline's minimum of 4 cycles.
  si.sm.count = 32;
  si.sm.max_threads = 2560;
  si.sm.max_warps = 40;
  si.sm.max_ctas = 16;
  si.sm.max_cta_threads = 256;  // seed 003 §2: "a maximum of 256 work-items per work group"
  si.sm.registers = 65536;
  si.sm.simd_width = 16;
  si.sm.frontend_stages = 1;
  si.sm.mem_stages = 1;
  si.sm.lat_alu = 4;
  si.sm.lat_sfu = 16;
  si.sm.lat_branch = 8;
  si.sm.lat_shared_ld = 4;
  si.sm.lat_shared_st = 4;
  si.sm.lat_shared_atom = 4;
  si.sm.lat_const = 4;
  si.source = "seed 003 Table 2 and §2 (LDS geometry, 2-cycle latency); atomic costs uncalibrated";
  v.push_back(si);

  Arch cf11 = fermi("cf11", "The GPU of the elastic-pipeline paper: 16 KB, 8 banks, 8-wide SIMD");
  cf11.memory_bytes = 16 * 1024;
  cf11.banks = 8;
  cf11.transaction_lanes = 8;  // seed 004 Table 3: 8-wide SIMD, 32-thread warps in 4 sub-warps
  cf11.locks = 1024;
  cf11.timing.ld_base = 4;  // seed 004 Table 3: 4 memory pipeline stages
  cf11.timing.st_base = 4;
  cf11.timing.t_bank = 1;  // seed 004 Table 3: 1 access per core cycle per bank
  // Seed 004 Table 3: 16 cores, 8-wide SIMD, 24 stages with 4 memory stages, 1024 threads, 8 CTAs
  // and 16384 registers per core, strict barrel processing, round-robin scheduling, baseline
  // (unified) pipeline. We read the 24 stages as 18 front end + 1 EXE + 4 MEM + 1 writeback, so
  // every instruction takes 24 cycles. The lock loop's four instructions take the pipeline's 24
  // cycles each (004 has no atomics; Fermi's 18-cycle IADD is shorter than this pipeline).
  cf11.sm.count = 16;
  cf11.sm.max_threads = 1024;
  cf11.sm.max_warps = 32;
  cf11.sm.max_ctas = 8;
  cf11.sm.registers = 16384;
  cf11.sm.simd_width = 8;
  cf11.sm.frontend_stages = 18;
  cf11.sm.mem_stages = 4;
  for (std::uint32_t* lat :
       {&cf11.sm.lat_alu, &cf11.sm.lat_sfu, &cf11.sm.lat_branch, &cf11.sm.lat_shared_ld,
        &cf11.sm.lat_shared_st, &cf11.sm.lat_shared_atom, &cf11.sm.lat_const})
    *lat = 24;
  cf11.timing.fsm_read = cf11.timing.fsm_update = cf11.timing.fsm_write = 24;
  cf11.timing.fsm_branch = 24;
  // 004 Table 3: 51.2 GB/s of DRAM bandwidth for 16 cores; the core clock is not given: at an
  // assumed 800 MHz (the DRAM bus frequency) that is 4 bytes per cycle per core. An approximation:
  // no channels, banks, rows or FR-FCFS (docs/timing.md, "Global memory").
  cf11.sm.global_bytes_per_cycle = 4;
  cf11.sm.pipeline = "unified";
  cf11.sm.scheduler = "lrr";
  cf11.sm.barrel = "strict";
  cf11.source =
      "seed 004 Table 3 (geometry, memory stages); atomic latencies Fermi's, uncalibrated";
  v.push_back(cf11);

  // Native-atomic NVIDIA GPUs (Volta-Hopper): 32 banks x 4 B, no lock aliasing, and the SM of
  // processing blocks (docs/timing.md "Sub-cores"; docs/sources.md lists every value's source).
  // Sources named below:
  //   [WP]   NVIDIA's architecture whitepapers (V100 2017, Turing 2018, A100 2020, H100 2022):
  //          SM diagrams (4 processing blocks, lanes per block), tensor-core FMA/clock per SM.
  //   [NAK]  Mesa's NAK compiler, sm75_instr_latencies.rs / sm80_instr_latencies.rs, whose
  //          headers say NVIDIA provided the register-scheduling latencies.
  //   [CFG]  GPGPU-Sim / Accel-Sim tested configurations (configs/tested-cfgs/SM7_QV100,
  //          SM75_RTX2060, SM80_A100, SM90_H100 gpgpusim.config).
  //   [TV]   Accel-Sim's committed microbenchmark log of a TITAN V (GV100, same SM as V100):
  //          util/tuner/GPU_Microbenchmark/output.file.
  //   [NVF]  NVIDIA's answer on its developer forum: GV100's FMA pipe runs FP32 and IMAD, the ALU
  //          pipe integer add/logic/moves, each 16 lanes: a warp takes 2 cycles to dispatch.
  // An mma's latency is lat_tensor + I - 1, I = ceil(m*n*k / tensor_fmas) its interval; the
  // lat_tensor below is that solved for a measured shape, and checked against a second shape
  // where a source gives one.
  auto modern = [&](std::string name, std::string desc, std::uint32_t kib) {
    Arch a = fermi(std::move(name), std::move(desc));
    a.memory_bytes = kib * 1024;
    a.atomic_model = "native";
    a.locks = 0;
    // A wide shared load whose lanes pair up (n and n^1, or n and n^2, on one address) takes
    // half the wavefronts: [NVF2] NVIDIA's answer for cc 7.0-7.5 (forums.developer.nvidia.com/t/
    // 77228: the return path, 128 B a cycle, packs two lanes' registers: an LDS.128 takes 2
    // requests, not 4); a user's Nsight counts on cc 8.6 and 9.0 (/t/373160: 2 wavefronts); an
    // H200, matmul's LDS.128 from As[ty][k]: 12,288 load wavefronts for 10,240 LDS, 8,192 of
    // them scalar (calibration/runs/h100-2026-11-26/ncu.csv; docs/exec.md "Wide accesses").
    a.wide_access = "pairs";
    // The profile's per-access model (timing.*): no source gives these for Volta-Hopper yet;
    // assumed (issue 25: a GPU run of kernels/ubench would measure them).
    a.timing.ld_base = 30;
    a.timing.st_base = 30;
    a.timing.t_bank = 2;
    a.timing.native_base = 40;
    // Each extra lane on one word of a native shared atomic: 2 cycles, calibrated on the T4
    // (JIA19 Table 4.2: 2 to 32 lanes within 2.6 %; calibration/t4-jia2019.toml) and the V100.
    a.timing.native_position = 2;
    // 64 warps / 2048 threads / 32 CTAs / 65536 registers per SM (CUDA guide, cc 7.0-9.0).
    a.sm.max_threads = 2048;
    a.sm.max_warps = 64;
    a.sm.max_ctas = 32;
    a.sm.registers = 65536;
    // Front end and memory stages: assumed 1 each (the shortest latency, 4, is the measured
    // dependent ALU latency).
    a.sm.frontend_stages = 1;
    a.sm.mem_stages = 1;
    // Four processing blocks per SM, each with 16 INT32 and 4 SFU lanes [WP]; its own units.
    a.sm.subcores = 4;
    a.sm.unit_scope = "subcore";
    a.sm.lanes_alu = 16;
    a.sm.lanes_sfu = 4;
    // [NVF-MIO] NVIDIA's forum: each block sends its load/store instructions to a FIFO of its own
    // before the MIO scheduler the blocks share; the depth is not published: assumed 8.
    a.sm.mio_queue = 8;
    // Two results written back per cycle per block: Accel-Sim's SM7_QV100 (line 90), SM75_RTX2060
    // and SM86_RTX3070 (line 44) give -gpgpu_pipeline_widths an EX_WB width of 8 over 4
    // schedulers (lines 132, 79), two result buses each; no config of an H100 read: assumed
    // the same. With one, the TITAN V's half2 throughput lands 13 % low (docs/calibration.md).
    a.sm.writeback_ports = 2;
    // The code as ptxas emits it (issue 42, docs/timing.md "Lowering"): fused multiply-adds,
    // addresses folded into the memory instructions' modes, free truncations and copies. Every
    // rule's source is in src/lower/lower.hpp.
    // sin/cos's expansion (`sincos`) is left out: it is read in sm_90's SASS only (hopper-h100).
    // Constants as operands (`imm`): ptxas 13.0's SASS for sm_75 and sm_80 of atomic_bench's
    // zeroing loop, `STS [R0.X4], RZ` with the shared base folded (calibration/runs/
    // h200-2026-11-28/sass.tar.gz; CUDA 13 emits no sm_70, whose ISA has RZ and the same
    // immediate fields). It moves no published figure's replica by more than 0.002 cycles.
    // A counted innermost loop is 4x (`unroll`, src/lower/unroll.hpp): ptxas 13.0's SASS for
    // sm_75, sm_80 and sm_90 of rep_ffma alike (64 FFMAs a trip for the PTX's 16).
    a.sm.lower = "fma,imad,lea,addr,scaled,cvt,mov,imm,schedule,unroll";
    a.sm.lat_alu = 4;  // IADD3 -> dependent: 4 [NAK], [TV] 4.3, [CFG] 4
    a.sm.lat_fma = 4;  // FFMA -> dependent: 4 [NAK], [TV] 4.1, [CFG] 4
    // A branch holds its warp 5 cycles: ptxas 13.0's control codes give every BRA a stall count of
    // at least 5 on sm_75, sm_80 and sm_90 (843 of 865, 999 of 1,014 and 911 of 1,195 exactly 5;
    // scripts/sass-stalls.py's source, calibration/runs/h200-2026-11-28/sass.tar.gz). Volta
    // assumed the same (CUDA 13 emits no sm_70). A taken branch's fetch is
    // sm.taken_branch_fetch (hopper-h100 only).
    a.sm.lat_branch = 5;
    a.sm.lat_const = 8;  // assumed: no source found
    // The guard delay (docs/timing.md "Guard delay"): ptxas 13.0's control codes for sm_75
    // (calibration/runs/h200-2026-11-28/sass.tar.gz, every kernel of kernels/ptx) put at least 12
    // cycles from an ISETP, FSETP, LOP3 or PLOP3 to the instruction its predicate guards (408 of
    // 521 branches exactly 12), 4 to a SEL reading it: 12 - lat_alu 4. Volta assumed the same
    // (CUDA 13 emits no sm_70; Turing keeps Volta's control codes); Ampere and Hopper below: 13.
    a.sm.guard_delay = 8;
    // The cross-pipe delay (docs/timing.md "Cross-pipe delay"): the same control codes put most
    // often 5 cycles from an IADD3, LOP3, SHF, LEA or ISETP to a dependent IMAD, FFMA, FMUL or
    // FADD and back (588 of 923 such pairs on sm_75, 890 of 1,371 on sm_80, 948 of 1,553 on
    // sm_90; fewer in under 2 %), 4 within a pipe (scripts/sass-stalls.py): 1 on every modern
    // preset, Volta assumed the same.
    a.sm.xpipe_delay = 1;
    // A shared atomic's latency and each extra lane on its word (timing.native_position, above):
    // calibrated on the V100 and T4 (JIA19 Table 4.2, per preset below); the A100 and H100 take
    // the T4's gap over the shared load, 3, and its 2 a lane (assumed: no measurement of theirs).
    a.sm.lat_shared_atom = 40;
    a.sm.global_atomic_latency = 600;  // assumed
    // Caches (issue 44, docs/timing.md "Caches"): the L1 in the SRAM shared memory leaves, 4 sets
    // of 128-byte lines ([CFG] -gpgpu_cache:dl1 S:4:128:...), its hits' data path 128 B/clk
    // (assumed: 4 sectors a cycle; the TITAN V log measures 113.9 B/clk/SM). The sizes, the
    // carve-outs, the L2's ways and the latencies are per preset below. A hit's latency key is
    // what it adds to the LSU's path (sm.lat_shared_ld, as sm.global_latency does), solved by
    // running the measuring chase (calibrate).
    a.sm.l1_sets = 4;
    a.sm.l1_bytes_per_cycle = 128;
    a.sm.l2_ways = 16;
    // [TV] every thread of 160 CTAs adding to one global word moves 0.4645 B/clk: one 4-byte
    // update per 8.6 cycles at the word's L2 slice. Assumed the same on the others.
    a.sm.l2_atomic_cycles = 9;
    // One L2 every SM shares (docs/timing.md "The shared L2"), its slices and channels per preset
    // below; a slice's queue and a channel's hold 64 sectors ([CFG] QV100
    // -gpgpu_dram_partition_queues 64:64:64:64, entries of a sector here). An SM's port to the
    // L2 2 sectors a cycle (assumed; the H100's is calibrated).
    a.sm.l2_bytes_per_cycle = 64;
    a.sm.l2_queue_sectors = 64;
    a.sm.dram_queue_sectors = 64;
    a.sm.global_latency = 500;  // assumed
    a.source =
        "CUDA guide (geometry); NVIDIA whitepapers (processing blocks, lanes, tensor rate); "
        "NVIDIA-provided latency tables in Mesa NAK, GPGPU-Sim/Accel-Sim tested configs and a "
        "TITAN V microbenchmark log (latencies); docs/sources.md gives each key's";
    v.push_back(a);
  };
  modern("volta-v100", "NVIDIA V100 (Volta): 96 KB shared memory, native shared atomics", 96);
  {
    Arch& a = v.back();
    a.sm.count = 80;
    a.compute_capability = 70;
    a.sm.lanes_fma = 16;  // [WP] 16 FP32 per block
    a.sm.lanes_fp64 = 8;  // [WP] 8 FP64 per block
    a.sm.lat_fp64 = 8;    // DFMA: [TV] 8.07, [CFG] QV100 8
    // HFMA2: [TV] half2 chain 6.18 a step, calibrated (its replica, fused as ptxas fuses it:
    // 6.01); the FMA pipe's other types take 4.
    a.sm.lat_fp16 = 6;
    // [CFG] SM7_QV100 (line 134) schedules lrr; with it the TITAN V log's throughput figures are
    // within 2 % (gto: the SFU's 7 % low; docs/calibration.md). The other modern presets keep
    // gto until a measurement of their GPU decides (docs/sources.md).
    a.sm.scheduler = "lrr";
    a.sm.lat_sfu = 21;        // [TV] sqrt.approx 21.1
    a.sm.lat_shared_ld = 27;  // [TV] shared-memory pointer chase 27.0 ([CFG] QV100: 20)
    a.sm.lat_shared_st = 27;  // assumed equal to the load
    // [JIA19] Table 4.2, V100: an atomic on a shared word then a load of it take 6 more than the
    // load; its replica gives 6.01 with 28 (one more than the load's 27).
    a.sm.lat_shared_atom = 28;
    // [TV] DRAM pointer chase 313 cycles a link; our key is request to return, so it is that less
    // the LSU's path to MEM0 and the sector's transfer: 292 makes kernels/ubench.cu's chase
    // (ubench_ldg) take 313 in the model (tests/ubench_test.cpp).
    a.sm.global_latency = 292;
    // [TV] atomicAdd chase 243.6 a hop, calibrated (issue 42, `smemsim calibrate
    // calibration/titanv-accelsim.toml`): the hop is the atomic plus its address arithmetic (an
    // IMAD.WIDE), so the key that makes the replica take 243.8 is 214, not the figure itself.
    a.sm.global_atomic_latency = 214;
    // [WP] 900 GB/s / (80 SMs x 1530 MHz) = 7.35 an SM (the path without a shared L2). The DRAM
    // behind the shared L2: 588 B/clk at 1,530 MHz, x 441 / 448.7, what the TITAN V's DRAM figure
    // asks of its own theoretical rate ([TV] mem_bw 445.8 B/clk, its replica 443.3 with 441 where
    // 652.8 GB/s at 1,455 MHz is 448.7: calibration/titanv-accelsim-memory.toml): 578.
    a.sm.global_bytes_per_cycle = 7;
    a.sm.dram_bytes_per_cycle = 578;
    // [GUIDE] cc 7.0: 128 KB of L1 and shared memory per SM, shared carve-outs 0, 8, 16, 32, 64 or
    // 96 KB ([CFG] -gpgpu_shmem_option 0,8,16,32,64,96, -gpgpu_unified_l1d_size 128). [WP] 6 MB of
    // L2, 24-way ([CFG] -gpgpu_cache:dl2 S:32:128:24), in 64 slices behind 32 channels ([CFG]
    // -gpgpu_n_mem 32, -gpgpu_n_sub_partition_per_mchannel 2). A slice's rate calibrated on the
    // TITAN V's 48 of the same slices ([TV] l2_bw_64f 1,384.5 B/clk; its replica 1,379 with 29,
    // 1,345 with 28: calibration/titanv-accelsim-memory.toml). Latencies calibrated: [TV] L1
    // chase 33.7, L2 (.cg) chase 211.1.
    a.sm.l1_unified_bytes = 128 * 1024;
    a.sm.carveouts = "0,8,16,32,64,96";
    a.sm.l2_bytes = 6 * 1024 * 1024;
    a.sm.l2_ways = 24;
    a.sm.l2_slices = 64;
    a.sm.l2_slice_bytes_per_cycle = 29;
    a.sm.dram_channels = 32;
    a.sm.l1_latency = 2;
    a.sm.l2_latency = 185;
    // [WP] 8 tensor cores of 64 FP16 FMA/clock per SM: 128 per block. A wmma m16n16k16 (4096
    // FMA, I = 32) is 16 HMMA.884.F32 steps with an f32 accumulator and 8 HMMA.884.F16 ones with
    // an f16 one (the benchmark's sm_70 SASS listings, ubench/core/tensor_bw_half/sass.txt and
    // sassfloat.txt: four sets of STEP0-STEP3 or STEP0-STEP1): 256 or 512 FMAs, 2 or 4 cycles a
    // step. [TV] f32: 35.4 cycles, lat_tensor = 35 - (32 - 2) = 5; then f16 takes 5 + 32 - 4 =
    // 33, [TV]'s 33.0.
    a.sm.tensor_fmas = 128;
    a.sm.tensor_step_fmas = 256;
    a.sm.lat_tensor = 5;
  }
  // Turing (c.c. 7.5, issue 16): 64 KB of shared memory, 1,024 threads, 32 warps and 16 CTAs per
  // SM (CUDA C++ Programming Guide, compute capability table); T4: 40 SMs.
  modern("turing-t4", "NVIDIA T4 (Turing): 64 KB shared memory, native shared atomics", 64);
  {
    Arch& a = v.back();
    a.sm.count = 40;
    a.sm.max_threads = 1024;
    a.sm.max_warps = 32;
    a.sm.max_ctas = 16;
    a.compute_capability = 75;
    a.sm.lanes_fma = 16;  // [WP] 16 FP32 per block
    // [WP] 2 FP64 units per SM, 0.5 per block: one lane per block is the nearest a whole lane
    // count gets (FP64 twice as fast as the T4's).
    a.sm.lanes_fp64 = 1;
    // [JIA19] Table 4.1, T4: DFMA ~54 dependent, calibrated (its replica, a DFMA chain: 54.0).
    // NAK's DFMA 8 is the compiler's table; with it the chain takes the lane's interval, 32
    // (-41 %; calibration/t4-jia2019.toml).
    a.sm.lat_fp64 = 54;
    // [JIA19] Table 4.1, T4: HADD2/HMUL2/HFMA2 6, calibrated (the half2 chain, fused: 6.01);
    // the FMA pipe's 4 gave 4.26 (-29 %).
    a.sm.lat_fp16 = 6;
    // [JIA19] Table 4.1, T4: MUFU ~15 (the class: MUFU, POPC, FLO, BREV), calibrated: its replica,
    // a chain of sqrt.approx.ftz (MUFU.SQRT alone in ptxas 13.0's sm_75 SASS of rep_sqrt,
    // calibration/runs/h200-2026-11-28/sass.tar.gz), 15.0. The RTX 2060 config's 21 ([CFG]
    // -ptx_opcode_latency_sfu) gave 21.0 (+40 %).
    a.sm.lat_sfu = 15;
    // [JIA19] Table 4.1, T4: IMAD 5 where FFMA is 4, calibrated: its replica, an IMAD chain (IMAD
    // alone in the sm_75 SASS of rep_imad), 5.0; at the FMA pipe's 4 it was 4.05 (-19 %).
    a.sm.lat_imad = 5;
    // sin/cos are FMUL.RZ then MUFU.SIN/COS in ptxas 13.0's sm_75 SASS (rep_sin, fft, hough, as
    // in sm_90's): the `sincos` expansion, added to the Volta-Ampere rules.
    a.sm.lower += ",sincos";
    // [JIA19] Table 3.1, T4: shared memory 19, calibrated (its replica, the chase of loads on
    // their own results, 19.00). The RTX 2060 config's 30 ([CFG] -gpgpu_smem_latency) left the
    // T4's L1 hit (32 in the same table) out of reach: a global load's path is the shared load's
    // plus the L1's, and 30 + 1 already gives 35 (issue 44).
    a.sm.lat_shared_ld = 19;
    a.sm.lat_shared_st = 19;  // assumed equal to the load
    // [JIA19] Table 4.2, T4: the atomic before the load costs 8; its replica gives 8.01 with 22.
    a.sm.lat_shared_atom = 22;
    a.sm.global_bytes_per_cycle = 5;  // [WP] 320 GB/s / (40 SMs x 1590 MHz) = 5.03
    // [GUIDE] cc 7.5: 96 KB of L1 and shared memory, carve-outs 32 or 64 KB ([CFG] RTX2060
    // -gpgpu_shmem_option 32,64). [WP] T4: 4 MB of L2; 16 ways ([CFG] RTX2060 dl2 S:64:128:16).
    // Slices: 2 on each of 8 32-bit GDDR6 channels ([WP] 256-bit; 2 a channel as [CFG]'s),
    // each the H100's calibrated 26 B/clk (assumed: no measurement of this GPU). Latencies
    // calibrated: [JIA19] T4 L1 32, L2 188.
    a.sm.l1_unified_bytes = 96 * 1024;
    a.sm.carveouts = "32,64";
    a.sm.l2_bytes = 4 * 1024 * 1024;
    a.sm.l2_slices = 16;
    a.sm.l2_slice_bytes_per_cycle = 26;
    a.sm.dram_channels = 8;
    a.sm.l1_latency = 9;
    a.sm.l2_latency = 170;
    // [WP] 512 FP16 FMA/clock per SM: 128 per block. [NAK] HMMA.1688 (m16n8k8, 1024 FMA, I = 8)
    // 14: lat_tensor = 14 - 7 = 7; then m16n8k16 (I = 16) takes 22, [NAK]'s HMMA.16816: 22.
    a.sm.tensor_fmas = 128;
    a.sm.lat_tensor = 7;
  }
  modern("ampere-a100", "NVIDIA A100 (Ampere): 164 KB shared memory, native shared atomics", 164);
  {
    Arch& a = v.back();
    a.sm.count = 108;
    a.compute_capability = 80;
    a.sm.lanes_fma = 16;               // [WP] 16 FP32 per block
    a.sm.lanes_fp64 = 8;               // [WP] 8 FP64 per block
    a.sm.lat_fp64 = 6;                 // DFMA -> FP64 reader: 6 [NAK] ([CFG] A100: 6)
    a.sm.lat_sfu = 23;                 // [CFG] A100 -ptx_opcode_latency_sfu 23
    a.sm.lat_shared_ld = 28;           // [CFG] A100 -gpgpu_smem_latency 28
    a.sm.lat_shared_st = 28;           // assumed equal to the load
    a.sm.lat_shared_atom = 31;         // assumed: the load's 28 + the T4's calibrated gap, 3
    a.sm.global_bytes_per_cycle = 10;  // [WP] 1555 GB/s / (108 SMs x 1410 MHz) = 10.2
    // sm_80's control codes: 13 cycles from a setp to what it guards (478 of 603 branches).
    a.sm.guard_delay = 9;
    // [GUIDE] cc 8.0: 192 KB of L1 and shared memory, carve-outs 0, 8, 16, 32, 64, 100, 132 or
    // 164 KB. [WP] 40 MB of L2; 16 ways assumed ([CFG] RTX3070's); 80 slices (assumed: 80 x 64 B
    // make [WP]'s 5,120 B/clk of L2 read bandwidth), 2 on each of 40 channels ([WP] 5 HBM2
    // stacks of 8), each the H100's calibrated 26 B/clk (assumed: no measurement of this GPU).
    // Latencies calibrated: [LUO24] A100 L1 37.9, L2 261.5 (ABD22: 33, 200).
    a.sm.l1_unified_bytes = 192 * 1024;
    a.sm.carveouts = "0,8,16,32,64,100,132,164";
    a.sm.l2_bytes = 40 * 1024 * 1024;
    a.sm.l2_slices = 80;
    a.sm.l2_slice_bytes_per_cycle = 26;
    a.sm.dram_channels = 40;
    a.sm.l1_latency = 3;
    a.sm.l2_latency = 234;
    // [WP] 1024 FP16 FMA/clock per SM: 256 per block. [NAK] HMMA.16816 (2048 FMA, I = 8) 17:
    // lat_tensor = 17 - 7 = 10; then m16n8k8 (I = 4) takes 13, [NAK]'s HMMA.1688: 13.
    a.sm.tensor_fmas = 256;
    a.sm.lat_tensor = 10;
  }
  modern("hopper-h100", "NVIDIA H100 (Hopper): 228 KB shared memory, native shared atomics", 228);
  {
    Arch& a = v.back();
    a.sm.count = 132;
    a.compute_capability = 90;
    // [H100] the launch's own cost (Nsight Compute's gpc__cycles_elapsed.max of an empty kernel,
    // docs/calibration.md): one 32-thread CTA 4,054 cycles, of which the model's CTA takes 174
    // (its `ret`, 4, after the instruction cache's miss, 170); 1,320 and 13,200 CTAs 5,702 and
    // 20,092: 1.21 cycles a CTA GPU-wide, 5 every 6 cycles.
    a.sm.launch_cycles = 3880;
    a.sm.dispatch_ctas = 5;
    a.sm.dispatch_cycles = 6;
    // [H100] one CTA of 1,024 threads 4,192 cycles, of 32 threads 4,054: 4.45 cycles a warp for
    // 31 more; 5 puts the three 1,024-thread figures nearest (4,209, 4,366, 5,806 against 4,192,
    // 4,596, 6,014; 4 gives 4,178, 4,335, 5,760).
    a.sm.warp_start_cycles = 5;
    a.sm.lanes_fma = 32;   // [WP] 32 FP32 per block
    a.sm.lanes_fp64 = 16;  // [WP] 16 FP64 per block
    // [H200] IMAD throughput 127.2 (2 ops a mad) from 1,024 threads: 16 lanes a block run it,
    // half the FP32 lanes ([WP]: 16 INT32 a block).
    a.sm.lanes_imad = 16;
    // Calibrated to an H100 SXM and an H200, whose SM figures agree to four digits
    // (calibration/h100-measured.toml, h200-measured.toml, measured by scripts/calibrate for this
    // work, docs/gpu-runs.md "Measured on an H200 and an H100"):
    // - ptxas for sm_90 folds no scaled index into a shared address (the window's base is a
    //   uniform register that depends on the CTA's rank in its cluster): the chase's hop is LEA
    //   then LDS [R], as that GPU's SASS shows, so the `scaled` rule is off;
    // - lrr, as the V100's: with gto the H200's shared, FFMA and HFMA2 throughputs land 7-20 %
    //   lower than with lrr, and every one further from the measurement.
    // - sin/cos issue as FMUL.RZ then MUFU (the `sincos` rule), as that SASS shows;
    // - ex2.approx.f32 without .ftz issues as FSETP, FMUL, MUFU.EX2, FMUL (the `ex2` rule): the
    //   H200's opcode counts have one FSETP and two FMULs more per ex2, lavamd's 25,600 ex2 with
    //   25,600 FSETP and 76,800 FMUL (25,600 of them its mul.f32), attention's 512 with 512 FSETP
    //   (calibration/runs/h100-2026-11-27/ncu_opcodes_h200.csv);
    // - an MIO instruction reads a fixed-latency result late (docs/timing.md "Operand delay"):
    //   [H100] LDS, IMAD, LDS 30.17 and MUFU.SQRT, FFMA, MUFU.SQRT 24.17 a step, their loops'
    //   guard delays counted: mio_delay_fma 2 (their replicas 29.86 and 23.80; the sm_90 SASS
    //   has 6 cycles of stall counts from each IMAD to the LDS reading it, lat_fma 4 + 2);
    //   [H200] the index chase, LEA then LDS, 29.0 against 23.0 for loads alone: 2 over LEA's 4.
    // - the scheduler moves a load past a store to a state space that cannot alias it (the
    //   `spaces` rule): [H100] SASS of the suite, conv_rows's ten LDGs issue before the ten STSs
    //   of the loads before them, and the branches round each (one load) are predicates there:
    //   the `ifcvt` rule (docs/gpu-runs.md "The suite and the memory on an H100, again").
    // - integer division and remainder by a register, div.rn.f32 and sqrt.rn.f32 issue as the
    //   17-25 and 10 instructions ptxas 13.0 emits for sm_90 (the `divide` rule, expand.cpp): the
    //   H200's Nsight counts of the suite's SASS (FCHK, I2F, F2I, IABS) and SASS of one division
    //   a kernel (docs/gpu-runs.md "One SM to every SM").
    // - four scalar shared loads of adjacent words from a 16-byte-aligned base are one LDS.128
    //   (the `vector` rule): the H200's SASS of matmul, 10,240 LDS for 16,384 ld.shared.f32
    //   (calibration/runs/h100-2026-11-27/ncu_opcodes_h200.csv; src/lower/vector.hpp); two
    //   doubles likewise (lavamd: 64,512 LDS for 129,024 ld.shared.f64, the same file).
    // - a branch whose lanes may part is bracketed by BSSY and BSYNC (the `bssy` rule): the
    //   H200's opcode counts of the suite (grid3d 67,506 BSSY and 69,476 BSYNC; none in matmul,
    //   whose branches are uniform; src/lower/converge.hpp).
    // - a mov of a constant is no instruction where its readers take it as an operand (the `imm`
    //   rule): atomic_bench's zeroing loop is IMAD, IMAD.IADD, STS [R2], RZ, ISETP, BRA in the
    //   H200's SASS (calibration/runs/h200-2026-11-28/sass.tar.gz), the model's 8 PTX then 5;
    //   the suite's warp instructions, model/GPU: median |log| 0.072 -> 0.053.
    // - an integer add of a uniform value, or an unused and/or/xor, to a warp-uniform address, and
    //   an unused add of zero, are one lane's atomic (the `aggregate` rule,
    //   src/lower/aggregate.hpp): VOTEU.ANY, FLO, POPC or REDUX, `@P ATOMG/ATOMS` in the sm_90 SASS
    //   of rep_atomic_conflict, isa_mix, cg_tiles and rep_shared_atomic_contention (sass.tar.gz).
    //   The H200's whole-GPU one-word atomicAdd, 67.65 B/clk (calibration/h200-whole-gpu.toml): the
    //   model 63.50 with it, 2.00 without.
    // - integer adds, moves and shifts by an immediate are spread between the ALU and the FMA
    //   pipe (the `balance` rule, src/timing/pipe_balance.cpp): VIADD, IMAD.MOV.U32, IMAD.SHL.U32
    //   and IMAD.X beside IADD3 and LOP3 in the sm_90 SASS of rep_l1_bw_64v (18 of the loop's 68
    //   integer ops on the FMA pipe) and mem_read_ca (sass.tar.gz). The H100's L1 bandwidths:
    //   l1_bw_64v 102.1 -> 125.7 against 122.0, l1_read 82.2 -> 89.0 against 89.1; Luo et al.'s
    //   shared-memory throughput 118.7 -> 125.1 against 127.9.
    a.sm.lower =
        "fma,imad,lea,addr,cvt,mov,imm,ifcvt,vector,schedule,spaces,sincos,ex2,divide,bssy,"
        "aggregate,unroll,balance";
    // A shared float add is a compare-and-swap loop for sm_90 (LDS, FADD, ATOMS.CAST.SPIN, a
    // compare and a branch a round): the H200's opcode counts of kmeans, ATOMS 1,473, LDS 1,393
    // and FADD 1,377 for 384 PTX shared atomics (ncu_opcodes_h200.csv, docs/timing.md).
    a.shared_float_atomics = "cas";
    a.sm.mio_delay_alu = 2;
    a.sm.mio_delay_fma = 2;
    a.sm.scheduler = "lrr";
    a.sm.lat_fp64 = 8;  // [H200] DFMA chain 8.10 ([CFG] SM90_H100: 8)
    // [H200] HFMA2 chain 9.29 (fused; four a trip of a nounroll loop, so 3 x 8 and the taken
    // branch's 11 + 1): 9.01. ptxas alternates HFMA2 and HFMA2.MMA, two pipes: one latency here.
    a.sm.lat_fp16 = 8;
    a.sm.lat_sfu = 17;  // [H200] MUFU.SQRT chain 17.07 ([CFG] SM90_H100: 23)
    // [H200] cvt.f64.f32 then cvt.rn.f32.f64 (F2F.F64.F32, F2F.F32.F64) on their own results
    // 36.48 a step (scripts/operand_delay.cu's f2f_pair): 18.24 an F2F; its replica 36.00.
    a.sm.lat_cvt64 = 18;
    // [H200] the same with a DADD between them, 46.68 a step: 36.48 + the DADD's 8 + 2.2 before
    // the F2F reads it (f2f_pair_dadd). With lat_cvt64 18 (0.24 short an F2F) the fit's value is
    // 3: its replica 47.00 (+0.7 %; with 2, 46.00, -1.5 %).
    a.sm.mio_delay_fp64 = 3;
    // ptxas 13.0's control codes for sm_90 (calibration/runs/h200-2026-11-28/sass.tar.gz, every
    // kernel of kernels/ptx): an ISETP, FSETP, LOP3 or PLOP3 is followed by at least 13 cycles of
    // stall counts before the instruction its predicate guards (524 of 705 branches exactly 13,
    // none fewer; the same for other guarded instructions), and by 4 before a SEL or PLOP3 that
    // reads the predicate as an operand: a guard waits 13 - lat_alu 4 = 9 cycles more.
    a.sm.guard_delay = 9;
    // The taken branch's fetch (docs/timing.md "Taken-branch fetch"): atomic_bench, one warp
    // whose zeroing loop (IMAD, IMAD.IADD, STS, ISETP, BRA in the sm_90 SASS, the ISETP just
    // before the BRA) runs 256 times, takes 12,633 cycles on our H100
    // (calibration/runs/h100-2026-11-26/ncu.csv); the model 11,105 without the key, 12,641 with 11
    // (each cycle of it above 5 adds 256). The H200's warp states for it say the same: 0.68
    // warps an issue in no_instruction and 0.56 in branch_resolving, 6.7 cycles a loop iteration
    // beyond its stall counts (stalls.csv). The FFMA, IMAD and DFMA chains (4x unrolled loops,
    // one BRA a 64 links) check it: 4.13, 4.14, 8.07 a link against the H200's 4.16, 4.18, 8.10.
    a.sm.taken_branch_fetch = 11;
    // [H200] the caches a launch starts without (docs/timing.md "Instruction and constant
    // caches"): Nsight's warp states of the suite (calibration/runs/h200-2026-11-28/stalls.csv),
    // per warp, no_instruction 132-203 cycles in the launches of straight-line code and one CTA an
    // SM (transpose, reduction, backprop, conv, scan_matrix, scalar_prod; median 154), where the
    // model's warps, started 5 cycles apart, wait 152 with a miss of 170 and never again with 32
    // lines prefetched (conv's 400 instructions a warp: 168 against 151; 8 lines give 202, 4 give
    // 451); imc_miss 64-215 a warp (a line or two of parameters and launch dimensions: median 107,
    // 61 a line), the model 58-118 with 60.
    a.sm.icache_miss_cycles = 170;
    a.sm.icache_prefetch_lines = 32;
    a.sm.const_miss_cycles = 60;
    a.sm.lat_shared_ld = 23;    // [H200] loads on their own results 23.0 ([CFG] SM90_H100: 29)
    a.sm.lat_shared_st = 23;    // assumed equal to the load
    a.sm.lat_shared_atom = 26;  // [H200] an atomic with its result used: the load's + 2.8
    // [H100] atomicAdd chase 307.6 a hop, its IMAD.WIDE included (the H200's 290.3).
    a.sm.global_atomic_latency = 282;
    // [H100] a chase of lines no cache holds (rep_dram_chase: the L2 flushed by reading 96 MiB
    // past the ring) 685.6 a link (calibration/h100-measured.toml); its replica 686.1.
    a.sm.global_latency = 664;
    // [H100] a CTA on every SM streaming its 16 MiB: 11.39 B/clk/SM read (ld.global.cg.v4), 12.67
    // written (st.global.v4), kernels/memory_ubench.cu by scripts/memory_measure.cu; their replicas
    // (dram_read, dram_write) give 11.99 and 12.02 with 12, the least squares of the two: one rate
    // for both ([WP] 3350 GB/s / (132 SMs x 1980 MHz) = 12.8, the peak, was the key before).
    a.sm.global_bytes_per_cycle = 12;
    // [GUIDE] cc 9.0: 256 KB of L1 and shared memory, carve-outs 0, 8, 16, 32, 64, 100, 132, 164,
    // 196 or 228 KB. [WP] 50 MB of L2; 16 ways assumed. Latencies calibrated: [H100]
    // (calibration/h100-measured.toml, our replicas on an H100 SXM) L1 chase 43.6, L2 chase 288.7
    // ([LUO24]'s H800 PCIe: 40.7, 263.0; the H200: 43.2, 278.2). The shared L2: 160 slices, 2 on
    // each of 80 channels (5 HBM3 stacks of 16; assumed, 2 a channel as [CFG]'s). Its bandwidth:
    // [H100] a CTA on every SM reading its 128 KiB 16 times (ld.global.cg.v4, in the L2) 31.31
    // B/clk/SM; its replica (l2_read, the SM's share of the slices) 31.35 with 26 a slice. One
    // SM's port: [H100] one thread's cp.async.bulk of 4,096 and 32,768 bytes from the L2 take
    // 351.96 and 635.77 cycles (94 B/clk between them); their replicas 347.2 and 636.2 with 101.
    a.sm.l1_unified_bytes = 256 * 1024;
    a.sm.carveouts = "0,8,16,32,64,100,132,164,196,228";
    a.sm.l2_bytes = 50 * 1024 * 1024;
    a.sm.l2_bytes_per_cycle = 101;
    // [H100] one CTA alone writing 16 MiB: 31.98 B/clk, the same from 256 to 1,024 threads and
    // from 1 to 33 CTAs (scripts/memory_scaling.cu): one sector a cycle leaves an SM toward the
    // L2, where its loads' data comes back at 99 (dram_write_1cta: 32.00 with 32).
    a.sm.l2_write_bytes_per_cycle = 32;
    a.sm.l2_slices = 160;
    a.sm.l2_slice_bytes_per_cycle = 26;
    a.sm.dram_channels = 80;
    a.sm.l1_latency = 14;
    a.sm.l2_latency = 267;
    // [H100] 32 lanes adding to one word, the address through a table so that ptxas cannot
    // aggregate them (scripts/memory_scaling.cu): 192.8 cycles a warp's atomic for one warp,
    // 0.49 updates a cycle for one CTA; their replicas (atomic_word_warp, _cta) 186.3 and 0.49
    // with 2 a lane. (With a CTA on every SM the word takes 0.69 a cycle, which no replica runs.)
    a.sm.l2_atomic_cycles = 2;
    // [H200] wmma m16n16k16 (two HMMA.16816) from 1,024 threads: 1,337 FMA/clk/SM, 334 a
    // block, 65 % of the whitepaper's 2048 FMA/clk/SM, which is wgmma's rate (not modelled yet:
    // issue 46); the model runs mma.sync and wmma, so the tensor unit is mma.sync's: 336 gives
    // 1,342. Then the same wmma on its own result, 25.38 a step: lat_tensor 13 gives 25.01.
    a.sm.tensor_fmas = 336;
    a.sm.lat_tensor = 13;
    // wgmma (issue 46): the whitepaper's 2048 dense FP16 FMA/clk/SM (989.4 TFLOPS, SXM5, 132
    // SMs at 1,830 MHz) over four sub-cores. Luo et al. 2024 (Table X, H800) find one
    // warpgroup's m64nNk16 takes N / 2 cycles for N >= 64: that rate from one warpgroup. With
    // A from registers m64n8k16 and m64n16k16 take 13 (4 and 8 cycles of multiply-adds): no
    // product holds the tensor core fewer (the replica wgmma_rs_n8 fits it: 13.05; the other
    // eight shapes of the table, checked, are within 0.3 %: docs/timing.md "wgmma").
    a.sm.wgmma_fmas = 512;
    a.sm.lat_wgmma = 13;
    // Clusters (issue 46). [WP]: a full GH100 has 8 GPCs of 9 TPCs of 2 SMs, 18 SMs a GPC; how
    // the SXM5's 132 SMs (66 TPCs) are spread over its GPCs is not published: here 7 GPCs of 18
    // and one of 6 (assumed). The CUDA C++ Programming Guide: 8 CTAs a cluster portably, 16 on
    // H100 with cudaFuncAttributeNonPortableClusterSizeAllowed. Distributed shared memory: Luo
    // et al. 2024 (H800, calibration/h800-luo2024.toml) report 180 cycles an SM-to-SM add
    // (replica dsm_latency fits sm.lat_dsm: 180.47) and 3.27 TB/s over 114 SMs at 1,755 MHz
    // with clusters of 2, 16.3 B/clk/SM (replica dsm_throughput fits sm.dsm_bytes_per_cycle).
    // Our H100's chase in a partner's shared memory, 196.05 a hop, 152 more than the same chase
    // in the CTA's own (calibration/h100-measured.toml), checks it: 158 more in the model.
    a.sm.gpc_sms = 18;
    a.sm.max_cluster = 16;
    a.sm.lat_dsm = 180;
    a.sm.dsm_bytes_per_cycle = 16;
  }

  for (const Arch& a : v) validate(a);
  return v;
}

}  // namespace

const std::vector<Arch>& arch_presets() {
  static const std::vector<Arch> presets = build();
  return presets;
}

const Arch& default_arch() {
  return arch_presets().front();
}

// sm_NN aliases (issue 16): the preset whose GPU generation has that compute capability.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"sm_20", "fermi-gtx580"}, {"sm_21", "fermi-gtx580"}, {"sm_30", "kepler-k20"},
    {"sm_35", "kepler-k20"},   {"sm_37", "kepler-k20"},   {"sm_70", "volta-v100"},
    {"sm_72", "volta-v100"},   {"sm_75", "turing-t4"},    {"sm_80", "ampere-a100"},
    {"sm_86", "ampere-a100"},  {"sm_87", "ampere-a100"},  {"sm_89", "ampere-a100"},
    {"sm_90", "hopper-h100"}};

// The GPUs' short names (issue 47): the chip or board as people say it.
constexpr std::pair<std::string_view, std::string_view> kShortNames[] = {
    {"gtx580", "fermi-gtx580"}, {"gtx480", "fermi-gtx480"}, {"k20", "kepler-k20"},
    {"gt200", "tesla-gt200"},   {"v100", "volta-v100"},     {"titanv", "volta-v100"},
    {"t4", "turing-t4"},        {"a100", "ampere-a100"},    {"h100", "hopper-h100"},
    {"h800", "hopper-h100"}};

const Arch& find_preset(std::string_view name) {
  const std::string_view asked = name;
  for (const auto& [alias, preset] : kAliases)
    if (name == alias) name = preset;
  for (const auto& [alias, preset] : kShortNames)
    if (name == alias) name = preset;
  if (const Arch* a = find_named(arch_presets(), name)) return *a;
  std::vector<std::string_view> names;
  for (const Arch& p : arch_presets()) names.emplace_back(p.name);
  for (const auto& [alias, preset] : kShortNames) names.push_back(alias);
  for (const auto& [alias, preset] : kAliases) names.push_back(alias);
  // A compute capability with no preset is not a typo of another (sm_100 is not sm_20).
  const std::string near = asked.starts_with("sm_") ? "" : did_you_mean(asked, names);
  throw InputError(fmt::format(
      "unknown arch '{}'{} (known: {}; short names v100, t4, a100, h100, gtx480, ...; compute "
      "capabilities sm_20, sm_35, sm_70, sm_75, sm_80, sm_86, sm_89, sm_90)",
      asked, near.empty() ? "" : ": " + near, known_names(arch_presets())));
}

TargetPreset preset_for_target(std::string_view target) {
  TargetPreset r;
  unsigned cc = 0;
  std::size_t i = 3;
  for (; i < target.size() && std::isdigit(static_cast<unsigned char>(target[i])); ++i)
    cc = cc * 10 + unsigned(target[i] - '0');
  // sm_NN, with at most one feature letter after it (sm_90a).
  if (!target.starts_with("sm_") || i == 3 || i + 1 < target.size() || cc > 10000) {
    r.note = fmt::format(".target '{}' names no sm_NN GPU", target);
    return r;
  }
  const std::string exact = fmt::format("sm_{}", cc);
  unsigned best = 0;
  for (const auto& [alias, preset] : kAliases) {
    unsigned a = 0;
    for (const char c : alias.substr(3)) a = a * 10 + unsigned(c - '0');
    if (alias == exact) {
      r.name = preset;
      return r;
    }
    if (a < cc && a >= best) best = a, r.name = preset;
  }
  if (r.name.empty())
    r.note = fmt::format("no preset models {} or an older GPU", exact);
  else
    r.note =
        fmt::format("no preset models {}; {} (sm_{}) is the newest older one", exact, r.name, best);
  return r;
}

}  // namespace smemsim

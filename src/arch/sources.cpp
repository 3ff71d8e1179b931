// Where each timing key of a preset comes from (issue 25, item 2; docs/sources.md has the same
// table for people). A key a derived arch changed is the user's; a preset without a per-key table
// says so instead of claiming a source.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lower/rules.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"

namespace smemsim {
namespace {

using K = SourceKind;

struct Row {
  std::string key;
  SourceKind kind;
  std::string text;
};

// The Volta-Hopper sources (docs/sources.md): WP whitepaper, NAK the NVIDIA-provided latency tables
// in Mesa's NAK compiler, CFG a GPGPU-Sim/Accel-Sim tested configuration, TV Accel-Sim's TITAN V
// microbenchmark log.
constexpr const char* kAssumedTiming =
    "no source found for the per-access model on this GPU; a placeholder";
const std::vector<Row> kModernCommon = {
    {"sm.subcores", K::Vendor, "whitepaper SM diagram: 4 processing blocks"},
    {"sm.lanes_alu", K::Vendor, "whitepaper: 16 INT32 lanes per block"},
    {"sm.mio_queue", K::Assumed,
     "NVIDIA's forum: a FIFO of LSU instructions per sub-core before the shared MIO scheduler; "
     "its depth is not published: 8 assumed"},
    {"sm.lanes_sfu", K::Vendor, "whitepaper / CUDA guide: 16 SFU results per clock per SM"},
    {"sm.frontend_stages", K::Assumed, "1, so the shortest latency is the measured ALU's 4"},
    {"sm.mem_stages", K::Assumed, "1, so the shortest latency is the measured ALU's 4"},
    {"sm.writeback_ports", K::Config,
     "Accel-Sim SM7_QV100 line 90, SM75_RTX2060 and SM86_RTX3070 line 44: "
     "-gpgpu_pipeline_widths' EX_WB 8 over 4 schedulers, two result buses each"},
    {"sm.scheduler", K::Assumed,
     "gto; Accel-Sim's SM75_RTX2060 and SM86_RTX3070 configs say lrr, which puts ubench's "
     "shared-load throughput 4-7 % off one pass a cycle here: no measurement decides yet"},
    {"sm.lat_shared_st", K::Assumed, "equal to the shared load: no source found"},
    {"sm.lat_shared_atom", K::Assumed,
     "the shared load's latency + 3, the T4's calibrated gap (JIA19 Table 4.2): no measurement "
     "of this GPU"},
    {"sm.lat_branch", K::Vendor,
     "ptxas 13.0's control codes: every BRA stalls its warp at least 5 cycles on sm_75, sm_80 and "
     "sm_90 (843 of 865, 999 of 1,014, 911 of 1,195 exactly 5; calibration/runs/h200-2026-11-28)"},
    {"sm.sched_regs", K::Assumed,
     "16: fitted on hopper-h100 to our H100's cycles of the suite (lavamd 0.44 -> 1.05 of them, "
     "median |log| 0.130 -> 0.113; docs/timing.md \"Lowering\"), taken as it is elsewhere: "
     "ptxas's bound is not published"},
    {"sm.ifcvt_slots", K::Assumed,
     "4: ptxas's limit is not published; 4 and 6 give the H200's SASS counts of the suite best "
     "(docs/timing.md \"Lowering\")"},
    {"sm.lat_const", K::Assumed, "no source found"},
    {"sm.global_latency", K::Assumed, "no source found"},
    {"sm.global_atomic_latency", K::Assumed, "no source found"},
    {"sm.l1_bytes_per_cycle", K::Assumed,
     "128: four sectors a cycle (the TITAN V log measures 113.9 B/clk/SM of L1 hits)"},
    {"sm.l2_bytes_per_cycle", K::Assumed,
     "64: an SM's port to the shared L2, two sectors a cycle (the H100's, calibrated by its bulk "
     "copies, is 99): no measurement of this GPU"},
    {"sm.l2_write_bytes_per_cycle", K::Assumed,
     "0: stores share the port with the loads (sm.l2_bytes_per_cycle); no measurement of one "
     "SM's stores on this GPU"},
    {"sm.l2_queue_sectors", K::Config,
     "Accel-Sim SM7_QV100: -gpgpu_dram_partition_queues 64:64:64:64 (interconnect to L2), "
     "entries of one sector here"},
    {"sm.dram_queue_sectors", K::Config,
     "Accel-Sim SM7_QV100: -gpgpu_dram_partition_queues 64:64:64:64 (L2 to DRAM)"},
    {"sm.l2_hash", K::Assumed,
     "xor: NVIDIA's slice hash is not published; the line address folded by XOR spreads a "
     "power-of-two stride (GPGPU-Sim's configs use their IPOLY hash)"},
    {"sm.l2_atomic_cycles", K::Assumed,
     "9, the V100's (the TITAN V log's one-word atomicAdd bandwidth): no measurement of this GPU"},
    {"timing.ld_base", K::Assumed, kAssumedTiming},
    {"timing.st_base", K::Assumed, kAssumedTiming},
    {"timing.t_bank", K::Assumed, kAssumedTiming},
    {"timing.native_base", K::Assumed, kAssumedTiming},
    {"timing.native_position", K::Assumed,
     "2, the T4's calibrated cost of each extra lane on a word (JIA19 Table 4.2): no measurement "
     "of this GPU"},
};

const std::map<std::string, std::vector<Row>>& tables() {
  static const std::map<std::string, std::vector<Row>> t = {
      {"volta-v100",
       {
           {"sm.guard_delay", K::Assumed,
            "Turing's 8 (ptxas 13.0 emits no sm_70 to read; Turing keeps Volta's control codes)"},
           {"sm.lat_branch", K::Assumed,
            "Turing's 5 (ptxas 13.0 emits no sm_70 to read; Turing keeps Volta's control codes)"},
           {"sm.xpipe_delay", K::Assumed,
            "Turing's 1 (ptxas 13.0 emits no sm_70 to read; Turing keeps Volta's control codes)"},
           {"sm.l1_unified_bytes", K::Vendor,
            "CUDA guide, cc 7.0: 128 KB of L1 and shared memory per SM"},
           {"sm.carveouts", K::Vendor,
            "CUDA guide, cc 7.0: shared memory 0, 8, 16, 32, 64 or 96 KB (Accel-Sim SM7_QV100 "
            "-gpgpu_shmem_option)"},
           {"sm.l2_bytes", K::Vendor, "V100 whitepaper: 6 MB"},
           {"sm.l1_latency", K::Calibrated,
            "TITAN V log: L1 chase (ld.global.ca) 33.73 a hop; its replica 33.73"},
           {"sm.l2_latency", K::Calibrated,
            "TITAN V log: L2 chase (ld.global.cg) 211.07 a hop; its replica 211.01"},
           {"sm.l2_atomic_cycles", K::Calibrated,
            "TITAN V log (line 28): every thread of 160 CTAs adding to one global word, 0.4645 "
            "B/clk; its replica 0.444 (calibration/titanv-accelsim-memory.toml)"},
           {"sm.l2_slice_bytes_per_cycle", K::Calibrated,
            "TITAN V log (line 315): L2 bandwidth 1,384.5 B/clk over its 48 slices of the same "
            "GV100 design; its replica 1,379 with 29 (calibration/titanv-accelsim-memory.toml)"},
           {"sm.dram_bytes_per_cycle", K::Calibrated,
            "900 GB/s at 1,530 MHz = 588, x 441 / 448.7: the TITAN V's DRAM figure (line 397, "
            "445.8 B/clk) asks 441 of its theoretical 448.7; its replica 443.3"},
           {"sm.l2_slices", K::Config,
            "Accel-Sim SM7_QV100: -gpgpu_n_mem 32 x -gpgpu_n_sub_partition_per_mchannel 2"},
           {"sm.dram_channels", K::Config, "Accel-Sim SM7_QV100: -gpgpu_n_mem 32"},
           {"sm.lanes_fma", K::Vendor, "V100 whitepaper: 16 FP32 lanes per block"},
           {"sm.lanes_fp64", K::Vendor, "V100 whitepaper: 8 FP64 lanes per block"},
           {"sm.tensor_fmas", K::Vendor, "V100 whitepaper: 8 tensor cores x 64 FP16 FMA/clk/SM"},
           {"sm.lat_alu", K::Measured, "TITAN V (GV100) log, Accel-Sim output.file: 4.3"},
           {"sm.lat_fma", K::Calibrated,
            "TITAN V log (calibration/titanv-accelsim.toml): its FFMA chain's replica "
            "4.07 against 4.13 (-1.5 %), IMAD 4.07 against 4.35 (-6.3 %)"},
           {"sm.scheduler", K::Config,
            "Accel-Sim SM7_QV100 line 134: -gpgpu_scheduler lrr; the TITAN V log's SFU "
            "throughput 15.99 against 15.98 (gto: 14.84)"},
           {"sm.lat_fp16", K::Calibrated,
            "TITAN V log: its half2 chain's replica (mul+add fused) 6.01 against 6.18 (-2.8 %)"},
           {"sm.lat_fp64", K::Calibrated,
            "TITAN V log: its DFMA chain's replica 8.00 against 8.08 (-0.9 %)"},
           {"sm.lat_sfu", K::Calibrated,
            "TITAN V log: its sin.approx chain's replica 21.00 against 21.15 (-0.7 %)"},
           {"sm.lat_tensor", K::Calibrated,
            "TITAN V log: wmma m16n16k16 with an f32 accumulator 35.35 a step, 16 HMMA steps; its "
            "replica 35.01 (the f16 accumulator's, 8 steps, 33.0: its replica 33.01)"},
           {"sm.tensor_step_fmas", K::Vendor,
            "TITAN V log's sm_70 SASS (ubench/core/tensor_bw_half/sass*.txt): a wmma m16n16k16 is "
            "four sets of HMMA.884.F32 STEP0-3 (16 steps) or HMMA.884.F16 STEP0-1 (8)"},
           {"sm.lat_shared_ld", K::Calibrated,
            "TITAN V log: shared pointer chase 27.01; its replica, lowered, 27.00 "
            "(calibration/titanv-accelsim.toml)"},
           {"sm.global_latency", K::Measured,
            "TITAN V log: DRAM pointer chase 313 a link, less the model's path to MEM0 "
            "(ubench_ldg then takes 313)"},
           {"sm.global_atomic_latency", K::Calibrated,
            "TITAN V log: atomicAdd chase 243.6 a hop; its replica 243.8 with 214 (the hop "
            "includes its address arithmetic)"},
           {"sm.global_bytes_per_cycle", K::Vendor, "900 GB/s / (80 SMs x 1530 MHz) = 7.35"},
           {"sm.lat_shared_atom", K::Calibrated,
            "Jia et al. 2019 Table 4.2 (calibration/v100-jia2019.toml): a shared atomic before a "
            "load of its word costs 6; its replica 6.01 with the preset's load latency"},
           {"timing.native_position", K::Calibrated,
            "Jia et al. 2019 Table 4.2: 2 to 32 lanes on one word; its replica within 14 % but "
            "at 16 lanes (36 against 24: the V100's 16-lane figure is below a per-lane cost's "
            "line)"},
       }},
      {"turing-t4",
       {
           {"sm.guard_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_75 (calibration/runs/h200-2026-11-28): ISETP, "
            "FSETP, LOP3, PLOP3 to an instruction the predicate guards at least 12 cycles (408 of "
            "521 branches exactly), to a SEL reading it 4: 12 - lat_alu 4"},
           {"sm.xpipe_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_75 (calibration/runs/h200-2026-11-28, "
            "scripts/sass-stalls.py): IADD3, LOP3, SHF, LEA, ISETP to a dependent IMAD, FFMA, "
            "FMUL, "
            "FADD and back 5 cycles (588 of 923 pairs exactly, 4 fewer), within a pipe 4: 5 - 4"},
           {"sm.l1_unified_bytes", K::Vendor,
            "CUDA guide, cc 7.5: 96 KB of L1 and shared memory per SM"},
           {"sm.carveouts", K::Vendor,
            "CUDA guide, cc 7.5: shared memory 32 or 64 KB (Accel-Sim SM75_RTX2060 "
            "-gpgpu_shmem_option 32,64)"},
           {"sm.l2_bytes", K::Vendor, "T4: 4 MB of L2"},
           {"sm.l2_slices", K::Assumed,
            "2 on each of 8 channels, as Accel-Sim's configs put 2 a channel: not published"},
           {"sm.dram_channels", K::Vendor, "T4: 256-bit GDDR6, eight 32-bit channels"},
           {"sm.l2_slice_bytes_per_cycle", K::Assumed,
            "26, the H100's calibrated slice rate: no measurement of this GPU"},
           {"sm.l1_latency", K::Calibrated,
            "Jia et al. 2019 Table 3.1 (calibration/t4-jia2019.toml): L1 hit 32; its replica "
            "32.04"},
           {"sm.l2_latency", K::Calibrated,
            "Jia et al. 2019 Table 3.1: L2 hit 188; its replica 188.01"},
           {"sm.lanes_fma", K::Vendor, "Turing whitepaper: 16 FP32 lanes per block"},
           {"sm.lanes_fp64", K::Vendor,
            "Turing whitepaper: 2 FP64 units per SM (0.5 per block, "
            "rounded up to 1)"},
           {"sm.tensor_fmas", K::Vendor, "Turing whitepaper: 512 FP16 FMA/clk/SM"},
           {"sm.lat_alu", K::Vendor, "NAK sm75 table: IADD3 4"},
           {"sm.lat_fma", K::Vendor, "NAK sm75 table: FFMA 4"},
           {"sm.lat_fp64", K::Calibrated,
            "Jia et al. 2019 Table 4.1 (calibration/t4-jia2019.toml): DFMA ~54; its replica, a "
            "DFMA chain, 54.0 (NAK's 8 left it at the lane's interval, 32: -41 %)"},
           {"sm.lat_fp16", K::Calibrated,
            "Jia et al. 2019 Table 4.1: HFMA2 6; the half2 chain's replica, fused, 6.01 (the FMA "
            "pipe's 4: 4.26, -29 %)"},
           {"sm.lat_sfu", K::Calibrated,
            "Jia et al. 2019 Table 4.1 (calibration/t4-jia2019.toml): MUFU ~15; its replica, a "
            "MUFU.SQRT chain, 15.0 (GPGPU-Sim SM75_RTX2060's 21: +40 %)"},
           {"sm.lat_imad", K::Calibrated,
            "Jia et al. 2019 Table 4.1: IMAD 5; its replica, an IMAD chain, 5.0 (the FMA pipe's "
            "4: -19 %)"},
           {"sm.lat_tensor", K::Vendor, "NAK sm75 table: HMMA.1688 14, less its interval 8 + 1"},
           {"sm.lat_shared_ld", K::Calibrated,
            "Jia et al. 2019 Table 3.1: shared memory 19; its replica 19.00 (the RTX 2060 "
            "config's 30 put the T4's L1 hit, 32, out of reach)"},
           {"sm.global_bytes_per_cycle", K::Vendor, "320 GB/s / (40 SMs x 1590 MHz) = 5.03"},
           {"sm.lat_shared_atom", K::Calibrated,
            "Jia et al. 2019 Table 4.2 (calibration/t4-jia2019.toml): a shared atomic before a "
            "load of its word costs 8; its replica 8.01 with the preset's load latency"},
           {"timing.native_position", K::Calibrated,
            "Jia et al. 2019 Table 4.2: 2 to 32 lanes on one word cost 10 to 69; the replica "
            "within 2.6 % with 2 a lane"},
       }},
      {"ampere-a100",
       {
           {"sm.guard_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_80 (calibration/runs/h200-2026-11-28): ISETP, "
            "FSETP, LOP3, PLOP3 to an instruction the predicate guards at least 13 cycles (478 of "
            "603 branches exactly), to a SEL reading it 4: 13 - lat_alu 4"},
           {"sm.xpipe_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_80 (calibration/runs/h200-2026-11-28, "
            "scripts/sass-stalls.py): IADD3, LOP3, SHF, LEA, ISETP to a dependent IMAD, FFMA, "
            "FMUL, "
            "FADD and back 5 cycles (890 of 1,371 pairs exactly, 6 fewer), within a pipe 4: 5 - 4"},
           {"sm.l1_unified_bytes", K::Vendor,
            "CUDA guide, cc 8.0: 192 KB of L1 and shared memory per SM"},
           {"sm.carveouts", K::Vendor,
            "CUDA guide, cc 8.0: shared memory 0, 8, 16, 32, 64, 100, 132 or 164 KB"},
           {"sm.l2_bytes", K::Vendor, "A100 whitepaper: 40 MB"},
           {"sm.l2_slices", K::Assumed,
            "80 slices of 64 B a cycle make the A100 whitepaper's 5,120 B/clk of L2 read "
            "bandwidth, 2 on each channel as Accel-Sim's configs have it (the count is not "
            "published)"},
           {"sm.dram_channels", K::Vendor, "A100 whitepaper: 5 HBM2 stacks, 8 channels each"},
           {"sm.l2_slice_bytes_per_cycle", K::Assumed,
            "26, the H100's calibrated slice rate (the whitepaper's 64 is the peak): no "
            "measurement of this GPU"},
           {"sm.l1_latency", K::Calibrated,
            "Luo et al. 2024 (calibration/a100-luo2024.toml): L1 37.9; its replica 37.22 "
            "(Abdelkhalik et al. 2022: 33)"},
           {"sm.l2_latency", K::Calibrated,
            "Luo et al. 2024: L2 261.5; its replica 261.0 (Abdelkhalik et al. 2022: 200)"},
           {"sm.lanes_fma", K::Vendor, "A100 whitepaper: 16 FP32 lanes per block"},
           {"sm.lanes_fp64", K::Vendor, "A100 whitepaper: 8 FP64 lanes per block"},
           {"sm.tensor_fmas", K::Vendor, "A100 whitepaper: 1024 FP16 FMA/clk/SM"},
           {"sm.lat_alu", K::Vendor, "NAK sm80 table: IADD3 4"},
           {"sm.lat_fma", K::Vendor, "NAK sm80 table: FFMA 4"},
           {"sm.lat_fp64", K::Vendor, "NAK sm80 table: DFMA 6"},
           {"sm.lat_sfu", K::Config, "GPGPU-Sim SM80_A100: -ptx_opcode_latency_sfu 23"},
           {"sm.lat_tensor", K::Vendor, "NAK sm80 table: HMMA.16816 17, less its interval 8 + 1"},
           {"sm.lat_shared_ld", K::Config, "GPGPU-Sim SM80_A100: -gpgpu_smem_latency 28"},
           {"sm.global_bytes_per_cycle", K::Vendor, "1555 GB/s / (108 SMs x 1410 MHz) = 10.2"},
       }},
      {"hopper-h100",
       {
           {"sm.l1_unified_bytes", K::Vendor,
            "CUDA guide, cc 9.0: 256 KB of L1 and shared memory per SM"},
           {"sm.carveouts", K::Vendor,
            "CUDA guide, cc 9.0: shared memory 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB"},
           {"sm.l2_bytes", K::Vendor, "H100 whitepaper: 50 MB"},
           {"sm.l1_latency", K::Calibrated,
            "H100 SXM (calibration/h100-measured.toml): L1 chase 43.6; its replica 43.9 (Luo et "
            "al. 2024's H800 PCIe: 40.7)"},
           {"sm.l2_latency", K::Calibrated,
            "H100 SXM: L2 chase 288.7; its replica 289.0 (the H200's 278.2, the H800's 263.0)"},
           {"sm.lanes_fma", K::Vendor, "H100 whitepaper: 32 FP32 lanes per block"},
           {"sm.launch_cycles", K::Calibrated,
            "H100 SXM (Nsight Compute gpc__cycles_elapsed.max): an empty kernel of one 32-thread "
            "CTA 4,054 cycles; the model's CTA takes the rest (docs/calibration.md)"},
           {"sm.dispatch_ctas", K::Calibrated,
            "H100 SXM: empty kernels of 1,320 and 13,200 CTAs, 5,702 and 20,092 cycles: 1.21 "
            "cycles a CTA GPU-wide, 5 every 6 cycles"},
           {"sm.dispatch_cycles", K::Calibrated, "the period of sm.dispatch_ctas: 6 (H100 SXM)"},
           {"sm.warp_start_cycles", K::Calibrated,
            "H100 SXM: an empty kernel of one 1,024-thread CTA 4,192 cycles, of one 32-thread CTA "
            "4,054: 4.45 a warp; 5 puts the three 1,024-thread figures nearest"},
           {"sm.lanes_fp64", K::Vendor, "H100 whitepaper: 16 FP64 lanes per block"},
           {"sm.lanes_imad", K::Calibrated,
            "H200 (calibration/h200-measured.toml): IMAD throughput 127.2 ops/clk/SM (2 a mad), "
            "16 a block, half the FFMA's; its replica 127.4"},
           {"sm.tensor_fmas", K::Calibrated,
            "H200 (calibration/h200-measured.toml): wmma throughput 1,337 FMA/clk/SM; its "
            "replica 1,342 (mma.sync's rate; the whitepaper's 2048 is wgmma's)"},
           {"sm.wgmma_fmas", K::Vendor,
            "H100 whitepaper: 2048 dense FP16 FMA/clk/SM (989.4 TFLOPS at 1,830 MHz, 132 SMs) "
            "/ 4 sub-cores; Luo et al. 2024 Table X: one warpgroup's m64nNk16 in N/2 cycles"},
           {"sm.lat_wgmma", K::Calibrated,
            "Luo et al. 2024 Table X (calibration/h800-luo2024.toml): m64n8k16 with A from "
            "registers 13.0 cycles a product, back to back; its replica wgmma_rs_n8 13.05 (the "
            "other eight shapes of Table X checked within 0.3 %)"},
           {"sm.gpc_sms", K::Assumed,
            "H100 whitepaper: a full GH100 has 8 GPCs of 9 TPCs of 2 SMs (18 SMs a GPC); the "
            "SXM5's split of its 132 SMs is not published: 7 GPCs of 18 and one of 6 (assumed)"},
           {"sm.max_cluster", K::Vendor,
            "CUDA C++ Programming Guide, Thread Block Clusters: 8 CTAs portably; 16 on H100 with "
            "cudaFuncAttributeNonPortableClusterSizeAllowed"},
           {"sm.lat_dsm", K::Calibrated,
            "Luo et al. 2024 (calibration/h800-luo2024.toml): SM-to-SM latency 180 cycles (an "
            "add to the partner's word); its replica dsm_latency 180.47. H100 "
            "(h100-measured.toml): a chase in the partner's shared memory 152 cycles more than "
            "in its own; the replicas 158"},
           {"sm.dsm_bytes_per_cycle", K::Calibrated,
            "Luo et al. 2024 Fig. 8: 3.27 TB/s with clusters of 2 over 114 SMs at 1,755 MHz, "
            "16.3 B/clk/SM; its replica dsm_throughput (1,024 threads, 8 atomicAdds a step)"},
           {"sm.lat_alu", K::Config, "GPGPU-Sim SM90_H100: -ptx_opcode_latency_int 4"},
           {"sm.lat_fma", K::Calibrated,
            "H200 (calibration/h200-measured.toml): FFMA chain 4.16, IMAD 4.18; replica 4.07"},
           {"sm.lat_fp64", K::Calibrated, "H200: DFMA chain 8.10; its replica 8.00"},
           {"sm.lat_fp16", K::Calibrated,
            "H200: HFMA2 chain (fused) 9.29, four a trip and a taken branch; its replica 9.01 "
            "(HFMA2 throughput 272.4 flop/clk/SM: 279.8)"},
           {"sm.lat_sfu", K::Calibrated,
            "H200: MUFU.SQRT chain 17.07; its replica 17.01 (sin.approx 23.04, FMUL.RZ then "
            "MUFU.SIN in the SASS: its replica, expanded by the sincos rule, 24.01)"},
           {"sm.mio_delay_fma", K::Calibrated,
            "H100 SXM (scripts/operand_delay.cu): LDS, IMAD, LDS 30.17 and MUFU.SQRT, FFMA, "
            "MUFU.SQRT 24.17 a step; their replicas 29.86 and 23.80 with 2 (the SASS: 6 cycles "
            "from "
            "the IMAD to the LDS, 4 + 2)"},
           {"sm.lat_cvt64", K::Calibrated,
            "H200 (scripts/operand_delay.cu): F2F.F64.F32 then F2F.F32.F64 on their own results "
            "36.48 a step, 18.24 an F2F; its replica 36.00 (I2F.F64, F2I.F64 assumed the same)"},
           {"sm.mio_delay_fp64", K::Calibrated,
            "H200 (scripts/operand_delay.cu): the F2F pair with a DADD between, 46.68 a step: "
            "36.48 + the DADD's 8 + 2.2; its replica 47.00 with 3, the fit's (46.00 with 2)"},
           {"sm.guard_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_90 (calibration/runs/h200-2026-11-28): ISETP, "
            "FSETP, LOP3, PLOP3 to an instruction the predicate guards at least 13 cycles (524 of "
            "705 branches exactly), to a SEL reading it 4: 13 - lat_alu 4"},
           {"sm.xpipe_delay", K::Vendor,
            "ptxas 13.0's control codes for sm_90 (calibration/runs/h200-2026-11-28, "
            "scripts/sass-stalls.py): IADD3, LOP3, SHF, LEA, ISETP to a dependent IMAD, FFMA, "
            "FMUL, "
            "FADD and back 5 cycles (948 of 1,553 pairs exactly, 27 fewer), within a pipe 4: 5 - "
            "4"},
           {"sm.taken_branch_fetch", K::Calibrated,
            "H100 (calibration/runs/h100-2026-11-26/ncu.csv): atomic_bench, one warp whose "
            "zeroing loop runs 256 times, 12,633 cycles; the model 12,641 with 11, "
            "11,105 without (the H200's warp states: 6.7 cycles an iteration in no_instruction "
            "and branch_resolving); the H200's FFMA, IMAD, DFMA chains 4.16, 4.18, 8.10 a link "
            "(one BRA a 64): 4.13, 4.14, 8.07"},
           {"sm.icache_miss_cycles", K::Calibrated,
            "H200 (calibration/runs/h200-2026-11-28/stalls.csv): Nsight's no_instruction, per "
            "warp, 132-203 cycles in the launches of straight-line code and one CTA an SM "
            "(transpose, reduction, backprop, conv, scan_matrix, scalar_prod; median 154); the "
            "model's warps wait 152 with 170"},
           {"sm.icache_prefetch_lines", K::Calibrated,
            "H200 (stalls.csv): conv, 400 instructions a warp, no_instruction 151 cycles a warp; "
            "the model 168 with 32 lines, 202 with 8, 451 with 4"},
           {"sm.const_miss_cycles", K::Calibrated,
            "H200 (stalls.csv): Nsight's imc_miss, per warp, 64-215 cycles over the suite "
            "(a line or two of parameters and launch dimensions: median 107, 61 a line); the "
            "model 58-118 with 60"},
           {"sm.mio_delay_alu", K::Calibrated,
            "H200: the index chase, LEA then LDS, 29.0 against loads alone 23.0 and LEA's 4; "
            "their replicas 29.00 and 23.00 with 2 (and lat_shared_ld 23)"},
           {"sm.lat_tensor", K::Calibrated,
            "H200: wmma m16n16k16 (f32 accumulator) on its own result 25.38; its replica 25.01"},
           {"sm.lat_shared_ld", K::Calibrated,
            "H200: shared chases 23.0 (loads on their own results), 29.0 (an LEA then the load, "
            "as ptxas emits p = s[p] for sm_90, with sm.mio_delay_alu); their replicas 23.00 and "
            "29.00"},
           {"sm.lat_shared_atom", K::Calibrated,
            "H200: an atomic whose result is the next index, 2.8 over a load; its replica 3.00"},
           {"timing.native_position", K::Calibrated,
            "H200: 2 to 32 lanes on one word, 2.0 a lane (4.8 to 64.7); replicas within 4.2 %"},
           {"sm.global_atomic_latency", K::Calibrated,
            "H100 SXM: atomicAdd chase 307.6 a hop; its replica 307.7 with 282 (the H200's 290.3)"},
           {"sm.l2_atomic_cycles", K::Calibrated,
            "H100 SXM, one warp and one CTA alone adding to one global word through a table "
            "(kernels/memory_ubench.cu mem_atomic_ind: ptxas cannot aggregate the lanes): 192.8 "
            "cycles a warp's atomic, 0.49 updates a cycle; their replicas 186.3 and 0.49 with 2"},
           {"sm.global_latency", K::Calibrated,
            "H100 SXM: a chase of lines no cache holds (the L2 flushed by reading 96 MiB past "
            "them), 685.6 cycles a link; its replica 686.1 (scripts/memory_measure.cu, flushed "
            "from the host: 680-690)"},
           {"sm.scheduler", K::Calibrated,
            "lrr: the H200's shared, FFMA and HFMA2 throughputs each nearer than with gto "
            "(docs/calibration.md)"},
           {"sm.lower", K::Measured,
            "the H200's SASS (ptxas 13.0, sm_90): LEA then LDS [R] for a scaled shared index, "
            "so every rule but `scaled`; FMUL.RZ then MUFU.SIN for sin.approx: `sincos`; an "
            "H100's (the same ptxas): conv_rows's LDGs hoisted above the STSs before them, "
            "`spaces`, and predicated where the PTX branches round each, `ifcvt`; ptxas 13.0's "
            "sequences for integer and IEEE float division and square root (an H100/H200's "
            "cuobjdump of one division a kernel, and Nsight's opcode counts of the suite): "
            "`divide`; matmul's scalar shared loads as LDS.128 (the H200's opcode counts: "
            "10,240 LDS for 16,384 ld.shared.f32): `vector`; BSSY/BSYNC round a branch "
            "whose lanes may part (grid3d 67,506 BSSY, 69,476 BSYNC): `bssy`; lavamd's doubles "
            "as LDS.128 (64,512 LDS for 129,024 ld.shared.f64): `vector`; an FSETP and two FMULs "
            "round each ex2.approx.f32 (lavamd 25,600 FSETP for 25,600 ex2): `ex2`"},
           {"sm.writeback_ports", K::Assumed,
            "2, as Accel-Sim's Volta, Turing and Ampere configs have it; no H100 config read"},
           {"sm.global_bytes_per_cycle", K::Calibrated,
            "H100 SXM, a CTA on every SM streaming its 16 MiB (kernels/memory_ubench.cu): "
            "11.39 B/clk/SM read, 12.67 written; their replicas 11.99 and 12.02, one rate for "
            "both (the whitepaper's 3350 GB/s / (132 SMs x 1980 MHz) = 12.8 is the peak)"},
           {"sm.l2_slice_bytes_per_cycle", K::Calibrated,
            "H100 SXM, a CTA on every SM reading its 128 KiB 16 times in the L2 "
            "(ld.global.cg.v4, kernels/memory_ubench.cu): 31.31 B/clk/SM; its replica (the SM's "
            "share of the slices) 31.35"},
           {"sm.l2_bytes_per_cycle", K::Calibrated,
            "H100 SXM, one thread's cp.async.bulk of 4,096 and 32,768 bytes from the L2 "
            "(scripts/hopper_measure.cu): 351.96 and 635.77 cycles; their replicas 347.2 and "
            "636.2 with 101 (the SM's port to the L2)"},
           {"sm.l2_write_bytes_per_cycle", K::Calibrated,
            "H100 SXM, one CTA of 1,024 threads alone on the GPU writing 16 MiB (st.global.v4, "
            "kernels/memory_ubench.cu, scripts/memory_scaling.cu): 31.98 B/clk, flat from 256 "
            "threads and from 1 to 33 CTAs (one sector a cycle an SM); its replica "
            "(dram_write_1cta) 32.00 with 32"},
           {"sm.l2_slices", K::Assumed,
            "2 on each of 80 channels (5 HBM3 stacks of 16), as Accel-Sim's configs put 2 a "
            "channel: not published"},
           {"sm.dram_channels", K::Vendor, "H100 SXM: 5 HBM3 stacks, 16 channels each"},
       }},
      {"fermi-gtx580",
       {
           {"sm.subcores", K::Assumed, "one issue slot: the seeds' exact-cycle studies assume it"},
           {"sm.mio_queue", K::Assumed,
            "0 as in the seeds' pipeline (seed 004 §3.1, Fig. 4): an access holds MEM0 for its "
            "passes"},
           {"sm.lanes_alu", K::Assumed, "no lane limit beyond one warp per cycle"},
           {"sm.scheduler", K::Config, "GPGPU-Sim's GTX 480 config: -gpgpu_scheduler gto"},
           {"sm.lanes_sfu", K::Assumed, "no lane limit beyond one warp per cycle"},
           {"sm.frontend_stages", K::Assumed, "our choice; the EXE depth makes up each latency"},
           {"sm.mem_stages", K::Assumed, "our choice; the EXE depth makes up each latency"},
           {"sm.writeback_ports", K::Seed,
            "seed 004 §3.1, Fig. 4b: one writeback port (its writeback conflict)"},
           {"sm.lat_alu", K::Seed, "seed 000 §III: IADD 18 (asfermi)"},
           {"sm.lat_sfu", K::Assumed, "no source found"},
           {"sm.lat_branch", K::Seed, "seed 000 §III: BRA 32"},
           {"sm.lat_shared_ld", K::Seed, "seed 000 §III: the Read state, 32"},
           {"sm.lat_shared_st", K::Seed, "seed 000 §III: the Write state, 36"},
           {"sm.lat_shared_atom", K::Seed, "seed 001 §2.1: t_base 108"},
           {"sm.lat_const", K::Assumed, "no source found"},
           {"sm.global_latency", K::Assumed, "no source found"},
           {"sm.global_atomic_latency", K::Assumed, "no source found"},
           {"sm.global_bytes_per_cycle", K::Vendor, "192.4 GB/s / (16 SMs x 1544 MHz) = 7.8"},
           {"timing.t_base", K::Seed, "seed 001 §2.1.1: 108"},
           {"timing.t_position", K::Seed, "seed 001 §2.1.2: 120"},
           {"timing.t_bank", K::Seed, "seed 001 §2.1.2: 32"},
           {"timing.fsm_read", K::Seed, "seed 000 §III: 32"},
           {"timing.fsm_update", K::Seed, "seed 000 §III: 18"},
           {"timing.fsm_write", K::Seed, "seed 000 §III: 36"},
           {"timing.fsm_branch", K::Seed, "seed 000 §III: 32"},
           {"timing.ld_base", K::Seed, "seed 000 §III: the Read state, 32"},
           {"timing.st_base", K::Seed, "seed 000 §III: the Write state, 36"},
       }},
  };
  return t;
}

// The GTX 480 is the GTX 580's SM with Fermi's two schedulers: its structure is the Fermi
// whitepaper's, its latencies the GTX 580's (assumed equal: same SM design).
std::vector<Row> gtx480_rows() {
  std::vector<Row> rows;
  for (Row r : tables().at("fermi-gtx580")) {
    if (r.key == "sm.subcores")
      r = {r.key, K::Vendor, "Fermi whitepaper: two warp schedulers per SM"};
    else if (r.key == "sm.lanes_alu")
      r = {r.key, K::Vendor, "Fermi whitepaper: 2 x 16 cores at twice the schedulers' clock"};
    else if (r.key == "sm.lanes_sfu")
      r = {r.key, K::Vendor, "Fermi whitepaper: 4 SFUs at twice the schedulers' clock"};
    else if (r.key == "sm.global_bytes_per_cycle")
      r = {r.key, K::Assumed, "the GTX 580's (a GTX 480's 177.4 GB/s over 15 SMs is 8.4)"};
    else if (r.kind == K::Seed)
      r = {r.key, K::Assumed, "equal to the GTX 580's: " + r.text};
    rows.push_back(std::move(r));
  }
  return rows;
}

// Whether the arch's sm.lower has the rule (an arch that fails validation: no).
bool lowers(const Arch& a, bool lower::Rules::*rule) {
  try {
    return lower::parse_rules(a.sm.lower).*rule;
  } catch (const InputError&) {
    return false;
  }
}

bool applies(const Arch& a, std::string_view key) {
  const bool lock_loop = a.locks != 0 && a.atomic_model != "native";
  if (key.starts_with("timing.fsm_") || key == "timing.t_base" || key == "timing.t_position")
    return lock_loop;
  if (key.starts_with("timing.native_")) return !lock_loop;
  const SmConfig& sm = a.sm;
  if (key == "sm.lat_fma" || key == "sm.lanes_fma") return sm.lat_fma != 0;
  if (key == "sm.lanes_imad") return sm.lat_fma != 0 && sm.lanes_imad != 0;
  if (key == "sm.lat_fp64" || key == "sm.lanes_fp64") return sm.lat_fp64 != 0;
  if (key == "sm.lat_fp16") return sm.lat_fp16 != 0;
  if (key == "sm.lat_imad") return sm.lat_imad != 0;
  if (key == "sm.mio_delay_alu") return sm.mio_delay_alu != 0;
  if (key == "sm.launch_cycles") return sm.launch_cycles != 0;
  if (key == "sm.sched_regs") return lowers(a, &lower::Rules::schedule);
  if (key == "sm.ifcvt_slots") return lowers(a, &lower::Rules::ifcvt);
  if (key == "sm.dispatch_ctas" || key == "sm.dispatch_cycles") return sm.dispatch_ctas != 0;
  if (key == "sm.warp_start_cycles") return sm.warp_start_cycles != 0;
  if (key == "sm.mio_delay_fma") return sm.mio_delay_fma != 0;
  if (key == "sm.mio_delay_fp64") return sm.mio_delay_fp64 != 0;
  if (key == "sm.guard_delay") return sm.guard_delay != 0;
  if (key == "sm.xpipe_delay") return sm.xpipe_delay != 0;
  if (key == "sm.taken_branch_fetch") return sm.taken_branch_fetch != 0;
  if (key == "sm.icache_miss_cycles" || key == "sm.icache_prefetch_lines")
    return sm.icache_miss_cycles != 0;
  if (key == "sm.const_miss_cycles") return sm.const_miss_cycles != 0;
  if (key == "sm.lat_cvt64") return sm.lat_cvt64 != 0;
  if (key == "sm.lat_tensor" || key == "sm.tensor_fmas") return sm.tensor_fmas != 0;
  if (key == "sm.tensor_step_fmas") return sm.tensor_step_fmas != 0;
  if (key == "sm.lat_wgmma" || key == "sm.wgmma_fmas") return sm.wgmma_fmas != 0;
  if (key == "sm.gpc_sms" || key == "sm.max_cluster" || key == "sm.lat_dsm" ||
      key == "sm.dsm_bytes_per_cycle")
    return sm.gpc_sms != 0;
  if (key.starts_with("sm.l1_") || key == "sm.carveouts") return sm.l1_unified_bytes != 0;
  // The DRAM's own rate where a preset gives one (else sm.global_bytes_per_cycle's x sm.count).
  if (key == "sm.dram_bytes_per_cycle")
    return sm.dram_bytes_per_cycle != 0 && sm.l2_bytes != 0 && sm.l2_slices != 0;
  if (key == "sm.l2_slice_bytes_per_cycle" || key == "sm.l2_hash" || key == "sm.l2_queue_sectors" ||
      key.starts_with("sm.dram_"))
    return sm.l2_bytes != 0 && sm.l2_slices != 0;
  if (key.starts_with("sm.l2_")) return sm.l2_bytes != 0;
  return true;
}

// Every key's value as text (one pass over the arch).
std::map<std::string, std::string, std::less<>> values_of(const Arch& a) {
  std::map<std::string, std::string, std::less<>> out;
  visit_arch(a,
             [&](std::string_view k, const ArchValue& v) { out.emplace(k, arch_value_text(v)); });
  return out;
}

}  // namespace

std::string_view source_kind_name(SourceKind k) {
  switch (k) {
    case SourceKind::Seed:
      return "seed";
    case SourceKind::Measured:
      return "measured";
    case SourceKind::Calibrated:
      return "calibrated";
    case SourceKind::Vendor:
      return "vendor";
    case SourceKind::Config:
      return "correlated config";
    case SourceKind::Assumed:
      return "assumed";
    case SourceKind::User:
      return "set by you";
    case SourceKind::Untraced:
      break;
  }
  return "not traced";
}

const std::vector<std::string>& timing_keys() {
  static const std::vector<std::string> keys = {"sm.launch_cycles",
                                                "sm.dispatch_ctas",
                                                "sm.dispatch_cycles",
                                                "sm.warp_start_cycles",
                                                "sm.subcores",
                                                "sm.mio_queue",
                                                "sm.lanes_alu",
                                                "sm.lanes_fma",
                                                "sm.lanes_imad",
                                                "sm.lanes_fp64",
                                                "sm.lanes_sfu",
                                                "sm.tensor_fmas",
                                                "sm.tensor_step_fmas",
                                                "sm.wgmma_fmas",
                                                "sm.lat_wgmma",
                                                "sm.gpc_sms",
                                                "sm.max_cluster",
                                                "sm.lat_dsm",
                                                "sm.dsm_bytes_per_cycle",
                                                "sm.frontend_stages",
                                                "sm.mem_stages",
                                                "sm.writeback_ports",
                                                "sm.lat_alu",
                                                "sm.lat_fma",
                                                "sm.lat_fp16",
                                                "sm.lat_imad",
                                                "sm.lat_fp64",
                                                "sm.lat_tensor",
                                                "sm.lat_sfu",
                                                "sm.lat_cvt64",
                                                "sm.mio_delay_alu",
                                                "sm.mio_delay_fma",
                                                "sm.mio_delay_fp64",
                                                "sm.guard_delay",
                                                "sm.xpipe_delay",
                                                "sm.lat_branch",
                                                "sm.taken_branch_fetch",
                                                "sm.icache_miss_cycles",
                                                "sm.icache_prefetch_lines",
                                                "sm.const_miss_cycles",
                                                "sm.sched_regs",
                                                "sm.ifcvt_slots",
                                                "sm.lat_shared_ld",
                                                "sm.lat_shared_st",
                                                "sm.lat_shared_atom",
                                                "sm.lat_const",
                                                "sm.global_latency",
                                                "sm.global_atomic_latency",
                                                "sm.global_bytes_per_cycle",
                                                "sm.l1_unified_bytes",
                                                "sm.carveouts",
                                                "sm.l1_latency",
                                                "sm.l1_bytes_per_cycle",
                                                "sm.l2_bytes",
                                                "sm.l2_latency",
                                                "sm.l2_bytes_per_cycle",
                                                "sm.l2_write_bytes_per_cycle",
                                                "sm.l2_slices",
                                                "sm.l2_slice_bytes_per_cycle",
                                                "sm.l2_hash",
                                                "sm.l2_queue_sectors",
                                                "sm.dram_channels",
                                                "sm.dram_bytes_per_cycle",
                                                "sm.dram_queue_sectors",
                                                "sm.l2_atomic_cycles",
                                                "sm.scheduler",
                                                "timing.t_base",
                                                "timing.t_position",
                                                "timing.t_bank",
                                                "timing.fsm_read",
                                                "timing.fsm_update",
                                                "timing.fsm_write",
                                                "timing.fsm_branch",
                                                "timing.native_base",
                                                "timing.native_position",
                                                "timing.ld_base",
                                                "timing.st_base"};
  return keys;
}

std::vector<TimingKeySource> timing_sources(const Arch& a) {
  std::vector<Row> rows;
  if (a.name == "fermi-gtx480")
    rows = gtx480_rows();
  else if (const auto it = tables().find(a.name); it != tables().end()) {
    rows = it->second;
    if (a.name != "fermi-gtx580")
      for (const Row& r : kModernCommon)
        if (std::none_of(rows.begin(), rows.end(), [&](const Row& x) { return x.key == r.key; }))
          rows.push_back(r);
  }
  const Arch* preset = nullptr;
  for (const Arch& p : arch_presets())
    if (p.name == a.name) preset = &p;
  const auto values = values_of(a);
  const auto preset_values = preset ? values_of(*preset) : decltype(values){};
  std::vector<TimingKeySource> out;
  for (const std::string& key : timing_keys()) {
    if (!applies(a, key)) continue;
    TimingKeySource s{key, values.at(key), SourceKind::Untraced, ""};
    if (preset && preset_values.at(key) != s.value) {
      s.kind = SourceKind::User;
      s.text = fmt::format("changed from {}'s {}", a.name, preset_values.at(key));
    } else {
      for (const Row& r : rows)
        if (key == r.key) s.kind = r.kind, s.text = r.text;
      if (s.kind == SourceKind::Untraced)
        s.text = rows.empty() ? "this preset's keys are not traced one by one: see its source line"
                              : "missing from the preset's table";
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string sources_summary(const Arch& a) {
  const auto s = timing_sources(a);
  if (std::all_of(s.begin(), s.end(),
                  [](const TimingKeySource& k) { return k.kind == SourceKind::Untraced; }))
    return "timing keys not traced one by one";
  std::size_t sourced = 0, measured = 0, calibrated = 0;
  for (const auto& k : s) {
    sourced += k.kind != SourceKind::Assumed && k.kind != SourceKind::Untraced &&
               k.kind != SourceKind::User;
    measured += k.kind == SourceKind::Measured || k.kind == SourceKind::Seed ||
                k.kind == SourceKind::Calibrated;
    calibrated += k.kind == SourceKind::Calibrated;
  }
  std::string out =
      fmt::format("{} of {} timing keys sourced, {} measured", sourced, s.size(), measured);
  if (calibrated) out += fmt::format(", {} of them calibrated", calibrated);
  return out;
}

}  // namespace smemsim

// smemsim-arch: sm_90a
// Hopper's warpgroup matrix multiply (issue 46), written by us from the PTX ISA's description of
// wgmma.mma_async ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions": the
// matrix descriptor, the canonical shared-memory layouts, the register fragments). The wgmma
// instructions are inline PTX, one function a shape and form (written out: every accumulator is
// an operand). Every kernel runs one or more warpgroups of 128 threads; warp w % 4 of a warpgroup
// holds rows 16 (w % 4) .. + 15 of the 64-row accumulator, thread lane its elements
//   i = 0 .. N/2 - 1:  row g + 8 ((i >> 1) & 1),  column 2 t + (i & 1) + 8 (i >> 2)
// (g = lane / 4, t = lane % 4; an f16 accumulator register holds elements 2j and 2j + 1).
//   wgmma_layouts   D (64 x 32) = A (64 x 16) B (16 x 32) (+ D), f16 or bf16 in, f32 out, A and
//                   B placed in shared memory K-major by the threads under swizzle `mode` (0 none,
//                   32, 64, 128 bytes) and read through descriptors of that mode; trans_a /
//                   trans_b: A M-major / B N-major instead; A or B negated by its scale;
//   wgmma_tf32      the same shape at k8 on tf32;
//   wgmma_rs_f16    the same product with A from registers and f16 accumulators, twice (the
//                   second adds to the first: D = 2 A B);
//   wgmma_s8        D (64 x 32, s32) = A (64 x 32) B (32 x 32) on s8 or u8 x s8 elements,
//                   with or without .satfinite;
//   wgmma_fp8       D (64 x 32, f32) = A (64 x 32) B (32 x 32) on e4m3 x e4m3 or e5m2 x e4m3;
//   wgmma_gemm      C (M x N, f32) = A (M x K) B^T, A and B^T (N x K) row-major f16 in global
//                   memory, tiles of 128 x 128 x 64 brought in by the TMA with the 128B swizzle
//                   (an mbarrier counting their bytes), two warpgroups a CTA, m64n128k16;
//   wgmma_latency_nN (N = 8 ... 256), wgmma_latency_rs_nN (N = 8, 16, 32)   one warpgroup:
//                   `steps` m64nNk16 into one accumulator back to back, A and B from shared
//                   memory (128B swizzle) or A from registers, then commit and wait; thread 0's
//                   %clock before and after to clk[0] and clk[1]: cycles a product (Luo et al.
//                   2024's wgmma latency, Table X; smemsim calibrate's replicas wgmma_*).
#include <cuda.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cuda/barrier>
#include <cuda/ptx>

#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

// The 64-bit matrix descriptor (PTX ISA "Matrix Descriptor Format"): the start address, the
// leading and stride byte offsets, each >> 4 in 14 bits, and the swizzle in bits 62-63.
__device__ std::uint64_t descriptor(const void* smem, unsigned lbo, unsigned sbo, int swizzle) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const std::uint64_t code = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
  return std::uint64_t((a & 0x3ffff) >> 4) | std::uint64_t((lbo & 0x3ffff) >> 4) << 16 |
         std::uint64_t((sbo & 0x3ffff) >> 4) << 32 | code << 62;
}

__device__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ void wait_all() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
// Shared memory the threads wrote, visible to the async proxy that wgmma reads it through.
__device__ void fence_proxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// D (64 x 32, f32) += A B, A and B K-major in shared memory.
__device__ void mma_ss_n32(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// The same with B N-major (imm-trans-b = 1).
__device__ void mma_ss_n32_tb(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D = -(A) B + D (imm-scale-a = -1).
__device__ void mma_ss_n32_neg(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, -1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// A M-major (imm-trans-a = 1), B K-major.
__device__ void mma_ss_n32_ta(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// A M-major and B N-major.
__device__ void mma_ss_n32_tab(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D = A (-B) + D (imm-scale-b = -1).
__device__ void mma_ss_n32_negb(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, -1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, f32) += A B on bf16 elements.
__device__ void mma_ss_n32_bf16(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, f32) += A B on tf32 elements (k8).
__device__ void mma_ss_tf32_n32(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, s32) += A B, A u8 and B s8.
__device__ void mma_ss_u8s8_n32(int* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.s8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
        "+r"(d[14]), "+r"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, s32) += A B on s8, clamped to the s32 range (.satfinite).
__device__ void mma_ss_s8_sat_n32(int* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.satfinite.s32.s8.s8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
        "+r"(d[14]), "+r"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, s32) += A B on s8 elements (k32).
__device__ void mma_ss_s8_n32(int* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
        "+r"(d[14]), "+r"(d[15])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 8, f32) += A B, both K-major in shared memory.
__device__ void mma_ss_n8(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
      "{%0, %1, %2, %3}, "
      "%4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 16, f32) += A B, both K-major in shared memory.
__device__ void mma_ss_n16(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, "
      "%8, %9, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 8, f32) += A B, A from registers (four f16x2 a thread), B K-major.
__device__ void mma_rs_n8(float* d, const unsigned* a, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
      "{%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, %8, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

// D (64 x 16, f32) += A B, A from registers (four f16x2 a thread), B K-major.
__device__ void mma_rs_n16(float* d, const unsigned* a, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, "
      "{%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

// D (64 x 32, f32) += A B, A from registers (four f16x2 a thread), B K-major.
__device__ void mma_rs_n32(float* d, const unsigned* a, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "{%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

// D (64 x 64, f32) += A B, both K-major in shared memory.
__device__ void mma_ss_n64(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 128, f32) += A B, both K-major in shared memory.
__device__ void mma_ss_n128(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
      "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 256, f32) += A B, both K-major in shared memory.
__device__ void mma_ss_n256(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
      "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "
      "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "
      "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
      "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
      "%123, %124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(accumulate));
}

// D (64 x 32, f16 pairs) += A B, A from registers (four f16x2 a thread), B K-major.
__device__ void mma_rs_n32_f16(unsigned* d, const unsigned* a, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, "
      "{%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

// Byte offset of element (row, k) of a matrix of 16-byte-chunked rows placed K-major: without a
// swizzle in 8 x 16-byte core matrices (the two along K 128 bytes apart, 8-row groups 256 apart);
// with a swizzle of `span` bytes a row every `span` bytes, each 16-byte chunk of a 128-byte line
// n moved to chunk (c XOR n mod span / 16) (the CUDA guide's picture of the TMA's modes).
__device__ unsigned kmajor(int row, int kbyte, int span) {
  if (span == 0) return (row / 8) * 256 + (kbyte / 16) * 128 + (row % 8) * 16 + kbyte % 16;
  const unsigned at = row * span + kbyte;
  const unsigned line = at / 128, flip = line % (span / 16);
  return (at & ~0x70u) | ((((at >> 4) & 7) ^ flip) << 4);
}

// Element (mn, k) of an operand placed M/N-major (row k holds the mn's, `total` of them):
// without a swizzle in core matrices of 8 mn x 8 k rows of 16 bytes (8-mn groups 128 bytes apart,
// the SBO; 8-k groups total / 8 x 128 apart, the LBO); with a swizzle of `span` bytes a row of
// span / 2 mn's every span bytes, the two 8-k groups 8 span apart (SBO) and the next span / 2 mn's
// 16 span further (LBO), chunks moved as in kmajor.
__device__ unsigned mnmajor(int mn, int k, int span, int total) {
  if (span == 0) return (k / 8) * (total / 8) * 128 + (mn / 8) * 128 + (k % 8) * 16 + (mn % 8) * 2;
  const int per_row = span / 2;
  const unsigned at =
      (mn / per_row) * 16 * span + (k / 8) * 8 * span + (k % 8) * span + (mn % per_row) * 2;
  const unsigned flip = (at / 128) % (span / 16);
  return (at & ~0x70u) | ((((at >> 4) & 7) ^ flip) << 4);
}

// The descriptor of an M/N-major operand placed by mnmajor.
__device__ std::uint64_t mn_descriptor(const void* smem, int span, int total) {
  return span == 0 ? descriptor(smem, (total / 8) * 128, 128, 0)
                   : descriptor(smem, 16 * span, 8 * span, span);
}

__device__ void store_d(float* out, const float* d, int n) {
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < n / 2; ++i)
    out[(16 * w + g + 8 * ((i >> 1) & 1)) * n + 2 * t + (i & 1) + 8 * (i >> 2)] = d[i];
}

// D starts at 1,000 in every element; `accumulate` keeps it (scale-d true) or not.
// variant: 0 f16, 1 A negated, 2 B negated, 3 bf16 (the inputs' bits as given).
__global__ void wgmma_layouts(const unsigned short* a, const unsigned short* b, float* out,
                              int mode, int trans_a, int trans_b, int variant, int accumulate) {
  __shared__ alignas(1024) unsigned char sa[64 * 128], sb[32 * 128];
  // A (64 x 16): row r's 32 bytes at kmajor(r, ...); B (16 x 32, b[k * 32 + n]).
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) {
    const int r = i / 16, k = i % 16;
    const unsigned at = trans_a ? mnmajor(r, k, mode, 64) : kmajor(r, 2 * k, mode);
    *reinterpret_cast<unsigned short*>(sa + at) = a[i];
  }
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
    const int k = i / 32, n = i % 32;
    const unsigned at = trans_b ? mnmajor(n, k, mode, 32) : kmajor(n, 2 * k, mode);
    *reinterpret_cast<unsigned short*>(sb + at) = b[i];
  }
  fence_proxy();
  __syncthreads();
  // K-major: LBO 128 (no swizzle: the second core matrix along K), SBO the 8-row stride.
  const unsigned sbo = mode == 0 ? 256 : 8 * mode;
  const std::uint64_t da = trans_a ? mn_descriptor(sa, mode, 64) : descriptor(sa, 128, sbo, mode);
  const std::uint64_t db = trans_b ? mn_descriptor(sb, mode, 32) : descriptor(sb, 128, sbo, mode);
  float d[16];
  for (float& v : d) v = 1000.0f;
  fence();
  if (trans_a && trans_b)
    mma_ss_n32_tab(d, da, db, accumulate);
  else if (trans_a)
    mma_ss_n32_ta(d, da, db, accumulate);
  else if (trans_b)
    mma_ss_n32_tb(d, da, db, accumulate);
  else if (variant == 1)
    mma_ss_n32_neg(d, da, db, accumulate);
  else if (variant == 2)
    mma_ss_n32_negb(d, da, db, accumulate);
  else if (variant == 3)
    mma_ss_n32_bf16(d, da, db, accumulate);
  else
    mma_ss_n32(d, da, db, accumulate);
  commit();
  wait_all();
  store_d(out, d, 32);
}

// D (64 x 32) = A (64 x 8) B (8 x 32) on tf32 (f32 inputs, their low 13 bits ignored), K-major
// without a swizzle.
__global__ void wgmma_tf32(const float* a, const float* b, float* out) {
  __shared__ alignas(1024) unsigned char sa[64 * 32], sb[32 * 32];
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x)
    *reinterpret_cast<float*>(sa + kmajor(i / 8, 4 * (i % 8), 0)) = a[i];
  for (int i = threadIdx.x; i < 8 * 32; i += blockDim.x)
    *reinterpret_cast<float*>(sb + kmajor(i % 32, 4 * (i / 32), 0)) = b[i];
  fence_proxy();
  __syncthreads();
  float d[16];
  for (float& v : d) v = 1000.0f;
  fence();
  mma_ss_tf32_n32(d, descriptor(sa, 128, 256, 0), descriptor(sb, 128, 256, 0), 0);
  commit();
  wait_all();
  store_d(out, d, 32);
}

__global__ void wgmma_rs_f16(const __half* a, const __half* b, float* out) {
  __shared__ alignas(1024) unsigned char sb[32 * 32];
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
    const int k = i / 32, n = i % 32;
    *reinterpret_cast<__half*>(sb + kmajor(n, 2 * k, 0)) = b[i];
  }
  fence_proxy();
  __syncthreads();
  // A's fragment: a0 (g, 2t..), a1 (g + 8, 2t..), a2 (g, 2t + 8..), a3 (g + 8, 2t + 8..), rows
  // 16 (w % 4) on.
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  unsigned frag[4];
  for (int r = 0; r < 4; ++r) {
    const int row = 16 * w + g + 8 * (r & 1), k = 2 * t + 8 * (r >> 1);
    const __half lo = a[row * 16 + k], hi = a[row * 16 + k + 1];
    frag[r] = unsigned(__half_as_ushort(lo)) | unsigned(__half_as_ushort(hi)) << 16;
  }
  unsigned d[8];
  for (unsigned& v : d) v = 0x63d063d0u;  // 1,000 in both halves: scale-d = 0 drops it
  const std::uint64_t db = descriptor(sb, 128, 256, 0);
  fence();
  mma_rs_n32_f16(d, frag, db, 0);
  mma_rs_n32_f16(d, frag, db, 1);
  commit();
  wait_all();
  float f[16];
  for (int i = 0; i < 8; ++i) {
    f[2 * i] = __half2float(__ushort_as_half(static_cast<unsigned short>(d[i] & 0xffff)));
    f[2 * i + 1] = __half2float(__ushort_as_half(static_cast<unsigned short>(d[i] >> 16)));
  }
  store_d(out, f, 32);
}

// D (64 x 32, s32) = A (64 x 32) B (32 x 32) on 8-bit integers, from `init` in every element:
// variant 0 s8 x s8 (init dropped: scale-d = 0), 1 u8 x s8 (dropped), 2 s8 x s8 added to init
// with .satfinite, 3 the same without (wrapping).
__global__ void wgmma_s8(const signed char* a, const signed char* b, int* out, int variant,
                         int init) {
  __shared__ alignas(1024) unsigned char sa[64 * 32], sb[32 * 32];
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x)
    sa[kmajor(i / 32, i % 32, 0)] = static_cast<unsigned char>(a[i]);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) {
    const int k = i / 32, n = i % 32;
    sb[kmajor(n, k, 0)] = static_cast<unsigned char>(b[i]);
  }
  fence_proxy();
  __syncthreads();
  int d[16];
  for (int& v : d) v = init;
  const std::uint64_t da = descriptor(sa, 128, 256, 0), db = descriptor(sb, 128, 256, 0);
  fence();
  if (variant == 1)
    mma_ss_u8s8_n32(d, da, db, 0);
  else if (variant == 2)
    mma_ss_s8_sat_n32(d, da, db, 1);
  else
    mma_ss_s8_n32(d, da, db, variant == 3);
  commit();
  wait_all();
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < 16; ++i)
    out[(16 * w + g + 8 * ((i >> 1) & 1)) * 32 + 2 * t + (i & 1) + 8 * (i >> 2)] = d[i];
}

constexpr int kBM = 128, kBN = 128, kBK = 64;

__global__ void __launch_bounds__(256)
    wgmma_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
               float* c, int n, int k) {
  __shared__ alignas(1024) __half sa[kBM * kBK], sb[kBN * kBK];
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  const int wg = threadIdx.x / 128;
  float d[64];
  for (float& v : d) v = 0;
  for (int kt = 0; kt < k / kBK; ++kt) {
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
      cde::cp_async_bulk_tensor_2d_global_to_shared(sa, &ta, kt * kBK, blockIdx.y * kBM, bar);
      cde::cp_async_bulk_tensor_2d_global_to_shared(sb, &tb, kt * kBK, blockIdx.x * kBN, bar);
      token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(sa) + sizeof(sb));
    } else {
      token = bar.arrive();
    }
    bar.wait(std::move(token));
    // 128-byte rows (64 halves of K) swizzled by the TMA; a k16 step starts 32 bytes further in.
    fence();
    for (int kk = 0; kk < kBK / 16; ++kk)
      mma_ss_n128(d, descriptor(sa + wg * 64 * kBK + kk * 16, 16, 1024, 128),
                  descriptor(sb + kk * 16, 16, 1024, 128), kt > 0 || kk > 0);
    commit();
    wait_all();
    __syncthreads();  // every warpgroup has read the tiles before the next copies
  }
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int row0 = blockIdx.y * kBM + wg * 64 + 16 * w + g, col0 = blockIdx.x * kBN + 2 * t;
  for (int i = 0; i < 64; ++i)
    c[(row0 + 8 * ((i >> 1) & 1)) * n + col0 + (i & 1) + 8 * (i >> 2)] = d[i];
}

// `steps` products into one accumulator, back to back (the PTX ISA orders a wgmma's
// accumulator accesses after the previous one's of the same shape), then one commit and wait.
template <int N, bool RS>
__device__ void latency(unsigned* clk, int steps) {
  __shared__ alignas(1024) __half sa[64 * 64], sb[N * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) sa[i] = __float2half(0.0f);
  for (int i = threadIdx.x; i < N * 64; i += blockDim.x) sb[i] = __float2half(0.0f);
  fence_proxy();
  __syncthreads();
  float d[N / 2];
  for (float& v : d) v = 0;
  const unsigned a[4] = {threadIdx.x, 0, 0, 0};
  const std::uint64_t da = descriptor(sa, 16, 1024, 128), db = descriptor(sb, 16, 1024, 128);
  auto product = [&] {
    if constexpr (RS && N == 8)
      mma_rs_n8(d, a, db, 1);
    else if constexpr (RS && N == 16)
      mma_rs_n16(d, a, db, 1);
    else if constexpr (RS)
      mma_rs_n32(d, a, db, 1);
    else if constexpr (N == 8)
      mma_ss_n8(d, da, db, 1);
    else if constexpr (N == 16)
      mma_ss_n16(d, da, db, 1);
    else if constexpr (N == 32)
      mma_ss_n32(d, da, db, 1);
    else if constexpr (N == 64)
      mma_ss_n64(d, da, db, 1);
    else if constexpr (N == 128)
      mma_ss_n128(d, da, db, 1);
    else
      mma_ss_n256(d, da, db, 1);
  };
  // A first product, waited for, before the clock: the stores above have left the shared-memory
  // pipeline by then.
  fence();
  product();
  commit();
  wait_all();
  unsigned start = 0, stop = 0;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
  for (int i = 0; i < steps; ++i) product();
  commit();
  wait_all();
  asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
  float s = 0;
  for (float v : d) s += v;
  if (threadIdx.x == 0) {
    clk[0] = start;
    clk[1] = stop;
    clk[2] = s != 0.0f;  // the products are used
  }
}

#define SMEMSIM_WGMMA_LATENCY(name, n, rs)                    \
  extern "C" __global__ void name(unsigned* clk, int steps) { \
    latency<n, rs>(clk, steps);                               \
  }
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n8, 8, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n16, 16, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n32, 32, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n64, 64, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n128, 128, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_n256, 256, false)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_rs_n8, 8, true)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_rs_n16, 16, true)
SMEMSIM_WGMMA_LATENCY(wgmma_latency_rs_n32, 32, true)

// D (64 x 32, f32) = A (64 x 32) B (32 x 32) on 8-bit floats (issue 46), both K-major in shared
// memory without a swizzle, as wgmma_s8 places its bytes: variant 0 e4m3 x e4m3, 1 e5m2 x e4m3.
__device__ void mma_ss_e4m3_n32(float* d, std::uint64_t da, std::uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db));
}

__device__ void mma_ss_e5m2_e4m3_n32(float* d, std::uint64_t da, std::uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e4m3 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db));
}

__global__ void wgmma_fp8(const unsigned char* a, const unsigned char* b, float* out, int variant) {
  __shared__ alignas(1024) unsigned char sa[64 * 32], sb[32 * 32];
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) sa[kmajor(i / 32, i % 32, 0)] = a[i];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) {
    const int k = i / 32, n = i % 32;
    sb[kmajor(n, k, 0)] = b[i];
  }
  fence_proxy();
  __syncthreads();
  float d[16] = {};
  const std::uint64_t da = descriptor(sa, 128, 256, 0), db = descriptor(sb, 128, 256, 0);
  fence();
  if (variant == 1)
    mma_ss_e5m2_e4m3_n32(d, da, db);
  else
    mma_ss_e4m3_n32(d, da, db);
  commit();
  wait_all();
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < 16; ++i)
    out[(16 * w + g + 8 * ((i >> 1) & 1)) * 32 + 2 * t + (i & 1) + 8 * (i >> 2)] = d[i];
}

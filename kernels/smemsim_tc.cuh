// Tensor-core building blocks shared by kernels/gemm_tc.cu and kernels/attention_tc.cu (issue 16):
// a generic pointer's shared-window address, ldmatrix as macros (so that the profile names the
// line using them: an inlined helper's instructions carry the helper's line), mma.sync.m16n8k16
// with f16 inputs and f32 accumulators, and two floats packed as an f16x2.
#pragma once
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#define LDMATRIX_X4(r, p)                                                    \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
               : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3])      \
               : "r"(smem_u32(p)))
#define LDMATRIX_X4_TRANS(r, p)                                                    \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" \
               : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3])            \
               : "r"(smem_u32(p)))

// D += A B for one m16n8k16 tile: a0..a3 and b0, b1 in the PTX ISA's fragment layouts.
__device__ __forceinline__ void mma_16816(float* d, const unsigned* a, unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

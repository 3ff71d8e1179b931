// smemsim-arch: sm_90
// stmatrix (sm_90, issue 16): the x4 fragments of ldmatrix written back to shared memory, plain
// and transposed. CPU reference: tests/exec_tensor_test.cpp.

__device__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// stmatrix (sm_90) of the x4 fragments back to shared memory, transposed or not, then copied out.
__global__ void stmatrix_probe(const unsigned short* in, unsigned short* out, int trans) {
  __shared__ __align__(16) unsigned short rows[32 * 8], back[32 * 8];
  const int lane = threadIdx.x;
  for (int c = 0; c < 8; ++c) rows[lane * 8 + c] = in[lane * 8 + c];
  __syncwarp();
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr(&rows[lane * 8])));
  if (trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(
                     smem_addr(&back[lane * 8])),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(
                     smem_addr(&back[lane * 8])),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  __syncwarp();
  for (int c = 0; c < 8; ++c) out[lane * 8 + c] = back[lane * 8 + c];
}

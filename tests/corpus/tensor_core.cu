// smemsim-arch: sm_80
// Tensor-core instructions as kernels use them (issue 16), for tests/exec_tensor_test.cpp:
// ldmatrix (x1/x2/x4, .trans) on rows at a chosen stride, mma.sync m16n8k16 (f16, bf16; f32 and f16
// accumulators) fed by ldmatrix the way CUTLASS feeds it, m16n8k8 on tf32 fragments loaded by the
// PTX ISA's layout, cp.async groups, and the nvcuda::wmma API at three shapes and two types with
// tiles staged in shared memory. The fragment layouts written out below (g = lane / 4, t = lane %
// 4) are the PTX ISA's "Matrix Fragments for mma.m16n8k16 / m16n8k8" figures.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

__device__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 32 rows of 8 halves (in[r * 8 + c]) placed at `stride` halves apart in shared memory; lane L
// passes row L's address; out gets x4, x4.trans, x2 and x1 results: 4 + 4 + 2 + 1 words per lane.
__global__ void ldmatrix_probe(const unsigned short* in, unsigned* out, int stride) {
  extern __shared__ unsigned short rows[];
  const int lane = threadIdx.x;
  for (int c = 0; c < 8; ++c) rows[lane * stride + c] = in[lane * 8 + c];
  __syncwarp();
  const unsigned p = smem_addr(&rows[lane * stride]);
  unsigned r[11];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
               : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[8]), "=r"(r[9])
               : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[10]) : "r"(p));
  for (int i = 0; i < 11; ++i) out[lane * 11 + i] = r[i];
}

// A (16 x 16, row-major) and Bt (8 x 16) staged in shared memory, then a0..a3 by ldmatrix.x4 on
// A's four 8 x 8 blocks (rows 0-7 / 8-15 by lanes 0-15, columns 8-15 by lanes 16-31) and b0, b1
// by ldmatrix.x2 on Bt (B "col" for mma), the way CUTLASS feeds mma.sync.
template <typename T>
__device__ void stage_fragments(const T* a, const T* bt, unsigned* fa, unsigned* fb) {
  __shared__ __align__(16) T as[16 * 16], bs[8 * 16];
  const int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) as[i] = a[i];
  for (int i = lane; i < 128; i += 32) bs[i] = bt[i];
  __syncwarp();
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(fa[0]), "=r"(fa[1]), "=r"(fa[2]), "=r"(fa[3])
               : "r"(smem_addr(&as[(lane % 16) * 16 + (lane / 16) * 8])));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(fb[0]), "=r"(fb[1])
               : "r"(smem_addr(&bs[(lane % 8) * 16 + ((lane / 8) % 2) * 8])));
}

// D (16 x 8, f32) = A (16 x 16) B (16 x 8) + C, fragments from stage_fragments.
template <typename T>
__device__ void mma_16816(const T* a, const T* bt, const float* c, float* d, bool bf16) {
  unsigned fa[4], fb[2];
  stage_fragments(a, bt, fa, fb);
  const int lane = threadIdx.x;
  const unsigned a0 = fa[0], a1 = fa[1], a2 = fa[2], a3 = fa[3], b0 = fb[0], b1 = fb[1];
  const int g = lane / 4, t = lane % 4;
  float d0 = c[g * 8 + 2 * t], d1 = c[g * 8 + 2 * t + 1];
  float d2 = c[(g + 8) * 8 + 2 * t], d3 = c[(g + 8) * 8 + 2 * t + 1];
  if (bf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
  d[(g + 8) * 8 + 2 * t] = d2;
  d[(g + 8) * 8 + 2 * t + 1] = d3;
}

__global__ void mma_f16(const __half* a, const __half* bt, const float* c, float* d) {
  mma_16816(a, bt, c, d, false);
}
__global__ void mma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* bt, const float* c,
                         float* d) {
  mma_16816(a, bt, c, d, true);
}

// f16 accumulators: D and C as two f16x2 registers per lane {(g, 2t), (g, 2t+1)} and rows g + 8.
__global__ void mma_f16_acc(const __half* a, const __half* bt, const __half* c, __half* d) {
  unsigned fa[4], fb[2];
  stage_fragments(a, bt, fa, fb);
  const int lane = threadIdx.x;
  const unsigned a0 = fa[0], a1 = fa[1], a2 = fa[2], a3 = fa[3], b0 = fb[0], b1 = fb[1];
  const int g = lane / 4, t = lane % 4;
  __half2 c0 = __halves2half2(c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]);
  __half2 c1 = __halves2half2(c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]);
  unsigned d0 = *reinterpret_cast<unsigned*>(&c0), d1 = *reinterpret_cast<unsigned*>(&c1);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%0,%1};"
      : "+r"(d0), "+r"(d1)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  const __half2 e0 = *reinterpret_cast<__half2*>(&d0), e1 = *reinterpret_cast<__half2*>(&d1);
  d[g * 8 + 2 * t] = __low2half(e0);
  d[g * 8 + 2 * t + 1] = __high2half(e0);
  d[(g + 8) * 8 + 2 * t] = __low2half(e1);
  d[(g + 8) * 8 + 2 * t + 1] = __high2half(e1);
}

// m16n8k8 on tf32: A (16 x 8) a0 = (g, t), a1 = (g + 8, t), a2 = (g, t + 4), a3 = (g + 8, t + 4);
// B (8 x 8) b0 = (t, g), b1 = (t + 4, g); C and D as for m16n8k16. Inputs converted with cvt.rna.
__global__ void mma_tf32(const float* a, const float* b, const float* c, float* d) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned fa[4], fb[2];
  const float va[4] = {a[g * 8 + t], a[(g + 8) * 8 + t], a[g * 8 + t + 4], a[(g + 8) * 8 + t + 4]};
  const float vb[2] = {b[t * 8 + g], b[(t + 4) * 8 + g]};
  for (int i = 0; i < 4; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fa[i]) : "f"(va[i]));
  for (int i = 0; i < 2; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fb[i]) : "f"(vb[i]));
  float d0 = c[g * 8 + 2 * t], d1 = c[g * 8 + 2 * t + 1];
  float d2 = c[(g + 8) * 8 + 2 * t], d3 = c[(g + 8) * 8 + 2 * t + 1];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
  d[(g + 8) * 8 + 2 * t] = d2;
  d[(g + 8) * 8 + 2 * t + 1] = d3;
}

// cp.async groups: chunk 0 into buf0 (group 0), chunk 1 into buf1 (group 1); after wait_group 1
// only group 0 has landed; after wait_group 0 both. Each of 32 lanes copies 16 bytes (4 ints).
__global__ void cp_async_groups(const int* chunk0, const int* chunk1, int* out) {
  __shared__ __align__(16) int buf0[128], buf1[128];
  const int lane = threadIdx.x;
  for (int i = 0; i < 4; ++i) buf0[lane * 4 + i] = buf1[lane * 4 + i] = -1;
  __syncwarp();
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(&buf0[lane * 4])),
               "l"(chunk0 + lane * 4));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(smem_addr(&buf1[lane * 4])),
               "l"(chunk1 + lane * 4));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;" ::: "memory");
  __syncwarp();
  out[lane] = buf0[lane * 4];
  out[32 + lane] = buf1[lane * 4];
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncwarp();
  out[64 + lane] = buf1[lane * 4];
  // A 4-byte copy of 0 source bytes (src-size 0) zero-fills its destination.
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, 0;" ::"r"(smem_addr(&buf0[lane])),
               "l"(chunk0 + lane));
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
  out[96 + lane] = buf0[lane];
}

// The wmma API: C (M x N, f32 or f16) = A (M x K) B (K x N), A row-major, B row- or col-major in
// global memory; each warp computes one WM x WN tile, staging its A and B tiles in its own shared
// memory with __syncwarp between the steps.
using namespace nvcuda;
template <int WM, int WN, int WK, typename T, typename Acc, typename BLayout>
__device__ void wmma_gemm(const T* a, const T* b, Acc* c, int m, int n, int k) {
  __shared__ __align__(32) T sa[4][WM * WK], sb[4][WK * WN];
  __shared__ __align__(32) Acc sc[4][WM * WN];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tiles_n = n / WN;
  const int tm = (blockIdx.x * 4 + warp) / tiles_n, tn = (blockIdx.x * 4 + warp) % tiles_n;
  if (tm * WM >= m) return;
  const bool bcol = std::is_same<BLayout, wmma::col_major>::value;
  wmma::fragment<wmma::accumulator, WM, WN, WK, Acc> acc;
  wmma::fill_fragment(acc, Acc(0));
  for (int kk = 0; kk < k; kk += WK) {
    for (int i = lane; i < WM * WK; i += 32) sa[warp][i] = a[(tm * WM + i / WK) * k + kk + i % WK];
    for (int i = lane; i < WK * WN; i += 32) {
      // b is K x N row-major; a col-major tile keeps column j's WK elements together.
      const int r = bcol ? i % WK : i / WN, cc = bcol ? i / WK : i % WN;
      sb[warp][i] = b[(kk + r) * n + tn * WN + cc];
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, WM, WN, WK, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, T, BLayout> fb;
    wmma::load_matrix_sync(fa, sa[warp], WK);
    wmma::load_matrix_sync(fb, sb[warp], bcol ? WK : WN);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(sc[warp], acc, WN, wmma::mem_row_major);
  __syncwarp();
  for (int i = lane; i < WM * WN; i += 32)
    c[(tm * WM + i / WN) * n + tn * WN + i % WN] = sc[warp][i];
}

__global__ void wmma_16x16x16(const __half* a, const __half* b, float* c, int m, int n, int k) {
  wmma_gemm<16, 16, 16, __half, float, wmma::row_major>(a, b, c, m, n, k);
}
__global__ void wmma_32x8x16(const __half* a, const __half* b, float* c, int m, int n, int k) {
  wmma_gemm<32, 8, 16, __half, float, wmma::col_major>(a, b, c, m, n, k);
}
__global__ void wmma_8x32x16(const __half* a, const __half* b, __half* c, int m, int n, int k) {
  wmma_gemm<8, 32, 16, __half, __half, wmma::row_major>(a, b, c, m, n, k);
}
__global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n,
                          int k) {
  wmma_gemm<16, 16, 16, __nv_bfloat16, float, wmma::col_major>(a, b, c, m, n, k);
}

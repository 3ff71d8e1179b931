// smemsim-arch: sm_80
// A small attention kernel on tensor cores (issue 16), written for smemsim: for one head,
//
//   O (64 x 64, f32) = softmax(Q K^T / sqrt(64)) V,   Q, K, V: 64 x 64 f16, row-major
//
// on one tile per CTA (grid.x heads, each with its own Q, K, V and O at head * 4096 elements).
// The three tiles are copied into shared memory with cp.async; each of the four warps takes 16
// query rows: S = Q K^T by ldmatrix (Q as mma's A, K's rows as B "col") and mma.sync.m16n8k16,
// the softmax in the accumulator registers (a row's 64 values live in the four lanes of a quad:
// shfl.xor 1 and 2), P rounded to f16 and reused as A fragments without going through memory
// (the m16n8 accumulator layout of two adjacent n8 tiles is the m16n8k16 A layout), then O = P V
// with V's B fragments read by ldmatrix.trans (V is key-major: the k dimension of P V).
//
// Tiles have 128-byte rows. Row-major, every ldmatrix phase reads eight rows at the same column:
// 8-way conflicts. Swizzled, the 16-byte chunk index is XORed with row % 8 (CuTe Swizzle<3,3,3>
// on half offsets): conflict-free.
#include "smemsim_tc.cuh"

template <bool SWIZZLE>
__device__ __forceinline__ int tile_offset(int row, int col) {
  const int chunk = SWIZZLE ? (col / 8) ^ (row % 8) : col / 8;
  return row * 64 + chunk * 8 + col % 8;
}

// block 128 (four warps), grid (heads).
template <bool SWIZZLE>
__device__ void attention_tile(const __half* Q, const __half* K, const __half* V, float* O) {
  __shared__ __align__(128) __half Qs[64 * 64];
  __shared__ __align__(128) __half Ks[64 * 64];
  __shared__ __align__(128) __half Vs[64 * 64];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int head = blockIdx.x * 64 * 64;
  for (int c = tid; c < 64 * 8; c += 128) {  // 16-byte chunk c: row c / 8, chunk c % 8
    const int row = c / 8, col = (c % 8) * 8;
    const int at = head + row * 64 + col;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     smem_u32(&Qs[tile_offset<SWIZZLE>(row, col)])),
                 "l"(&Q[at]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     smem_u32(&Ks[tile_offset<SWIZZLE>(row, col)])),
                 "l"(&K[at]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     smem_u32(&Vs[tile_offset<SWIZZLE>(row, col)])),
                 "l"(&V[at]));
  }
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();

  // S = Q K^T for rows warp * 16 .. + 15: eight n8 tiles of keys.
  const int q0 = warp * 16;
  float s[8][4] = {};
#pragma unroll
  for (int kk = 0; kk < 64; kk += 16) {
    unsigned a[4];
    LDMATRIX_X4(a, (&Qs[tile_offset<SWIZZLE>(q0 + lane % 16, kk + (lane / 16) * 8)]));
#pragma unroll
    for (int j = 0; j < 4; ++j) {  // keys 16j .. 16j + 15: two n8 tiles
      unsigned b[4];
      LDMATRIX_X4(b, (&Ks[tile_offset<SWIZZLE>(j * 16 + (lane / 16) * 8 + lane % 8, kk + ((lane / 8) % 2) * 8)]));
      mma_16816(s[2 * j], a, b[0], b[1]);
      mma_16816(s[2 * j + 1], a, b[2], b[3]);
    }
  }

  // Softmax of rows g (s[j][0], s[j][1]) and g + 8 (s[j][2], s[j][3]) over the quad's lanes.
  const float scale = 0.125f;  // 1 / sqrt(64)
  float mx[2] = {-1e30f, -1e30f}, sum[2] = {0.f, 0.f};
  for (int j = 0; j < 8; ++j)
    for (int e = 0; e < 4; ++e) mx[e / 2] = fmaxf(mx[e / 2], s[j][e] * scale);
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
  }
  for (int j = 0; j < 8; ++j)
    for (int e = 0; e < 4; ++e) {
      s[j][e] = __expf(s[j][e] * scale - mx[e / 2]);
      sum[e / 2] += s[j][e];
    }
  for (int h = 0; h < 2; ++h) {
    sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 1);
    sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 2);
  }

  // O = P V: P's k16 step kk2 is the A fragment {s[2kk2][0..1], s[2kk2][2..3], s[2kk2+1][0..1],
  // s[2kk2+1][2..3]} in f16; V's B fragments by ldmatrix.trans on key rows.
  float o[8][4] = {};
#pragma unroll
  for (int kk2 = 0; kk2 < 4; ++kk2) {
    const unsigned a[4] = {pack_half2(s[2 * kk2][0], s[2 * kk2][1]),
                           pack_half2(s[2 * kk2][2], s[2 * kk2][3]),
                           pack_half2(s[2 * kk2 + 1][0], s[2 * kk2 + 1][1]),
                           pack_half2(s[2 * kk2 + 1][2], s[2 * kk2 + 1][3])};
#pragma unroll
    for (int j = 0; j < 4; ++j) {  // output dims 16j .. 16j + 15
      unsigned b[4];
      LDMATRIX_X4_TRANS(b, (&Vs[tile_offset<SWIZZLE>(kk2 * 16 + ((lane / 8) % 2) * 8 + lane % 8, j * 16 + (lane / 16) * 8)]));
      mma_16816(o[2 * j], a, b[0], b[1]);
      mma_16816(o[2 * j + 1], a, b[2], b[3]);
    }
  }
  const int g = lane / 4, t = lane % 4;
  for (int j = 0; j < 8; ++j) {
    const int row = head + (q0 + g) * 64, col = j * 8 + 2 * t;
    O[row + col] = o[j][0] / sum[0];
    O[row + col + 1] = o[j][1] / sum[0];
    O[row + 8 * 64 + col] = o[j][2] / sum[1];
    O[row + 8 * 64 + col + 1] = o[j][3] / sum[1];
  }
}

__global__ void attention(const __half* Q, const __half* K, const __half* V, float* O) {
  attention_tile<false>(Q, K, V, O);
}
__global__ void attention_swizzled(const __half* Q, const __half* K, const __half* V, float* O) {
  attention_tile<true>(Q, K, V, O);
}

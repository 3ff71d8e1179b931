// smemsim-arch: sm_80
// A tiled f16 tensor-core GEMM (issue 16), written for smemsim in the way current kernels are
// built: tiles copied from global into shared memory with cp.async, read into fragments with
// ldmatrix, multiplied with mma.sync.m16n8k16 (f32 accumulators).
//
//   C (M x N, f32, row-major) = A (M x K, f16, row-major) * B^T, B given as N x K row-major
//   ("TN": both operands are K-contiguous, so both tiles are read by ldmatrix without .trans).
//
// One CTA of four warps computes a 64 x 64 tile of C; each warp a 32 x 32 quarter (two m16 rows of
// four n8 mma tiles). The shared tiles are 64 rows of BK halves: BK = 64 (128-byte rows) or 32
// (64-byte rows). An ldmatrix phase reads eight 16-byte rows of one 8x8 matrix, the same column in
// eight consecutive tile rows:
//   - row-major tile, 128-byte rows: the eight rows start on the same bank: 8-way conflict;
//   - row-major tile, 64-byte rows: rows r and r+1 share 128 bytes: 4-way;
//   - swizzled tile: the 16-byte chunk index is XORed with the row (CuTe Swizzle<3,3,3> on half
//     offsets for 128-byte rows, Swizzle<2,3,3> for 64-byte rows): eight rows, eight different
//     chunks, conflict-free.
// The cp.async copies write 16 bytes per lane, eight lanes to one 128-byte stretch of a tile
// row (or two rows): conflict-free in either layout.
#include "smemsim_tc.cuh"

// The offset, in halves, of element (row, col) of a 64 x BK tile.
template <int BK, bool SWIZZLE>
__device__ __forceinline__ int tile_offset(int row, int col) {
#ifdef SMEMSIM_TILE_HASH
  // The _swizzled kernels with the software hash `smemsim hash search --emit cuda` wrote (compile
  // with -DSMEMSIM_TILE_HASH -include hash.cuh): it maps 4-byte word indices, two halves each.
  if (SWIZZLE) {
    const int o = row * BK + col;
    return static_cast<int>(smemsim_hash(static_cast<unsigned>(o / 2))) * 2 + o % 2;
  }
#endif
  int chunk = col / 8;  // 16-byte chunk within the row
  if (SWIZZLE) chunk ^= BK == 64 ? row % 8 : (row / 2) % 4;
  return row * BK + chunk * 8 + col % 8;
}

// M and N are multiples of 64, K of BK; grid (N / 64, M / 64), block 128.
template <int BK, bool SWIZZLE>
__device__ void gemm_tile(const __half* A, const __half* B, float* C, int N, int K) {
  __shared__ __align__(128) __half As[64 * BK];
  __shared__ __align__(128) __half Bs[64 * BK];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  float acc[2][4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Thread c copies the 16-byte chunk c of each tile: row c / (BK / 8), chunk c % (BK / 8).
    for (int c = tid; c < 64 * BK / 8; c += 128) {
      const int row = c / (BK / 8), col = (c % (BK / 8)) * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       smem_u32(&As[tile_offset<BK, SWIZZLE>(row, col)])),
                   "l"(&A[(bm + row) * K + k0 + col]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       smem_u32(&Bs[tile_offset<BK, SWIZZLE>(row, col)])),
                   "l"(&B[(bn + row) * K + k0 + col]));
    }
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned a[2][4], b[2][4];
      // A: lanes 0-15 give rows 0-15 at column kk, lanes 16-31 the same rows at kk + 8; the four
      // matrices are mma's a0..a3.
      for (int i = 0; i < 2; ++i)
        LDMATRIX_X4(a[i], (&As[tile_offset<BK, SWIZZLE>(wm + i * 16 + lane % 16, kk + (lane / 16) * 8)]));
      // B: 16 columns of C per ldmatrix.x4: matrices (n 0-7, k kk), (n 0-7, kk + 8), (n 8-15, kk),
      // (n 8-15, kk + 8): b0, b1 of two n8 tiles.
      for (int j = 0; j < 2; ++j)
        LDMATRIX_X4(b[j], (&Bs[tile_offset<BK, SWIZZLE>(wn + j * 16 + (lane / 16) * 8 + lane % 8, kk + ((lane / 8) % 2) * 8)]));
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          mma_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
    }
    __syncthreads();
  }
  // The accumulator fragment: d0, d1 at (g, 2t), (g, 2t + 1); d2, d3 eight rows below.
  const int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      const int row = bm + wm + i * 16 + g, col = bn + wn + j * 8 + 2 * t;
      C[row * N + col] = acc[i][j][0];
      C[row * N + col + 1] = acc[i][j][1];
      C[(row + 8) * N + col] = acc[i][j][2];
      C[(row + 8) * N + col + 1] = acc[i][j][3];
    }
}

__global__ void gemm_bk64(const __half* A, const __half* B, float* C, int N, int K) {
  gemm_tile<64, false>(A, B, C, N, K);
}
__global__ void gemm_bk64_swizzled(const __half* A, const __half* B, float* C, int N, int K) {
  gemm_tile<64, true>(A, B, C, N, K);
}
__global__ void gemm_bk32(const __half* A, const __half* B, float* C, int N, int K) {
  gemm_tile<32, false>(A, B, C, N, K);
}
__global__ void gemm_bk32_swizzled(const __half* A, const __half* B, float* C, int N, int K) {
  gemm_tile<32, true>(A, B, C, N, K);
}

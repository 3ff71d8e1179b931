// Blocked LU decomposition without pivoting (Doolittle: L unit lower, U upper, stored in place):
// seed 002 Table 5's LUD-1 and LUD-2 (Rodinia's lud), written for smemsim from the algorithm.
// The n x n row-major matrix is split into 16 x 16 tiles; step `it` (offset o = 16 it) runs
//   lud_diagonal   <<<1, 16>>>            factors the diagonal tile A[o.., o..] = L U;
//   lud_perimeter  <<<nb - 1 - it, 32>>>  block b: threads 0..15 solve L X = A for the tile right
//                                         of the diagonal (U row strip), threads 16..31 solve
//                                         Y U = A for the tile below it (L column strip);
//   lud_internal   <<<(nb-1-it)^2, 16x16>>> A -= L-strip x U-strip for every trailing tile.
//
// lud_diagonal, thread t (column or row t of the tile d[16][16]), for i = 0..14:
//   t > i:  d[t][i] = (d[t][i] - sum_{j<i} d[t][j] d[j][i]) / d[i][i]     (L column i)
//   t > i:  d[i+1][t] -= sum_{j<=i} d[i+1][j] d[j][t]                      (U row i + 1)
// lud_perimeter: U strip, column t: r[i][t] -= sum_{j<i} d[i][j] r[j][t] for i = 1..15;
//                L strip, row t: c[t][i] = (c[t][i] - sum_{j<i} c[t][j] d[j][i]) / d[i][i].
//
// Bank conflicts (32 banks): a block of 16 threads is one warp with 16 lanes. The L-column work
// reads and writes d[t][i] (and c[t][i], c[t][j]): words 16 t + i, stride 16, i.e. banks i and i +
// 16 with 8 distinct words each, 8-way. Everything else is unit-stride or a broadcast (d[j][i],
// d[i][j]), and lud_internal (peri_col[ty][i] and peri_row[i][tx]) is conflict-free.
//
// Launch, per step it = 0 .. nb - 1 (nb = n / 16): lud_diagonal(a, n, o); and while it < nb - 1,
// lud_perimeter(a, n, o) and lud_internal(a, n, o). _sw: the tiles' indices through swhash
// (kernels/smemsim_swhash.cuh); every kernel takes k2 and mask last.
#include "smemsim_swhash.cuh"

#define LUD_B 16
#define IX(r, c) swhash<H>((r)*LUD_B + (c), k2, mask)

template <bool H>
__device__ void lud_diagonal_body(float* a, int n, int o, unsigned k2, unsigned mask) {
  __shared__ float d[LUD_B * LUD_B];
  const int t = threadIdx.x;
  for (int i = 0; i < LUD_B; ++i) d[IX(i, t)] = a[(o + i) * n + o + t];
  __syncthreads();
  for (int i = 0; i < LUD_B - 1; ++i) {
    if (t > i) {
      for (int j = 0; j < i; ++j) d[IX(t, i)] -= d[IX(t, j)] * d[IX(j, i)];
      d[IX(t, i)] /= d[IX(i, i)];
    }
    __syncthreads();
    if (t > i)
      for (int j = 0; j < i + 1; ++j) d[IX(i + 1, t)] -= d[IX(i + 1, j)] * d[IX(j, t)];
    __syncthreads();
  }
  for (int i = 1; i < LUD_B; ++i) a[(o + i) * n + o + t] = d[IX(i, t)];
}

template <bool H>
__device__ void lud_perimeter_body(float* a, int n, int o, unsigned k2, unsigned mask) {
  __shared__ float d[LUD_B * LUD_B], r[LUD_B * LUD_B], c[LUD_B * LUD_B];
  const int tile = o + (blockIdx.x + 1) * LUD_B;  // the strip tiles' offset
  if (threadIdx.x < LUD_B) {
    const int t = threadIdx.x;
    for (int i = 0; i < LUD_B; ++i) {
      d[IX(i, t)] = a[(o + i) * n + o + t];
      r[IX(i, t)] = a[(o + i) * n + tile + t];
    }
  } else {
    const int t = threadIdx.x - LUD_B;
    for (int i = 0; i < LUD_B; ++i) c[IX(i, t)] = a[(tile + i) * n + o + t];
  }
  __syncthreads();
  if (threadIdx.x < LUD_B) {  // U strip: forward substitution with the unit lower L of d
    const int t = threadIdx.x;
    for (int i = 1; i < LUD_B; ++i)
      for (int j = 0; j < i; ++j) r[IX(i, t)] -= d[IX(i, j)] * r[IX(j, t)];
  } else {  // L strip: row t of Y with Y U = A, U the upper part of d
    const int t = threadIdx.x - LUD_B;
    for (int i = 0; i < LUD_B; ++i) {
      for (int j = 0; j < i; ++j) c[IX(t, i)] -= c[IX(t, j)] * d[IX(j, i)];
      c[IX(t, i)] /= d[IX(i, i)];
    }
  }
  __syncthreads();
  if (threadIdx.x < LUD_B) {
    const int t = threadIdx.x;
    for (int i = 1; i < LUD_B; ++i) a[(o + i) * n + tile + t] = r[IX(i, t)];
  } else {
    const int t = threadIdx.x - LUD_B;
    for (int i = 0; i < LUD_B; ++i) a[(tile + i) * n + o + t] = c[IX(i, t)];
  }
}

template <bool H>
__device__ void lud_internal_body(float* a, int n, int o, unsigned k2, unsigned mask) {
  __shared__ float row[LUD_B * LUD_B], col[LUD_B * LUD_B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int gx = o + (blockIdx.x + 1) * LUD_B, gy = o + (blockIdx.y + 1) * LUD_B;
  row[IX(ty, tx)] = a[(o + ty) * n + gx + tx];  // U strip tile above
  col[IX(ty, tx)] = a[(gy + ty) * n + o + tx];  // L strip tile to the left
  __syncthreads();
  float sum = 0.0f;
  for (int i = 0; i < LUD_B; ++i) sum += col[IX(ty, i)] * row[IX(i, tx)];
  a[(gy + ty) * n + gx + tx] -= sum;
}

#define LUD_KERNEL(name)                                                                     \
  extern "C" __global__ void name(float* a, int n, int o, unsigned k2, unsigned mask) {      \
    name##_body<false>(a, n, o, k2, mask);                                                   \
  }                                                                                          \
  extern "C" __global__ void name##_sw(float* a, int n, int o, unsigned k2, unsigned mask) { \
    name##_body<true>(a, n, o, k2, mask);                                                    \
  }
LUD_KERNEL(lud_diagonal)
LUD_KERNEL(lud_perimeter)
LUD_KERNEL(lud_internal)

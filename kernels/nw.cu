// Needleman-Wunsch global alignment scores, tile by tile along anti-diagonals: seed 002 Table 5's
// NW-1 and NW-2 (Rodinia's nw), written for smemsim from the algorithm. The score matrix M of
// (n + 1) x (n + 1) ints (row 0 and column 0 preset to -i * penalty) is filled by
//     M[i][j] = max(M[i-1][j-1] + S[i][j], M[i][j-1] - penalty, M[i-1][j] - penalty)
// with S the (n + 1) x (n + 1) similarity matrix. The n x n cells are 16 x 16 tiles; tiles on one
// anti-diagonal of tiles are independent, so the host launches one kernel per tile diagonal:
//   nw_upper<<<i, 16>>>(..., i)  for i = 1 .. nb (tile (row i - 1 - b, column b) for block b)
//   nw_lower<<<i, 16>>>(..., i)  for i = nb - 1 .. 1 (tile (row nb - 1 - b, column nb - i + b))
// A block of 16 threads copies the tile's top row, left column and corner into t[17][17] and
// its similarities into s[16][16], then sweeps the tile's 31 cell anti-diagonals: on diagonal m
// thread k computes cell (y, x) = (m - k + 1, k + 1) (upper half, k <= m) or (16 - k, k + 16 - m)
// (lower half), each from t[y-1][x-1], t[y][x-1], t[y-1][x] and s[y-1][x-1].
//
// Bank conflicts (32 banks; the 16 threads are one warp): on a diagonal the lanes' cells are 17 y
// + x with y falling by one as x rises by one: words 16 apart, i.e. banks c and c + 16 with up to 8
// distinct words each, 8-way for the t[] reads and the write on the longest diagonals; s[y-1][x-1]
// is 16 (y-1) + x - 1: stride 15, conflict-free; the copies in and out are unit-stride or stride
// 17 (conflict-free).
//
// Launch: see above; kernels take (m, sim, n, penalty, i, k2, mask); _sw: the tiles' indices
// through swhash (kernels/smemsim_swhash.cuh), t[] allocated in whole groups of 32 words.
#include "smemsim_swhash.cuh"

#define NW_B 16
#define T_IX(y, x) swhash<H>((y) * (NW_B + 1) + (x), k2, mask)
#define S_IX(y, x) swhash<H>((y)*NW_B + (x), k2, mask)

template <bool H>
__device__ void nw_tile(int* m, const int* sim, int n, int penalty, int ty0, int tx0, unsigned k2,
                        unsigned mask) {
  __shared__ int t[SWHASH_ROUND32((NW_B + 1) * (NW_B + 1))];
  __shared__ int s[NW_B * NW_B];
  const int k = threadIdx.x, w = n + 1;
  const int base = ty0 * NW_B * w + tx0 * NW_B;  // the tile's top-left neighbour cell
  if (k == 0) t[T_IX(0, 0)] = m[base];
  for (int y = 0; y < NW_B; ++y) s[S_IX(y, k)] = sim[base + (y + 1) * w + k + 1];
  t[T_IX(k + 1, 0)] = m[base + (k + 1) * w];
  t[T_IX(0, k + 1)] = m[base + k + 1];
  __syncthreads();
  for (int d = 0; d < 2 * NW_B - 1; ++d) {
    const bool upper = d < NW_B;
    const int mm = upper ? d : 2 * NW_B - 2 - d;  // lanes 0..mm work on this diagonal
    if (k <= mm) {
      const int x = upper ? k + 1 : k + NW_B - mm;
      const int y = upper ? mm - k + 1 : NW_B - k;
      const int diag = t[T_IX(y - 1, x - 1)] + s[S_IX(y - 1, x - 1)];
      const int left = t[T_IX(y, x - 1)] - penalty;
      const int up = t[T_IX(y - 1, x)] - penalty;
      t[T_IX(y, x)] = max(diag, max(left, up));
    }
    __syncthreads();
  }
  for (int y = 1; y <= NW_B; ++y) m[base + y * w + k + 1] = t[T_IX(y, k + 1)];
}

template <bool H>
__device__ void nw_upper_body(int* m, const int* sim, int n, int penalty, int i, unsigned k2,
                              unsigned mask) {
  nw_tile<H>(m, sim, n, penalty, i - 1 - int(blockIdx.x), int(blockIdx.x), k2, mask);
}
template <bool H>
__device__ void nw_lower_body(int* m, const int* sim, int n, int penalty, int i, unsigned k2,
                              unsigned mask) {
  const int nb = n / NW_B;
  nw_tile<H>(m, sim, n, penalty, nb - 1 - int(blockIdx.x), nb - i + int(blockIdx.x), k2, mask);
}

#define NW_KERNEL(name)                                                                           \
  extern "C" __global__ void name(int* m, const int* sim, int n, int penalty, int i, unsigned k2, \
                                  unsigned mask) {                                                \
    name##_body<false>(m, sim, n, penalty, i, k2, mask);                                          \
  }                                                                                               \
  extern "C" __global__ void name##_sw(int* m, const int* sim, int n, int penalty, int i,         \
                                       unsigned k2, unsigned mask) {                              \
    name##_body<true>(m, sim, n, penalty, i, k2, mask);                                           \
  }
NW_KERNEL(nw_upper)
NW_KERNEL(nw_lower)

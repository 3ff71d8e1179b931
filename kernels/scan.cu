// Two block scans in shared memory, written for smemsim from the algorithms:
//
// scan_matrix: seed 002 Table 5's "matrix scan" (002 §7 adds it after Dotsenko et al. [13] and
// Yan et al. [14]): a block of T threads scans T x 8 ints held as a T x 8 matrix in shared memory.
// The block loads the ints unit-stride (s[i T + t] = in[i T + t]); thread t scans its row
// s[8 t .. 8 t + 7] serially; the T row totals are scanned (Hillis-Steele, unit-stride); thread t
// adds the total of the rows before it to its row; the block stores unit-stride. Output: the
// inclusive scan of each block's T x 8 ints.
// Bank conflicts (32 banks): the row accesses s[8 t + j] have stride 8: a warp's 32 lanes span 256
// words, 4 banks with 8 distinct words each, 8-way (seven conflicts) for each of the 8 + 8 row
// reads and writes of the serial scan and the 8 + 8 of the offset pass; everything else is
// unit-stride.
//
// scan_blelloch: seed 002 Table 5's MRI-grid-1. Parboil's MRI gridding computes its bins'
// offsets with a work-efficient (Blelloch) scan; this is that scan of 2T ints per block without
// conflict-avoiding padding: up-sweep s[off (2t + 2) - 1] += s[off (2t + 1) - 1] for off = 1, 2,
// 4, ... (t < n / (2 off)), then the down-sweep, giving the exclusive scan.
// Bank conflicts: the pair loads s[2t], s[2t + 1] are 2-way; a sweep step with offset `off` has
// stride 2 off: min(32, 2 off)-way over the active lanes of a warp (a warp with fewer active lanes
// than 32 / (2 off) has fewer) -- the high average degree 002 §2 reports for MRI-grid-1.
//
// Launch: scan_matrix[_sw]<<<blocks, T>>>(in, out, k2, mask) with 8 T ints per block;
// scan_blelloch[_sw]<<<blocks, T>>>(in, out, k2, mask) with 2 T ints per block, T <= 512 a power
// of two. _sw: every shared index through swhash (kernels/smemsim_swhash.cuh).
#include "smemsim_swhash.cuh"

#define SCAN_ROW 8
#define SCAN_MAX_T 512

template <bool H>
__device__ void scan_matrix_body(const int* in, int* out, unsigned k2, unsigned mask) {
  __shared__ int s[SCAN_ROW * SCAN_MAX_T];
  __shared__ int tot[SCAN_MAX_T];
  const unsigned t = threadIdx.x, T = blockDim.x;
  const int* src = in + SCAN_ROW * T * blockIdx.x;
  int* dst = out + SCAN_ROW * T * blockIdx.x;
  for (int i = 0; i < SCAN_ROW; ++i) s[swhash<H>(i * T + t, k2, mask)] = src[i * T + t];
  __syncthreads();
  int acc = 0;
  for (int j = 0; j < SCAN_ROW; ++j) {
    acc += s[swhash<H>(SCAN_ROW * t + j, k2, mask)];
    s[swhash<H>(SCAN_ROW * t + j, k2, mask)] = acc;
  }
  tot[t] = acc;
  __syncthreads();
  for (unsigned off = 1; off < T; off *= 2) {
    const int v = t >= off ? tot[t - off] : 0;
    __syncthreads();
    tot[t] += v;
    __syncthreads();
  }
  const int before = t > 0 ? tot[t - 1] : 0;
  for (int j = 0; j < SCAN_ROW; ++j) s[swhash<H>(SCAN_ROW * t + j, k2, mask)] += before;
  __syncthreads();
  for (int i = 0; i < SCAN_ROW; ++i) dst[i * T + t] = s[swhash<H>(i * T + t, k2, mask)];
}

template <bool H>
__device__ void scan_blelloch_body(const int* in, int* out, unsigned k2, unsigned mask) {
  __shared__ int s[2 * SCAN_MAX_T];
  const unsigned t = threadIdx.x, n = 2 * blockDim.x;
  const int* src = in + n * blockIdx.x;
  int* dst = out + n * blockIdx.x;
  s[swhash<H>(2 * t, k2, mask)] = src[2 * t];
  s[swhash<H>(2 * t + 1, k2, mask)] = src[2 * t + 1];
  unsigned off = 1;
  for (unsigned d = n >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (t < d) {
      const unsigned ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
      s[swhash<H>(bi, k2, mask)] += s[swhash<H>(ai, k2, mask)];
    }
    off *= 2;
  }
  if (t == 0) s[swhash<H>(n - 1, k2, mask)] = 0;
  for (unsigned d = 1; d < n; d *= 2) {  // down-sweep
    off >>= 1;
    __syncthreads();
    if (t < d) {
      const unsigned ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
      const int x = s[swhash<H>(ai, k2, mask)];
      s[swhash<H>(ai, k2, mask)] = s[swhash<H>(bi, k2, mask)];
      s[swhash<H>(bi, k2, mask)] += x;
    }
  }
  __syncthreads();
  dst[2 * t] = s[swhash<H>(2 * t, k2, mask)];
  dst[2 * t + 1] = s[swhash<H>(2 * t + 1, k2, mask)];
}

extern "C" __global__ void scan_matrix(const int* in, int* out, unsigned k2, unsigned mask) {
  scan_matrix_body<false>(in, out, k2, mask);
}
extern "C" __global__ void scan_matrix_sw(const int* in, int* out, unsigned k2, unsigned mask) {
  scan_matrix_body<true>(in, out, k2, mask);
}
extern "C" __global__ void scan_blelloch(const int* in, int* out, unsigned k2, unsigned mask) {
  scan_blelloch_body<false>(in, out, k2, mask);
}
extern "C" __global__ void scan_blelloch_sw(const int* in, int* out, unsigned k2, unsigned mask) {
  scan_blelloch_body<true>(in, out, k2, mask);
}

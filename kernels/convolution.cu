// Separable 2-D convolution, rows then columns, through shared-memory tiles: seed 002 Table 5's
// conv-1 (rows) and conv-2 (columns), after the CUDA SDK's convolutionSeparable structure, written
// for smemsim from the algorithm. A filter of 2 R + 1 taps (R = 8) in __constant__ memory:
//     out[y][x] = sum over j = -R..R of c_filter[R - j] * in[y][x + j]   (rows; zero outside)
//     out[y][x] = sum over j = -R..R of c_filter[R - j] * in[y + j][x]   (columns)
//
// conv_rows: blocks of (16, 4) threads; a block covers 8 x 16 = 128 output columns of 4 rows and
// stages them with one 16-wide halo step on each side: s[4][160] (160 = (8 + 2) x 16 words per
// row). Thread (tx, ty) stores words ty * 160 + tx + 16 i (i = 0..9) and reads ty * 160 + tx + 16 i
// + j. A warp is two rows ty = 2q, 2q + 1: words w and w + 160 with 160 = 5 x 32, so each bank
// holds two distinct words: every shared access of the kernel is 2-way (one conflict).
// conv_cols: blocks of (16, 8) threads covering 16 columns and 8 x 8 = 64 output rows, staged
// transposed with a halo of 8 rows on each side: s[16][80], thread (tx, ty) at words tx * 80 + ty +
// 8 i (+ j). A warp is ty = 2q, 2q + 1 with tx = 0..15: bank (80 tx + ty + c) mod 32 = 16 (tx mod
// 2)
// + ty + c, i.e. 4 banks with 8 distinct words each: every access is 8-way (seven conflicts). The
// SDK pads the row to 81 words; seed 002 §7.2's baseline has no ad-hoc technique, nor has ours.
//
// Software hash (_sw kernels, kernels/smemsim_swhash.cuh): every tile index through swhash.
//
// Launch: conv_rows[_sw]<<<dim3(w / 128, h / 4), dim3(16, 4)>>>(out, in, w, h, k2, mask);
//         conv_cols[_sw]<<<dim3(w / 16, h / 64), dim3(16, 8)>>>(out, in, w, h, k2, mask);
// w a multiple of 128, h of 64; c_filter set by the host (cudaMemcpyToSymbol).
#include "smemsim_swhash.cuh"

#define CONV_R 8
__constant__ float c_filter[2 * CONV_R + 1];

#define ROWS_X 16
#define ROWS_Y 4
#define ROWS_STEPS 8
#define ROWS_HALO 1
#define ROW_WORDS ((ROWS_STEPS + 2 * ROWS_HALO) * ROWS_X)

template <bool H>
__device__ void conv_rows_body(float* out, const float* in, int w, unsigned k2, unsigned mask) {
  __shared__ float s[SWHASH_ROUND32(ROWS_Y * ROW_WORDS)];
  const int x0 = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_X + threadIdx.x;
  const int y = blockIdx.y * ROWS_Y + threadIdx.y;
  const float* src = in + y * w;
  const unsigned base = threadIdx.y * ROW_WORDS + threadIdx.x;
  for (int i = 0; i < ROWS_STEPS + 2 * ROWS_HALO; ++i) {
    const int x = x0 + i * ROWS_X;
    s[swhash<H>(base + i * ROWS_X, k2, mask)] = (x >= 0 && x < w) ? src[x] : 0.0f;
  }
  __syncthreads();
  for (int i = ROWS_HALO; i < ROWS_HALO + ROWS_STEPS; ++i) {
    float sum = 0.0f;
    for (int j = -CONV_R; j <= CONV_R; ++j)
      sum += c_filter[CONV_R - j] * s[swhash<H>(base + i * ROWS_X + j, k2, mask)];
    out[y * w + x0 + i * ROWS_X] = sum;
  }
}

#define COLS_X 16
#define COLS_Y 8
#define COLS_STEPS 8
#define COLS_HALO 1
#define COL_WORDS ((COLS_STEPS + 2 * COLS_HALO) * COLS_Y)

template <bool H>
__device__ void conv_cols_body(float* out, const float* in, int w, int h, unsigned k2,
                               unsigned mask) {
  __shared__ float s[SWHASH_ROUND32(COLS_X * COL_WORDS)];
  const int x = blockIdx.x * COLS_X + threadIdx.x;
  const int y0 = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_Y + threadIdx.y;
  const unsigned base = threadIdx.x * COL_WORDS + threadIdx.y;
  for (int i = 0; i < COLS_STEPS + 2 * COLS_HALO; ++i) {
    const int y = y0 + i * COLS_Y;
    s[swhash<H>(base + i * COLS_Y, k2, mask)] = (y >= 0 && y < h) ? in[y * w + x] : 0.0f;
  }
  __syncthreads();
  for (int i = COLS_HALO; i < COLS_HALO + COLS_STEPS; ++i) {
    float sum = 0.0f;
    for (int j = -CONV_R; j <= CONV_R; ++j)
      sum += c_filter[CONV_R - j] * s[swhash<H>(base + i * COLS_Y + j, k2, mask)];
    out[(y0 + i * COLS_Y) * w + x] = sum;
  }
}

extern "C" __global__ void conv_rows(float* out, const float* in, int w, int h, unsigned k2,
                                     unsigned mask) {
  conv_rows_body<false>(out, in, w, k2, mask);
}
extern "C" __global__ void conv_rows_sw(float* out, const float* in, int w, int h, unsigned k2,
                                        unsigned mask) {
  conv_rows_body<true>(out, in, w, k2, mask);
}
extern "C" __global__ void conv_cols(float* out, const float* in, int w, int h, unsigned k2,
                                     unsigned mask) {
  conv_cols_body<false>(out, in, w, h, k2, mask);
}
extern "C" __global__ void conv_cols_sw(float* out, const float* in, int w, int h, unsigned k2,
                                        unsigned mask) {
  conv_cols_body<true>(out, in, w, h, k2, mask);
}

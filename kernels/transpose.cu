// Matrix transpose through a shared-memory tile (seed 002 §3.2.1 and §3.2.2; CUDA SDK style).
//
// Loading:  tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];   linear, no conflict
// Storing:  odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];   stride TILE_DIM
// With TILE_DIM = 16 and 32 banks, the store phase reads with stride 16: an 8-way bank conflict on
// warp 0 (seed 002 §3.2.2). transpose_padded pads each tile row by one word (stride 17): that is
// conflict-free per 16-lane half-warp (GT200), but a 32-lane warp spans two tile rows and words 0
// and 256 still share a bank (2-way). The 32x32 tiles below (the CUDA SDK's shape, 32x8 threads)
// are 32-way without padding and conflict-free with it on 32 banks.
//
// Launch: transpose_*<<<dim3(width / 16, height / 16), dim3(16, 16)>>>(odata, idata, width,
// height); width and height are multiples of TILE_DIM. transpose32_*: dim3(width / 32,
// height / 32) blocks of dim3(32, 8) threads; width and height multiples of 32.

#include "smemsim_swhash.cuh"

#define TILE_DIM 16
#define BLOCK_ROWS 16

// transpose_naive_sw: the same with every tile index through the software hash of seed 002 §7.2
// (kernels/smemsim_swhash.cuh), k2 and mask as the last parameters.
#define NAIVE_TILE(row, col) tile[swhash<H>((row)*TILE_DIM + (col), k2, mask)]

template <bool H>
__device__ void transpose_naive_body(float* odata, const float* idata, int width, int height,
                                     unsigned k2, unsigned mask) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  const int index_in = x + y * width;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    NAIVE_TILE(threadIdx.y + i, threadIdx.x) = idata[index_in + i * width];
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  const int index_out = x + y * height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    odata[index_out + i * height] = NAIVE_TILE(threadIdx.x, threadIdx.y + i);
}

extern "C" __global__ void transpose_naive(float* odata, const float* idata, int width,
                                           int height) {
  transpose_naive_body<false>(odata, idata, width, height, 0, 0);
}
extern "C" __global__ void transpose_naive_sw(float* odata, const float* idata, int width,
                                              int height, unsigned k2, unsigned mask) {
  transpose_naive_body<true>(odata, idata, width, height, k2, mask);
}

extern "C" __global__ void transpose_padded(float* odata, const float* idata, int width,
                                            int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];  // one word of padding per row
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  const int index_in = x + y * width;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  const int index_out = x + y * height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

#define TILE32 32
#define ROWS32 8

extern "C" __global__ void transpose32_naive(float* odata, const float* idata, int width,
                                             int height) {
  __shared__ float tile32[TILE32][TILE32];
  int x = blockIdx.x * TILE32 + threadIdx.x;
  int y = blockIdx.y * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    tile32[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE32 + threadIdx.x;
  y = blockIdx.x * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    odata[(y + i) * height + x] = tile32[threadIdx.x][threadIdx.y + i];  // stride 32: 32-way
}

extern "C" __global__ void transpose32_padded(float* odata, const float* idata, int width,
                                              int height) {
  __shared__ float tile33[TILE32][TILE32 + 1];  // one word of padding per row: stride 33
  int x = blockIdx.x * TILE32 + threadIdx.x;
  int y = blockIdx.y * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    tile33[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE32 + threadIdx.x;
  y = blockIdx.x * TILE32 + threadIdx.y;
  for (int i = 0; i < TILE32; i += ROWS32)
    odata[(y + i) * height + x] = tile33[threadIdx.x][threadIdx.y + i];  // conflict-free
}

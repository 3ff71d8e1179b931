// 8x8 DCT and IDCT of an image in shared-memory tiles, float and 16-bit: the DCT, IDCT,
// DCT_short and IDCT_short benchmarks of seed 004 Table 4, each in the padded layout a CUDA author
// writes and with the padding undone (`_nopad`, 004 §5: the conflicting code it evaluates).
//
// dct_* / idct_*: float, orthonormal 2-D DCT-II and its inverse (y = C x C^T, C[u][x] = c(u)
// cos((2x + 1) u pi / 16), c(0) = sqrt(1/8), c(u > 0) = 1/2). A CTA of (8, 4, 2) = 64 threads
// covers a 32-wide, 16-high region (4 x 2 blocks); 004 Table 4's shape: grid (16, 32) for 512 x
// 512. Thread (tx, ty, tz) owns row tx and then column tx of the block at (8 ty, 8 tz). Shared
// tile: 16 rows of STRIDE floats, STRIDE = 33 (padded) or 32 (_nopad).
//   load     the CTA copies the region row by row: thread t stores word 64 i + t for i = 0..7
//            (8 stores);
//   rows     thread reads its row, tile[(8 tz + tx) STRIDE + 8 ty + k], k = 0..7, and writes the
//            8 transformed values back (16 accesses);
//   columns  reads and writes tile[(8 tz + k) STRIDE + 8 ty + tx] (16 accesses);
//   store    the CTA copies the tile out as it loaded it (8 loads).
// Bank conflicts. cf11 (8 banks, 8-lane subwarps = tx 0..7 at one (ty, tz)): load and store put 8
// consecutive words in 8 banks: 1 pass. Rows: lane tx reads word (8 tz + tx) STRIDE + c, bank
// (tx STRIDE + c) mod 8: STRIDE 32 puts all 8 lanes in one bank, 8 distinct words, 8 passes;
// STRIDE 33 gives bank (tx + c) mod 8, 1 pass. Columns: lane tx reads word c' + tx: 1 pass. So
// _nopad averages (16 x 8 + 32 x 1) / 48 = 3.33 passes per subwarp access — 004 Table 4's 3.33 —
// and the padded code 1. Fermi (32 banks, 32-lane warps = the 32 (tx, ty) of one tz): rows put lane
// (tx, ty) in bank (tx STRIDE + 8 ty + k + const) mod 32: STRIDE 32 gives 4 banks (one per ty) of 8
// distinct words (the 8 tx), 8-way; STRIDE 33 gives tx + 8 ty, 32 distinct banks, 1. Columns: words
// 8 ty + tx + const, 32 consecutive, 1. Load/store: t = 0..31 (or 32..63) of one i lie in one tile
// row, 32 consecutive words, 1. So Fermi averages the same 3.33 unpadded and 1 padded.
//
// dct_short_* / idct_short_*: the same transforms on 16-bit integers in fixed point: coefficients
// Cq = round(4096 C), each 1-D pass y[u] = (sum_x Cq[u][x] v[x] + 2048) >> 12 in 32-bit integers,
// the result stored as a short (the forward input is level-shifted to -128..127). A CTA of (8, 4,
// 4) = 128 threads covers 32 x 32 pixels (4 x 4 blocks); Table 4: grid (16, 16) for 512 x 512.
// Tile: 32 rows of STRIDE shorts, STRIDE = 34 (one word of padding) or 32; the image is passed as
// 32-bit words of two shorts (pixel 2j in the low half).
//   load/store  thread t moves words 128 i + t, i = 0..3, as 32-bit accesses (4 + 4);
//   rows        32-bit accesses: the row's 8 shorts are 4 words, read and written (4 + 4);
//   columns     16-bit accesses, 8 reads and 8 writes.
// cf11: rows touch word (8 tz + tx) STRIDE / 2 + 4 ty + j: bank (16 tx + c) mod 8 = c for STRIDE
// 32 (8-way), (17 tx + c) mod 8 for 34 (1 pass). Columns: lanes tx read shorts 8 ty + tx of one
// row, 4 words in 4 banks (two lanes per word: a broadcast), 1 pass; load/store 1 pass. _nopad: (8
// x 8 + 24 x 1) / 32 = 2.75 — 004 Table 4's 2.75; padded 1.
// Fermi (32 lanes = the (tx, ty) of one tz). Rows at STRIDE 32: bank (16 tx + 4 ty + j) mod 32 =
// 16 (tx mod 2) + 4 ty + j: 8 banks, each holding the 4 tx of one parity, 4-way. At STRIDE 34: bank
// (17 tx + 4 ty + j + const) mod 32; 17 tx mod 32 is 0, 2, 4, 6 for even tx (17, 19, 21, 23 for
// odd: other banks), and adding 4 ty = 0, 4, 8, 12 makes sums that meet at most twice (4 = 0 + 4 =
// 4 + 0): 2-way, one padding word per 16 is too little for 32 banks. Columns: words 4 ty + tx / 2
// + const, 16 banks, two lanes per word, 1. Load/store: a warp's 32 words are two tile rows of 16
// words; contiguous at STRIDE 32 (1), but at 34 rows 2m and 2m + 1 start at banks 2m and 2m + 17,
// so the second row's last word falls in bank 2m + 32 = 2m with the first row's first: 2-way.
// Averages: _nopad (8 x 4 + 24) / 32 = 1.75; padded (8 x 2 + 8 x 2 + 16) / 32 = 1.5.
//
// Against Table 4 (cf11): the degrees are equal (3.33, 2.75). The share of shared-memory
// instructions is ~16% for the float kernels (Table 4: 21.6%) and ~11% for the short ones (10.3%);
// it depends on the compiler's instruction mix (here every coefficient is an fma immediate).
//
// Launch: <<<dim3(width / 32, height / 16), dim3(8, 4, 2)>>>(in, out, width) for the float kernels,
// <<<dim3(width / 32, height / 32), dim3(8, 4, 4)>>>(in, out, width) for the short ones (in and
// out: width / 2 words per row).

#include "smemsim_swhash.cuh"

template <int STRIDE, bool INVERSE, bool H = false>
__device__ void dct_float(const float* in, float* out, int width, unsigned k2 = 0,
                          unsigned mask = 0) {
  __shared__ float tile[16 * STRIDE];
#define TILE(i) tile[swhash<H>(i, k2, mask)]  // the float tile, through the software hash
  // The coefficients as literals: after unrolling they are immediates of the fma instructions.
  const float kDct[64] = {
      0.353553391f,  0.353553391f,  0.353553391f,  0.353553391f,  0.353553391f,  0.353553391f,
      0.353553391f,  0.353553391f,  0.490392640f,  0.415734806f,  0.277785117f,  0.097545161f,
      -0.097545161f, -0.277785117f, -0.415734806f, -0.490392640f, 0.461939766f,  0.191341716f,
      -0.191341716f, -0.461939766f, -0.461939766f, -0.191341716f, 0.191341716f,  0.461939766f,
      0.415734806f,  -0.097545161f, -0.490392640f, -0.277785117f, 0.277785117f,  0.490392640f,
      0.097545161f,  -0.415734806f, 0.353553391f,  -0.353553391f, -0.353553391f, 0.353553391f,
      0.353553391f,  -0.353553391f, -0.353553391f, 0.353553391f,  0.277785117f,  -0.490392640f,
      0.097545161f,  0.415734806f,  -0.415734806f, -0.097545161f, 0.490392640f,  -0.277785117f,
      0.191341716f,  -0.461939766f, 0.461939766f,  -0.191341716f, -0.191341716f, 0.461939766f,
      -0.461939766f, 0.191341716f,  0.097545161f,  -0.277785117f, 0.415734806f,  -0.490392640f,
      0.490392640f,  -0.415734806f, 0.277785117f,  -0.097545161f};
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int tid = tx + 8 * ty + 32 * tz;
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 16;
  for (int i = 0; i < 8; ++i) {
    const int idx = 64 * i + tid, r = idx >> 5, c = idx & 31;
    TILE(r * STRIDE + c) = in[(y0 + r) * width + x0 + c];
  }
  __syncthreads();
  float v[8];
  const int row = (8 * tz + tx) * STRIDE + 8 * ty;
  for (int k = 0; k < 8; ++k) v[k] = TILE(row + k);
  for (int u = 0; u < 8; ++u) {
    float s = 0.f;
    for (int k = 0; k < 8; ++k) s += (INVERSE ? kDct[8 * k + u] : kDct[8 * u + k]) * v[k];
    TILE(row + u) = s;
  }
  __syncthreads();
  const int col = 8 * tz * STRIDE + 8 * ty + tx;
  for (int k = 0; k < 8; ++k) v[k] = TILE(col + k * STRIDE);
  for (int u = 0; u < 8; ++u) {
    float s = 0.f;
    for (int k = 0; k < 8; ++k) s += (INVERSE ? kDct[8 * k + u] : kDct[8 * u + k]) * v[k];
    TILE(col + u * STRIDE) = s;
  }
  __syncthreads();
  for (int i = 0; i < 8; ++i) {
    const int idx = 64 * i + tid, r = idx >> 5, c = idx & 31;
    out[(y0 + r) * width + x0 + c] = TILE(r * STRIDE + c);
  }
#undef TILE
}

__device__ int dct_q(int s) {
  return (s + 2048) >> 12;
}

template <int STRIDE, bool INVERSE>
__device__ void dct_short(const unsigned* in, unsigned* out, int width) {
  __shared__ unsigned tile[32 * STRIDE / 2];
  const int kDctQ[64] = {1448,  1448,  1448,  1448,  1448,  1448,  1448,  1448, 2009,  1703,  1138,
                         400,   -400,  -1138, -1703, -2009, 1892,  784,   -784, -1892, -1892, -784,
                         784,   1892,  1703,  -400,  -2009, -1138, 1138,  2009, 400,   -1703, 1448,
                         -1448, -1448, 1448,  1448,  -1448, -1448, 1448,  1138, -2009, 400,   1703,
                         -1703, -400,  2009,  -1138, 784,   -1892, 1892,  -784, -784,  1892,  -1892,
                         784,   400,   -1138, 1703,  -2009, 2009,  -1703, 1138, -400};
  short* tile16 = reinterpret_cast<short*>(tile);
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int tid = tx + 8 * ty + 32 * tz;
  const int words = width / 2;
  const int x0 = blockIdx.x * 16, y0 = blockIdx.y * 32;  // x0 in words
  for (int i = 0; i < 4; ++i) {
    const int idx = 128 * i + tid, r = idx >> 4, c = idx & 15;
    tile[r * (STRIDE / 2) + c] = in[(y0 + r) * words + x0 + c];
  }
  __syncthreads();
  int v[8];
  const int row = (8 * tz + tx) * (STRIDE / 2) + 4 * ty;
  for (int j = 0; j < 4; ++j) {
    const unsigned w = tile[row + j];
    v[2 * j] = static_cast<short>(w & 0xffff);
    v[2 * j + 1] = static_cast<short>(w >> 16);
  }
  int y[8];
  for (int u = 0; u < 8; ++u) {
    int s = 0;
    for (int k = 0; k < 8; ++k) s += (INVERSE ? kDctQ[8 * k + u] : kDctQ[8 * u + k]) * v[k];
    y[u] = dct_q(s);
  }
  for (int j = 0; j < 4; ++j)
    tile[row + j] =
        (static_cast<unsigned>(y[2 * j]) & 0xffff) | (static_cast<unsigned>(y[2 * j + 1]) << 16);
  __syncthreads();
  const int col = 8 * tz * STRIDE + 8 * ty + tx;
  for (int k = 0; k < 8; ++k) v[k] = tile16[col + k * STRIDE];
  for (int u = 0; u < 8; ++u) {
    int s = 0;
    for (int k = 0; k < 8; ++k) s += (INVERSE ? kDctQ[8 * k + u] : kDctQ[8 * u + k]) * v[k];
    tile16[col + u * STRIDE] = static_cast<short>(dct_q(s));
  }
  __syncthreads();
  for (int i = 0; i < 4; ++i) {
    const int idx = 128 * i + tid, r = idx >> 4, c = idx & 15;
    out[(y0 + r) * words + x0 + c] = tile[r * (STRIDE / 2) + c];
  }
}

extern "C" __global__ void dct_pad(const float* in, float* out, int width) {
  dct_float<33, false>(in, out, width);
}
extern "C" __global__ void dct_nopad(const float* in, float* out, int width) {
  dct_float<32, false>(in, out, width);
}
// The unpadded float kernels with every tile index through the software hash of seed 002 §7.2
// (kernels/smemsim_swhash.cuh); the tile's 512 words are a multiple of 32.
extern "C" __global__ void dct_nopad_sw(const float* in, float* out, int width, unsigned k2,
                                        unsigned mask) {
  dct_float<32, false, true>(in, out, width, k2, mask);
}
extern "C" __global__ void idct_nopad_sw(const float* in, float* out, int width, unsigned k2,
                                         unsigned mask) {
  dct_float<32, true, true>(in, out, width, k2, mask);
}
extern "C" __global__ void idct_pad(const float* in, float* out, int width) {
  dct_float<33, true>(in, out, width);
}
extern "C" __global__ void idct_nopad(const float* in, float* out, int width) {
  dct_float<32, true>(in, out, width);
}
extern "C" __global__ void dct_short_pad(const unsigned* in, unsigned* out, int width) {
  dct_short<34, false>(in, out, width);
}
extern "C" __global__ void dct_short_nopad(const unsigned* in, unsigned* out, int width) {
  dct_short<32, false>(in, out, width);
}
extern "C" __global__ void idct_short_pad(const unsigned* in, unsigned* out, int width) {
  dct_short<34, true>(in, out, width);
}
extern "C" __global__ void idct_short_nopad(const unsigned* in, unsigned* out, int width) {
  dct_short<32, true>(in, out, width);
}

// smemsim-arch: sm_80
// The corpus of `smemsim fix` (issue 43, tests/fix_corpus_test.cpp): kernels as people write them,
// each beside the version a kernel author writes by hand after reading fix's advice. The test runs
// fix on the first and checks the cycles it claims for a fix against `sim` of the second.
//
// hist64: a 64-bin histogram of 32-bit values (bin = value % 64) in shared memory, one block's
// bins added to the global histogram at the end. On skewed input (few distinct values) many lanes
// of a warp add to one word: position conflicts (seed 001 §2.1.3).
//   hist64_rep<R>: the bins replicated R times, interleaved by lane (word i of copy c at i * R +
//   c, lane l updating copy l % R), zeroed as the one copy was, merged with a rotated loop.
//   hist64_agg: warp aggregation: the lanes on one bin elect the lowest and it adds their count.
// stencil18: a 5-point stencil on a 16x16 block with an 18x18 halo tile: a warp is two rows of 16
// lanes, 18 words apart, so two banks of the second row are the first's. No padding or swizzle
// that the kernel can afford removes that; a row width of 16 or 48 words, or a 32-wide block,
// would.
// qk_tile: S = Q K^T for a 32 x 64 tile of Q and of K as minimal flash-attention kernels write it:
// thread t loads and reads row t of Q (q[t * 64 + x]: 32 lanes on one bank).
//   qk_tile_pad: the same with the rows of q padded to 65 words.
// tr_rows: a 32 x 32 transpose through a shared tile as the CUDA samples write it, a 32 x 8 block
// looping over every 8th row (nvcc keeps a pointer into the tile and steps it by 8 rows, 1,024
// bytes); the read is by column: 32-way.
//   tr_rows_pad: the tile declared [32][33].

#define BINS 64

extern "C" __global__ void hist64(const unsigned* data, int n, unsigned* out) {
  __shared__ unsigned hist[BINS];
  if (threadIdx.x < BINS) hist[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&hist[data[i] % BINS], 1u);
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&out[threadIdx.x], hist[threadIdx.x]);
}

template <unsigned R>
__device__ void hist64_replicated(const unsigned* data, int n, unsigned* out) {
  __shared__ unsigned hist_r[BINS * R];
  const unsigned c = threadIdx.x % R;  // the lane's copy (blockDim.x is a multiple of 32)
  if (threadIdx.x < BINS)
    for (unsigned k = 0; k < R; ++k) hist_r[threadIdx.x * R + k] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&hist_r[(data[i] % BINS) * R + c], 1u);
  __syncthreads();
  if (threadIdx.x < BINS) {
    unsigned sum = 0;
    for (unsigned k = 0; k < R; ++k) sum += hist_r[threadIdx.x * R + (c + k) % R];
    atomicAdd(&out[threadIdx.x], sum);
  }
}
extern "C" __global__ void hist64_rep2(const unsigned* d, int n, unsigned* o) {
  hist64_replicated<2>(d, n, o);
}
extern "C" __global__ void hist64_rep4(const unsigned* d, int n, unsigned* o) {
  hist64_replicated<4>(d, n, o);
}
extern "C" __global__ void hist64_rep8(const unsigned* d, int n, unsigned* o) {
  hist64_replicated<8>(d, n, o);
}

extern "C" __global__ void hist64_agg(const unsigned* data, int n, unsigned* out) {
  __shared__ unsigned hist[BINS];
  if (threadIdx.x < BINS) hist[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned bin = data[i] % BINS;
    const unsigned peers = __match_any_sync(__activemask(), bin);
    unsigned lower;  // the lanes below this one
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lower));
    if ((peers & lower) == 0) atomicAdd(&hist[bin], __popc(peers));
  }
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&out[threadIdx.x], hist[threadIdx.x]);
}

extern "C" __global__ void stencil18(const float* in, float* out, int width, int height) {
  __shared__ float tile[18][18];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * 16 - 1, y0 = blockIdx.y * 16 - 1;
  for (int k = ty * 16 + tx; k < 18 * 18; k += 256) {
    const int r = k / 18, c = k % 18;
    const int x = min(max(x0 + c, 0), width - 1), y = min(max(y0 + r, 0), height - 1);
    tile[r][c] = in[y * width + x];
  }
  __syncthreads();
  const float v = tile[ty + 1][tx + 1] + tile[ty][tx + 1] + tile[ty + 2][tx + 1] +
                  tile[ty + 1][tx] + tile[ty + 1][tx + 2];
  out[(y0 + 1 + ty) * width + x0 + 1 + tx] = 0.2f * v;
}

#define QK_ROWS 32
#define QK_D 64

template <int STRIDE>
__device__ void qk(const float* Q, const float* K, float* S) {
  __shared__ float q[QK_ROWS * STRIDE];
  __shared__ float k[QK_ROWS * QK_D];
  const int t = threadIdx.x;
  const float* qg = Q + (blockIdx.x * QK_ROWS + t) * QK_D;
  for (int x = 0; x < QK_D; ++x) {
    q[t * STRIDE + x] = qg[x];
    k[t * QK_D + x] = K[t * QK_D + x];
  }
  __syncthreads();
  for (int y = 0; y < QK_ROWS; ++y) {
    float s = 0;
    for (int x = 0; x < QK_D; ++x) s += q[t * STRIDE + x] * k[y * QK_D + x];
    S[(blockIdx.x * QK_ROWS + t) * QK_ROWS + y] = s;
  }
}
extern "C" __global__ void qk_tile(const float* Q, const float* K, float* S) {
  qk<QK_D>(Q, K, S);
}
extern "C" __global__ void qk_tile_pad(const float* Q, const float* K, float* S) {
  qk<QK_D + 1>(Q, K, S);
}

template <int W>
__device__ void tr_rows(float* out, const float* in) {
  __shared__ float tile[32][W];
  const unsigned x = threadIdx.x, b = blockIdx.x * 1024;
  for (unsigned r = threadIdx.y; r < 32; r += 8) tile[r][x] = in[b + r * 32 + x];
  __syncthreads();
  for (unsigned r = threadIdx.y; r < 32; r += 8) out[b + r * 32 + x] = tile[x][r];
}
extern "C" __global__ void tr_rows(float* out, const float* in) { tr_rows<32>(out, in); }
extern "C" __global__ void tr_rows_pad(float* out, const float* in) { tr_rows<33>(out, in); }

// Kernels in the styles of widely used CUDA sample code, written for smemsim's tests (issue 15):
// a tiled transpose with and without padding (one template, two instances), a tiled matrix
// multiply, a bitonic sort in shared memory, a shared-atomic histogram, and a 3-D block working in
// dynamic shared memory. CPU references: tests/exec_corpus_test.cpp.

// out = in transposed, for a width x height matrix (multiples of 32); blocks of 32 x 8 threads
// move 32 x 32 tiles. PAD = 0: the column read hits one bank 32 times; PAD = 1: conflict-free.
template <int PAD>
__global__ void transpose_tile(const float* in, float* out, int width, int height) {
  __shared__ float tile[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
template __global__ void transpose_tile<0>(const float*, float*, int, int);
template __global__ void transpose_tile<1>(const float*, float*, int, int);

// C = A (n x n) * B (n x n), n a multiple of 16, 16 x 16 blocks over 16 x 16 tiles.
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[16][16];
  __shared__ float bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < n; t += 16) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Sorts each block's 256 keys ascending in shared memory (bitonic network, 256 threads).
__global__ void bitonic_sort256(int* keys) {
  __shared__ int s[256];
  const unsigned t = threadIdx.x;
  s[t] = keys[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned size = 2; size <= 256; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      const unsigned partner = t ^ stride;
      if (partner > t) {
        const bool up = (t & size) == 0;
        const int a = s[t], b = s[partner];
        if ((a > b) == up) {
          s[t] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * 256 + t] = s[t];
}

// bins[v] += count of v in data (values 0..255): a per-block shared histogram, then one global
// atomic per bin.
__global__ void histogram256(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}

// A 3-D block (dx, dy, dz) copies its cube of `in` into dynamic shared memory and writes, for each
// cell, the sum of itself and its x-neighbours within the cube (missing neighbours count 0).
__global__ void cube_sum3(const int* in, int* out) {
  extern __shared__ int cube[];
  const int dx = blockDim.x, dy = blockDim.y;
  const int local = (threadIdx.z * dy + threadIdx.y) * dx + threadIdx.x;
  const int cells = dx * dy * blockDim.z;
  const int g = blockIdx.x * cells + local;
  cube[local] = in[g];
  __syncthreads();
  int s = cube[local];
  if (threadIdx.x > 0) s += cube[local - 1];
  if (threadIdx.x + 1 < dx) s += cube[local + 1];
  out[g] = s;
}

// More kernels in the styles of public CUDA code, written for smemsim's tests (issue 15): the classic
// reductions (interleaved with %, sequential with a warp-synchronous tail), a shuffle all-reduce dot
// product, float4 vector add, a 5-point stencil on a shared tile with halo, a warp-aggregated
// histogram, a matrix-vector product caching x in shared memory, a dp4a dot product, bit intrinsics,
// and 128-bit addition with add.cc/addc in inline PTX. CPU references: tests/exec_corpus2_test.cpp.
#include <cstdint>

// out[block] = sum of in over the block's 256 elements, interleaved addressing (tid % (2s) == 0).
__global__ void reduce_modulo(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 1; stride < 256; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// The same sum, sequential addressing down to one warp, then a volatile warp-synchronous tail.
__global__ void reduce_unrolled(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 128; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile int* v = s;
    v[t] += v[t + 32];
    __syncwarp();
    v[t] += v[t + 16];
    __syncwarp();
    v[t] += v[t + 8];
    __syncwarp();
    v[t] += v[t + 4];
    __syncwarp();
    v[t] += v[t + 2];
    __syncwarp();
    v[t] += v[t + 1];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// dot[i] = the dot product of a and b over i's warp, in every lane (a butterfly all-reduce).
__global__ void warp_dot(const float* a, const float* b, float* dot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i] * b[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  dot[i] = v;
}

// c = a + b, four floats per thread.
__global__ void vec_add4(const float4* a, const float4* b, float4* c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 x = a[i], y = b[i];
  c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// out = 5-point sum (centre and 4 neighbours; 0 outside) of a w x h grid, 16 x 16 tiles with halo.
__global__ void stencil5(const int* in, int* out, int w, int h) {
  __shared__ int tile[18][18];
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  const auto at = [&](int xx, int yy) { return xx >= 0 && yy >= 0 && xx < w && yy < h ? in[yy * w + xx] : 0; };
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  tile[ty][tx] = at(x, y);
  if (threadIdx.x == 0) tile[ty][0] = at(x - 1, y);
  if (threadIdx.x == 15) tile[ty][17] = at(x + 1, y);
  if (threadIdx.y == 0) tile[0][tx] = at(x, y - 1);
  if (threadIdx.y == 15) tile[17][tx] = at(x, y + 1);
  __syncthreads();
  out[y * w + x] = tile[ty][tx] + tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] + tile[ty + 1][tx];
}

// bins[v] += count of v (values 0..63): lanes with the same value elect a leader (match.any), which
// adds the group's size with one atomic.
__global__ void histogram_aggregated(const int* data, unsigned* bins) {
  const int v = data[blockIdx.x * blockDim.x + threadIdx.x];
  const unsigned peers = __match_any_sync(0xffffffffu, v);
  const int leader = __ffs(peers) - 1;
  if ((threadIdx.x & 31) == leader) atomicAdd(&bins[v], __popc(peers));
}

// y = M x for an n x n matrix (n <= 1024, a multiple of 128); x is cached in shared memory.
__global__ void matvec_shared(const float* m, const float* x, float* y, int n) {
  extern __shared__ float xs[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) xs[i] = x[i];
  __syncthreads();
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += m[row * n + k] * xs[k];
  y[row] = s;
}

// out[i] = dp4a of the four signed bytes of a[i] and b[i], plus c[i].
__global__ void dot_bytes(const int* a, const int* b, const int* c, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __dp4a(a[i], b[i], c[i]);
}

// Bit intrinsics of v = in[i]: out[8i .. 8i + 7].
__global__ void bit_tricks(const unsigned* in, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[i];
  unsigned* o = out + 8 * i;
  o[0] = __brev(v);
  o[1] = __clz(v);
  o[2] = __ffs(v);
  o[3] = __popc(v);
  o[4] = __byte_perm(v, 0x11223344u, 0x5140);
  o[5] = __funnelshift_l(v, 0xdeadbeefu, 7);
  o[6] = __usad(v & 0xffffu, 1000u, 5u);
  o[7] = __umul24(v, 3u);
}

// sum[i] = a[i] + b[i] as 128-bit integers (four 32-bit limbs, least significant first), with the
// carry chain written the way multi-precision CUDA code writes it: add.cc, addc.cc, addc.
__global__ void add128(const uint4* a, const uint4* b, uint4* sum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint4 x = a[i], y = b[i];
  uint4 r;
  asm("add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
  sum[i] = r;
}

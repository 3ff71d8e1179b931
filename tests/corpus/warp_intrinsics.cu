// Warp-intrinsic kernels in the styles public CUDA code uses (issue 15): shuffle reductions in a
// template instantiated twice, a cooperative-groups reduction, a block scan, ballot compaction,
// match/vote/activemask, and shuffles with segment widths. Written for smemsim's tests; each one's
// CPU reference is in tests/exec_corpus_test.cpp. Launch: 1-D blocks of a multiple of 32 threads.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ int warp_sum(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFull, v, o);
  return v;
}

// out[block] = sum of in[block * BLOCK ...] (zero past n): warp sums, then warp 0 sums the partials.
template <int BLOCK>
__global__ void block_sum(const int* in, int* out, int n) {
  __shared__ int partial[BLOCK / 32];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_sum(v);
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? partial[lane] : 0;
    v = warp_sum(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
template __global__ void block_sum<128>(const int*, int*, int);
template __global__ void block_sum<256>(const int*, int*, int);

// *out += sum of in[0..n): one tile of 32 per warp reduces with cg::reduce, lane 0 adds.
__global__ void cg_sum(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  const int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) atomicAdd(out, s);
}

// Inclusive prefix sum within each block: warp scans with __shfl_up_sync, then the warp totals.
__global__ void block_scan(const int* in, int* out) {
  __shared__ int totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = in[i];
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(kFull, v, o);
    if (lane >= o) v += t;
  }
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < int(blockDim.x / 32) ? totals[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      const int u = __shfl_up_sync(kFull, t, o);
      if (lane >= o) t += u;
    }
    totals[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  out[i] = v;
}

// Keeps the positive values: each warp reserves room with one atomic and writes them in lane order.
__global__ void compact_positive(const int* in, int* out, int* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const unsigned keep = __ballot_sync(kFull, v > 0);
  const int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0) base = atomicAdd(count, __popc(keep));
  base = __shfl_sync(kFull, base, 0);
  if (v > 0) out[base + __popc(keep & ((1u << lane) - 1u))] = v;
}

// same[i]: lanes of the warp with key[i]'s value; flags[i]: bit 0 all keys positive, bit 1 some key
// above 100, bit 2 every key of the warp in the same thousand; odd[i]: __activemask() in the odd-key
// branch (0 elsewhere).
__global__ void key_votes(const int* key, int* same, int* flags, unsigned* odd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = key[i];
  same[i] = __popc(__match_any_sync(kFull, k));
  int uniform = 0;
  __match_all_sync(kFull, k / 1000, &uniform);
  flags[i] = __all_sync(kFull, k > 0) | (__any_sync(kFull, k > 100) << 1) | (uniform ? 4 : 0);
  unsigned a = 0;
  if (k & 1) a = __activemask();
  __syncwarp();
  odd[i] = a;
}

// out[i] = in[(lane & ~7) | 3] + 1000 * in[lane ^ 4 within 16] + 1000000 * in[lane - 2 or lane] in
// 8-wide segments.
__global__ void segment_shuffles(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const int a = __shfl_sync(kFull, v, 3, 8);
  const int b = __shfl_xor_sync(kFull, v, 4, 16);
  const int c = __shfl_up_sync(kFull, v, 2, 8);
  out[i] = a + 1000 * b + 1000000 * c;
}

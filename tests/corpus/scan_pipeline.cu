// A three-pass scan, the way multi-launch CUDA code computes a prefix sum over many blocks (issue
// 15): scan each block, scan the block totals, add each block's offset. Written for smemsim's tests;
// the launch spec runs the three as [[launch]] tables on the same buffers.

// out[i] = in[block * 256] + ... + in[i] (inclusive, within the block); sums[block] = its total.
__global__ void scan_blocks(const int* in, int* out, int* sums) {
  __shared__ int s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = in[i];
  __syncthreads();
  for (int o = 1; o < 256; o <<= 1) {
    const int v = t >= o ? s[t - o] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  out[i] = s[t];
  if (t == 255) sums[blockIdx.x] = s[255];
}

// sums[b] = sums[0] + ... + sums[b - 1] (exclusive) for b < n <= 256, in one block.
__global__ void scan_sums(int* sums, int n) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  const int own = t < n ? sums[t] : 0;
  s[t] = own;
  __syncthreads();
  for (int o = 1; o < 256; o <<= 1) {
    const int v = t >= o ? s[t - o] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  if (t < n) sums[t] = s[t] - own;
}

// out[i] += the offset of its block.
__global__ void add_offsets(int* out, const int* sums) {
  out[blockIdx.x * 256 + threadIdx.x] += sums[blockIdx.x];
}

// Block sum reduction in shared memory, two addressing schemes (seed 002 §3.2.3; CUDA SDK
// reduction).
//
// reduce_interleaved:  sdata[2*S*tx] += sdata[2*S*tx + S] for S = 1, 2, 4, ...: stride 2*S between
//                      consecutive threads, a power of two, hence bank conflicts with 32 banks.
// reduce_sequential:   sdata[tx] += sdata[tx + S] for S = blockDim.x/2, ..., 1: unit stride,
// conflict
//                      free.
//
// Launch: reduce_*<<<blocks, threads, threads * 4>>>(in, out, n); threads is a power of two; block
// b sums in[b * threads, (b + 1) * threads) (missing elements count as 0) into out[b].

extern "C" __global__ void reduce_interleaved(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  const unsigned int tx = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tx;
  sdata[tx] = i < n ? in[i] : 0;
  __syncthreads();

  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    const unsigned int index = 2 * s * tx;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tx == 0) out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce_sequential(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  const unsigned int tx = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tx;
  sdata[tx] = i < n ? in[i] : 0;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tx < s) sdata[tx] += sdata[tx + s];
    __syncthreads();
  }
  if (tx == 0) out[blockIdx.x] = sdata[0];
}

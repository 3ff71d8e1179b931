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

#include "smemsim_swhash.cuh"

// reduce_interleaved_sw: the same with every index through the software hash of seed 002 §7.2
// (kernels/smemsim_swhash.cuh); k2 and mask follow n. The shared array holds `threads` words, a
// multiple of 32 for threads >= 32.
template <bool H>
__device__ void reduce_interleaved_body(const int* in, int* out, int n, unsigned k2,
                                        unsigned mask) {
  extern __shared__ int idata[];
  const unsigned int tx = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tx;
  idata[swhash<H>(tx, k2, mask)] = i < n ? in[i] : 0;
  __syncthreads();

  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    const unsigned int index = 2 * s * tx;
#define SD(i) idata[swhash<H>(i, k2, mask)]
    if (index < blockDim.x) SD(index) += SD(index + s);
#undef SD
    __syncthreads();
  }
  if (tx == 0) out[blockIdx.x] = idata[swhash<H>(0, k2, mask)];
}

extern "C" __global__ void reduce_interleaved(const int* in, int* out, int n) {
  reduce_interleaved_body<false>(in, out, n, 0, 0);
}
extern "C" __global__ void reduce_interleaved_sw(const int* in, int* out, int n, unsigned k2,
                                                 unsigned mask) {
  reduce_interleaved_body<true>(in, out, n, k2, mask);
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

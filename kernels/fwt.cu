// Fast Walsh Transform of one 2^log2n-element segment per block in shared memory (seed 002 §3.2.4;
// CUDA SDK fastWalshTransform).
//
// Radix-4 butterflies with stride = N/4, N/16, ..., then one radix-2 stage if log2n is odd. The
// shared memory index of the first butterfly input is
//     lo = pos & (stride - 1);  i0 = ((pos - lo) << 2) + lo;
// i.e. s = 4 * stride * t_y + t_x with sub-warps of `stride` threads (seed 002 §3.2.4): for N =
// 2048 the strides are 512, 128, 32, 8, 2, and stride 8 gives a 4-way bank conflict on 32 banks.
//
// Launch: fwt<<<segments, threads, (1 << log2n) * 4>>>(data, log2n); data holds segments * 2^log2n
// floats, transformed in place (unnormalized).

#include "smemsim_swhash.cuh"

// fwt_sw: the same with every shared index through the software hash of seed 002 §7.2
// (kernels/smemsim_swhash.cuh); k2 and mask follow log2n (2^log2n >= 32 words).
template <bool H>
__device__ void fwt_body(float* data, int log2n, unsigned k2, unsigned mask) {
#define S(i) s_data[swhash<H>(i, k2, mask)]
  extern __shared__ float s_data[];
  const int n = 1 << log2n;
  float* segment = data + static_cast<size_t>(blockIdx.x) * n;
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) S(pos) = segment[pos];

  for (int stride = n >> 2; stride > 0; stride >>= 2) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < n / 4; pos += blockDim.x) {
      const int lo = pos & (stride - 1);
      const int i0 = ((pos - lo) << 2) + lo;
      const int i1 = i0 + stride;
      const int i2 = i1 + stride;
      const int i3 = i2 + stride;
      float d0 = S(i0), d1 = S(i1), d2 = S(i2), d3 = S(i3);
      float t = d0;
      d0 = d0 + d2;
      d2 = t - d2;
      t = d1;
      d1 = d1 + d3;
      d3 = t - d3;
      S(i0) = d0 + d1;
      S(i1) = d0 - d1;
      S(i2) = d2 + d3;
      S(i3) = d2 - d3;
    }
  }

  __syncthreads();
  if (log2n & 1) {  // last radix-2 stage
    for (int pos = threadIdx.x; pos < n / 2; pos += blockDim.x) {
      const int i0 = pos << 1;
      const float d0 = S(i0), d1 = S(i0 + 1);
      S(i0) = d0 + d1;
      S(i0 + 1) = d0 - d1;
    }
    __syncthreads();
  }
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) segment[pos] = S(pos);
#undef S
}

extern "C" __global__ void fwt(float* data, int log2n) {
  fwt_body<false>(data, log2n, 0, 0);
}
extern "C" __global__ void fwt_sw(float* data, int log2n, unsigned k2, unsigned mask) {
  fwt_body<true>(data, log2n, k2, mask);
}

// 1-D Haar wavelet decomposition in shared memory: seed 002 Table 5's dwtHaar1D (CUDA SDK), written
// for smemsim from the transform's definition.
//
// A block of T threads (a power of two) decomposes one segment of N = 2 T samples completely:
// level by level, with n = N, N/2, ..., 2 values left, thread t < n/2 reads the pair s[2t], s[2t+1]
// and, after a barrier, writes the approximation (a + b) / sqrt(2) to s[t] and the detail
// (a - b) / sqrt(2) to out[n/2 + t]; at the end out[0] = s[0]. So out holds, per segment, the
// overall approximation, then the details from the coarsest level (1 value) to the finest (T).
//
// Bank conflicts (32 banks of 4 bytes): the pair reads have stride 2; while n/2 >= 32 a warp's 32
// lanes read words 0, 2, ..., 62 (+ const): 16 banks with two distinct words each, 2-way (one
// conflict per read); once n/2 <= 16 the warp's lanes fit in 16 banks and there is none. Loads,
// the approximation writes and the final copy are unit-stride.
//
// Launch: haar1d[_sw]<<<segments, T, 0>>>(in, out, k2, mask): in and out hold segments x 2T floats;
// T a power of two up to 512. _sw: every shared index through swhash (kernels/smemsim_swhash.cuh).
#include "smemsim_swhash.cuh"

#define HAAR_MAX 1024
#define INV_SQRT2 0.70710678118654752f

template <bool H>
__device__ void haar1d_body(const float* in, float* out, unsigned k2, unsigned mask) {
  __shared__ float s[HAAR_MAX];
  const unsigned t = threadIdx.x, T = blockDim.x;
  const float* src = in + 2 * T * blockIdx.x;
  float* dst = out + 2 * T * blockIdx.x;
  s[swhash<H>(t, k2, mask)] = src[t];
  s[swhash<H>(t + T, k2, mask)] = src[t + T];
  __syncthreads();
  for (unsigned half = T; half >= 1; half >>= 1) {
    float a = 0.0f, b = 0.0f;
    if (t < half) {
      a = s[swhash<H>(2 * t, k2, mask)];
      b = s[swhash<H>(2 * t + 1, k2, mask)];
    }
    __syncthreads();
    if (t < half) {
      s[swhash<H>(t, k2, mask)] = (a + b) * INV_SQRT2;
      dst[half + t] = (a - b) * INV_SQRT2;
    }
    __syncthreads();
  }
  if (t == 0) dst[0] = s[swhash<H>(0, k2, mask)];
}

extern "C" __global__ void haar1d(const float* in, float* out, unsigned k2, unsigned mask) {
  haar1d_body<false>(in, out, k2, mask);
}
extern "C" __global__ void haar1d_sw(const float* in, float* out, unsigned k2, unsigned mask) {
  haar1d_body<true>(in, out, k2, mask);
}

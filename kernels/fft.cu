// Radix-2 complex FFTs of N = 2T points per block in shared memory: seed 002 Table 5's FFT-1 and
// FFT-2 (002 §7 adds FFT, after Gutierrez et al. [15], as a benchmark with non-linear access
// patterns), written for smemsim from the algorithms. Forward transform X[k] = sum over n of
// x[n] e^(-2 pi i k n / N); real and imaginary parts in separate arrays (32-bit accesses).
//
// fft_dit (FFT-1): iterative Cooley-Tukey, decimation in time. The block loads x[k] into position
// bitreverse(k) and runs log2 N in-place stages; in the stage with butterflies of span `half`
// thread t computes i0 = (t / half) 2 half + t % half, i1 = i0 + half, and
//     (s[i0], s[i1]) = (a + w b, a - w b),  a = s[i0], b = s[i1], w = e^(-pi i (t % half) / half).
// fft_stockham (FFT-2): Stockham's autosort formulation, ping-pong between two buffers: in the
// stage with span `ns` thread t reads x[t] and x[t + N/2] (unit stride), and writes
//     y[(t / ns) 2 ns + t % ns] = a + w b,  y[... + ns] = a - w b,  w = e^(-pi i (t % ns) / ns),
// so the output comes out in natural order with no bit reversal.
//
// Bank conflicts (32 banks): the bit-reversed stores of fft_dit put a warp's lanes t = 32 q .. 32 q
// + 31 at rev(t), where t's low 5 bits become the high bits of the 9-bit (N = 512) index: offsets
// 256 t0 + 128 t1 + 64 t2 + 32 t3 + 16 t4 + const, i.e. 2 banks with 16 distinct words each,
// 16-way. Butterflies with half = 1, 2, 4, 8, 16 touch words i0 = (t / half) 2 half + t % half: a
// warp covers 64 consecutive words with every other run of `half` skipped, two distinct words per
// bank, 2-way (i1 likewise); from half = 32 on the accesses are unit-stride. fft_stockham's reads
// are unit-stride; its writes have the same 2-way pattern as the butterflies for ns <= 16.
//
// Launch: fft_dit[_sw] / fft_stockham[_sw] <<<signals, T>>>(re, im, log2n, k2, mask): re and im
// hold signals x N floats, transformed in place; N = 2T <= 1024. _sw: every shared index through
// swhash (kernels/smemsim_swhash.cuh).
#include "smemsim_swhash.cuh"

#define FFT_MAX 1024
#define FFT_PI 3.14159265358979f

template <bool H>
__device__ void fft_dit_body(float* re, float* im, int log2n, unsigned k2, unsigned mask) {
  __shared__ float sr[FFT_MAX], si[FFT_MAX];
  const unsigned t = threadIdx.x, T = blockDim.x, n = 2 * T;
  float* r = re + n * blockIdx.x;
  float* m = im + n * blockIdx.x;
  for (unsigned k = t; k < n; k += T) {
    const unsigned j = __brev(k) >> (32 - log2n);
    sr[swhash<H>(j, k2, mask)] = r[k];
    si[swhash<H>(j, k2, mask)] = m[k];
  }
  __syncthreads();
  for (unsigned half = 1; half < n; half *= 2) {
    const unsigned pos = t % half;
    const unsigned i0 = (t / half) * 2 * half + pos, i1 = i0 + half;
    float sn, cs;
    __sincosf(-FFT_PI * float(pos) / float(half), &sn, &cs);
    const float ar = sr[swhash<H>(i0, k2, mask)], ai = si[swhash<H>(i0, k2, mask)];
    const float br = sr[swhash<H>(i1, k2, mask)], bi = si[swhash<H>(i1, k2, mask)];
    const float wr = br * cs - bi * sn, wi = br * sn + bi * cs;
    sr[swhash<H>(i0, k2, mask)] = ar + wr;
    si[swhash<H>(i0, k2, mask)] = ai + wi;
    sr[swhash<H>(i1, k2, mask)] = ar - wr;
    si[swhash<H>(i1, k2, mask)] = ai - wi;
    __syncthreads();
  }
  for (unsigned k = t; k < n; k += T) {
    r[k] = sr[swhash<H>(k, k2, mask)];
    m[k] = si[swhash<H>(k, k2, mask)];
  }
}

template <bool H>
__device__ void fft_stockham_body(float* re, float* im, unsigned k2, unsigned mask) {
  __shared__ float buf[4 * FFT_MAX];  // two ping-pong buffers, each re then im
  const unsigned t = threadIdx.x, T = blockDim.x, n = 2 * T;
  float* r = re + n * blockIdx.x;
  float* m = im + n * blockIdx.x;
  unsigned x = 0, y = 2 * n;  // word offsets of the source and destination buffers
  for (unsigned k = t; k < n; k += T) {
    buf[swhash<H>(x + k, k2, mask)] = r[k];
    buf[swhash<H>(x + n + k, k2, mask)] = m[k];
  }
  __syncthreads();
  for (unsigned ns = 1; ns < n; ns *= 2) {
    const unsigned pos = t % ns;
    float sn, cs;
    __sincosf(-FFT_PI * float(pos) / float(ns), &sn, &cs);
    const float ar = buf[swhash<H>(x + t, k2, mask)], ai = buf[swhash<H>(x + n + t, k2, mask)];
    const float br = buf[swhash<H>(x + t + T, k2, mask)];
    const float bi = buf[swhash<H>(x + n + t + T, k2, mask)];
    const float wr = br * cs - bi * sn, wi = br * sn + bi * cs;
    const unsigned d = (t / ns) * 2 * ns + pos;
    buf[swhash<H>(y + d, k2, mask)] = ar + wr;
    buf[swhash<H>(y + n + d, k2, mask)] = ai + wi;
    buf[swhash<H>(y + d + ns, k2, mask)] = ar - wr;
    buf[swhash<H>(y + n + d + ns, k2, mask)] = ai - wi;
    __syncthreads();
    const unsigned tmp = x;
    x = y;
    y = tmp;
  }
  for (unsigned k = t; k < n; k += T) {
    r[k] = buf[swhash<H>(x + k, k2, mask)];
    m[k] = buf[swhash<H>(x + n + k, k2, mask)];
  }
}

extern "C" __global__ void fft_dit(float* re, float* im, int log2n, unsigned k2, unsigned mask) {
  fft_dit_body<false>(re, im, log2n, k2, mask);
}
extern "C" __global__ void fft_dit_sw(float* re, float* im, int log2n, unsigned k2, unsigned mask) {
  fft_dit_body<true>(re, im, log2n, k2, mask);
}
extern "C" __global__ void fft_stockham(float* re, float* im, int log2n, unsigned k2,
                                        unsigned mask) {
  fft_stockham_body<false>(re, im, k2, mask);
}
extern "C" __global__ void fft_stockham_sw(float* re, float* im, int log2n, unsigned k2,
                                           unsigned mask) {
  fft_stockham_body<true>(re, im, k2, mask);
}

// Histogram with replicated sub-histograms in shared memory (seed 001 §3.3 and §4.2; seed 000
// §V.B).
//
// Each block keeps R copies of the vote space (num_bins bins, each copy `num_bins + padding` words
// apart) in dynamic shared memory. A thread votes in copy
//     cyclic mapping: tid % R                        (seed 001 Eq. (1))
//     block mapping:  (tid / floor(N / R)) % R       (seed 001 Eq. (2), N = blockDim.x)
// with atomicAdd, then the copies are summed and added to the global histogram.
//
// Padding (seed 000 footnote 1, seed 001 §3.3) shifts every copy by `padding` words so that equal
// bins of different copies fall into different banks.
//
// Software hash (seed 002 §6, §7.2): histogram_sw takes k2 and mask last and sends every shared
// word index of the vote space through swhash (kernels/smemsim_swhash.cuh). The vote space, R x
// (num_bins + padding) words, must then be a multiple of 32 words (the hash permutes aligned
// groups of 32).
//
// Launch: histogram<<<blocks, threads, R * (num_bins + padding) * 4>>>(data, n, bins, num_bins, R,
// block_mapping, padding). data holds n 8-bit values; value v votes for bin v * num_bins / 256
// (num_bins <= 256). bins (num_bins words) must be zeroed by the caller.

#include "smemsim_swhash.cuh"

template <bool H>
__device__ void histogram_body(const unsigned char* data, int n, unsigned int* bins, int num_bins,
                               int replication, int block_mapping, int padding, unsigned k2,
                               unsigned mask) {
  extern __shared__ unsigned int sub_hist[];
  const int tid = threadIdx.x;
  const int copy_words = num_bins + padding;
  const int total_words = replication * copy_words;
  for (int w = tid; w < total_words; w += blockDim.x) sub_hist[swhash<H>(w, k2, mask)] = 0;
  __syncthreads();

  int copy;
  if (block_mapping) {
    int per_copy = blockDim.x / replication;
    copy = (tid / (per_copy > 0 ? per_copy : 1)) % replication;
  } else {
    copy = tid % replication;
  }
  const int base = copy * copy_words;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    const unsigned int bin = (static_cast<unsigned int>(data[i]) * num_bins) >> 8;
    atomicAdd(&sub_hist[swhash<H>(base + bin, k2, mask)], 1u);
  }
  __syncthreads();

  for (int b = tid; b < num_bins; b += blockDim.x) {
    unsigned int sum = 0;
    for (int r = 0; r < replication; ++r) sum += sub_hist[swhash<H>(r * copy_words + b, k2, mask)];
    atomicAdd(&bins[b], sum);
  }
}

extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned int* bins,
                                     int num_bins, int replication, int block_mapping,
                                     int padding) {
  histogram_body<false>(data, n, bins, num_bins, replication, block_mapping, padding, 0, 0);
}
extern "C" __global__ void histogram_sw(const unsigned char* data, int n, unsigned int* bins,
                                        int num_bins, int replication, int block_mapping,
                                        int padding, unsigned k2, unsigned mask) {
  histogram_body<true>(data, n, bins, num_bins, replication, block_mapping, padding, k2, mask);
}

// The histogram study's kernel (src/study/histogram.cpp with backend = cycle; seed 000 §V.B, seed
// 001 §4.2): 12-bit pixels (one 16-bit word each), bin = pixel >> shift, and the study's vote-space
// layouts: R copies of `num_bins + padding` words with cyclic or block mapping, or bin-stretching
// (stretch = 1: bin b of copy c at word b * R + c, copy by cyclic mapping). Each block keeps its
// own copies; pixel i is voted by thread i % blockDim.x of block (i / blockDim.x) % gridDim.x, so a
// warp votes 32 consecutive pixels (001 §4.2.1). The copies are summed into the global histogram.
//
// Launch: histogram12<<<blocks, threads, words * 4>>>(data, n, bins, num_bins, shift, R,
// block_mapping, padding, stretch), words = stretch ? num_bins * R : R * (num_bins + padding) -
// padding (the last copy needs no padding after it).
extern "C" __global__ void histogram12(const unsigned short* data, int n, unsigned int* bins,
                                       int num_bins, int shift, int replication, int block_mapping,
                                       int padding, int stretch) {
  extern __shared__ unsigned int copies[];
  const int tid = threadIdx.x;
  const int copy_words = num_bins + padding;
  const int total_words = stretch ? num_bins * replication : replication * copy_words - padding;
  for (int w = tid; w < total_words; w += blockDim.x) copies[w] = 0;
  __syncthreads();

  int copy;
  if (block_mapping && !stretch) {
    const int per_copy = blockDim.x / replication;
    copy = (tid / (per_copy > 0 ? per_copy : 1)) % replication;
  } else {
    copy = tid % replication;
  }
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    const int bin = data[i] >> shift;
    const int word = stretch ? bin * replication + copy : copy * copy_words + bin;
    atomicAdd(&copies[word], 1u);
  }
  __syncthreads();

  for (int b = tid; b < num_bins; b += blockDim.x) {
    unsigned int sum = 0;
    for (int r = 0; r < replication; ++r)
      sum += copies[stretch ? b * replication + r : r * copy_words + b];
    atomicAdd(&bins[b], sum);
  }
}

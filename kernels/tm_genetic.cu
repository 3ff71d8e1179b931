// Genetic Algorithm, the third GPU-LocalTM benchmark (seed 003 §5.1.3), written from the paper's
// description: a knapsack of 8 objects whose price is proportional to their weight, so the best
// bag is the one whose weight is closest to the capacity. A solution is an int whose 8 low bits
// say which objects are in the bag. Each thread picks two solutions of the shared population (the
// indices come from the host's seeded generator), and in one transaction reads both, keeps the
// fitter (weight closer to the capacity; the first on a tie) and replaces the other by a
// crossover: the fitter's low four objects with its own high four. "Both solutions are added to
// the set, replacing the previous ones." The transaction reads and writes two words, with more
// work between the reads and the writes than the other benchmarks.
//
// ga_tx: the transaction (kernels/smemsim_tm.cuh); ga_serial: TX. Serialization. Both write the
// final population to out[0..n) and, per thread, what it read and wrote to log[4t..4t+3] (read i,
// read j, wrote i, wrote j): the CPU check replays these (workloads/driver_tm.cpp).
#include "smemsim_tm.cuh"

#define GA_MAX 256

__device__ static int ga_miss(unsigned s, const int* weight, int capacity) {
  int w = 0;
  for (int o = 0; o < 8; ++o)
    if (s & (1u << o)) w += weight[o];
  return w > capacity ? w - capacity : capacity - w;
}

// The crossover of two solutions: the fitter stays, the other becomes the fitter's low four objects
// with its own high four.
__device__ static void ga_cross(unsigned a, unsigned b, const int* w, int capacity, unsigned& na,
                                unsigned& nb) {
  const bool a_fitter = ga_miss(a, w, capacity) <= ga_miss(b, w, capacity);
  const unsigned fit = a_fitter ? a : b, weak = a_fitter ? b : a;
  const unsigned child = (fit & 0x0fu) | (weak & 0xf0u);
  na = a_fitter ? a : child;
  nb = a_fitter ? child : b;
}

extern "C" __global__ void ga_tx(const unsigned* init, const int* weight, int capacity,
                                 const int* picks, int n, unsigned* out, unsigned* log) {
  __shared__ unsigned pop[GA_MAX];
  TX_INIT();
  const int t = threadIdx.x;
  for (int i = t; i < n; i += blockDim.x) pop[i] = init[i];
  // The weights go to registers: read inside the transaction from shared memory, every thread
  // would conflict on them (one signature for reads and writes, 003 §3.3).
  int w[8];
  for (int o = 0; o < 8; ++o) w[o] = weight[o];
  __syncthreads();
  const int i = picks[2 * t], j = picks[2 * t + 1];
  unsigned a, b, na, nb;
  TX_BEGIN();
  a = pop[i];
  b = pop[j];
  ga_cross(a, b, w, capacity, na, nb);
  pop[i] = na;
  pop[j] = nb;
  TX_COMMIT();
  log[4 * t] = a;
  log[4 * t + 1] = b;
  log[4 * t + 2] = na;
  log[4 * t + 3] = nb;
  __syncthreads();
  for (int k = t; k < n; k += blockDim.x) out[k] = pop[k];
}

extern "C" __global__ void ga_serial(const unsigned* init, const int* weight, int capacity,
                                     const int* picks, int n, unsigned* out, unsigned* log) {
  __shared__ unsigned pop[GA_MAX];
  const int t = threadIdx.x;
  for (int i = t; i < n; i += blockDim.x) pop[i] = init[i];
  int w[8];
  for (int o = 0; o < 8; ++o) w[o] = weight[o];
  __syncthreads();
  const int i = picks[2 * t], j = picks[2 * t + 1];
  for (int turn = 0; turn < blockDim.x; ++turn) {
    if (turn == t) {
      const unsigned a = pop[i], b = pop[j];
      unsigned na, nb;
      ga_cross(a, b, w, capacity, na, nb);
      pop[i] = na;
      pop[j] = nb;
      log[4 * t] = a;
      log[4 * t + 1] = b;
      log[4 * t + 2] = na;
      log[4 * t + 3] = nb;
    }
    __syncthreads();
  }
  for (int k = t; k < n; k += blockDim.x) out[k] = pop[k];
}

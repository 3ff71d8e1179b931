// Atomic-addition microbenchmark on shared memory (seed 000 §III, Eq. 1; seed 001 §2).
//
// One warp (the papers launch a single block of 32 threads) performs `iterations` atomicAdd
// operations on shared memory. The per-thread word index follows Eq. 1 of seed 000:
//
//     index(id) = id * stride   if id < conflicts
//                 id            otherwise
//
// stride = 0 produces `conflicts`-way position conflicts (seed 000 Fig. 5a), stride = 32 bank
// conflicts without lock conflicts (Fig. 5b), stride = 256 bank conflicts plus a lock conflict
// every fourth (Fig. 5c). The shared array is 8192 words, enough for conflicts = 32 with stride =
// 256.
//
// Launch: atomic_bench<<<1, 32>>>(out, conflicts, stride, iterations); out has blockDim.x words and
// receives the final value of each thread's counter (iterations times the number of threads sharing
// it).

#define ATOMIC_BENCH_WORDS 8192

extern "C" __global__ void atomic_bench(unsigned int* out, int conflicts, int stride,
                                        int iterations) {
  __shared__ unsigned int counters[ATOMIC_BENCH_WORDS];
  const int id = threadIdx.x;
  for (int i = id; i < ATOMIC_BENCH_WORDS; i += blockDim.x) counters[i] = 0;
  __syncthreads();

  const int index = id < conflicts ? id * stride : id;  // seed 000 Eq. 1
  for (int it = 0; it < iterations; ++it) atomicAdd(&counters[index], 1u);
  __syncthreads();

  out[blockIdx.x * blockDim.x + id] = counters[index];
}

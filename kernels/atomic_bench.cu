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
// The kernel times its own atomics with clock(), as the papers' microbenchmarks do on hardware:
//
//     t0 = clock(); old = atomicAdd(...); sink[id] = old; t1 = clock();
//     e0 = clock(); sink[id] = id;        e1 = clock();
//     cycles = (t1 - t0) - (e1 - e0)
//
// The store of `old` makes t1 wait for the atomic's result (on lock-bit GPUs the atomic is a loop
// the warp runs anyway; on others it would not wait without it); the second sequence is the same
// without the atomic (its store has a ready operand), so the difference is the cycles from the
// atomic's issue to its result. clock()
// is volatile asm with a memory clobber: the compiler keeps the atomic between the two reads, and
// the stores to the volatile `sink` stay.
//
// Launch: atomic_bench<<<1, 32>>>(out, cycles, conflicts, stride, iterations); out has blockDim.x
// words per block and receives the final value of each thread's counter (iterations times the
// number of threads sharing it); cycles receives, per thread, the smallest measurement over the
// iterations.

#define ATOMIC_BENCH_WORDS 8192

extern "C" __global__ void atomic_bench(unsigned int* out, unsigned int* cycles, int conflicts,
                                        int stride, int iterations) {
  __shared__ unsigned int counters[ATOMIC_BENCH_WORDS];
  __shared__ unsigned int sink_words[1024];
  volatile unsigned int* const sink = sink_words;  // volatile: the stores stay
  const int id = threadIdx.x;
  for (int i = id; i < ATOMIC_BENCH_WORDS; i += blockDim.x) counters[i] = 0;
  __syncthreads();

  const int index = id < conflicts ? id * stride : id;  // seed 000 Eq. 1
  unsigned int* const p = &counters[index];
  unsigned int best = 0xffffffffu;
  for (int it = 0; it < iterations; ++it) {
    const unsigned int t0 = clock();
    const unsigned int old = atomicAdd(p, 1u);
    sink[id] = old;
    const unsigned int t1 = clock();
    const unsigned int e0 = clock();
    sink[id] = id;
    const unsigned int e1 = clock();
    const unsigned int c = (t1 - t0) - (e1 - e0);
    best = c < best ? c : best;
  }
  __syncthreads();

  out[blockIdx.x * blockDim.x + id] = counters[index];
  cycles[blockIdx.x * blockDim.x + id] = best;
}

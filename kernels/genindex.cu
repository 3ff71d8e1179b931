// Bank-conflict microbenchmark of seed 002 §2 (Figs. 1 and 2).
//
//     int index = GenIndex(tid, way, stride);
//     for (int i = 0; i < repeat; i++) index = ScratchpadMemory[index];
//
// GenIndex(tid, way, stride) = tid * stride if tid < way, tid elsewhere: `way` consecutive threads
// make a strided access, giving a `way`-way bank conflict for power-of-two strides (32 banks). With
// init[i] = i the pointer chase stays in place, so every iteration repeats the same warp pattern.
//
// Launch: genindex<<<blocks, threads>>>(out, init, way, stride, repeat); init has GENINDEX_WORDS
// words (each a valid index), out has one word per thread and receives the final index.

#define GENINDEX_WORDS 4096

__device__ __forceinline__ int gen_index(int tid, int way, int stride) {
  return tid < way ? tid * stride : tid;  // seed 002 §2
}

extern "C" __global__ void genindex(int* out, const int* init, int way, int stride, int repeat) {
  __shared__ int scratchpad[GENINDEX_WORDS];
  const int tid = threadIdx.x;
  for (int i = tid; i < GENINDEX_WORDS; i += blockDim.x) scratchpad[i] = init[i];
  __syncthreads();

  int index = gen_index(tid, way, stride);
  for (int i = 0; i < repeat; i++) index = scratchpad[index];

  out[blockIdx.x * blockDim.x + tid] = index;
}

// Named barriers and barrier reductions (issue 15), the way warp-specialized kernels and
// __syncthreads_count use them: producer warps fill a shared buffer and signal with bar.arrive,
// consumer warps wait on the same barrier with bar.sync and a thread count; two consumer warps then
// synchronize among themselves on a third barrier; __syncthreads_count/_and/_or reduce a predicate
// over the block. CPU references: tests/exec_texture_corpus_test.cpp.

// Block of 128 threads (4 warps): warps 0-1 produce 64 values, warps 2-3 consume them.
__global__ void producer_consumer(const int* in, int* out, int* counts) {
  __shared__ int buf[64];
  __shared__ int stage[64];
  const int t = threadIdx.x;
  const int base = blockIdx.x * 64;
  if (t < 64) {
    buf[t] = in[base + t] * 3;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    const int c = t - 64;
    stage[c] = buf[63 - c] + 1;  // written by the other consumer warp for c >= 32
    asm volatile("bar.sync 2, 64;" ::: "memory");
    out[base + c] = stage[c ^ 32];
  }
  const int v = in[base + (t & 63)];
  const int n = __syncthreads_count(v > 50);
  const int all = __syncthreads_and(v >= 0);
  const int any = __syncthreads_or(v > 98);
  if (t == 0) {
    counts[blockIdx.x * 3] = n;
    counts[blockIdx.x * 3 + 1] = all;
    counts[blockIdx.x * 3 + 2] = any;
  }
}

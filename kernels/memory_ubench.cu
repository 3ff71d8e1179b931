// Microbenchmarks of the memory beyond shared memory (issue 44), one CTA a streaming multiprocessor,
// each CTA timing itself with its SM's clock: thread 0 reads clock64 after a __syncthreads before
// the work and after one behind it, and writes both to clk[2 * blockIdx.x], clk[2 * blockIdx.x + 1].
// A figure is the work of one CTA over the median of the CTAs' spans, so that it is what one SM
// sees while every SM does the same (the share of the L2 or DRAM bandwidth an SM gets), and the
// cycle model can run the same kernel and be timed the same way. scripts/memory_measure.cu runs
// them on a GPU; docs/calibration.md "The memory hierarchy" has the figures.
#include <cstdint>

// Streaming read: CTA b reads its own `n16` 16-byte words (in + b * n16), `reps` times over, with
// ld.global.cg (cached in the L2 only), and writes one word a thread so that the loads are kept.
// With 128 KiB a CTA (16.5 MiB for 132 SMs) every rep after the first hits the L2; with 16 MiB a
// CTA the reads come from DRAM.
extern "C" __global__ void mem_read_cg(unsigned long long* clk, const uint4* in, unsigned* out,
                                       unsigned n16, int reps) {
  const uint4* p = in + static_cast<size_t>(blockIdx.x) * n16;
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (int r = 0; r < reps; ++r)
    for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
      const uint4 v = __ldcg(p + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The same through the L1 (ld.global.ca): 32 KiB a CTA, read `reps` times, every rep after the
// first hitting the L1.
extern "C" __global__ void mem_read_ca(unsigned long long* clk, const uint4* in, unsigned* out,
                                       unsigned n16, int reps) {
  const uint4* p = in + static_cast<size_t>(blockIdx.x) * n16;
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (int r = 0; r < reps; ++r)
    for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
      const uint4 v = __ldca(p + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Streaming write: CTA b writes its own n16 16-byte words once.
extern "C" __global__ void mem_write(unsigned long long* clk, uint4* dst, unsigned n16) {
  uint4* p = dst + static_cast<size_t>(blockIdx.x) * n16;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) p[i] = make_uint4(i, i, i, i);
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
}

// Every thread adds 1 to one global word `iters` times and keeps the old values (so that the
// compiler cannot turn the atomics into reductions or combine a warp's into one).
extern "C" __global__ void mem_atomic_one(unsigned long long* clk, unsigned* word, unsigned* out,
                                          int iters) {
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (int i = 0; i < iters; ++i) acc += atomicAdd(word, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// One thread follows `steps` links of a ring of 64-bit addresses the host built (ld.global.cg),
// from `start`: the latency of the level of the memory the ring's lines live in. clk[2] is where
// it stopped (the next run's start, so that a run after the first does not find its lines in the
// L2 the first left them in).
extern "C" __global__ void mem_chase(unsigned long long* clk, unsigned long long* start, int steps) {
  if (threadIdx.x != 0) return;
  unsigned long long p = reinterpret_cast<unsigned long long>(start);
  const unsigned long long t0 = clock64();
  for (int i = 0; i < steps; ++i)
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  clk[0] = t0;
  clk[1] = clock64();
  clk[2] = p;
}

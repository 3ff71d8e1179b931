// Microbenchmarks of the memory beyond shared memory (issue 44), one CTA a streaming multiprocessor,
// each CTA timing itself with its SM's clock: thread 0 reads clock64 after a __syncthreads before
// the work and after one behind it, and writes both to clk[2 * blockIdx.x], clk[2 * blockIdx.x + 1].
// A figure is the work of one CTA over the median of the CTAs' spans, so that it is what one SM
// sees while every SM does the same (the share of the L2 or DRAM bandwidth an SM gets), and the
// cycle model can run the same kernel and be timed the same way. scripts/memory_measure.cu runs
// them on a GPU (and scripts/memory_scaling.cu the kernels at the end, and the streams from fewer
// SMs); docs/gpu-runs.md "The memory's bandwidths" has the figures.
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

// --- issue 44's second round (scripts/memory_scaling.cu): the same streams from fewer SMs, one
// word's atomics that ptxas cannot aggregate, and two ways a line is asked for while it is filled.

// Every CTA reads the same `n16` 16-byte words (in), `reps` times, with ld.global.cg: the CTAs
// ask the L2 for a line at about the same time, so most find it still being filled (Nsight
// Compute's count of L2 hits says whether it counts those as hits).
extern "C" __global__ void mem_read_all_cg(unsigned long long* clk, const uint4* in, unsigned* out,
                                           unsigned n16, int reps) {
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (int r = 0; r < reps; ++r)
    for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
      const uint4 v = __ldcg(in + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Each thread loads its 16 bytes of the CTA's region twice, back to back, through the L1
// (ld.global.ca, volatile so that the compiler keeps both): the second load finds its sector
// still being filled by the first. Nsight's L2 lookups say whether the L1 sends it on again.
extern "C" __global__ void mem_read_twice_ca(unsigned long long* clk, const uint4* in,
                                             unsigned* out, unsigned n16) {
  const uint4* p = in + static_cast<size_t>(blockIdx.x) * n16;
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
    unsigned a, b, c, d, e, f, g, h;
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p + i));
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(e), "=r"(f), "=r"(g), "=r"(h)
                 : "l"(p + i));
    acc ^= a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Every thread adds 1 to word[idx[threadIdx.x]] `iters` times and keeps the old values. With idx
// all 0 every lane of every warp adds to one word, as mem_atomic_one, but ptxas cannot know the
// address is the warp's one and so cannot aggregate the warp's lanes into one atomic (it does
// for mem_atomic_one): the L2 serializes 32 updates a warp. With idx[t] = t each lane has its own
// word.
extern "C" __global__ void mem_atomic_ind(unsigned long long* clk, unsigned* word,
                                          const unsigned* idx, unsigned* out, int iters) {
  unsigned* w = word + idx[threadIdx.x];
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (int i = 0; i < iters; ++i) acc += atomicAdd(w, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    clk[2 * blockIdx.x] = t0;
    clk[2 * blockIdx.x + 1] = clock64();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Warps w and w + 16 of the CTA load the same 16 bytes a thread at about the same time, through
// the L1 (ld.global.ca): the CTA's first 512 threads and its last 512 walk the same n16 words.
// Nsight's L1 hits and L2 lookups say whether a load that misses on a sector another warp's miss
// is already fetching goes on to the L2 again.
extern "C" __global__ void mem_read_pairs_ca(unsigned long long* clk, const uint4* in,
                                             unsigned* out, unsigned n16) {
  const uint4* p = in + static_cast<size_t>(blockIdx.x) * n16;
  unsigned acc = 0;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  for (unsigned i = threadIdx.x % 512; i < n16; i += 512) {
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

// A chase under load: thread 0 of CTA 0 follows `steps` links of a ring (ld.global.cg, as
// mem_chase) while every other CTA reads its own n16 words of `in` `reps` times (ld.global.cg),
// so the chase's latency is that of a memory the other SMs keep busy. clk[0..1] the chase's
// clocks, clk[2] where it stopped.
extern "C" __global__ void mem_chase_loaded(unsigned long long* clk, unsigned long long* start,
                                            int steps, const uint4* in, unsigned* out,
                                            unsigned n16, int reps) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    unsigned long long p = reinterpret_cast<unsigned long long>(start);
    const unsigned long long t0 = clock64();
    for (int i = 0; i < steps; ++i)
      asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
    clk[0] = t0;
    clk[1] = clock64();
    clk[2] = p;
    return;
  }
  const uint4* q = in + static_cast<size_t>(blockIdx.x) * n16;
  unsigned acc = 0;
  for (int r = 0; r < reps; ++r)
    for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
      const uint4 v = __ldcg(q + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

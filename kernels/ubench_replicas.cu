// Replicas of published GPU microbenchmarks (issue 42; src/calibrate/replicas.cpp), written by us
// from each source's described method: the same per-step operation on the same types, timed with
// clock() the same way, so that a figure measured on a GPU and the cycle model's answer for the
// same code can be compared (smemsim calibrate). Unlike kernels/ubench.cu, whose chains are inline
// PTX, these are plain CUDA: nvcc emits the address arithmetic, conversions and separate
// multiply and add that the sources' kernels had, and the lowering pass (sm.lower) times them as
// ptxas would. thread 0 writes out[0] = the cycles measured, out[1] = the chain's last value (so
// that nothing is optimized away).
//
// Sources and methods: docs/calibration.md.

#include <cuda_fp16.h>

// Loops are unrolled 4 times (nvcc's usual choice for such a loop; a full unroll would make the
// shipped PTX tens of thousands of lines): the loop counter and branch issue in the shadow of
// each step's latency, on the GPU as in the model.

// Shared-memory latency (Accel-Sim ubench/shd/shared_lat; TITAN V log line 457): one block of one
// thread chases p = s[p] through a u64 array of 4,096 entries with s[i] = i + 1, 2,048 hops from
// p = 0, timed with the 32-bit %clock. Per hop: cycles / 2,048.
extern "C" __global__ void rep_shared_chase(unsigned* out) {
  __shared__ unsigned long long s[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i + 1;
  __syncthreads();
  unsigned long long p = 0;
  const unsigned t0 = clock();
#pragma unroll 4
  for (int i = 0; i < 2048; ++i) p = s[p];
  const unsigned t1 = clock();
  out[0] = t1 - t0;
  out[1] = static_cast<unsigned>(p);
}

// Half-precision pair latency (ubench/core/lat_half; log line 367): one thread, 4,096 steps of
// acc = acc * mult + acc on __half2, written with the operators (PTX: mul.f16x2, then add.f16x2).
// Per step: cycles / 4,096.
extern "C" __global__ void rep_hfma2_chain(unsigned* out, float seed) {
  __half2 acc = __float2half2_rn(seed), mult = __float2half2_rn(0.999f);
  const unsigned t0 = clock();
#pragma unroll 4
  for (int i = 0; i < 4096; ++i) acc = acc * mult + acc;
  const unsigned t1 = clock();
  out[0] = t1 - t0;
  out[1] = __half_as_ushort(__low2half(acc));
}

// Global atomic latency (ubench/atomics/Atomic_add_lat; log line 32): one thread, a u32 array of
// 1,024 entries with g[i] = (i + 1) % 1,024, 1,024 steps of p = atomicAdd(&g[p], 10) from p = 0
// (each entry hit once). Per step: cycles / 1,024.
extern "C" __global__ void rep_atomic_chase(unsigned* out, unsigned* g) {
  for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) g[i] = (i + 1) % 1024;
  __syncthreads();
  unsigned p = 0;
  const unsigned t0 = clock();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) p = atomicAdd(&g[p], 10u);
  const unsigned t1 = clock();
  out[0] = t1 - t0;
  out[1] = p;
}

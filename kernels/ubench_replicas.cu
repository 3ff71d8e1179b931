// smemsim-arch: sm_75
// Replicas of published GPU microbenchmarks (issue 42; src/calibrate/replicas.cpp), written by us
// from each source's described method: the same per-step operation on the same types, the same
// launch, timed with %clock the same way, so that a figure measured on a GPU and the cycle model's
// answer for the same code can be compared (smemsim calibrate). The methods are those of Accel-Sim's
// GPU_Microbenchmark, whose TITAN V log calibration/titanv-accelsim.toml cites (docs/calibration.md
// gives each).
//
// Every kernel writes each thread's clock before and after its timed loop to clk[2 t] and
// clk[2 t + 1]; the runner takes thread 0's difference or the span over all threads, as the
// source's host code did. out[t] keeps each thread's result, so that nothing is optimized away.
// Where the source wrote a chain as an inline-PTX block of four dependent instructions, so does
// the replica; plain C++ where it did. Loops the source left to nvcc are unrolled 4 times here
// (nvcc's usual partial unroll; a full unroll would make the shipped PTX tens of thousands of
// lines): the counter and branch issue in the shadow of each step's latency.

#include <cuda_fp16.h>
#include <mma.h>

__device__ __forceinline__ unsigned clock32() {
  unsigned c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c));
  return c;
}

__device__ __forceinline__ void stamp(unsigned* clk, unsigned t0, unsigned t1) {
  clk[2 * threadIdx.x] = t0;
  clk[2 * threadIdx.x + 1] = t1;
}

// shd/shared_lat (log line 457): 1 thread chases p = s[p] through u64 s[4096], s[i] = i + 1,
// 2,048 hops from 0.
extern "C" __global__ void rep_shared_chase(unsigned* clk, unsigned* out) {
  __shared__ unsigned long long s[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i + 1;
  __syncthreads();
  unsigned long long p = 0;
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 2048; ++i) p = s[p];
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = static_cast<unsigned>(p);
}

// The published pointer chases of a shared-memory load's own latency (Jia et al. 2019, Table 3.1,
// "no-conflict latency"): each load's result is the next load's address, with no arithmetic
// between, as hand-written SASS chains LDS on LDS. In CUDA: a u32 array of byte offsets,
// p = *(s + p) on bytes (PTX: add.s32 + ld.shared, the add folded into the address as the
// base's immediate), s[i] = the byte offset of s[(i + 1) % 4,096], 2,048 hops from 0.
extern "C" __global__ void rep_shared_chase_direct(unsigned* clk, unsigned* out) {
  __shared__ unsigned s[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = ((i + 1) % 4096) * 4;
  __syncthreads();
  unsigned p = 0;
  const char* base = reinterpret_cast<const char*>(s);
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 2048; ++i) p = *reinterpret_cast<const unsigned*>(base + p);
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = p;
}

// shd/shared_bw (line 449) and shared_bw_64 (line 453): 1,024 threads each chase t = s[t] from
// t = tid through s[i] = (i + 1,024) % N (a warp reads consecutive words: conflict-free), 4,096
// steps; the span over all threads.
template <typename T, unsigned N>
__device__ void shared_bw(unsigned* clk, unsigned* out) {
  __shared__ T s[N];
  for (unsigned i = threadIdx.x; i < N; i += blockDim.x) s[i] = (i + 1024) % N;
  __syncthreads();
  T t = threadIdx.x;
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 4096; ++i) t = s[t];
  __syncthreads();
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = static_cast<unsigned>(t);
}
extern "C" __global__ void rep_shared_bw32(unsigned* clk, unsigned* out) {
  shared_bw<unsigned, 8192>(clk, out);
}
extern "C" __global__ void rep_shared_bw64(unsigned* clk, unsigned* out) {
  shared_bw<unsigned long long, 4096>(clk, out);
}

// core/lat_half (line 367) with 1 thread and 4,096 steps, core/MaxFlops_half (line 16) with
// 1,024 threads and 1,024 steps: acc = acc * mult + acc on __half2 (PTX mul.f16x2, add.f16x2).
extern "C" __global__ void rep_hfma2(unsigned* clk, unsigned* out, int steps) {
  __half2 acc = __float2half2_rn(float(threadIdx.x)), mult = __float2half2_rn(0.999f);
  __syncthreads();
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < steps; ++i) acc = acc * mult + acc;
  __syncthreads();
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = __half_as_ushort(__low2half(acc));
}

// An inline-PTX block of 4 dependent OPs a step, as the sources write them (accumulator and
// operands all read-write, so that nothing is hoisted): acc = OP(s1, s2, acc) for the
// multiply-adds, acc = OP(acc) for the SFU. `steps` steps; one thread for a latency, 1,024 for a
// throughput.
#define STEP4(op, args) \
  "{\n\t" op " " args ";\n\t" op " " args ";\n\t" op " " args ";\n\t" op " " args ";\n}"
#define MAD_CHAIN(name, T, C, op, bits)                                                   \
  extern "C" __global__ void name(unsigned* clk, unsigned* out, int steps) {             \
    T acc = 0, s1 = T(threadIdx.x), s2 = T(threadIdx.x);                                  \
    __syncthreads();                                                                      \
    const unsigned t0 = clock32();                                                        \
    for (int i = 0; i < steps; ++i)                                                       \
      asm volatile(STEP4(op, "%0, %1, %2, %0") : "+" C(acc), "+" C(s1), "+" C(s2));       \
    __syncthreads();                                                                      \
    const unsigned t1 = clock32();                                                        \
    stamp(clk, t0, t1);                                                                   \
    out[threadIdx.x] = bits(acc);                                                         \
  }
#define SFU_CHAIN(name, start, op)                                   \
  extern "C" __global__ void name(unsigned* clk, unsigned* out, int steps) { \
    float acc = start + float(threadIdx.x);                          \
    __syncthreads();                                                 \
    const unsigned t0 = clock32();                                   \
    for (int i = 0; i < steps; ++i) asm volatile(STEP4(op, "%0, %0") : "+f"(acc)); \
    __syncthreads();                                                 \
    const unsigned t1 = clock32();                                   \
    stamp(clk, t0, t1);                                              \
    out[threadIdx.x] = __float_as_uint(acc);                         \
  }
#define AS_BITS(x) static_cast<unsigned>(x)

// core/lat_float (line 363) and MaxFlops_float (line 12); core/lat_double (359) and
// MaxFlops_double (8); core/lat_int32 (371) and MaxFlops_int32 (20).
MAD_CHAIN(rep_ffma, float, "f", "fma.rn.f32", __float_as_uint)
MAD_CHAIN(rep_dfma, double, "d", "fma.rn.f64", AS_BITS)
MAD_CHAIN(rep_imad, int, "r", "mad.lo.s32", AS_BITS)
// core/sfu_lat_fsqrt (line 445; it times sin.approx, whatever its label says) and sfu_bw_fsqrt
// (line 441: sqrt.approx).
SFU_CHAIN(rep_sin, 10.124234521f, "sin.approx.ftz.f32")
SFU_CHAIN(rep_sqrt, 987654321.789456f, "sqrt.approx.ftz.f32")

// atomics/Atomic_add_lat (line 32): 1 thread, p = atomicAdd(&g[p], 10) through u32 g[1024],
// g[i] = (i + 1) % 1,024, 1,024 steps from 0 (each entry hit once).
extern "C" __global__ void rep_atomic_chase(unsigned* clk, unsigned* out, unsigned* g) {
  for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) g[i] = (i + 1) % 1024;
  __syncthreads();
  unsigned p = 0;
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) p = atomicAdd(&g[p], 10u);
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = p;
}

// core/tensor_lat_half (log lines 499-507) and tensor_bw_half (486-497): c = a b + c with wmma
// m16n16k16, f16 operands, an f32 or f16 accumulator, `steps` times in a loop. The latency: one
// warp, 4,096 steps, thread 0's clocks (the source launches one thread, which a .sync.aligned op
// does not allow; the tensor unit takes a warp's mma whole either way); the bandwidth: 1,024 threads
// (32 warps), 2,048 steps, the span over all threads. The source loads a and b from global
// memory before the clock; their values do not change the timing, so they are filled here.
template <typename Acc>
__device__ void wmma_loop(unsigned* clk, unsigned* out, int steps) {
  using namespace nvcuda;
  __shared__ Acc res[32][16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> c;
  wmma::fill_fragment(a, __float2half(0.5f));
  wmma::fill_fragment(b, __float2half(0.25f));
  wmma::fill_fragment(c, static_cast<Acc>(0.0f));
  __syncthreads();
  const unsigned t0 = clock32();
  for (int j = 0; j < steps; ++j) wmma::mma_sync(c, a, b, c);
  __syncthreads();
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  wmma::store_matrix_sync(res[threadIdx.x / 32], c, 16, wmma::mem_row_major);
  out[threadIdx.x] = static_cast<unsigned>(static_cast<float>(res[threadIdx.x / 32][0]));
}
extern "C" __global__ void rep_wmma_f32acc(unsigned* clk, unsigned* out, int steps) {
  wmma_loop<float>(clk, out, steps);
}
extern "C" __global__ void rep_wmma_f16acc(unsigned* clk, unsigned* out, int steps) {
  wmma_loop<__half>(clk, out, steps);
}

// l1_cache/l1_bw_64v (log line 255): 1,024 threads warm the L1 with ld.global.ca.v2.f32 over the
// array, then each reads 2 floats at (2 t + 64 j) % N, 256 steps (a warp: 256 contiguous bytes, 8
// sectors a load), adding them up; the span over all threads, 256 x 1,024 x 8 bytes over it. The
// array is the ring the runner passes, 32 KiB (N = 8,192 floats; the source's is 64 KiB, half the
// TITAN V's L1: both stay in it).
extern "C" __global__ void rep_l1_bw_64v(unsigned* clk, unsigned* out, unsigned long long* ring,
                                         int) {
  const float* a = reinterpret_cast<const float*>(ring);
  const unsigned n = 8192, t = threadIdx.x;
  float s0 = 0, s1 = 0;
  for (unsigned i = 2 * t; i < n; i += 2 * blockDim.x)
    asm volatile("{ .reg .f32 d<2>;\n ld.global.ca.v2.f32 {d0, d1}, [%2];\n add.f32 %0, d0, %0;\n"
                 " add.f32 %1, d1, %1; }"
                 : "+f"(s0), "+f"(s1)
                 : "l"(a + i)
                 : "memory");
  __syncthreads();
  const unsigned t0 = clock32();
  for (unsigned j = 0; j < 256; ++j)
    asm volatile("{ .reg .f32 d<2>;\n ld.global.ca.v2.f32 {d0, d1}, [%2];\n add.f32 %0, d0, %0;\n"
                 " add.f32 %1, d1, %1; }"
                 : "+f"(s0), "+f"(s1)
                 : "l"(a + (2 * t + 64 * j) % n)
                 : "memory");
  __syncthreads();
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[t] = __float_as_uint(s0 + s1);
}

// Jia et al. 2018 (Volta) and 2019 (Turing), Table 4.2, shared memory: the latency of an atomic
// under contention, measured as the time of the atomic followed by a load of the same location
// (which waits for it), less the load's own. Here the block's N threads (one warp, N of its lanes
// active: "N threads" of contention, none = 1) chase p = s[p] on a word that points to itself,
// 1,024 steps, first alone, then with atomicAdd(&s[p], 0) before each load; thread 0's figure is
// the difference a step. clk[0] = 0 and clk[1] = that difference in cycles, so that the runner's
// clk[1] - clk[0] is it.
extern "C" __global__ void rep_shared_atomic_contention(unsigned* clk, unsigned* out) {
  __shared__ unsigned s[32];
  if (threadIdx.x == 0) s[0] = 0;
  __syncthreads();
  volatile unsigned* v = s;
  unsigned p = 0;
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) p = v[p];
  const unsigned t1 = clock32();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) {
    atomicAdd(&s[p], 0u);
    p = v[p];
  }
  const unsigned t2 = clock32();
  stamp(clk, 0, (t2 - t1) - (t1 - t0));
  out[threadIdx.x] = p;
}

// l1_cache/l1_lat (line 267) and l2_cache/l2_lat (line 341): 1 thread builds a ring of 4,096
// u64 pointers 8 bytes apart in global memory and chases it 32,768 times with ld.global.ca (L1)
// or ld.global.cg (L2 only).
extern "C" __global__ void rep_global_chase(unsigned* clk, unsigned* out,
                                            unsigned long long* ring, int l2_only) {
  for (unsigned i = 0; i < 4096; ++i)
    ring[i] = reinterpret_cast<unsigned long long>(&ring[(i + 1) % 4096]);
  unsigned long long p;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(p) : "l"(ring));
  __syncthreads();
  const unsigned t0 = clock32();
  if (l2_only) {
    for (int i = 0; i < 32768; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  } else {
    for (int i = 0; i < 32768; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
  }
  const unsigned t1 = clock32();
  stamp(clk, t0, t1);
  out[threadIdx.x] = static_cast<unsigned>(p);
}

// Shared-atomic contention with the result used (issue 42, measured on an H200): N lanes of one
// warp chase p = atomicAdd(&s[p], inc) on one word that stays 0 (inc is a zero each lane loads
// from its own word, so the compiler can prove neither that the operand is uniform nor that the
// atomic adds nothing), first p = s[p] alone, then the atomics; thread 0's figure is the
// difference a step, as rep_shared_atomic_contention. That replica's atomicAdd(&s[p], 0) with the
// result unused is aggregated by ptxas for sm_90 (one lane's ATOMS after VOTEU.ANY/UFLO, in the
// SASS of CUDA 13.0), so on such a GPU it times no contention at all; this one cannot be.
extern "C" __global__ void rep_shared_atomic_ret(unsigned* clk, unsigned* out) {
  __shared__ unsigned s[64];
  if (threadIdx.x == 0)
    for (int i = 0; i < 64; ++i) s[i] = 0;
  __syncthreads();
  volatile unsigned* v = s;
  const unsigned inc = v[32 + threadIdx.x % 32];
  unsigned p = 0;
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) p = v[p];
  const unsigned t1 = clock32();
#pragma unroll 4
  for (int i = 0; i < 1024; ++i) p = atomicAdd(&s[p], inc);
  const unsigned t2 = clock32();
  stamp(clk, 0, (t2 - t1) - (t1 - t0));
  out[threadIdx.x] = p;
}

// The operand delay (issue 42, docs/timing.md "Operand delay"): one warp chains a shared load or
// a MUFU through a fixed-latency op. Each is scripts/operand_delay.cu's chain of the same name,
// written the same way: inline PTX that ptxas keeps as written, every lane on s[0], a word that
// holds its own shared address, 1,024 timed steps after 16 untimed, %clock read inside the loop
// at step 0 and after it. `zero` and `one` come from the launch's `steps` (1,024 >> 16 is 0), so
// that ptxas cannot fold the IMAD or the FFMA away.
#define SMEMSIM_OPERAND_CHAIN(name, body)                                     \
  extern "C" __global__ void name(unsigned* clk, unsigned* out, int steps) {  \
    __shared__ unsigned s[64];                                                \
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s)); \
    if (threadIdx.x == 0)                                                     \
      for (int i = 0; i < 64; ++i) s[i] = base + 4u * i;                      \
    __syncthreads();                                                          \
    const unsigned zero = static_cast<unsigned>(steps) >> 16;                 \
    const float one = static_cast<float>(zero + 1u);                          \
    unsigned p = base;                                                        \
    float f = one;                                                            \
    unsigned t0 = 0, t1 = 0;                                                  \
    for (int i = -16; i < 1024; ++i) {                                        \
      if (i == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(t0)::"memory");  \
      body                                                                    \
    }                                                                         \
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t1)::"memory");                \
    stamp(clk, t0, t1);                                                       \
    out[threadIdx.x] = p + __float_as_uint(f);                                \
  }

// A shared load, then an integer multiply-add of its result (p * 1 + 0: IMAD), which the next
// load takes as its address.
SMEMSIM_OPERAND_CHAIN(rep_lds_imad,
                      asm volatile("ld.shared.u32 %0, [%0];\n\tmad.lo.u32 %0, %0, %1, %2;"
                                   : "+r"(p)
                                   : "r"(zero + 1), "r"(zero)
                                   : "memory");)
// MUFU.SQRT, then an FFMA of its result (x * 1 + 0), which the next MUFU.SQRT takes.
SMEMSIM_OPERAND_CHAIN(rep_mufu_ffma,
                      asm volatile("sqrt.approx.ftz.f32 %0, %0;\n\tfma.rn.f32 %0, %0, %1, "
                                   "0f00000000;"
                                   : "+f"(f)
                                   : "f"(one)
                                   : "memory");)

// The conversions between f32 and f64 on their own results (lavamd's exponent, issue 42):
// F2F.F64.F32 then F2F.F32.F64, and the same with a DADD of a zero between them
// (scripts/operand_delay.cu's f2f_pair and f2f_pair_dadd, the same cycle of instructions entered at
// another point).
SMEMSIM_OPERAND_CHAIN(rep_f2f_pair, asm volatile("{\n\t.reg .f64 d;\n\tcvt.f64.f32 d, %0;\n\t"
                                                 "cvt.rn.f32.f64 %0, d;\n\t}"
                                                 : "+f"(f)::"memory");)
SMEMSIM_OPERAND_CHAIN(rep_f2f_dadd,
                      asm volatile("{\n\t.reg .f64 d;\n\tcvt.f64.f32 d, %0;\n\t"
                                   "add.rn.f64 d, d, %1;\n\tcvt.rn.f32.f64 %0, d;\n\t}"
                                   : "+f"(f)
                                   : "d"(static_cast<double>(zero))
                                   : "memory");)

// DRAM latency (issue 44; scripts/memory_measure.cu measured 680 cycles a link on an H100 with the
// L2 flushed from the host): thread 0 writes a ring of 4,096 u64 links 8 KiB apart through the
// first 32 MiB of `ring`, then the 1,024 threads read the 96 MiB after it once (ld.global.cg.v4),
// which leaves none of the ring in an L2 of 50 MB or less (the model's, on one SM, is the whole
// sm.l2_bytes); then thread 0 follows 2,048 links with ld.global.cg: each a line no cache holds.
// `ring` is 128 MiB (the runner's FlushRing).
extern "C" __global__ void rep_dram_chase(unsigned* clk, unsigned* out, unsigned long long* ring,
                                          int) {
  const unsigned links = 4096, stride = 1024;  // u64 words: 8 KiB
  if (threadIdx.x == 0)
    for (unsigned i = 0; i < links; ++i)
      ring[i * stride] = reinterpret_cast<unsigned long long>(ring + ((i + 1) % links) * stride);
  __syncthreads();
  const uint4* flush = reinterpret_cast<const uint4*>(ring + links * stride);
  const unsigned n16 = (96u << 20) / 16;
  unsigned acc = 0;
  for (unsigned i = threadIdx.x; i < n16; i += blockDim.x) {
    const uint4 v = __ldcg(flush + i);
    acc ^= v.x ^ v.w;
  }
  __syncthreads();
  unsigned long long p = reinterpret_cast<unsigned long long>(ring);
  unsigned t0 = 0, t1 = 0;
  if (threadIdx.x == 0) {
    t0 = clock32();
    for (int i = 0; i < 2048; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    t1 = clock32();
  }
  stamp(clk, t0, t1);
  out[threadIdx.x] = acc ^ static_cast<unsigned>(p);
}

// Whole-GPU figures (issue 44): launched as the source launched them, BLOCKS_NUM =
// (max threads an SM / 1,024) x the SM count CTAs of 1,024 threads (every thread slot of the GPU),
// each thread's clocks at clk[2 uid], clk[2 uid + 1] with uid its index in the grid.
__device__ __forceinline__ void stamp_grid(unsigned* clk, unsigned t0, unsigned t1) {
  const unsigned uid = blockIdx.x * blockDim.x + threadIdx.x;
  clk[2 * uid] = t0;
  clk[2 * uid + 1] = t1;
}

// l2_cache/l2_bw_64f (log line 315): every thread reads the array once with ld.global.cg.f64 (a
// grid-stride pass that leaves it in the L2; n = the threads + 32 x steps doubles), then `steps`
// times reads a[32 i + uid] with ld.global.cg.f64 and adds it up (the window a step moves on by
// one warp's 32 doubles); a barrier before and after the timed loop. The figure: threads x steps
// x 8 bytes over thread 0's cycles (of CTA 0). The source's steps are 2,048.
extern "C" __global__ void rep_l2_bw_64f(unsigned* clk, double* out, const double* a, unsigned n,
                                         int steps) {
  const unsigned uid = blockIdx.x * blockDim.x + threadIdx.x;
  double sink = 0;
  for (unsigned i = uid; i < n; i += blockDim.x * gridDim.x)
    asm volatile("{\n\t.reg .f64 v;\n\tld.global.cg.f64 v, [%1];\n\tadd.f64 %0, v, %0;\n\t}"
                 : "+d"(sink)
                 : "l"(a + i)
                 : "memory");
  __syncthreads();
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int i = 0; i < steps; ++i)
    asm volatile("{\n\t.reg .f64 v;\n\tld.global.cg.f64 v, [%1];\n\tadd.f64 %0, v, %0;\n\t}"
                 : "+d"(sink)
                 : "l"(a + unsigned(i) * 32u + uid)
                 : "memory");
  __syncthreads();
  const unsigned t1 = clock32();
  stamp_grid(clk, t0, t1);
  out[uid] = sink;
}

// mem/mem_bw (log line 397): a grid-stride loop over n4 float4s of five arrays of twice the L2
// (n4 = L2 bytes / 8), reading a, b, d, e, f and writing their sum to c, between two barriers.
// The figure: the six arrays' bytes (24 x n4 x 4) over thread 0's cycles (of CTA 0).
extern "C" __global__ void rep_mem_bw(unsigned* clk, const float4* a, const float4* b, float4* c,
                                      const float4* d, const float4* e, const float4* f,
                                      unsigned n4) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  const unsigned t0 = clock32();
  for (int i = idx; i < int(n4); i += blockDim.x * gridDim.x) {
    const float4 a1 = a[i], b1 = b[i], d1 = d[i], e1 = e[i], f1 = f[i];
    c[i] = make_float4(a1.x + b1.x + d1.x + e1.x + f1.x, a1.y + b1.y + d1.y + e1.y + f1.y,
                       a1.z + b1.z + d1.z + e1.z + f1.z, a1.w + b1.w + d1.w + e1.w + f1.w);
  }
  __syncthreads();
  const unsigned t1 = clock32();
  stamp_grid(clk, t0, t1);
}

// atomics/Atomic_add_bw_conflict (log line 28): every thread adds 10 to word[0] `steps` times
// with atomicAdd, summing the results; a barrier before and after. The figure: threads x steps x
// 4 bytes over the span (the last stop less the first start, over all threads). The source's
// steps are 1,024.
extern "C" __global__ void rep_atomic_conflict(unsigned* clk, unsigned* out, unsigned* word,
                                               int steps) {
  unsigned sum = 0;
  __syncthreads();
  const unsigned t0 = clock32();
#pragma unroll 4
  for (int j = 0; j < steps; ++j) sum += atomicAdd(&word[0], 10u);
  __syncthreads();
  const unsigned t1 = clock32();
  stamp_grid(clk, t0, t1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

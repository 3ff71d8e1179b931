// smemsim-arch: sm_80
// Microbenchmarks that close the loop between the presets and the hardware (issue 25, item 4),
// written for smemsim. Each kernel times a chain of STEPS dependent operations with clock() in the
// kernel, so the same source runs two ways: on a GPU (scripts/calibrate runs them and writes the
// measured keys as an arch TOML) and in `smemsim sim`, where a preset must reproduce its own
// values (tests/ubench_test.cpp). One warp runs each; thread 0 writes out[0] = the cycles of the
// chain and out[1] = its last value (so the chain is not optimized away).
//
// The chains are written in inline PTX so that nothing but the measured operation sits between
// two links: the time per link is the issue-to-dependent-issue latency (the arch keys' meaning).
// The clock read after the chain issues right after its last link, so cycles / STEPS is the
// latency to within latency / STEPS.

#define STEPS 64

// Shared-memory load latency: a pointer chase (each load's address is the value the previous one
// read). `ways` = 1..32: lane l starts in bank l % (32 / ways) and row l / (32 / ways), so `ways`
// lanes share each bank at different addresses: a ways-way bank conflict on every link. Every
// link moves 32 * ways words on, so the banks stay as they were.
extern "C" __global__ void ubench_lds(unsigned* out, unsigned ways) {
  __shared__ unsigned ring[8 * 32 * 32];
  const unsigned block = 32 * ways, words = 8 * block;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    ring[i] = base + 4 * ((i + block) % words);
  __syncthreads();
  const unsigned group = 32 / ways, lane = threadIdx.x % 32;
  unsigned p = base + 4 * (lane % group + lane / group * 32);
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = p;
  }
}

// Shared atomics: the same chase with atom.shared.add of 0 (it returns the next address). mode 0:
// every lane its own bank; 1: all 32 lanes in one bank at different words; 2: all 32 on one word.
extern "C" __global__ void ubench_atom(unsigned* out, unsigned mode) {
  __shared__ unsigned ring[8 * 32 * 32];
  const unsigned ways = mode == 0 ? 1 : 32, block = 32 * ways, words = 8 * block;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    ring[i] = base + 4 * ((i + block) % words);
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  unsigned p = base + 4 * (mode == 0 ? lane : mode == 1 ? lane * 32 : 0);
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i) asm volatile("atom.shared.add.u32 %0, [%0], 0;" : "+r"(p));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = p;
  }
}

// Global-memory load latency: a pointer chase through `ring` (4096 words; 64-bit addresses 4 KiB
// apart so that every load is a new line), one lane. ld.global.cv reads memory again past the L1
// and L2 (as Accel-Sim's mem_lat does): the DRAM's latency, where the stores left the data in L2.
extern "C" __global__ void ubench_ldg(unsigned* out, unsigned long long* ring) {
  // The chase visits 8 words 4 KiB apart (512 x 8 bytes): only they are written, so that no store
  // is still in flight when the clock starts.
  const unsigned n = 4096, stride = 512;
  if (threadIdx.x < n / stride)
    ring[stride * threadIdx.x] =
        reinterpret_cast<unsigned long long>(ring + stride * ((threadIdx.x + 1) % (n / stride)));
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long p = reinterpret_cast<unsigned long long>(ring);
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i) asm volatile("ld.global.cv.u64 %0, [%0];" : "+l"(p));
  const unsigned t1 = clock();
  out[0] = t1 - t0;
  out[1] = static_cast<unsigned>(p);
}

// Integer add (the ALU pipe).
extern "C" __global__ void ubench_alu(unsigned* out, unsigned seed) {
  unsigned x = seed + threadIdx.x;
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i) asm volatile("add.u32 %0, %0, 3;" : "+r"(x));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = x;
  }
}

// FP32 fused multiply-add (the FMA pipe).
extern "C" __global__ void ubench_fma(unsigned* out, float seed) {
  float x = seed + threadIdx.x;
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i)
    asm volatile("fma.rn.f32 %0, %0, 0f3F7FFFFF, 0f3F800000;" : "+f"(x));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = __float_as_uint(x);
  }
}

// FP64 fused multiply-add (the FP64 pipe).
extern "C" __global__ void ubench_dfma(unsigned* out, double seed) {
  double x = seed + threadIdx.x;
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i)
    asm volatile("fma.rn.f64 %0, %0, 0d3FEFFFFFFFFFFFFF, 0d3FF0000000000000;" : "+d"(x));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = static_cast<unsigned>(__double_as_longlong(x));
  }
}

// The special-function unit: 2^x.
extern "C" __global__ void ubench_sfu(unsigned* out, float seed) {
  float x = seed + threadIdx.x * 1e-3f;
  const unsigned t0 = clock();
#pragma unroll
  for (int i = 0; i < STEPS; ++i) asm volatile("ex2.approx.f32 %0, %0;" : "+f"(x));
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = __float_as_uint(x);
  }
}

// The tensor core: mma.sync m16n8k16 (f16 inputs, f32 accumulators), each mma's D the next one's
// C. (m16n8k8 in ubench_mma8.) A GPU without the shape times an empty chain (scripts/calibrate
// runs these only from sm_75 / sm_80 on).
extern "C" __global__ void ubench_mma(unsigned* out, unsigned seed) {
  const unsigned a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3, b0 = seed + 4,
                 b1 = seed + 5;
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  const unsigned t0 = clock();
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // m16n8k16 with f16 needs sm_80
#pragma unroll
  for (int i = 0; i < STEPS; ++i)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
  c0 = static_cast<float>(a0 ^ a1 ^ a2 ^ a3 ^ b0 ^ b1);  // no such shape: an empty chain
#endif
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = __float_as_uint(c0 + c1 + c2 + c3);
  }
}

extern "C" __global__ void ubench_mma8(unsigned* out, unsigned seed) {
  const unsigned a0 = seed, a1 = seed + 1, b0 = seed + 4;
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  const unsigned t0 = clock();
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750  // m16n8k8 with f16 needs sm_75
#pragma unroll
  for (int i = 0; i < STEPS; ++i)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(b0));
#else
  c0 = static_cast<float>(a0 ^ a1 ^ b0);                 // no such shape: an empty chain
#endif
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = __float_as_uint(c0 + c1 + c2 + c3);
  }
}

// ldmatrix.x4 (the four 8x8 b16 tiles of an mma fragment, issue 25 item 4): lane l gives row l
// (16 bytes; the 32 rows are one 512-byte block, so each of the four phases reads 128 bytes from
// 32 distinct banks: no conflict). Every word holds 0xffffffff, so `min` of the address and the
// first register is the address: the chain is ldmatrix + one integer min per link.
extern "C" __global__ void ubench_ldsm(unsigned* out, unsigned seed) {
  __shared__ unsigned tile[32 * 4];
  for (unsigned i = threadIdx.x; i < 32 * 4; i += blockDim.x) tile[i] = 0xffffffffu;
  __syncthreads();
  unsigned p = static_cast<unsigned>(__cvta_generic_to_shared(tile)) + 16 * (threadIdx.x % 32);
  const unsigned t0 = clock();
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750  // ldmatrix needs sm_75
#pragma unroll
  for (int i = 0; i < STEPS; ++i)
    asm volatile(
        "{ .reg .b32 a, b, c, d;\n"
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {a, b, c, d}, [%0];\n"
        "min.u32 %0, %0, a; }"
        : "+r"(p));
#endif
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = p + seed;
  }
}

// cp.async (sm_80): a chase through global memory by way of shared memory. Each link copies the
// 16-byte entry of the current index from `ring` into a shared slot, waits for it (wait_all) and
// reads the next index from the slot; mad.wide makes the entry's address. The chain visits four
// entries 4 KiB apart (of 1,024 entries of 16 bytes), so every copy reads another line; only those
// four are written first, so that no store is still in flight when the clock starts. One lane.
extern "C" __global__ void ubench_cpasync(unsigned* out, unsigned* ring) {
  __shared__ __align__(16) unsigned slot[4];
  const unsigned stride = 256;  // entries: 256 x 16 bytes = 4 KiB
  if (threadIdx.x < 4) ring[4 * stride * threadIdx.x] = stride * ((threadIdx.x + 1) % 4);
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(slot));
  unsigned i = 0;
  const unsigned t0 = clock();
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // cp.async needs sm_80
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    asm volatile(
        "{ .reg .u64 a;\n"
        "mad.wide.u32 a, %0, 16, %2;\n"
        "cp.async.cg.shared.global [%1], [a], 16;\n"
        "cp.async.wait_all;\n"
        "ld.shared.u32 %0, [%1]; }"
        : "+r"(i)
        : "r"(s), "l"(ring)
        : "memory");
#endif
  const unsigned t1 = clock();
  out[0] = t1 - t0;
  out[1] = i;
}

// Shared-load throughput (issue 25 item 4): 8 warps (launch 256 threads) each issue 4 x STEPS
// independent loads with the bank pattern of ubench_lds (`ways` lanes per bank). The clock is read
// between two barriers, so out[0] / (8 x 4 x STEPS) is the SM's cycles per warp access: its
// shared-memory bandwidth, in bank passes per cycle, when the loads keep it busy.
extern "C" __global__ void ubench_lds_tput(unsigned* out, unsigned ways) {
  __shared__ unsigned words[32 * 32];
  for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x) words[i] = i;
  const unsigned group = 32 / ways, lane = threadIdx.x % 32;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(words)) +
                     4 * (lane % group + lane / group * 32);
  unsigned v0 = 0, v1 = 0, v2 = 0, v3 = 0;
  __syncthreads();
  const unsigned t0 = clock();
#pragma unroll 1
  for (int i = 0; i < STEPS; ++i)
    asm volatile(
        "ld.shared.u32 %0, [%4];\n"
        "ld.shared.u32 %1, [%4];\n"
        "ld.shared.u32 %2, [%4];\n"
        "ld.shared.u32 %3, [%4];"
        : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
        : "r"(a));
  __syncthreads();
  const unsigned t1 = clock();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = v0 ^ v1 ^ v2 ^ v3;
  }
}

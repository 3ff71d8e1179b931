// smemsim-arch: sm_90
// Hopper's microbenchmarks that the cycle model runs as replicas (issue 46) and
// scripts/hopper_measure.cu runs on an sm_90 GPU: each times itself with thread 0's 32-bit %clock
// around its loop and writes clk[0] = start, clk[1] = stop, clk[2] = a value that keeps the work.
#include <cooperative_groups.h>
#include <cstdint>

__device__ __forceinline__ unsigned hopper_smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread: `steps` bulk copies of `bytes` from src to shared memory, each waited for before
// the next is issued (its mbarrier's phase flips when the bytes have landed).
extern "C" __global__ void bulk_latency(unsigned* clk, const char* src, unsigned bytes, int steps) {
  __shared__ alignas(128) char buf[32768];
  __shared__ alignas(8) unsigned long long bar;
  if (threadIdx.x != 0) return;
  const unsigned b = hopper_smem(&bar), d = hopper_smem(buf);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.proxy.async.shared::cta;");
  unsigned phase = 0;
  unsigned start = 0, stop = 0;
  for (int i = -1; i < steps; ++i) {
    if (i == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
    asm volatile(
        "{ .reg .b64 st;\n"
        "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(b),
        "r"(bytes)
        : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(d),
        "l"(src), "r"(bytes), "r"(b)
        : "memory");
    asm volatile(
        "{ .reg .pred p;\n"
        "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W; }" ::"r"(b),
        "r"(phase)
        : "memory");
    phase ^= 1;
  }
  asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
  clk[0] = start;
  clk[1] = stop;
  clk[2] = buf[bytes - 1];  // keep the copies
}

// Distributed shared memory (issue 46): Luo et al. 2024's two SM-to-SM measurements (arXiv
// 2402.13499 §III.D.3) as we read their description, in clusters of 2 CTAs on two SMs. Both
// zero the words they hold, meet at the cluster barrier, work, and meet again before leaving (a
// CTA's shared memory must outlive its partner's accesses to it).

// Our H100 measurement (scripts/hopper_measure.cu's dsm_chase, calibration/h100-measured.toml):
// thread 0 of rank 0 chases a ring of byte offsets (each word the next one's offset, 33 words
// on) in the shared memory of rank `target` (1: the partner's; 0: its own through the cluster
// window), `mapa` once before the loop; 64 steps unclocked, then `steps` clocked: cycles a hop.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsm_chase(unsigned* clk, int target, int steps) {
  __shared__ unsigned s[4096];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = ((i + 33) % 4096) * 4;
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    unsigned base = hopper_smem(s);
    asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(base) : "r"(target));
    unsigned p = 0, start = 0, stop = 0;
    for (int i = -64; i < steps; ++i) {
      if (i == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(p) : "r"(base + p) : "memory");
    }
    asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
    clk[0] = start;
    clk[1] = stop;
    clk[2] = p;
  }
  cluster.sync();
}

// Latency: "two blocks, each with one thread ... the latency of adding register values of the
// first block to the second one". Rank 0's thread adds to a word of rank 1's shared memory
// `steps` times, each add's old value the next one's operand (so each add waits for the one
// before it): cycles per add.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_latency(unsigned* clk, int steps) {
  __shared__ unsigned word;
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  word = 0;
  cluster.sync();
  if (cluster.block_rank() == 0) {
    unsigned* peer = cluster.map_shared_rank(&word, 1);
    unsigned v = 1, start = 0, stop = 0;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
    for (int i = 0; i < steps; ++i) v = atomicAdd(peer, v);
    asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
    clk[0] = start;
    clk[1] = stop;
    clk[2] = v;
  }
  cluster.sync();
}

// Throughput, the "ring-based copy": each CTA's threads add 8 independent registers (ILP 8) to
// 8 words each of the next CTA's shared memory (rank (r + 1) % 2), `steps` times; rank 0's
// thread 0 reads %clock before the loop and after a barrier behind it: bytes per cycle of one SM.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_throughput(unsigned* clk, int steps) {
  __shared__ unsigned words[8 * 1024];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned t = threadIdx.x, n = blockDim.x;
  for (unsigned i = t; i < 8 * n; i += n) words[i] = 0;
  cluster.sync();
  const unsigned rank = cluster.block_rank();
  unsigned* peer = cluster.map_shared_rank(words, (rank + 1) % 2);
  unsigned start = 0, stop = 0;
  if (t == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
  for (int i = 0; i < steps; ++i) {
#pragma unroll
    for (unsigned k = 0; k < 8; ++k) atomicAdd(&peer[k * n + t], t + k);
  }
  __syncthreads();
  if (t == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
  if (t == 0 && rank == 0) {
    clk[0] = start;
    clk[1] = stop;
    clk[2] = words[0];
  }
  cluster.sync();
}

// smemsim-arch: sm_90
// Hopper's microbenchmarks that the cycle model runs as replicas (issue 46) and
// scripts/hopper_measure.cu runs on an sm_90 GPU: each times itself with thread 0's 32-bit %clock
// around its loop and writes clk[0] = start, clk[1] = stop, clk[2] = a value that keeps the work.
#include <cstdint>

__device__ __forceinline__ unsigned hopper_smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread: `steps` bulk copies of `bytes` from src to shared memory, each waited for before
// the next is issued (its mbarrier's phase flips when the bytes have landed).
extern "C" __global__ void bulk_latency(unsigned* clk, const char* src, unsigned bytes,
                                        int steps) {
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

// smemsim-arch: sm_80
// Special registers of the PTX ISA that cooperative groups and libcu++ read (issue 27), in kernels
// written for smemsim's tests. Each kernel writes what it read; tests/special_registers_test.cpp
// checks it against the PTX ISA's definitions.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// out[t]: the lane masks and their popcounts as the ISA defines them for lane l:
// eq = 1 << l, lt = (1 << l) - 1, le = lt | eq, gt = ~le, ge = ~lt (32-bit).
__global__ void lanemasks(unsigned* out) {
  unsigned eq, lt, le, gt, ge;
  asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  const unsigned t = threadIdx.x;
  out[5 * t + 0] = eq;
  out[5 * t + 1] = lt;
  out[5 * t + 2] = le;
  out[5 * t + 3] = gt;
  out[5 * t + 4] = ge;
}

// Warp-aggregated atomic increment (the classic use of %lanemask_lt through coalesced_threads):
// the odd threads each take a distinct slot of *counter; slot[t] is thread t's.
__global__ void aggregated_increment(unsigned* counter, unsigned* slot) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 2 == 0) return;
  cg::coalesced_group active = cg::coalesced_threads();
  unsigned base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, active.size());
  base = active.shfl(base, 0);
  slot[t] = base + active.thread_rank();
}

// tiled_partition<16>: each tile of 16 sums its threads' values with shfl_down; out[t / 16] the
// tile's sum, out[64 + t] each thread's rank in its tile.
__global__ void tile16_sum(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const unsigned t = threadIdx.x;
  int v = in[t];
  for (int d = 8; d > 0; d /= 2) v += tile.shfl_down(v, d);
  if (tile.thread_rank() == 0) out[t / 16] = v;
  out[64 + t] = static_cast<int>(tile.thread_rank());
}

// The launch's constants: out[0] %dynamic_smem_size, [1] %total_smem_size, [2] %nsmid, [3]
// %is_explicit_cluster, [4] %cluster_nctarank, [5] %cluster_ctarank, [6] %clusterid.x (= %ctaid.x
// without clusters), [7] %nclusterid.x (= %nctaid.x), [8] %gridid != 0, [9] %globaltimer moved
// forward over a loop (globaltimer_lo/hi agree with it).
__global__ void launch_constants(unsigned* out) {
  extern __shared__ unsigned dyn[];
  __shared__ unsigned fixed[8];
  unsigned v[8];
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%is_explicit_cluster;" : "=r"(v[3]));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[4]));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[5]));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v[6]));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v[7]));
  unsigned long long grid, t0, t1;
  unsigned lo, hi;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  fixed[threadIdx.x % 8] = threadIdx.x % 8;
  dyn[threadIdx.x] = fixed[(threadIdx.x + 1) % 8];
  __syncthreads();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(lo));
  asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(hi));
  if (threadIdx.x == 0) {
    for (int k = 0; k < 8; ++k) out[blockIdx.x * 16 + k] = v[k];
    out[blockIdx.x * 16 + 8] = grid != 0;
    out[blockIdx.x * 16 + 9] = t1 > t0 && ((unsigned long long)hi << 32 | lo) >= t1;
    out[blockIdx.x * 16 + 10] = dyn[0];
  }
}

// The issue's repro: a plain kernel beside one that reads a register smemsim refuses; launching
// the plain one works, launching the other is one error naming the register and its line.
__global__ void plain(int* p) { p[threadIdx.x] = threadIdx.x; }

__global__ void perf_counter(unsigned* out) {
  unsigned c;
  asm volatile("mov.u32 %0, %%pm0;" : "=r"(c));
  out[threadIdx.x] = c;
}

// smemsim-arch: sm_90
// Thread-block clusters and distributed shared memory (issue 46), written by us from the CUDA C++
// Programming Guide's "Thread Block Clusters" and "Distributed Shared Memory":
//   cluster_exchange   clusters of 2 CTAs: each fills its tile, syncs the cluster, and reads its
//                      partner's tile (reversed) through distributed shared memory;
//   cluster_ids        clusters of 2 x 2 CTAs: each CTA writes its rank, its place in its
//                      cluster, its cluster's index and the cluster's size;
//   cluster_histogram  clusters of 2 CTAs share one histogram of 2 x 64 bins: bin b lives in the
//                      shared memory of CTA b / 64, and every thread adds to it with an atomic
//                      through distributed shared memory (the Guide's example, our own code);
//   cluster_multicast, cluster_handoff, cluster_push, cluster_reduce, cluster_st_async: the TMA
//                      and the asynchronous stores within a cluster (below, each with its own
//                      comment).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Waits until the mbarrier at shared address `bar` has completed the phase of parity `parity`;
// with `cluster`, the wait acquires at the cluster's scope (a partner CTA arrived at it).
template <bool cluster = false>
__device__ void wait_parity(unsigned bar, unsigned parity) {
  if (cluster)
    asm volatile(
        "{ .reg .pred p;\n"
        "W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W; }" ::"r"(bar),
        "r"(parity)
        : "memory");
  else
    asm volatile(
        "{ .reg .pred p;\n"
        "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W; }" ::"r"(bar),
        "r"(parity)
        : "memory");
}

__global__ void __cluster_dims__(2, 1, 1) cluster_exchange(const int* in, int* out) {
  __shared__ int tile[256];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  cluster.sync();  // every tile written before a partner reads it
  const int* peer = cluster.map_shared_rank(tile, rank ^ 1);
  out[blockIdx.x * 256 + threadIdx.x] = peer[255 - threadIdx.x] + int(rank) * 1000;
  cluster.sync();  // no CTA leaves while its partner may still read its tile
}

__global__ void __cluster_dims__(2, 2, 1) cluster_ids(unsigned* out) {
  if (threadIdx.x != 0) return;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned cta = blockIdx.x + gridDim.x * blockIdx.y;
  const dim3 in = cluster.block_index();
  const dim3 id = __clusterIdx();
  unsigned* o = out + 6 * cta;
  o[0] = cluster.block_rank();
  o[1] = in.x;
  o[2] = in.y;
  o[3] = id.x;
  o[4] = id.y;
  o[5] = cluster.num_blocks();
}

__global__ void __cluster_dims__(2, 1, 1) cluster_histogram(const int* values, int n, int* bins) {
  __shared__ int part[64];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) part[i] = 0;
  cluster.sync();  // every part zeroed before any thread adds to it
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int b = values[i] & 127;  // 128 bins over the cluster's 2 CTAs
    int* owner = cluster.map_shared_rank(part, b / 64);
    atomicAdd(owner + b % 64, 1);
  }
  cluster.sync();  // every addition made before the parts are read out
  const int cluster_id = blockIdx.x / 2;
  for (int i = threadIdx.x; i < 64; i += blockDim.x)
    bins[cluster_id * 128 + int(cluster.block_rank()) * 64 + i] = part[i];
}

// cluster_multicast: clusters of 2 CTAs of 32 threads share one tile of 2 x `half` words of
// `src` (the cluster's own: src + 2 half x cluster): rank r copies half r of it with one
// cp.async.bulk multicast to both CTAs (ctaMask 0b11), so each CTA's mbarrier expects the whole
// tile's bytes, half from each copy; then each CTA writes the tile it received to out (its own
// 2 x `half` words). `half` words are a multiple of 4 (16 bytes) and at most 1,024.
__global__ void __cluster_dims__(2, 1, 1) cluster_multicast(const int* src, int* out, int half) {
  __shared__ alignas(128) int tile[2048];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned bytes = 4u * unsigned(half);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  cluster.sync();  // every CTA's mbarrier initialized before a copy completes on it
  if (threadIdx.x == 0) {
    asm volatile(
        "{ .reg .b64 st;\n"
        "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(b),
        "r"(2 * bytes)
        : "memory");
    const int* from = src + (blockIdx.x / 2) * 2 * half + int(rank) * half;
    const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(tile + rank * half));
    const unsigned short mask = 0x3;
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%0], [%1], %2, [%3], %4;" ::"r"(to),
        "l"(from), "r"(bytes), "r"(b), "h"(mask)
        : "memory");
  }
  wait_parity(b, 0);
  for (int i = int(threadIdx.x); i < 2 * half; i += int(blockDim.x))
    out[blockIdx.x * 2 * half + i] = tile[i];
  cluster.sync();  // no CTA leaves while a copy may still land in it
}

// cluster_handoff: clusters of 2 CTAs of 64 threads; rank 1's threads each write a word of `in`
// into rank 0's shared memory through distributed shared memory, then arrive on rank 0's mbarrier
// (a remote arrival, release at cluster scope); rank 0's threads wait on it (acquire at cluster
// scope) and write what they received, doubled: out[64 c + t] = 2 in[64 c + t] for cluster c
// (out's other half, rank 1's, is not written).
__global__ void __cluster_dims__(2, 1, 1) cluster_handoff(const int* in, int* out) {
  __shared__ int box[64];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(blockDim.x));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  cluster.sync();  // rank 0's mbarrier initialized before rank 1 arrives on it
  const int c = int(blockIdx.x) / 2;
  if (rank == 1) {
    int* peer = cluster.map_shared_rank(box, 0);
    peer[threadIdx.x] = in[c * 64 + int(threadIdx.x)];
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(b));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
  } else {
    wait_parity<true>(b, 0);
    out[c * 64 + int(threadIdx.x)] = 2 * box[threadIdx.x];
  }
  cluster.sync();  // rank 0's memory outlives rank 1's accesses to it
}

// Thread 0 of a CTA of a pair: expects `bytes` on its own mbarrier `bar`, then sends `bytes` of
// its shared `from` to the same offset as its `to` in the partner CTA (rank ^ 1), completing the
// partner's mbarrier: a copy (cp.async.bulk.shared::cluster.shared::cta), or with `add` a
// reduction that adds each u32 into the partner's (cp.reduce.async.bulk ... .add.u32).
template <bool add>
__device__ void send_to_partner(unsigned rank, unsigned bar, const void* from, void* to,
                                unsigned bytes) {
  asm volatile(
      "{ .reg .b64 st;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(bar),
      "r"(bytes)
      : "memory");
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(to)), rb = bar;
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(dst) : "r"(rank ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(rb) : "r"(rank ^ 1));
  const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(from));
  if (add)
    asm volatile(
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 "
        "[%0], [%1], %2, [%3];" ::"r"(dst),
        "r"(src), "r"(bytes), "r"(rb)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(dst),
        "r"(src), "r"(bytes), "r"(rb)
        : "memory");
}

// Thread 0 initializes the mbarrier `bar` for one arrival, visible to the cluster; then every
// shared write so far is made visible to the copy engine, and the cluster meets.
__device__ void init_and_sync(cg::cluster_group& cluster, unsigned bar) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  cluster.sync();
}

// cluster_push: clusters of 2 CTAs of 32 threads; each CTA fills a tile with its `n` words of
// `in` and pushes it with one bulk copy into its partner's inbox, which completes the partner's
// mbarrier; each CTA waits for its own inbox and writes it out: out[n b + i] = in[n (b ^ 1) + i].
// `n` is a multiple of 4, at most 1,024.
__global__ void __cluster_dims__(2, 1, 1) cluster_push(const int* in, int* out, int n) {
  __shared__ alignas(16) int tile[1024], inbox[1024];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) tile[i] = in[int(blockIdx.x) * n + i];
  init_and_sync(cluster, b);  // both mbarriers initialized, both tiles written
  if (threadIdx.x == 0) send_to_partner<false>(rank, b, tile, inbox, 4u * unsigned(n));
  wait_parity(b, 0);
  for (int i = int(threadIdx.x); i < n; i += int(blockDim.x))
    out[int(blockIdx.x) * n + i] = inbox[i];
  cluster.sync();  // no CTA leaves while its partner's copy may still land in it
}

// cluster_reduce: clusters of 2 CTAs of 32 threads; each CTA starts its `acc` at its `n` words of
// `in` (n a multiple of 4, at most 1,024), then adds its words of `in` times 1,000 into its
// partner's `acc` with one bulk reduction (.add.u32, completing the partner's mbarrier), so each
// CTA's acc[i] = in[own][i] + 1000 in[partner][i], which it writes to out.
__global__ void __cluster_dims__(2, 1, 1) cluster_reduce(const unsigned* in, unsigned* out, int n) {
  __shared__ alignas(16) unsigned acc[1024], scaled[1024];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) {
    acc[i] = in[int(blockIdx.x) * n + i];
    scaled[i] = 1000u * acc[i];
  }
  init_and_sync(cluster, b);  // both mbarriers initialized, both accumulators started
  if (threadIdx.x == 0) send_to_partner<true>(rank, b, scaled, acc, 4u * unsigned(n));
  wait_parity(b, 0);
  for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) out[int(blockIdx.x) * n + i] = acc[i];
  cluster.sync();  // no CTA leaves while its partner's reduction may still land in it
}

// cluster_st_async: clusters of 2 CTAs of 32 threads; each thread stores 1000 x its block +
// its thread into its partner's inbox with st.async and adds 1 to its partner's count with
// red.async, both completing the partner's mbarrier (32 x 4 + 32 x 4 bytes, which thread 0
// announces); each CTA writes its inbox and then its count to out (33 words a block): out[33 b +
// t] = 1000 (b ^ 1) + t, out[33 b + 32] = 32.
__global__ void __cluster_dims__(2, 1, 1) cluster_st_async(unsigned* out) {
  __shared__ alignas(16) unsigned inbox[32];
  __shared__ unsigned count;
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) count = 0;
  init_and_sync(cluster, b);  // both mbarriers initialized, both counts 0
  if (threadIdx.x == 0)
    asm volatile(
        "{ .reg .b64 st;\n"
        "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(b),
        "r"(256)
        : "memory");
  unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(&inbox[threadIdx.x]));
  unsigned c = static_cast<unsigned>(__cvta_generic_to_shared(&count)), rb = b;
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(to) : "r"(rank ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(c) : "r"(rank ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(rb) : "r"(rank ^ 1));
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(to),
      "r"(1000u * blockIdx.x + threadIdx.x), "r"(rb)
      : "memory");
  asm volatile(
      "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, "
      "[%2];" ::"r"(c),
      "r"(1u), "r"(rb)
      : "memory");
  wait_parity(b, 0);
  out[blockIdx.x * 33 + threadIdx.x] = inbox[threadIdx.x];
  if (threadIdx.x == 0) out[blockIdx.x * 33 + 32] = count;
  cluster.sync();  // no CTA leaves while its partner's stores may still land in it
}

// scripts/hopper_measure.cu: Hopper's shared-memory figures that no replica of
// kernels/ubench_replicas.cu times yet (issue 46), measured on an sm_90 GPU:
//   - the latency of a bulk copy (cp.async.bulk, the TMA's non-tensor form) from global memory
//     held in the L2 to shared memory, from its issue to the mbarrier phase it completes, one
//     thread, by size; beside it the L2 pointer chase (ld.global.cg) on the same buffer;
//   - the latency of a load from a peer CTA's shared memory in a cluster of two
//     (ld.shared::cluster through mapa), against the same chase through the CTA's own window and
//     through ld.shared.
//   - the SM-to-SM network's throughput over the whole GPU at cluster sizes 2, 4 and 8 (Luo et
//     al. 2024 §III.D.3(2)'s ring: Fig. 8 has size 4 slower than 2, which the model does not
//     reproduce yet: it has no contention between SMs), one wave of as many clusters as fit.
// Each figure is the 32-bit %clock of thread 0 around the loop divided by the steps, the median
// of five launches after a warm-up (as scripts/calibrate).
//   nvcc -O2 -arch=sm_90 -o hopper_measure scripts/hopper_measure.cu && ./hopper_measure
// With --figures it measures the bulk copies of 16, 4,096 and 32,768 bytes and the four
// distributed-shared-memory figures only and prints them as [[figure]] tables of a measurement
// file (benchmarks bulk_copy_16, _4096, _32768, dsm_chase_peer, dsm_chase_own, dsm_latency,
// dsm_throughput: the replicas smemsim calibrate runs kernels/hopper_ubench.cu's kernels with),
// which scripts/calibrate appends on an sm_90 GPU.
#include <cooperative_groups.h>

#include "../kernels/hopper_ubench.cu"  // bulk_latency, dsm_* (their replicas: smemsim calibrate)
#include "calibrate_common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x) check((x), #x)

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread: p = ld.global.cg [p] round a ring of u64 pointers (the L2 latency beside it).
__global__ void l2_chase(unsigned* clk, unsigned long long* ring, int steps) {
  if (threadIdx.x != 0) return;
  unsigned long long p = reinterpret_cast<unsigned long long>(ring);
  for (int i = 0; i < 64; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  unsigned start, stop;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
  clk[0] = start;
  clk[1] = stop;
  clk[2] = unsigned(p);
}

// Luo et al. 2024's ring over the whole GPU: clusters of CS CTAs of 1,024 threads, every thread
// adding 8 registers to 8 words of the shared memory of the CTA ranked (rank + 1) % CS, `steps`
// times; each CTA records its own %clock64 before the loop and after a barrier behind it.
template <int CS>
__global__ void __cluster_dims__(CS, 1, 1) dsm_ring(unsigned long long* clk, int steps) {
  __shared__ unsigned words[8 * 1024];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x, n = blockDim.x;
  for (unsigned i = t; i < 8 * n; i += n) words[i] = 0;
  cluster.sync();
  unsigned* peer = cluster.map_shared_rank(words, (cluster.block_rank() + 1) % CS);
  unsigned long long start = 0, stop = 0;
  if (t == 0) asm volatile("mov.u64 %0, %%clock64;" : "=l"(start)::"memory");
  for (int i = 0; i < steps; ++i) {
#pragma unroll
    for (unsigned k = 0; k < 8; ++k) atomicAdd(&peer[k * n + t], t + k);
  }
  __syncthreads();
  if (t == 0) asm volatile("mov.u64 %0, %%clock64;" : "=l"(stop)::"memory");
  if (t == 0) {
    clk[2 * blockIdx.x] = start;
    clk[2 * blockIdx.x + 1] = stop;
  }
  cluster.sync();
}

// dsm_ring<CS> in one wave (cudaOccupancyMaxActiveClusters clusters): the mean over its CTAs of
// bytes / cycles, B/clk/SM (one CTA an SM), and the clusters it ran.
template <int CS>
void ring_figure(unsigned long long* clk) {
  auto kernel = dsm_ring<CS>;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(CS);
  cfg.blockDim = dim3(1024);
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, (void*)kernel, &cfg));
  clusters = std::max(clusters, 1);
  const int ctas = clusters * CS, steps = 256;
  std::vector<double> rate(5);
  std::vector<unsigned long long> h(2 * std::size_t(ctas));
  kernel<<<ctas, 1024>>>(clk, steps);  // warm-up
  for (double& r : rate) {
    kernel<<<ctas, 1024>>>(clk, steps);
    CHECK(cudaMemcpy(h.data(), clk, h.size() * 8, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int c = 0; c < ctas; ++c) sum += 1024.0 * 4 * 8 * steps / double(h[2 * c + 1] - h[2 * c]);
    r = sum / ctas;
  }
  std::sort(rate.begin(), rate.end());
  std::printf("dsm_ring_cluster%d_B_per_clk_sm %.2f (%d clusters, %d SMs)\n", CS, rate[2], clusters,
              ctas);
}

// The chase of kernels/hopper_ubench.cu's dsm_chase (its replica's kernel, which this file
// includes) with a plain ld.shared instead of ld.shared::cluster after mapa: two CTAs a cluster,
// thread 0 of rank 0 chases a ring of byte offsets in its own shared memory.
__global__ void __cluster_dims__(2, 1, 1) shared_chase_plain(unsigned* clk, int steps) {
  __shared__ unsigned s[4096];
  cg::cluster_group cluster = cg::this_cluster();
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = ((i + 33) % 4096) * 4;
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    const unsigned base = smem(s);
    unsigned p = 0, start = 0, stop = 0;
    for (int i = -64; i < steps; ++i) {
      if (i == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(start)::"memory");
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(base + p) : "memory");
    }
    asm volatile("mov.u32 %0, %%clock;" : "=r"(stop)::"memory");
    clk[0] = start;
    clk[1] = stop;
    clk[2] = p;
  }
  cluster.sync();
}

double cycles(unsigned* d_clk, int steps) {
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned h[3];
  CHECK(cudaMemcpy(h, d_clk, sizeof h, cudaMemcpyDeviceToHost));
  return double(unsigned(h[1] - h[0])) / steps;
}

int main(int argc, char** argv) {
  check_program = "hopper_measure";
  const bool figures = argc == 2 && std::string(argv[1]) == "--figures";
  if (argc > 2 || (argc == 2 && !figures)) {
    std::fprintf(stderr, "hopper_measure: usage: hopper_measure [--figures]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) {
    std::fprintf(stderr, "hopper_measure: %s is sm_%d%d; these figures need sm_90\n", prop.name,
                 prop.major, prop.minor);
    return 2;
  }
  unsigned* clk;
  char* src;
  unsigned long long* ring;
  CHECK(cudaMalloc(&clk, 64));
  CHECK(cudaMalloc(&src, 1 << 16));
  CHECK(cudaMemset(src, 1, 1 << 16));
  CHECK(cudaMalloc(&ring, 4096 * 8));
  std::vector<unsigned long long> h(4096);
  for (int i = 0; i < 4096; ++i) h[i] = reinterpret_cast<unsigned long long>(ring + (i + 1) % 4096);
  CHECK(cudaMemcpy(ring, h.data(), 4096 * 8, cudaMemcpyHostToDevice));
  if (figures) {
    for (unsigned bytes : {16u, 4096u, 32768u}) {
      const double v = median_of_five([&] {
        bulk_latency<<<1, 32>>>(clk, src, bytes, 256);
        return cycles(clk, 256);
      });
      char id[32], step[160];
      std::snprintf(id, sizeof id, "bulk_copy_%u", bytes);
      std::snprintf(step, sizeof step,
                    "cp.async.bulk of %u bytes from the L2 to shared memory, then "
                    "mbarrier.try_wait.parity until its phase flips, 256 copies: cycles a copy",
                    bytes);
      print_figure(id, v, "cycles",
                   "scripts/hopper_measure.cu, kernel bulk_latency (kernels/hopper_ubench.cu)",
                   step, "32-bit %clock around the loop, thread 0", 32, 1);
    }
    // Distributed shared memory (issue 46): the replicas' own kernels, one cluster of two CTAs.
    for (int target : {1, 0}) {
      const double v = median_of_five([&] {
        dsm_chase<<<2, 128>>>(clk, target, 256);
        return cycles(clk, 256);
      });
      print_figure(target ? "dsm_chase_peer" : "dsm_chase_own", v, "cycles",
                   "scripts/hopper_measure.cu, kernel dsm_chase (kernels/hopper_ubench.cu)",
                   target ? "thread 0 of rank 0 chases byte offsets in the partner CTA's shared "
                            "memory: ld.shared::cluster.u32 p, [base + p], base from mapa"
                          : "the same chase in the CTA's own shared memory through its cluster "
                            "window",
                   "32-bit %clock around the loop, thread 0 of rank 0", 128, 2);
    }
    const double add = median_of_five([&] {
      dsm_latency<<<2, 1>>>(clk, 256);
      return cycles(clk, 256);
    });
    print_figure("dsm_latency", add, "cycles",
                 "scripts/hopper_measure.cu, kernel dsm_latency (kernels/hopper_ubench.cu)",
                 "atomicAdd to a word of the partner CTA's shared memory, each add's old value the "
                 "next one's operand, 256 adds",
                 "32-bit %clock around the adds, the one thread of rank 0", 1, 2);
    const double bytes = median_of_five([&] {
      dsm_throughput<<<2, 1024>>>(clk, 256);
      return cycles(clk, 1);
    });
    print_figure("dsm_throughput", 1024.0 * 4 * 8 * 256 / bytes, "B/clk/SM",
                 "scripts/hopper_measure.cu, kernel dsm_throughput (kernels/hopper_ubench.cu)",
                 "every thread of a CTA of 1,024 adds 8 registers to 8 words of the partner CTA's "
                 "shared memory, 256 steps",
                 "32-bit %clock around the loop and a barrier, thread 0 of rank 0", 1024, 2);
    return 0;
  }
  std::printf("# scripts/hopper_measure on %s (sm_%d%d, %d SMs): cycles a step, median of 5\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  const int steps = 1024;
  std::printf("l2_chase_u64 %.2f\n", median_of_five([&] {
                l2_chase<<<1, 32>>>(clk, ring, steps);
                return cycles(clk, steps);
              }));
  for (unsigned bytes : {16u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 8192u, 16384u, 32768u})
    std::printf("bulk_copy_latency_%uB %.2f\n", bytes, median_of_five([&] {
                  bulk_latency<<<1, 32>>>(clk, src, bytes, 256);
                  return cycles(clk, 256);
                }));
  for (int target : {0, 1})
    std::printf("%s %.2f\n", target ? "dsm_chase_peer" : "dsm_chase_own_window",
                median_of_five([&] {
                  dsm_chase<<<2, 128>>>(clk, target, steps);
                  return cycles(clk, steps);
                }));
  std::printf("shared_chase_ld_shared %.2f\n", median_of_five([&] {
                shared_chase_plain<<<2, 128>>>(clk, steps);
                return cycles(clk, steps);
              }));
  std::printf("dsm_add_latency %.2f\n", median_of_five([&] {
                dsm_latency<<<2, 1>>>(clk, 256);
                return cycles(clk, 256);
              }));
  std::printf("dsm_throughput_B_per_clk_sm %.2f\n", 1024.0 * 4 * 8 * 256 / median_of_five([&] {
                                                      dsm_throughput<<<2, 1024>>>(clk, 256);
                                                      return cycles(clk, 1);
                                                    }));
  unsigned long long* clk64 = nullptr;
  CHECK(cudaMalloc(&clk64, 2 * 1024 * 8));
  ring_figure<2>(clk64);
  ring_figure<4>(clk64);
  ring_figure<8>(clk64);
  return 0;
}

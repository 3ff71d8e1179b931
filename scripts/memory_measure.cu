// scripts/memory_measure.cu: the memory hierarchy's figures (issue 44) of this machine's GPU, from
// kernels/memory_ubench.cu's kernels, one CTA of 1,024 threads a streaming multiprocessor:
//   - the SM clock while the GPU is busy (clock64 against %globaltimer), MHz;
//   - L1, L2 and DRAM read bandwidth and DRAM write bandwidth, bytes a cycle a SM (one CTA's bytes
//     over the median of the CTAs' clock spans) and for the GPU (times the SMs);
//   - atomicAdd on one global word, from one CTA and from one CTA a SM: updates a cycle;
//   - one-thread ld.global.cg chases of 256-byte-spaced nodes, cycles a link: through 4 and 32 MiB
//     followed once round before (the L2), and through 32 MiB (in a random order and in address
//     order) and 1 GiB after the L2 was flushed (DRAM).
// Each figure is the median of five runs after a warm-up (as scripts/calibrate).
//   nvcc -O2 -arch=native -o memory_measure scripts/memory_measure.cu && ./memory_measure
// With --figures it measures the four bandwidths only and prints them as [[figure]] tables of a
// measurement file (benchmarks l1_read, l2_read, dram_read, dram_write: the replicas smemsim
// calibrate runs these kernels with), which scripts/calibrate appends to the replicas' file.
#include "../kernels/memory_ubench.cu"
#include "calibrate_common.cuh"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#define CHECK(x) check((x), #x)

// Thread 0 spins for about 20 M cycles and writes the clock and the global timer before and after.
__global__ void clock_rate(unsigned long long* o) {
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const unsigned long long c0 = clock64();
  unsigned long long c1 = c0;
  while (c1 - c0 < 20000000ull) c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  o[0] = c1 - c0;
  o[1] = g1 - g0;
}

namespace {

int sms = 0;
unsigned long long* clk = nullptr;

// The median and the largest of the `ctas` clock spans of the last launch.
void spans(int ctas, double* median, double* largest) {
  const std::vector<double> s = cta_spans(clk, ctas);
  *median = s[std::size_t(ctas / 2)];
  *largest = s.back();
}

void build_ring(unsigned long long* d, size_t bytes, size_t stride, unsigned seed) {
  const size_t n = bytes / stride, w = stride / 8;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  if (seed) std::shuffle(order.begin() + 1, order.end(), rng);
  std::vector<unsigned long long> h(bytes / 8, 0);
  for (size_t i = 0; i < n; ++i)
    h[order[i] * w] = reinterpret_cast<unsigned long long>(d + order[(i + 1) % n] * w);
  CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
}

}  // namespace

// One of the bandwidth figures (--figures), a CTA of 1,024 threads on every SM.
void figure(const char* id, double value, const char* kernel, const char* step) {
  const std::string where =
      std::string("scripts/memory_measure.cu, kernel ") + kernel + " (kernels/memory_ubench.cu)";
  const std::string method = std::string(step) +
                             ", 1,024 threads a CTA, a CTA on every SM: one CTA's bytes over the "
                             "median CTA's span";
  print_figure(id, value, "B/clk/SM", where.c_str(), method.c_str(),
               "clock64 of thread 0 between two barriers", 1024, unsigned(sms));
}

int main(int argc, char** argv) {
  check_program = "memory_measure";
  const bool figures = argc == 2 && std::string(argv[1]) == "--figures";
  if (argc > 2 || (argc == 2 && !figures)) {
    std::fprintf(stderr, "memory_measure: usage: memory_measure [--figures]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  if (!figures)
    std::printf("# scripts/memory_measure on %s (sm_%d%d, %d SMs, L2 %d KiB): median of 5\n",
                prop.name, prop.major, prop.minor, sms, prop.l2CacheSize / 1024);
  CHECK(cudaMalloc(&clk, 4 * 8 * 1024));  // the chases' flush writes its spans at 2048
  unsigned* out;
  CHECK(cudaMalloc(&out, size_t(sms + 1) * 1024 * 4));  // the atomics' word, then theirs

  unsigned long long h[2];
  clock_rate<<<1, 1>>>(clk);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, clk, 16, cudaMemcpyDeviceToHost));
  if (!figures) std::printf("sm_clock_mhz %.1f\n", 1e3 * double(h[0]) / double(h[1]));

  const size_t dram_per_cta = size_t(16) << 20;
  uint4* buf;
  CHECK(cudaMalloc(&buf, dram_per_cta * sms));
  CHECK(cudaMemset(buf, 1, dram_per_cta * sms));
  struct Read {
    const char* name;
    bool l1;
    size_t bytes;
    int reps;
    const char* step;
  };
  for (const Read& r :
       {Read{"l1_read", true, 32 << 10, 64, "ld.global.ca.v4 of the CTA's 32 KiB, 64 times"},
        Read{"l2_read", false, 128 << 10, 16, "ld.global.cg.v4 of the CTA's 128 KiB, 16 times"},
        Read{"dram_read", false, dram_per_cta, 1, "ld.global.cg.v4 of the CTA's 16 MiB once"}}) {
    const unsigned n16 = unsigned(r.bytes / 16);
    double med = 0, big = 0;
    const double cycles = median_of_five([&] {
      if (r.l1)
        mem_read_ca<<<sms, 1024>>>(clk, buf, out, n16, r.reps);
      else
        mem_read_cg<<<sms, 1024>>>(clk, buf, out, n16, r.reps);
      spans(sms, &med, &big);
      return med;
    });
    const double per_sm = double(r.bytes) * r.reps / cycles;
    if (figures)
      figure(r.name, per_sm, r.l1 ? "mem_read_ca" : "mem_read_cg", r.step);
    else
      std::printf("%s_bytes_per_clk_sm %.2f\n%s_bytes_per_clk %.1f\n", r.name, per_sm, r.name,
                  per_sm * sms);
  }
  {
    double med = 0, big = 0;
    const double cycles = median_of_five([&] {
      mem_write<<<sms, 1024>>>(clk, buf, unsigned(dram_per_cta / 16));
      spans(sms, &med, &big);
      return med;
    });
    if (figures) {
      figure("dram_write", double(dram_per_cta) / cycles, "mem_write",
             "st.global.v4 of the CTA's 16 MiB once");
      return 0;
    }
    std::printf("dram_write_bytes_per_clk_sm %.2f\ndram_write_bytes_per_clk %.1f\n",
                double(dram_per_cta) / cycles, double(dram_per_cta) / cycles * sms);
  }
  for (int ctas : {1, sms}) {
    const int iters = 16;
    double med = 0, big = 0;
    const double cycles = median_of_five([&] {
      mem_atomic_one<<<ctas, 1024>>>(clk, out, out + 1024, iters);
      spans(ctas, &med, &big);
      return big;
    });
    std::printf("atomic_one_word_%dcta_updates_per_clk %.4f\n", ctas,
                double(ctas) * 1024 * iters / cycles);
  }
  // Chases. `flush`: before each run the SMs read 512 MiB past the ring (ld.global.cg),
  // which leaves none of the ring in the L2, while the ring's few 2 MiB pages stay few: the DRAM's
  // latency with the TLB's misses a small part. Without it the ring is first followed once round
  // (every line then in the L2): the L2's latency over lines spread across its slices.
  const auto ring = reinterpret_cast<unsigned long long*>(buf);
  const uint4* flush_at = buf + (size_t(1) << 30) / 16;  // past the largest ring
  const unsigned flush_n16 = unsigned((size_t(512) << 20) / 16 / sms);
  struct Chase {
    const char* name;
    size_t bytes, stride;
    bool random, flush;
  };
  for (const Chase& c : {Chase{"l2_random_4MiB", 4 << 20, 256, true, false},
                         Chase{"l2_random_32MiB", 32 << 20, 256, true, false},
                         Chase{"dram_random_32MiB", 32 << 20, 256, true, true},
                         Chase{"dram_sequential_32MiB", 32 << 20, 256, false, true},
                         Chase{"dram_random_1GiB", size_t(1) << 30, 256, true, true}}) {
    build_ring(ring, c.bytes, c.stride, c.random ? 1 : 0);
    unsigned long long at = reinterpret_cast<unsigned long long>(ring);
    const int steps = 2048;
    if (!c.flush) {  // one lap, untimed
      mem_chase<<<1, 32>>>(clk, ring, int(c.bytes / c.stride));
      CHECK(cudaDeviceSynchronize());
    }
    const double cycles = median_of_five([&] {
      if (c.flush) mem_read_cg<<<sms, 1024>>>(clk + 2048, flush_at, out, flush_n16, 1);
      mem_chase<<<1, 32>>>(clk, reinterpret_cast<unsigned long long*>(at), steps);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      unsigned long long t[3];
      CHECK(cudaMemcpy(t, clk, sizeof t, cudaMemcpyDeviceToHost));
      at = t[2];
      return double(t[1] - t[0]) / steps;
    });
    std::printf("chase_cg_%s_cycles %.2f\n", c.name, cycles);
  }
  return 0;
}

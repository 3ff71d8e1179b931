// scripts/memory_scaling.cu: how the memory's bandwidth splits over the SMs that use it (issue 44,
// the shared L2), from kernels/memory_ubench.cu's kernels, one CTA a streaming multiprocessor:
//   - DRAM read (ld.global.cg, 16 MiB a CTA, the L2 flushed before each run), L2 read (.cg,
//     128 KiB a CTA read 16 times) and DRAM write (16 MiB a CTA) from C = 1 .. every SM CTAs of
//     1,024 threads, and from one CTA of 32 .. 1,024 threads: bytes a cycle a SM (one CTA's bytes
//     over the median CTA's clock64 span) and for the GPU;
//   - a chase (ld.global.cg, one thread) through DRAM or the L2 while 0 .. every other SM reads
//     DRAM, or re-reads a region the L2 holds: cycles a link;
//   - one word's atomicAdd that ptxas cannot aggregate (mem_atomic_ind, idx all 0), and one word a
//     lane (idx[t] = t): cycles a warp's atomic for one warp, updates a cycle for one CTA and for
//     one a SM.
// Each figure is the median of five runs after a warm-up (as scripts/calibrate).
//   nvcc -O2 -arch=native -o memory_scaling scripts/memory_scaling.cu
//   ./memory_scaling            the sweeps, a `name value` line each
//   ./memory_scaling --figures  the figures smemsim calibrate has replicas for, as [[figure]]
//                               tables of a measurement file (scripts/calibrate appends them)
//   ./memory_scaling --ncu      one launch of each kernel whose L2 lookups Nsight Compute should
//                               count (run it under ncu): mem_read_all_cg (every SM reads the same
//                               1 MiB), mem_read_twice_ca (one CTA, each load twice through the L1)
//                               mem_read_cg (one CTA reads its 1 MiB twice) and
//                               mem_read_pairs_ca (two warps load each sector at once)
#include "../kernels/memory_ubench.cu"
#include "calibrate_common.cuh"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#define CHECK(x) check((x), #x)

namespace {

int sms = 0;
unsigned long long* clk = nullptr;
unsigned* out = nullptr;
uint4* buf = nullptr;       // 16 MiB a SM, then 512 MiB to flush the L2 with
uint4* flush_at = nullptr;  // past the SMs' regions
constexpr size_t kDram = size_t(16) << 20;

// The median CTA's clock span of the last launch of `ctas` CTAs.
double median_span(int ctas) {
  return cta_spans(clk, ctas)[std::size_t(ctas / 2)];
}

// Every SM reads 512 MiB past the regions once: none of the regions stays in the L2.
void flush() {
  mem_read_cg<<<sms, 1024>>>(clk + 4096, flush_at, out, unsigned((size_t(512) << 20) / 16 / sms),
                             1);
  CHECK(cudaDeviceSynchronize());
}

enum class Kind { DramRead, L2Read, DramWrite };

// One CTA's bytes over the median span, `ctas` CTAs of `threads`.
double stream(Kind k, int ctas, int threads) {
  const double cycles = median_of_five([&] {
    switch (k) {
      case Kind::DramRead:
        flush();
        mem_read_cg<<<ctas, threads>>>(clk, buf, out, unsigned(kDram / 16), 1);
        break;
      case Kind::L2Read:  // the warm-up run (median_of_five's first) leaves the regions in the L2
        mem_read_cg<<<ctas, threads>>>(clk, buf, out, (128 << 10) / 16, 16);
        break;
      case Kind::DramWrite:
        flush();
        mem_write<<<ctas, threads>>>(clk, buf, unsigned(kDram / 16));
        break;
    }
    return median_span(ctas);
  });
  const double bytes = k == Kind::L2Read ? double(128 << 10) * 16 : double(kDram);
  return bytes / cycles;
}

// mem_atomic_ind: `iters` atomics a thread; idx all 0 (one word) or idx[t] = t. Returns the
// largest CTA's span.
double atomics(int ctas, int threads, int iters, bool one_word, unsigned* idx) {
  std::vector<unsigned> h(1024);
  for (unsigned t = 0; t < 1024; ++t) h[t] = one_word ? 0 : t;
  CHECK(cudaMemcpy(idx, h.data(), 4096, cudaMemcpyHostToDevice));
  return median_of_five([&] {
    mem_atomic_ind<<<ctas, threads>>>(clk, out, idx, out + 1024, iters);
    return cta_spans(clk, ctas).back();
  });
}

// A ring of 64-bit addresses through `bytes`, a node every 256 bytes in a random order.
void build_ring(unsigned long long* d, size_t bytes) {
  const size_t n = bytes / 256, w = 256 / 8;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(1);
  std::shuffle(order.begin() + 1, order.end(), rng);
  std::vector<unsigned long long> h(bytes / 8, 0);
  for (size_t i = 0; i < n; ++i)
    h[order[i] * w] = reinterpret_cast<unsigned long long>(d + order[(i + 1) % n] * w);
  CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
}

// mem_chase_loaded: cycles a link of thread 0 of CTA 0's chase through `ring_bytes` while the
// other CTAs (`ctas` - 1 of them) read their 16 MiB from DRAM once (`load_l2`: their 128 KiB,
// which the L2 holds, 128 times); `in_l2`: the ring followed once round before (its lines in the
// L2), else flushed.
double loaded_chase(unsigned long long* ring, size_t ring_bytes, int ctas, bool in_l2,
                    bool load_l2 = false) {
  const int steps = 1024;
  return median_of_five([&] {
    flush();
    if (in_l2) mem_chase<<<1, 32>>>(clk, ring, int(ring_bytes / 256));
    if (load_l2)
      mem_chase_loaded<<<ctas, 1024>>>(clk, ring, steps, buf, out, (128 << 10) / 16, 128);
    else
      mem_chase_loaded<<<ctas, 1024>>>(clk, ring, steps, buf, out, unsigned(kDram / 16), 1);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long t[2];
    CHECK(cudaMemcpy(t, clk, sizeof t, cudaMemcpyDeviceToHost));
    return double(t[1] - t[0]) / steps;
  });
}

void figure(const char* id, double value, const char* unit, const char* kernel, const char* step,
            unsigned block, unsigned grid) {
  const std::string where =
      std::string("scripts/memory_scaling.cu, kernel ") + kernel + " (kernels/memory_ubench.cu)";
  print_figure(id, value, unit, where.c_str(), step, "clock64 of thread 0 between two barriers",
               block, grid);
}

}  // namespace

int main(int argc, char** argv) {
  check_program = "memory_scaling";
  const std::string mode = argc == 2 ? argv[1] : "";
  if (argc > 2 || (argc == 2 && mode != "--figures" && mode != "--ncu")) {
    std::fprintf(stderr, "memory_scaling: usage: memory_scaling [--figures | --ncu]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  CHECK(cudaMalloc(&clk, 8 * 8 * 1024));
  CHECK(cudaMalloc(&out, size_t(sms + 2) * 1024 * 4));
  CHECK(cudaMalloc(&buf, kDram * sms + (size_t(512) << 20)));
  CHECK(cudaMemset(buf, 1, kDram * sms + (size_t(512) << 20)));
  flush_at = buf + kDram * sms / 16;
  unsigned* idx;
  CHECK(cudaMalloc(&idx, 4096));

  if (mode == "--ncu") {
    mem_read_all_cg<<<sms, 1024>>>(clk, buf, out, (1 << 20) / 16, 1);
    CHECK(cudaDeviceSynchronize());
    mem_read_twice_ca<<<1, 1024>>>(clk, buf, out, (1 << 20) / 16);
    CHECK(cudaDeviceSynchronize());
    mem_read_cg<<<1, 1024>>>(clk, buf, out, (1 << 20) / 16, 2);
    CHECK(cudaDeviceSynchronize());
    mem_read_pairs_ca<<<1, 1024>>>(clk, buf, out, (1 << 20) / 16);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  if (mode == "--figures") {
    figure("dram_read_1cta", stream(Kind::DramRead, 1, 1024), "B/clk/SM", "mem_read_cg",
           "ld.global.cg.v4 of 16 MiB once, one CTA of 1,024 threads alone on the GPU, the L2 "
           "flushed before: bytes a cycle",
           1024, 1);
    figure("l2_read_1cta", stream(Kind::L2Read, 1, 1024), "B/clk/SM", "mem_read_cg",
           "ld.global.cg.v4 of 128 KiB, 16 times, one CTA of 1,024 threads alone on the GPU: "
           "bytes a cycle",
           1024, 1);
    figure("dram_write_1cta", stream(Kind::DramWrite, 1, 1024), "B/clk/SM", "mem_write",
           "st.global.v4 of 16 MiB once, one CTA of 1,024 threads alone on the GPU: bytes a cycle",
           1024, 1);
    const int iters = 16;
    figure("atomic_word_warp", atomics(1, 32, iters, true, idx) / iters, "cycles",
           "mem_atomic_ind",
           "atomicAdd by 32 lanes to one global word, the address through a table (not "
           "aggregated), result used, 16 a thread, one warp alone: cycles a warp's atomic",
           32, 1);
    figure("atomic_word_cta", 1024.0 * iters / atomics(1, 1024, iters, true, idx), "ops/clk/SM",
           "mem_atomic_ind",
           "atomicAdd by 1,024 threads to one global word, the address through a table (not "
           "aggregated), result used, 16 a thread, one CTA alone: updates a cycle",
           1024, 1);
    return 0;
  }

  std::printf("# scripts/memory_scaling on %s (sm_%d%d, %d SMs, L2 %d KiB): median of 5\n",
              prop.name, prop.major, prop.minor, sms, prop.l2CacheSize / 1024);
  struct Sweep {
    const char* name;
    Kind kind;
  };
  std::vector<int> counts = {1, 2, 4, 8, 16, 33, 66, sms};
  for (const Sweep& s : {Sweep{"dram_read", Kind::DramRead}, Sweep{"l2_read", Kind::L2Read},
                         Sweep{"dram_write", Kind::DramWrite}}) {
    for (int c : counts) {
      const double per_sm = stream(s.kind, c, 1024);
      std::printf("%s_ctas%d_t1024 %.2f B/clk/SM %.1f B/clk\n", s.name, c, per_sm, per_sm * c);
      std::fflush(stdout);
    }
    for (int t : {32, 128, 256, 512}) {
      const double per_sm = stream(s.kind, 1, t);
      std::printf("%s_ctas1_t%d %.2f B/clk/SM\n", s.name, t, per_sm);
      std::fflush(stdout);
    }
  }
  const int iters = 16;
  for (bool one : {true, false}) {
    const char* w = one ? "one_word" : "word_a_lane";
    std::printf("atomic_ind_%s_1warp_cycles_per_atomic %.2f\n", w,
                atomics(1, 32, iters, one, idx) / iters);
    for (int c : {1, 8, sms})
      std::printf("atomic_ind_%s_ctas%d_t1024_updates_per_clk %.3f\n", w, c,
                  double(c) * 1024 * iters / atomics(c, 1024, iters, one, idx));
    std::fflush(stdout);
  }
  unsigned long long* ring;
  CHECK(cudaMalloc(&ring, size_t(32) << 20));
  for (bool in_l2 : {false, true}) {
    const size_t bytes = in_l2 ? size_t(4) << 20 : size_t(32) << 20;
    build_ring(ring, bytes);
    for (int c : {1, 2, 5, 17, 33, sms})
      std::printf("chase_%s_while_%d_ctas_read_dram_cycles %.2f\n", in_l2 ? "l2_4MiB" : "dram_32MiB",
                  c - 1, loaded_chase(ring, bytes, c, in_l2));
    for (int c : {2, 17, 33, sms})
      std::printf("chase_%s_while_%d_ctas_read_l2_cycles %.2f\n", in_l2 ? "l2_4MiB" : "dram_32MiB",
                  c - 1, loaded_chase(ring, bytes, c, in_l2, true));
    std::fflush(stdout);
  }
  return 0;
}

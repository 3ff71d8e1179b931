// scripts/block_placement.cu: which SM runs which CTA, and when it starts (issue 44: on an H200
// the 512^2 matmul's L1 sends 1.40 M sectors to the L2 of the 2.10 M it looks up, about 700 K
// misses merged into ones in flight, calibration/runs/h200-2026-11-28/stalls.csv; CTAs share
// lines only where CTAs of one row or one column of the grid run on one SM at one time, so the
// merging says how the GPU places CTAs; the cycle model gives CTA b to SM b % SMs and finds no
// sharing). Each launch's CTAs record %smid and %globaltimer at their start, then spin for
// `spin` cycles so that every CTA that fits is resident at once, as in the matmul where all
// 1,024 fit in one wave (8 a SM, 132 SMs). Launches:
//   matmul   grid 32 x 32 of 16 x 16 threads, 2 KB of shared memory a CTA (builtin:matmul
//            --width 512's launch)
//   linear   1,024 CTAs of 256 threads, 2 KB
//   wide     4 x the SMs CTAs of 1,024 threads (two waves at two a SM)
// For each it prints one line a CTA: `launch cta x y sm start_ns`, start from the launch's first
// CTA; then a summary line a launch: the SMs used, the most CTAs one SM ran, and how many CTAs
// share their SM with the next CTA of the grid (x + 1, same y) and with the next row (y + 1).
//   nvcc -O2 -arch=native -o block_placement scripts/block_placement.cu && ./block_placement
#include "calibrate_common.cuh"

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(x) check((x), #x)

__global__ void where(unsigned* sm, unsigned long long* start, long long spin) {
  __shared__ float pad[512];  // 2 KB, as the matmul's two 16 x 16 float tiles
  const unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    unsigned id;
    unsigned long long t;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    sm[cta] = id;
    start[cta] = t;
  }
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  const unsigned i = (threadIdx.y * blockDim.x + threadIdx.x) % 512;
  pad[i] = float(i);
  __syncthreads();
  if (pad[(i + 1) % 512] < 0.0f) sm[cta] = ~0u;  // never: keeps the shared array
}

void place(const char* name, dim3 grid, dim3 block, long long spin) {
  const unsigned n = grid.x * grid.y;
  unsigned* sm;
  unsigned long long* start;
  CHECK(cudaMalloc(&sm, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&start, n * sizeof(unsigned long long)));
  where<<<grid, block>>>(sm, start, spin);  // a warm-up
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  where<<<grid, block>>>(sm, start, spin);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> s(n);
  std::vector<unsigned long long> t(n);
  CHECK(cudaMemcpy(s.data(), sm, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(t.data(), start, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  const unsigned long long t0 = *std::min_element(t.begin(), t.end());
  for (unsigned c = 0; c < n; ++c)
    std::printf("%s %u %u %u %u %llu\n", name, c, c % grid.x, c / grid.x, s[c], t[c] - t0);
  std::vector<unsigned> per(1024, 0);
  unsigned used = 0, most = 0, next_x = 0, next_y = 0;
  for (unsigned c = 0; c < n; ++c) {
    if (s[c] < per.size() && per[s[c]]++ == 0) ++used;
    if (s[c] < per.size()) most = std::max(most, per[s[c]]);
    if (c % grid.x + 1 < grid.x && s[c + 1] == s[c]) ++next_x;
    if (c + grid.x < n && s[c + grid.x] == s[c]) ++next_y;
  }
  std::printf(
      "# %s: %u CTAs on %u SMs, at most %u on one; %u share their SM with the next in x, "
      "%u with the next in y\n",
      name, n, used, most, next_x, next_y);
  CHECK(cudaFree(sm));
  CHECK(cudaFree(start));
}

int main() {
  check_program = "block_placement";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# scripts/block_placement on %s (sm_%d%d, %d SMs): launch cta x y sm start_ns\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  const long long spin = 200000;  // cycles: about 0.1 ms, far more than a wave takes to start
  place("matmul", dim3(32, 32), dim3(16, 16), spin);
  place("linear", dim3(1024), dim3(256), spin);
  place("wide", dim3(4 * unsigned(prop.multiProcessorCount)), dim3(1024), spin);
  return 0;
}

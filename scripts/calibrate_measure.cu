// scripts/calibrate (the default mode): runs every replica microbenchmark of
// kernels/ubench_replicas.cu on this machine's GPU, with the launch and the formula the cycle
// model's runner uses (both read src/calibrate/replica_table.inc), and prints a measurement file
// (docs/calibration.md "Measurement files") for `smemsim calibrate FILE`: the GPU's name, compute
// capability and clock from the driver, one figure per replica, the median of five runs after a
// warm-up.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "../kernels/ubench_replicas.cu"
#include "calibrate_common.cuh"

namespace {

enum class Extra { None, AtomicRing, ChaseRing, FlushRing };

struct Row {
  const char *name, *unit, *what;
  unsigned threads;
  int steps;
  bool span, rate;
  double amount;
  Extra extra;
  int arg;
};

struct Buffers {
  unsigned *clk, *out, *atomic_ring;
  unsigned long long *chase_ring, *flush_ring;  // 4,096 u64; 128 MiB (rep_dram_chase)
};

// One launch of each kernel shape (the overload picks the one the replica's kernel has).
void launch(void (*k)(unsigned*, unsigned*), const Row& r, const Buffers& b) {
  k<<<1, r.threads>>>(b.clk, b.out);
}
void launch(void (*k)(unsigned*, unsigned*, int), const Row& r, const Buffers& b) {
  k<<<1, r.threads>>>(b.clk, b.out, r.steps);
}
void launch(void (*k)(unsigned*, unsigned*, unsigned*), const Row& r, const Buffers& b) {
  k<<<1, r.threads>>>(b.clk, b.out, b.atomic_ring);
}
void launch(void (*k)(unsigned*, unsigned*, unsigned long long*, int), const Row& r,
            const Buffers& b) {
  k<<<1, r.threads>>>(b.clk, b.out, r.extra == Extra::FlushRing ? b.flush_ring : b.chase_ring,
                      r.arg);
}

// The figure of one run, as src/calibrate/replicas.cpp computes it from the clocks.
double figure(const Row& r, const std::vector<unsigned>& c) {
  unsigned first = c[0], last = c[1];
  if (r.span)
    for (unsigned t = 1; t < r.threads; ++t) {
      if (int(c[2 * t] - first) < 0) first = c[2 * t];
      if (int(c[2 * t + 1] - last) > 0) last = c[2 * t + 1];
    }
  const double cycles = double(unsigned(last - first));
  if (cycles == 0) return 0;
  return r.rate ? r.amount / cycles : cycles / r.amount;
}

template <typename Kernel>
double measure(Kernel k, const Row& r, const Buffers& b) {
  std::vector<unsigned> c(2 * r.threads);
  return median_of_five([&] {
    launch(k, r, b);
    check(cudaGetLastError(), r.name);
    check(cudaDeviceSynchronize(), r.name);
    check(cudaMemcpy(c.data(), b.clk, c.size() * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
    return figure(r, c);
  });
}

const char* preset_of(int major, int minor) {
  const int cc = 10 * major + minor;
  if (cc == 70 || cc == 72) return "volta-v100";
  if (cc == 75) return "turing-t4";
  if (cc >= 80 && cc < 90) return "ampere-a100";
  if (cc >= 90) return "hopper-h100";
  return "volta-v100";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
    std::puts(
        "usage: scripts/calibrate [-o FILE]   (this GPU's replica figures as a measurement file)");
    return 0;
  }
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "no CUDA device");
  int khz = 0;
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock rate");
  Buffers b{};
  check(cudaMalloc(&b.clk, 2 * 1024 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&b.out, 1024 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&b.atomic_ring, 1024 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&b.chase_ring, 4096 * sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMalloc(&b.flush_ring, std::size_t(128) << 20), "cudaMalloc");
  std::printf(
      "# Measured by scripts/calibrate: every replica of kernels/ubench_replicas.cu on this\n"
      "# GPU, the median of five runs after a warm-up. smemsim calibrate FILE fits the\n"
      "# preset below to it.\nformat = 1\n\n[gpu]\n");
  std::printf("name = \"%s\"\ncompute_capability = %d\nsm_clock_mhz = %d\npreset = \"%s\"\n\n",
              prop.name, 10 * prop.major + prop.minor, khz / 1000,
              preset_of(prop.major, prop.minor));
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "driver version");
  std::printf("[source]\nkind = \"measured\"\ntitle = \"scripts/calibrate on %s (%d SMs)\"\n",
              prop.name, prop.multiProcessorCount);
  std::printf("citation = \"smemsim scripts/calibrate, run %s (CUDA driver %d.%d)\"\n", date,
              driver / 1000, driver % 1000 / 10);
  constexpr double kK = 1024;
#define SMEMSIM_REPLICA(name, kernel, unit, what, key, missing, threads, steps, span, rate,     \
                        amount, extra, arg)                                                     \
  {                                                                                             \
    const Row r{name, unit, what, threads, steps, span, rate, amount, Extra::extra, arg};       \
    const double v = measure(kernel, r, b);                                                     \
    std::printf("\n[[figure]]\nid = \"%s\"\nbenchmark = \"%s\"\nvalue = %.6f\nunit = \"%s\"\n", \
                name, name, v, unit);                                                           \
    std::printf("where = \"scripts/calibrate, kernel %s\"\n[figure.method]\n", #kernel);        \
    std::printf("step = \"%s\"\nclock = \"%s\"\nblock = %u\ngrid = 1\n", what,                  \
                span ? "%clock per thread; the span max(stop) - min(start)"                     \
                     : "32-bit %clock around the loop, thread 0",                               \
                unsigned(threads));                                                             \
  }
#include "../src/calibrate/replica_table.inc"
#undef SMEMSIM_REPLICA
  (void)kK;
  check(cudaFree(b.clk), "cudaFree");
  check(cudaFree(b.out), "cudaFree");
  check(cudaFree(b.atomic_ring), "cudaFree");
  check(cudaFree(b.chase_ring), "cudaFree");
  check(cudaFree(b.flush_ring), "cudaFree");
  return 0;
}

// scripts/calibrate: runs the microbenchmarks of kernels/ubench.cu on the GPU this machine has and
// prints the timing keys they measure as an arch TOML (issue 25, item 4), to load with
// `--arch-file` over the preset of that GPU (`--arch volta-v100 --arch-file measured.toml`). Every
// value carries, in a comment, the chain it came from; tests/ubench_test.cpp runs the same chains
// in `smemsim sim` and checks that each preset reproduces its keys.
//
// Each chain is 64 dependent operations of one warp timed with clock(); one link costs
// max(latency, the unit's interval), so on a GPU whose unit has few lanes (the T4's FP64) the
// FP64 chain measures the interval, and the comment says so.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../kernels/ubench.cu"
#include "calibrate_common.cuh"

namespace {

// Cycles per link of one chain (the median of 5 runs, after a warm-up run).
// `threads`, `links`: ubench_lds_tput runs 8 warps of 4 x STEPS loads.
template <typename Kernel, typename Arg>
double per_link(Kernel kernel, Arg arg, unsigned* out, unsigned threads = 32,
                unsigned links = STEPS) {
  return median_of_five([&] {
    unsigned host[2];
    kernel<<<1, threads>>>(out, arg);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "run");
    check(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost), "copy");
    return double(host[0]) / links;
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
    std::puts("usage: scripts/calibrate [-o FILE]   (the GPU's measured timing keys as TOML)");
    return 0;
  }
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "no CUDA device");
  unsigned* out = nullptr;
  check(cudaMalloc(&out, 2 * sizeof(unsigned)), "cudaMalloc");
  const double lds1 = per_link(ubench_lds, 1u, out);
  const double lds32 = per_link(ubench_lds, 32u, out);
  const double alu = per_link(ubench_alu, 7u, out);
  const double fma = per_link(ubench_fma, 1.5f, out);
  const double dfma = per_link(ubench_dfma, 1.5, out);
  const double sfu = per_link(ubench_sfu, 0.5f, out);
  const double atom1 = per_link(ubench_atom, 0u, out);
  const double atom_word = per_link(ubench_atom, 2u, out);
  unsigned long long* ring = nullptr;
  check(cudaMalloc(&ring, 4096 * sizeof(unsigned long long)), "cudaMalloc");
  const double ldg = per_link(ubench_ldg, ring, out);
  check(cudaFree(ring), "cudaFree");
  double tput[3];
  for (int k = 0; k < 3; ++k)
    tput[k] = per_link(ubench_lds_tput, k == 0 ? 1u : k == 1 ? 4u : 32u, out, 256, 8 * 4 * STEPS);
  const bool sm80 = prop.major >= 8;
  double cpasync = 0;
  if (sm80) {
    unsigned* cring = nullptr;
    check(cudaMalloc(&cring, 1024 * 16), "cudaMalloc");
    cpasync = per_link(ubench_cpasync, cring, out);
    check(cudaFree(cring), "cudaFree");
  }
  const bool tensor = prop.major >= 8 || (prop.major == 7 && prop.minor >= 5);
  double mma16 = 0, mma8 = 0, ldsm = 0;
  if (tensor) {
    ldsm = per_link(ubench_ldsm, 0u, out);
    mma16 = per_link(ubench_mma, 1u, out);
    mma8 = per_link(ubench_mma8, 1u, out);
  }
  auto round = [](double x) { return static_cast<long>(x + 0.5); };
  std::printf("# measured by scripts/calibrate on %s (sm_%d%d, %d SMs): cycles per link of 64\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  std::printf("# dependent operations of one warp (kernels/ubench.cu)\n[sm]\n");
  std::printf("count = %d\n", prop.multiProcessorCount);
  std::printf("lat_shared_ld = %ld  # ubench_lds, 1-way: %.2f\n", round(lds1), lds1);
  std::printf("lat_alu = %ld  # ubench_alu: %.2f\n", round(alu), alu);
  std::printf("lat_fma = %ld  # ubench_fma: %.2f\n", round(fma), fma);
  std::printf("lat_fp64 = %ld  # ubench_dfma: %.2f (the FP64 unit's interval where it is longer)\n",
              round(dfma), dfma);
  std::printf("lat_sfu = %ld  # ubench_sfu: %.2f\n", round(sfu), sfu);
  std::printf("lat_shared_atom = %ld  # ubench_atom, every lane its own bank: %.2f\n", round(atom1),
              atom1);
  std::printf(
      "global_latency = %ld  # ubench_ldg: %.2f a link, less the path to MEM0 (the shared "
      "load's)\n",
      round(ldg - lds1), ldg);
  // Chains with no key of their own: the model predicts them from the keys (tests/ubench_test.cpp).
  std::printf(
      "# shared-load throughput, cycles per warp access of 8 warps: 1-way %.2f, 4-way %.2f, "
      "32-way %.2f (the model: one bank pass per cycle per SM)\n",
      tput[0], tput[1], tput[2]);
  if (tensor)
    std::printf("# ldmatrix.x4 + min: %.2f (the model: lat_shared_ld + 3 t_bank + lat_alu)\n",
                ldsm);
  if (sm80)
    std::printf(
        "# cp.async + wait_all + ld.shared + mad.wide: %.2f (the model: global_latency + "
        "2 lat_shared_ld + lat_fma)\n",
        cpasync);
  if (tensor && mma16 > mma8) {
    // m16n8k16 has twice m16n8k8's multiply-adds: their difference is 1024 / tensor_fmas cycles.
    const double fmas = 1024.0 / (mma16 - mma8);
    std::printf("tensor_fmas = %ld  # 1024 / (m16n8k16 %.2f - m16n8k8 %.2f)\n", round(fmas), mma16,
                mma8);
    std::printf("lat_tensor = %ld  # m16n8k8 %.2f - 1024 / tensor_fmas + 1\n",
                round(mma8 - 1024.0 / fmas + 1), mma8);
  }
  std::printf("[timing]\nt_bank = %ld  # (32-way %.2f - 1-way %.2f) / 31\n",
              round((lds32 - lds1) / 31), lds32, lds1);
  std::printf("native_position = %ld  # (32 lanes on one word %.2f - one per bank %.2f) / 31\n",
              round((atom_word - atom1) / 31), atom_word, atom1);
  check(cudaFree(out), "cudaFree");
  return 0;
}

// A program built against an installed smemsim (issue 30; docs/api.md): the bank conflicts of a
// warp reading a column of a 32 x 32 float tile, unpadded and padded, then builtin:reduction timed
// under the cycle model, both on volta-v100. Prints what it found; exits 1 if a number is not
// what the comments derive, 2 on an smemsim error.
#include <cstdio>

#include "smemsim/arch.hpp"
#include "smemsim/conflict.hpp"
#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/warp_access.hpp"
#include "smemsim/workloads.hpp"

int main() {
  using namespace smemsim;
  try {
    const Arch& arch = find_preset("volta-v100");
    // Lane i reads word stride * i. Stride 32 puts every lane in bank 0 (32 banks of 4 bytes): a
    // 32-way conflict; stride 33 (one word of padding per row) gives each lane its own bank.
    ConflictAnalyzer analyzer(arch);
    int degrees[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const int stride = 32 + k;
      WarpAccess wa;
      for (int lane = 0; lane < 32; ++lane) wa.set(lane, WordAddr(stride * lane));
      analyzer.load(wa, 0, 32);
      degrees[k] = analyzer.bank_degree();
      std::printf("column of a %d-word-wide tile: %d-way bank conflict\n", stride, degrees[k]);
    }
    // The suite's reduction (its PTX from $SMEMSIM_PTX_DIR or the installed share/smemsim/ptx).
    exec::BuiltinOptions options;
    options.size = 4096;
    exec::Workload w = exec::make_builtin("reduction", options);
    timing::GpuSim sim(w.module, exec::find_kernel(w.module, w.kernel), arch, w.launch, w.memory,
                       timing::TimingOptions{});
    const timing::TimingStats& stats = sim.run();
    const std::string mismatch = w.check ? w.check(w.memory) : std::string();
    std::printf("%s: %llu cycles, %llu warp-instructions, result %s\n", w.description.c_str(),
                static_cast<unsigned long long>(stats.cycles),
                static_cast<unsigned long long>(stats.warp_instructions),
                mismatch.empty() ? "matches the CPU reference" : mismatch.c_str());
    return degrees[0] == 32 && degrees[1] == 1 && mismatch.empty() && stats.cycles > 0 ? 0 : 1;
  } catch (const InputError& e) {
    std::fprintf(stderr, "smemsim: error: %s\n", e.what());
    return 2;
  }
}

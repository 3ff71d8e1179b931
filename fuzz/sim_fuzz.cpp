// libFuzzer target for the SIMT executor and the cycle-level model: a PTX text that parses is
// launched (every 64-bit parameter a 4 KiB buffer, every other one the number 1; 2 blocks of 64
// threads, 1 KiB of dynamic shared memory). The input's length picks how: bit 2 set, the functional
// executor alone with a 50,000 warp-instruction step limit (Executor::run, as `smemsim run`);
// otherwise a 2-SM GPU with a 20,000-cycle limit on one of five SM configurations (seed 004's
// unified, split and elastic pipelines; gto, lrr and the bank-aware schedulers; Fermi's replayed
// passes or cf11's held MEM0; hopper-h100's L1s and the L2 its SMs share). Memory is bounded by the
// executor's own limits (512 KiB of local memory per thread, 256 MiB of register file per CTA) and
// by libFuzzer's -malloc_limit_mb, which scripts/test.sh sets to 512. It must finish or throw
// InputError (a bad access, a kernel that does not finish, an unsupported launch). Anything else
// (another exception, a crash, a sanitizer report, a hang, an allocation past the limit) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smemsim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ptx::Module m = ptx::parse(text, "fuzz.ptx");
    if (m.kernels.empty()) return 0;
    const ptx::Kernel& k = m.kernels.front();
    exec::GlobalMemory mem;
    exec::Launch launch;
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    launch.dynamic_shared_bytes = 1024;
    for (const std::uint32_t p : k.params) {
      const ptx::Type t = k.symbols[p].type;
      if (t == ptx::Type::U64 || t == ptx::Type::B64 || t == ptx::Type::S64)
        launch.args.push_back(exec::Arg::buf(mem.add(
            {"b" + std::to_string(p), exec::ElemType::U32, std::vector<std::uint8_t>(4096)})));
      else
        launch.args.push_back(exec::Arg::integer(1));
    }
    if (size & 4) {
      exec::Executor ex(m, k, default_arch(), launch, mem);
      ex.set_max_steps(50000);
      ex.run();
      return 0;
    }
    Arch arch = default_arch();
    switch (size % 5) {
      case 1:
        arch = find_preset("cf11");
        arch.sm.pipeline = "elastic";
        arch.sm.scheduler = "bank-aware";
        break;
      case 2:
        arch.sm.pipeline = "split";
        arch.sm.scheduler = "lrr";
        break;
      case 3:
        arch.sm.pipeline = "elastic";
        arch.sm.scheduler = "bank-aware-fill";
        arch.sm.relaxed_commit = "in-order";
        break;
      case 4:  // caches: L1s and the L2 both SMs share (its slices, channels, atomics)
        arch = find_preset("hopper-h100");
        arch.sm.launch_cycles = 0;
        break;
      default:
        break;
    }
    arch.sm.count = 2;
    timing::TimingOptions o;
    o.max_cycles = 20000;
    timing::GpuSim sim(m, k, arch, launch, mem, o);
    sim.run();
  } catch (const smemsim::InputError&) {
    // expected for malformed input, bad accesses and kernels that do not finish
  } catch (...) {
    std::abort();
  }
  return 0;
}

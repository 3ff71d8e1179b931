// libFuzzer target for the launch-spec parser (docs/exec.md "Launch specs"): any TOML text is
// applied to a kernel with a pointer, an int and a float parameter, under a 16 MiB buffer budget
// (so that a valid spec cannot exceed libFuzzer's memory limit). It must apply or raise InputError:
// a crash, a hang, an unbounded allocation or another exception is a bug.
#include <cstdint>
#include <string_view>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smemsim;
  static const ptx::Module module = ptx::parse(R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n, .param .f32 x)
{
  ret;
}
)",
                                               "k.ptx");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  exec::Workload w;
  w.module = module;
  w.kernel = "k";
  bool grid = false, block = false;
  try {
    exec::apply_launch_spec_text(text, "/nonexistent/fuzz.toml", w, grid, block,
                                 std::uint64_t{16} << 20);
  } catch (const InputError&) {
  }
  return 0;
}

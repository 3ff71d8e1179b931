// libFuzzer target for the PTX front-end: any byte string must either parse or throw InputError.
// Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const smemsim::ptx::Module m = smemsim::ptx::parse(text, "fuzz.ptx");
    // Touch the IR the way an executor would: every printed instruction must be well formed.
    for (const auto& k : m.kernels)
      for (const auto& ins : k.code) (void)smemsim::ptx::to_string(k, ins);
  } catch (const smemsim::InputError&) {
    // expected for malformed input
  } catch (...) {
    std::abort();
  }
  return 0;
}

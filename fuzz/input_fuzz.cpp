// libFuzzer target for smemsim's text inputs: the trace reader, the --pattern LIST parser, the arch
// TOML loader and hash specs. The first byte picks the parser. Any input must either parse or raise
// InputError: a crash, a hang or another exception is a bug.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <unistd.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/pattern_list.hpp"
#include "smemsim/trace.hpp"

using namespace smemsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0: {
        static const std::string path = "/tmp/smemsim_fuzz_" + std::to_string(getpid()) + ".trace";
        FILE* f = std::fopen(path.c_str(), "wb");
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        TraceReader r(path, {default_arch().memory_words(), 32});
        AccessEvaluator ev(default_arch());
        WarpAccess wa;
        while (r.next(wa)) ev.evaluate(wa);
        break;
      }
      case 1: {
        AccessEvaluator ev(default_arch());
        ev.evaluate(parse_pattern_list(text, Op::Atomic, 32, default_arch().memory_words()));
        break;
      }
      case 2: {
        const Arch a = parse_arch_toml(text, "fuzz.toml", default_arch());
        AccessEvaluator ev(a);
        break;
      }
      case 3: {
        auto fn = make_index_function(text, {5, 14});
        for (std::uint32_t x = 0; x < 64; ++x)
          if (fn->index(x) >= 32) __builtin_trap();
        break;
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}

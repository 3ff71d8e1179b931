// The registry of index-function families (DESIGN.md principle 1: one explicit list, no static
// self-registration). A new family adds one entry here.
#include <fmt/format.h>

#include "fixed_hashes.hpp"
#include "smemsim/error.hpp"
#include "smemsim/hash_families.hpp"
#include "smemsim/index_function.hpp"
#include "util/names.hpp"

namespace smemsim {

const std::vector<IndexFamily>& index_families() {
  static const std::vector<IndexFamily> families = {
      {"mod", "mod", "low m bits of the address: the conventional addr mod 2^m", "seed 000 §II",
       make_mod},
      {"xor", "xor", "bits [0,m) XOR bits [m,2m) of the address", "seed 000 §IV Table I; 002 §7.1",
       make_xor},
      {"add", "add", "(bits [0,m) + bits [m,2m)) mod 2^m", "seed 000 §IV Table I", make_add},
      {"tma32", "tma32",
       "Hopper TMA 32B swizzle: word bit 2 ^= bit 5, then the low m bits (4-byte words)",
       "cuda.h CU_TENSOR_MAP_SWIZZLE_32B (issue 46)",
       [](std::string_view a, const IndexGeometry& g) { return make_tma(32, a, g); }},
      {"tma64", "tma64", "Hopper TMA 64B swizzle: word bits 2-3 ^= bits 5-6, then the low m bits",
       "cuda.h CU_TENSOR_MAP_SWIZZLE_64B (issue 46)",
       [](std::string_view a, const IndexGeometry& g) { return make_tma(64, a, g); }},
      {"tma128", "tma128",
       "Hopper TMA 128B swizzle: word bits 2-4 ^= bits 5-7, then the low m bits",
       "cuda.h CU_TENSOR_MAP_SWIZZLE_128B (issue 46)",
       [](std::string_view a, const IndexGeometry& g) { return make_tma(128, a, g); }},
      {"bv", "bv:k=K", "bit-vector permutation: address bits K..K+m-1 (0 <= K <= n-m)",
       "seed 002 §4.1", make_bv},
      {"bvxor", "bvxor:k1=A,k2=B,mask=M", "bit-vector XOR: (a >> A) ^ ((a >> B) & M), M < 2^m",
       "seed 002 §4.2", make_bvxor},
      {"bits", "bits:i0,i1,...", "bitwise permutation: index bit j = address bit i_j (m distinct)",
       "seed 002 §4.3", make_bits},
      {"bitsxor", "bitsxor:0^3,4,1^6,...",
       "bitwise XOR: index bit j = one address bit or the XOR of two", "seed 002 §4.4, Table 3",
       make_bitsxor},
      {"xormask", "xormask:0x..,0x..,...",
       "general XOR matrix: index bit j = parity(a & mask_j); any XOR-based function",
       "beyond seed 002 (its XOR-based class, §4 / Fig. 3)", make_xormask},
  };
  return families;
}

std::unique_ptr<IndexFunction> make_index_function(std::string_view spec, const IndexGeometry& g) {
  if (g.out_bits < 0 || g.out_bits > 24)
    throw InputError(
        fmt::format("hash spec '{}': index width {} bits is out of range", spec, g.out_bits));
  const auto colon = spec.find(':');
  const std::string_view family = spec.substr(0, colon);
  const std::string_view args =
      colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  if (const IndexFamily* f = find_named(index_families(), family)) return f->make(args, g);
  throw InputError(fmt::format("unknown hash family '{}' in spec '{}' (known: {})", family, spec,
                               known_names(index_families())));
}

}  // namespace smemsim

// The hash002 study's benchmarks (seed 002 Table 5 transcribed, and the conflict-free five of §7.1)
// with the inputs they run on, the Table 5 rows we do not reproduce, and the hash configurations
// compared (hash002.hpp).
#include <fmt/format.h>

#include "hash002.hpp"
#include "smemsim/error.hpp"

namespace smemsim::study::h002 {
namespace {

using exec::BuiltinOptions;

// Input sizes: --quick keeps the tests' runs small; the full sizes give every SM of the GTX 480
// preset several CTAs, so that whole-kernel cycles are not only one CTA's latency.
void size_conv(BuiltinOptions& o, bool q) {
  o.width = q ? 256 : 1024;
  o.height = q ? 64 : 256;
}
void size_grid64(BuiltinOptions& o, bool q) {
  o.grid = exec::Dim3{q ? 8u : 64u, 1, 1};
}
void size_fwt(BuiltinOptions& o, bool q) {
  o.grid = exec::Dim3{q ? 2u : 32u, 1, 1};
}
// One CTA per SM on every preset the study uses (K20: 13 SMs): with two histogram CTAs on one SM
// the lock loop under the gto scheduler can starve (docs/studies.md, hash002).
void size_hist(BuiltinOptions& o, bool q) {
  o.grid = exec::Dim3{q ? 8u : 13u, 1, 1};
}
void size_lavamd(BuiltinOptions& o, bool q) {
  o.size = q ? 2 : 3;
}
void size_reduction(BuiltinOptions& o, bool q) {
  o.size = q ? 4096 : 65536;
}
void size_backprop(BuiltinOptions& o, bool q) {
  o.size = q ? 1024 : 16384;
}
void size_image(BuiltinOptions& o, bool q) {
  o.width = o.height = q ? 64 : 256;
}
void size_scalar(BuiltinOptions& o, bool q) {
  o.grid = exec::Dim3{q ? 16u : 64u, 1, 1};
}
void size_matmul(BuiltinOptions& o, bool q) {
  o.width = q ? 64 : 256;
}

}  // namespace

const std::vector<Bench>& benches() {
  // Table 5 transcribed: bit-vector XOR (k1, k2, mask) and the bitwise columns, bank bit 0 first.
  static const std::vector<Bench> b = {
      {"conv-1",
       "conv",
       "rows",
       "",
       false,
       0,
       "separable convolution, rows (s[4][160])",
       {"Analysis", "bvxor:k1=0,k2=1,mask=16", "bits:0,1,2,3,5", "bits:0,1,2,3,5",
        "bitsxor:0,0^1,0^2,0^3,0^5", "bitsxor:0,1,2,3,5"},
       size_conv},
      {"conv-2",
       "conv",
       "cols",
       "",
       false,
       0,
       "separable convolution, columns (s[16][80])",
       {"Analysis", "bvxor:k1=0,k2=4,mask=14", "bits:0,4,5,6,7", "bits:0,4,5,6,7",
        "bitsxor:0,0^4,0^5,0^6,0^7", "bitsxor:0,4,5,6,7"},
       size_conv},
      {"dct8x8-1",
       "dct8x8",
       "dct_nopad",
       "",
       false,
       0,
       "8x8 DCT, float tile of 32-word rows",
       {"Analysis", "bvxor:k1=0,k2=5,mask=7", "bits:3,4,0,1,2", "bits:3,4,0,1,2",
        "bitsxor:0^3,0^4,0^5,1^6,2^7", "bitsxor:3,4,0^5,1^6,2^7"},
       +[](BuiltinOptions& o, bool q) { o.width = o.height = q ? 64 : 512; }},
      {"dct8x8-2",
       "dct8x8",
       "idct_nopad",
       "",
       false,
       0,
       "8x8 IDCT, float tile of 32-word rows",
       {"Analysis", "bvxor:k1=0,k2=5,mask=7", "bits:3,4,0,1,2", "bits:3,4,0,1,2",
        "bitsxor:0^3,0^4,0^5,1^6,2^7", "bitsxor:3,4,0^5,1^6,2^7"},
       +[](BuiltinOptions& o, bool q) { o.width = o.height = q ? 64 : 512; }},
      {"dwtHaar1D",
       "haar",
       "",
       "",
       false,
       0,
       "1-D Haar decomposition of 512 samples per block",
       {"Trace", "bvxor:k1=0,k2=5,mask=15", "bits:4,3,2,1,5", "bits:4,3,2,1,5",
        "bitsxor:3^8,2^7,1^6,0^5,0^4", "bitsxor:3^8,2^7,1^6,0^5,4"},
       size_grid64},
      {"FFT-1",
       "fft",
       "dit",
       "",
       false,
       0,
       "radix-2 DIT FFT of 512 points, bit-reversed load",
       {"Trace", "bvxor:k1=1,k2=10,mask=1", "bits:10,5,1,2,3", "bits:10,5,4,3,2",
        "bitsxor:1^2,1^3,1^4,1^5,1^10", "bitsxor:1^2,1^3,1^4,1^5,1^10"},
       size_grid64},
      {"FFT-2",
       "fft",
       "stockham",
       "",
       false,
       0,
       "radix-2 Stockham FFT of 512 points",
       {"Trace", "bvxor:k1=1,k2=0,mask=0", "bits:1,2,3,4,5", "bits:1,2,3,4,5",
        "bitsxor:0^1,0^2,0^3,0^4,0^5", "bitsxor:1,2,3,4,5"},
       size_grid64},
      {"FWT",
       "fwt",
       "",
       "",
       false,
       0,
       "fast Walsh transform of 2,048 floats per block",
       {"Analysis", "bvxor:k1=0,k2=2,mask=31", "bits:0,1,2,3,4", "bits:4,3,2,1,0",
        "bitsxor:0^2,0^3,0^4,0^5,1^6", "bitsxor:0^2,0^3,0^4,0^5,1^6"},
       size_fwt},
      {"hist64",
       "histogram",
       "",
       "",
       true,
       64,
       "64-bin histogram, R = 32 sub-histograms",
       {"Trace", "bvxor:k1=6,k2=4,mask=1", "bits:6,7,8,9,10", "bits:8,7,6,10,9",
        "bitsxor:6,6^7,6^8,7,7^8", "bitsxor:8,7,6,10,9"},
       size_hist},
      {"hist256",
       "histogram",
       "",
       "",
       true,
       256,
       "256-bin histogram, R = 32 sub-histograms",
       {"Trace", "bvxor:k1=0,k2=6,mask=28", "bits:8,9,10,11,12", "bits:0,1,2,3,4",
        "bitsxor:4^8,3^9,2^12,1^10,0^7", "bitsxor:4^8,3^9,2^11,0^10,1^2"},
       size_hist},
      {"lavaMD",
       "lavamd",
       "",
       "",
       false,
       0,
       "particle forces in 2^3 boxes of 100, doubles",
       {"Analysis", "bvxor:k1=1,k2=6,mask=3", "bits:3,4,5,6,7", "bits:3,4,5,6,7",
        "bitsxor:0^3,0^4,0^5,1^6,2^7", "bitsxor:3,4,5,1^6,2^7"},
       size_lavamd,
       false},
      {"LUD-1",
       "lud",
       "",
       "lud_diagonal",
       false,
       0,
       "LU of the diagonal 16x16 tile",
       {"Analysis", "bvxor:k1=0,k2=5,mask=7", "bits:0,1,2,3,4", "bits:0,1,2,3,7",
        "bitsxor:0^4,1^5,2^6,3^7,0^1", "bitsxor:0^4,1^5,2^6,3^7,13"},
       +[](BuiltinOptions& o, bool q) { o.size = q ? 32 : 128; }},
      {"LUD-2",
       "lud",
       "",
       "lud_perimeter",
       false,
       0,
       "LU of the perimeter tiles",
       {"Analysis", "bvxor:k1=0,k2=5,mask=15", "bits:4,0,1,2,3", "bits:4,0,1,2,3",
        "bitsxor:0^4,1^5,2^6,3^7,0^8", "bitsxor:4,0^5,1^6,2^7,3^8"},
       +[](BuiltinOptions& o, bool q) { o.size = q ? 32 : 128; }},
      {"matrix scan",
       "scan_matrix",
       "",
       "",
       false,
       0,
       "block scan of a 256 x 8 int matrix",
       {"Analysis", "bvxor:k1=0,k2=5,mask=7", "bits:3,4,5,6,7", "bits:3,4,7,6,5",
        "bitsxor:0^3,0^4,0^5,1^6,2^7", "bitsxor:3,4,0^5,1^6,2^7"},
       size_grid64},
      {"MRI-grid-1",
       "scan_blelloch",
       "",
       "",
       false,
       0,
       "gridding's bin-offset scan (Blelloch)",
       {"Trace", "bvxor:k1=0,k2=5,mask=31", "bits:4,3,5,2,1", "bits:4,3,2,5,1",
        "bitsxor:4^9,3^8,2^7,1^6,0^5", "bitsxor:0^5,1^6,2^7,3^8,4^9"},
       size_grid64},
      {"MRI-grid-2",
       "grid3d",
       "",
       "",
       false,
       0,
       "gridding onto 16^3 cells, samples as AoS",
       {"Trace", "bvxor:k1=1,k2=6,mask=1", "bits:5,4,3,2,6", "bits:2,3,4,5,1",
        "bitsxor:1^6,0^5,0^4,4^5,0^3", "bitsxor:2,3,4,5,1^6"},
       +[](BuiltinOptions& o, bool q) {
         o.width = q ? 8 : 16;
         o.size = q ? 256 : 1024;
       }},
      {"NW-1",
       "nw",
       "",
       "nw_upper",
       false,
       0,
       "Needleman-Wunsch, upper-left tile diagonals",
       {"Trace", "bvxor:k1=0,k2=5,mask=7", "bits:4,5,6,1,0", "bits:4,5,6,7,0",
        "bitsxor:1^4,2^5,0^6,4^5,3^7", "bitsxor:0^5,2^4,3^6,1^7,4"},
       +[](BuiltinOptions& o, bool q) { o.size = q ? 32 : 128; }},
      {"NW-2",
       "nw",
       "",
       "nw_lower",
       false,
       0,
       "Needleman-Wunsch, lower-right tile diagonals",
       {"Trace", "bvxor:k1=0,k2=5,mask=15", "bits:4,5,6,1,0", "bits:4,5,6,7,0",
        "bitsxor:1^4,2^5,0^6,4^5,3^7", "bitsxor:1^4,2^5,3^6,0^7,4"},
       +[](BuiltinOptions& o, bool q) { o.size = q ? 32 : 128; }},
      {"reduction",
       "reduction",
       "interleaved",
       "",
       false,
       0,
       "interleaved block sum (2 S tx)",
       {"Trace", "bvxor:k1=0,k2=5,mask=7", "bits:4,3,5,2,1", "bits:4,3,2,1,5",
        "bitsxor:2^7,1^6,0^5,0^4,4^5", "bitsxor:2^7,1^6,0^5,4,3"},
       size_reduction},
      {"transpose",
       "transpose",
       "naive",
       "",
       false,
       0,
       "16x16-tile transpose",
       {"Analysis", "bvxor:k1=0,k2=4,mask=14", "bits:0,4,1,2,3", "bits:0,4,1,2,3",
        "bitsxor:0,0^4,1^4,1^5,2^6", "bitsxor:0,4,1^5,2^6,3^7"},
       +[](BuiltinOptions& o, bool q) { o.width = o.height = q ? 64 : 512; }},
      // §7.1's conflict-free five, for the cost of the hash's extra cycle.
      {"backprop",
       "backprop",
       "",
       "",
       false,
       0,
       "back propagation, layer forward",
       {},
       size_backprop},
      {"srad", "srad", "", "", false, 0, "srad, one iteration (two kernels)", {}, size_image},
      {"hotspot", "hotspot", "", "", false, 0, "hotspot, two explicit steps", {}, size_image},
      {"scalarProd",
       "scalar_prod",
       "",
       "",
       false,
       0,
       "scalar product of 4,096-float pairs",
       {},
       size_scalar},
      {"matrixMul", "matmul", "", "", false, 0, "tiled matrix multiply", {}, size_matmul},
  };
  return b;
}

const Bench& find_bench(std::string_view name) {
  for (const Bench& b : benches())
    if (name == b.name) return b;
  std::string known;
  for (const Bench& b : benches()) known += (known.empty() ? "" : ", ") + std::string(b.name);
  throw InputError(
      fmt::format("study parameter 'benchmarks': unknown '{}' (known: {})", name, known));
}

const std::vector<std::pair<std::string, std::string>>& missing() {
  static const std::vector<std::pair<std::string, std::string>> m = {
      {"MRI-grid-3",
       "Parboil's third gridding kernel: which one the paper traced is not stated; "
       "its Table 5 row equals MRI-grid-2's"},
      {"MRI-grid-4",
       "a fourth Parboil gridding kernel with its own pattern (k1 = 0, k2 = 5, "
       "mask = 3); not identified from the paper's text"},
  };
  return m;
}

const std::vector<Config>& configs() {
  static const std::vector<Config> c = {
      {"mod", "", "", false, nullptr},
      {"xor", "", "", false, nullptr},
      {"bvxor", "bvxor", "exhaustive", true, &Table5::bvxor},
      {"bits-gh", "bits", "givargis", true, &Table5::bits_gh},
      {"bits-mih", "bits", "mih", true, &Table5::bits_mih},
      {"bitsxor-gh", "bitsxor", "givargis", true, &Table5::bitsxor_gh},
      {"bitsxor-mih", "bitsxor", "mih", true, &Table5::bitsxor_mih},
      {"sw", "", "", false, nullptr},
  };
  return c;
}

}  // namespace smemsim::study::h002

// Launchable workloads for the executor (docs/exec.md): the built-in drivers of the kernel suite
// (kernels/*.cu), each generating its seeded input and checking the result against a CPU
// reference, and launch specs (TOML) for any PTX kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::exec {

struct Output {
  std::string buffer;
  std::string path;  // .bin: raw little endian; otherwise text, one element per line
};

struct Workload {
  std::string name;  // "builtin:histogram" or the PTX file
  ptx::Module module;
  std::string kernel;
  Launch launch;
  GlobalMemory memory;
  std::vector<Output> outputs;
  std::string description;  // one line: what runs with which parameters
  // Compares the memory after the run with the CPU reference: "" when it matches, else a
  // description of the first mismatches. Empty function: no reference (launch specs).
  std::function<std::string(const GlobalMemory&)> check;
  std::string tolerance;  // how floats are compared ("" for bit-exact)
  // A line the kernel's own output says after the run (e.g. atomic_bench's clock() cycles); empty
  // function: none.
  std::function<std::string(const GlobalMemory&)> report;
  // Module variables a launch spec initialized ([symbols.NAME], a __constant__ or __device__
  // variable by its CUDA name): the PTX name and "spec:line" (check_symbol_inits).
  struct SymbolInit {
    std::string name, where;
  };
  std::vector<SymbolInit> symbol_inits;
  // A multi-launch pipeline ([[launch]] tables of a launch spec): the launches, in order, on the
  // same buffers (a histogram then its merge, a three-pass scan). Empty: the one launch above.
  struct Step {
    std::string kernel;
    Launch launch;
    std::string where;  // "spec:line" of its [[launch]] table
  };
  std::vector<Step> pipeline;
  // The spec's warm_l2: the cycle model starts every launch with its buffers in the L2
  // (timing::TimingOptions::warm_l2, as sim --warm-l2 does).
  bool warm_l2 = false;
  // What reading the spec adjusted, as a GPU would ("spec:line: texture 'img': ..."): the commands
  // print each as a note on stderr.
  std::vector<std::string> notes;
};

// `smemsim launch init`: a commented launch spec for `kernel` of `module` (read from `ptx_path`)
// that runs as written: buffers for pointer parameters typed from the C++ signature, placeholder
// scalars, commented [symbols] entries for the module variables it reads.
std::string launch_spec_skeleton(const ptx::Module& module, const ptx::Kernel& kernel,
                                 const std::string& ptx_path,
                                 const std::string& spec_path = "SPEC.toml");

// The element type (a spec type name: "f32", "s32", ...) that parameter `index` of a kernel points
// to, read from its demangled C++ signature ("scale(float*, int)": parameter 0 is "f32"), with the
// C++ type it was read from; {"", ""} when the name is not mangled C++ or the parameter is no
// pointer to a known type.
struct PointeeType {
  std::string spec, cpp;
};
PointeeType pointer_parameter_type(const std::string& kernel_name, std::size_t index);

// After the kernel is known: every [symbols.NAME] entry names a variable `kernel` uses (an entry it
// never reads would be silently ignored: InputError naming the spec's line). Returns the
// __constant__ variables the kernel reads that have neither an initializer in the PTX nor a spec
// entry (they read zeros, as constants never copied with cudaMemcpyToSymbol would not).
std::vector<std::string> check_symbol_inits(const Workload& w, const ptx::Kernel& kernel);
// The same for a pipeline: an entry must be read by one of `kernels`.
std::vector<std::string> check_symbol_inits(const Workload& w,
                                            const std::vector<const ptx::Kernel*>& kernels);

// Options of the built-in drivers; each driver reads the ones it needs (0 / empty: its default).
struct BuiltinOptions {
  std::uint32_t bins = 256;        // histogram
  std::uint32_t replication = 0;   // histogram, kmeans, hough (0: driver default)
  std::string mapping = "cyclic";  // histogram: cyclic | block
  std::uint32_t padding = 0;       // histogram
  // Input image: gradient | noise | blobs | an image file | a cached photograph's name. Empty: the
  // driver's default (histogram: gradient; hough: random lines instead of an image's edges).
  std::string image;
  std::uint32_t width = 0, height = 0;  // image or matrix size
  std::uint32_t size = 0;               // elements / objects
  std::string variant;            // transpose: naive|padded; reduction: interleaved|sequential
  std::uint32_t log2n = 0;        // fwt
  std::uint32_t k = 0, dims = 0;  // kmeans
  std::uint32_t conflicts = 32;   // atomic_bench (seed 000 Eq. 1)
  std::uint32_t stride = 0;       // atomic_bench, genindex
  std::uint32_t iterations = 0;   // atomic_bench
  std::uint32_t way = 32;         // genindex
  std::uint32_t repeat = 0;       // genindex
  std::uint32_t buckets = 0;      // tm_hashtable (0: 32)
  // Seed 002 §7.2's software hash (k2, mask): run the kernels' _sw variants, whose shared indices
  // go through i ^ ((i >> k2) & mask) (kernels/smemsim_swhash.cuh). None: the baseline kernels.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> software_hash;
  std::uint64_t seed = 1;
  std::optional<Dim3> grid, block;  // overrides of the driver's launch shape
  // What the driver's inputs, their buffers and its reference may take together (--max-memory),
  // checked before any is made.
  std::uint64_t max_bytes = std::uint64_t{4} << 30;
};

// histogram, transpose, reduction, fwt, kmeans, hough, atomic_bench, genindex, aes, dct8x8,
// tm_hashtable, tm_kmeans, tm_genetic, and seed 002's benchmarks: conv, haar, fft, scan_matrix,
// scan_blelloch, grid3d, lud, nw, lavamd, and the conflict-free scalar_prod, matmul, srad,
// hotspot, backprop; the tensor-core gemm and attention (sm_80 PTX).
const std::vector<std::string>& builtin_names();
// The driver options builtin `name` reads, by their CLI names without "--" ("width", "grid", ...;
// --swhash and --max-memory are not listed: they apply to every builtin); empty for no builtin.
const std::vector<std::string>& builtin_options(const std::string& name);
// `name` without the "builtin:" prefix. Loads <ptx_dir>/<file>.ptx (ptx_dir "": suite_ptx_dir());
// throws InputError when the PTX is absent or an option is impossible.
Workload make_builtin(const std::string& name, const BuiltinOptions& o,
                      const std::string& ptx_dir = {});

// The folder of the kernel suite's PTX, shipped in the repository as kernels/ptx/ (regenerated by
// scripts/gen-ptx.sh): $SMEMSIM_PTX_DIR when set; else the source tree's kernels/ptx when it is
// there; else <prefix>/share/smemsim/ptx beside an installed binary (<prefix>/bin/smemsim).
std::string suite_ptx_dir();
// <dir>/<stem>.ptx parsed; an InputError naming the file and how to make it when it is missing.
ptx::Module load_suite_ptx(const std::string& dir, const std::string& stem, const std::string& who);

// A one-line warning when the module's .target (sm_NN) is newer than the GPU `arch` models (the
// kernel may use instructions or a shared-memory size that GPU lacks), with the preset to choose;
// "" when it is not, or for a design that is no NVIDIA GPU.
std::string target_warning(const ptx::Module& m, const Arch& arch);

// Seed 002 §7.2's software hash: every launch of `w` (each pipeline step) runs kernel K's
// variant K_sw, whose shared-memory indices go through i ^ ((i >> k2) & mask)
// (kernels/smemsim_swhash.cuh). K_sw takes K's parameters with k2 and mask last: they are appended
// to the arguments, or set when K already ends with them. InputError when a kernel has no _sw
// variant or k2 is not in 1..31 or mask above 31 (the hash would not be a bijection on groups of
// 32 words).
void apply_software_hash(Workload& w, std::uint32_t k2, std::uint32_t mask);

// The kernel named `name`, or an InputError listing the module's kernels.
const ptx::Kernel& find_kernel(const ptx::Module& m, const std::string& name);

// Launch spec (TOML, docs/exec.md): buffers, arguments, dynamic shared memory, outputs, and
// optionally kernel, grid and block. Fills `w` (memory, launch.args, dynamic shared bytes,
// outputs; kernel/grid/block when the spec has them). Throws InputError "spec:line: ...".

// `max_bytes`: what the spec's buffers may take together (default 4 GiB; the fuzz target uses
// less).
inline constexpr std::uint64_t kLaunchSpecBytes = std::uint64_t{4} << 30;
void apply_launch_spec_text(std::string_view text, const std::string& origin, Workload& w,
                            bool& has_grid, bool& has_block,
                            std::uint64_t max_bytes = kLaunchSpecBytes);
void apply_launch_spec(const std::string& path, Workload& w, bool& has_grid, bool& has_block,
                       std::uint64_t max_bytes = kLaunchSpecBytes);

// Writes the workload's outputs after a run. Throws InputError if a file cannot be written.
void write_outputs(const Workload& w);
// One element of a buffer as text.
std::string element_string(const Buffer& b, std::uint64_t i);

}  // namespace smemsim::exec

#include "launch_options.hpp"

#include "cli_common.hpp"
#include "embed.hpp"
#include "util/file.hpp"

#include <fmt/format.h>

#include <exception>

#include <algorithm>
#include <filesystem>

#include "smemsim/error.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::cli {

void add_launch_options(CLI::App* cmd, LaunchOptions& o) {
  cmd->add_option("target", o.target,
                  "FILE.ptx, or builtin:NAME (histogram, transpose, reduction, "
                  "fwt, kmeans, hough, atomic_bench, genindex, aes, dct8x8, tm_hashtable, "
                  "tm_kmeans, tm_genetic; seed 002's conv, haar, fft, scan_matrix, scan_blelloch, "
                  "grid3d, lud, nw, lavamd, scalar_prod, matmul, srad, hotspot, backprop; the "
                  "tensor-core gemm and attention)")
      ->required();
  cmd->add_option("--kernel", o.kernel, "kernel (.entry) name in the PTX file");
  o.grid_option = cmd->add_option("--grid", o.grid, "grid dimensions X[,Y[,Z]]");
  o.block_option = cmd->add_option("--block", o.block, "block dimensions X[,Y[,Z]]");
  cmd->add_option("--launch", o.launch,
                  "launch spec TOML: buffers, arguments, dynamic shared "
                  "memory, outputs (docs/exec.md)");
  cmd->add_option("--ptx-dir", o.ptx_dir,
                  "folder of the kernel suite PTX for builtins (default: the shipped kernels/ptx)")
      ->envname("SMEMSIM_PTX_DIR");
  exec::BuiltinOptions& b = o.builtin;
  auto* g = cmd->add_option_group("builtin driver options");
  g->add_option("--bins", b.bins, "histogram: bins (1..256)")->capture_default_str();
  g->add_option("--replication", b.replication, "histogram/kmeans/hough: copies of the vote space")
      ->check(positive());
  g->add_option("--mapping", b.mapping, "histogram: cyclic or block (seed 001 Eqs. 1-2)")
      ->capture_default_str();
  g->add_option("--padding", b.padding, "histogram: words of padding per copy")
      ->capture_default_str();
  g->add_option("--image", b.image,
                "histogram input (default gradient) or hough input, whose Sobel edges are voted "
                "(default: random lines): gradient, noise, blobs, an image FILE, or a NAME from "
                "scripts/fetch-images.sh (camera, moon, ...)");
  g->add_option("--width", b.width, "image or matrix width")->check(positive());
  g->add_option("--height", b.height, "image or matrix height")->check(positive());
  g->add_option("--size", b.size,
                "reduction elements / kmeans objects / aes 16-byte blocks / tm_genetic solutions "
                "(default 32)")
      ->check(positive());
  g->add_option("--variant", b.variant,
                "transpose: naive|padded; reduction: interleaved|sequential; aes: encrypt|decrypt; "
                "dct8x8: dct|idct|dct_short|idct_short, each also _nopad; tm_hashtable, tm_kmeans, "
                "tm_genetic: tx|serial; matmul: tiled|naive");
  g->add_option("--log2n", b.log2n, "fwt: log2 of the segment length (default 11)")
      ->check(positive());
  g->add_option("--k", b.k, "kmeans: clusters (default 8); tm_kmeans: centers (default 32)")
      ->check(positive());
  g->add_option("--dims", b.dims, "kmeans: dimensions (default 2)")->check(positive());
  g->add_option("--conflicts", b.conflicts,
                "atomic_bench: threads in the conflict (seed 000 Eq. 1)")
      ->capture_default_str();
  g->add_option("--stride", b.stride, "atomic_bench/genindex: stride in words")
      ->capture_default_str();
  g->add_option("--iterations", b.iterations, "atomic_bench: atomics per thread (default 4)")
      ->check(positive());
  g->add_option("--way", b.way, "genindex: threads in the strided group")->capture_default_str();
  g->add_option("--repeat", b.repeat, "genindex: pointer-chase steps (default 8)")
      ->check(positive());
  g->add_option("--buckets", b.buckets,
                "tm_hashtable: buckets (seed 003 §5.1.1: 2..256; default 32)")
      ->check(positive());
  g->add_option("--swhash", o.software_hash,
                "K2,MASK: run the kernel's software-hash variant (seed 002 §7.2): every shared "
                "index i becomes i ^ ((i >> K2) & MASK) (e.g. from `hash search --family bvxor "
                "--bijective`, k1 = 0)");
  g->add_option("--seed", b.seed, "seed of the generated input")->capture_default_str();
  for (const CLI::Option* opt : g->get_options()) o.driver_options.push_back(opt);
  cmd->add_option("--max-memory", o.max_memory,
                  "what a launch spec's buffers, or a builtin's inputs, may take together (e.g. "
                  "512M, 16G); checked before any is allocated")
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "machine-readable output on stdout");
  cmd->add_flag("--stats", o.stats,
                "print the speed on stderr: thread- and warp-instructions per second (and, for "
                "sim, simulated cycles per second and the share of the SMs' busy cycles ticked "
                "ahead)");
}

ptx::Module read_ptx(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.extension() == ".cu" || p.extension() == ".cuh")
    throw InputError(fmt::format(
        "{} is CUDA source; smemsim reads the PTX nvcc makes of it: nvcc -ptx -lineinfo "
        "-arch=sm_75 {} -o {}",
        path, path, p.filename().replace_extension(".ptx").string()));
  return ptx::parse_file(path);
}

namespace {

// "K2,MASK" (decimal or 0x hex) of --swhash.
std::pair<std::uint32_t, std::uint32_t> parse_software_hash(const std::string& text) {
  const auto comma = text.find(',');
  const auto num = [&](const std::string& part) -> std::uint32_t {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(part, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v > 0xffffffffUL)
      throw InputError(fmt::format("--swhash: '{}' is not K2,MASK (two numbers)", text));
    return static_cast<std::uint32_t>(v);
  };
  if (comma == std::string::npos)
    throw InputError(fmt::format("--swhash: '{}' is not K2,MASK (two numbers)", text));
  return {num(text.substr(0, comma)), num(text.substr(comma + 1))};
}

// A launch spec with [[launch]] tables: every kernel resolved by name (its mangled name kept), the
// first launch as the workload's kernel and launch.
exec::Workload prepare_pipeline(const LaunchOptions& o, exec::Workload w) {
  if (!o.kernel.empty() || !o.grid.empty() || !o.block.empty())
    throw InputError(
        fmt::format("{}: --kernel, --grid and --block apply to one launch; this spec "
                    "has {} [[launch]] tables",
                    o.launch, w.pipeline.size()));
  std::vector<const ptx::Kernel*> kernels;
  std::string names;
  for (exec::Workload::Step& s : w.pipeline) {
    try {
      const ptx::Kernel& k = exec::find_kernel(w.module, s.kernel);
      s.kernel = k.name;
      kernels.push_back(&k);
    } catch (const InputError& e) {
      throw InputError(s.where + e.what());
    }
    names += (names.empty() ? "" : ", ") + ptx::demangle(s.kernel);
  }
  w.kernel = w.pipeline.front().kernel;
  w.launch = w.pipeline.front().launch;
  for (const std::string& c : exec::check_symbol_inits(w, kernels))
    note(
        fmt::format("the pipeline reads __constant__ '{}', which has no initializer in the PTX "
                    "and no [symbols.{}] entry in {}: it reads zeros",
                    c, c, o.launch));
  w.description =
      fmt::format("{} launches ({}) from {} with {}", w.pipeline.size(), names, o.target, o.launch);
  return w;
}

}  // namespace

namespace {

// A driver option given where it does not apply is an error naming it (issue 28): for a builtin,
// one its driver does not read; for a PTX file, any (its launch spec says what they would).
void check_driver_options(const LaunchOptions& o) {
  const bool builtin = o.target.starts_with("builtin:");
  const std::string name = builtin ? o.target.substr(8) : "";
  const std::vector<std::string>& known = exec::builtin_options(name);
  if (builtin && known.empty()) return;  // an unknown builtin: make_builtin names the known ones
  std::vector<const CLI::Option*> given = o.driver_options;
  if (builtin) given.insert(given.end(), {o.grid_option, o.block_option});
  for (const CLI::Option* opt : given) {
    if (!opt || opt->count() == 0) continue;
    const std::string flag = opt->get_name();  // "--bins"
    const std::string bare = flag.substr(2);
    if (bare == "swhash") continue;  // apply_software_hash says which kernels have a variant
    if (!builtin)
      throw InputError(fmt::format(
          "{} applies to builtins, not to a PTX file (its launch spec gives the sizes and inputs)",
          flag));
    if (std::find(known.begin(), known.end(), bare) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "--" : ", --") + k;
      throw InputError(fmt::format("{} does not apply to {} (its options: {})", flag, o.target,
                                   list.empty() ? "none" : list));
    }
  }
}

}  // namespace

void check_outputs(std::vector<std::pair<std::string, std::string>> outs, const exec::Workload* w,
                   const LaunchOptions* o) {
  if (w)
    for (const exec::Output& b : w->outputs)
      outs.emplace_back(fmt::format("buffer '{}''s write", b.buffer), b.path);
  if (const std::string clash = clashing_outputs(outs); !clash.empty()) throw InputError(clash);
  if (o) {
    std::vector<std::pair<std::string, std::string>> ins;
    if (!o->target.starts_with("builtin:")) ins.emplace_back("PTX file", o->target);
    if (!embedding() || embedding()->spec_text.empty()) ins.emplace_back("launch spec", o->launch);
    if (const std::string over = output_over_input(outs, ins); !over.empty())
      throw InputError(over);
  }
}

namespace {

exec::Workload prepare(const LaunchOptions& o) {
  const std::uint64_t budget = parse_size(o.max_memory, "--max-memory");
  check_driver_options(o);
  if (o.target.starts_with("builtin:")) {
    if (!o.launch.empty()) throw InputError("--launch applies to PTX files, not to builtins");
    if (!o.kernel.empty()) throw InputError("--kernel applies to PTX files, not to builtins");
    exec::BuiltinOptions b = o.builtin;
    b.max_bytes = budget;
    set_activity(fmt::format("preparing {}'s inputs: lower its size options", o.target));
    if (!o.grid.empty()) b.grid = exec::parse_dim3(o.grid, "--grid");
    if (!o.block.empty()) b.block = exec::parse_dim3(o.block, "--block");
    if (!o.software_hash.empty()) b.software_hash = parse_software_hash(o.software_hash);
    return exec::make_builtin(o.target.substr(8), b, o.ptx_dir);
  }
  if (!o.software_hash.empty())
    throw InputError("--swhash applies to builtins (a PTX file applies its hash in its own code)");
  exec::Workload w;
  w.name = o.target;
  w.module = read_ptx(o.target);
  if (o.launch.empty())
    throw InputError(fmt::format(
        "{}: running a PTX file needs --launch SPEC.toml (its buffers and kernel arguments)",
        o.target));
  bool has_grid = false, has_block = false;
  set_activity(
      fmt::format("preparing the buffers of {}: lower their counts or --max-memory", o.launch));
  if (const Embedding* e = embedding(); e && !e->spec_text.empty())
    exec::apply_launch_spec_text(e->spec_text, o.launch, w, has_grid, has_block, budget);
  else
    exec::apply_launch_spec(o.launch, w, has_grid, has_block, budget);
  for (const std::string& n : w.notes) note(n);
  if (!w.pipeline.empty()) return prepare_pipeline(o, std::move(w));
  if (!o.kernel.empty()) w.kernel = o.kernel;
  if (!o.grid.empty()) w.launch.grid = exec::parse_dim3(o.grid, "--grid"), has_grid = true;
  if (!o.block.empty()) w.launch.block = exec::parse_dim3(o.block, "--block"), has_block = true;
  if (w.kernel.empty()) {
    if (w.module.kernels.size() != 1)
      throw InputError(fmt::format("{}: give --kernel NAME (the module has {} kernels)", o.target,
                                   w.module.kernels.size()));
    w.kernel = w.module.kernels[0].name;
  }
  if (!has_grid) throw InputError("give --grid X[,Y,Z] (or grid = [...] in the launch spec)");
  if (!has_block) throw InputError("give --block X[,Y,Z] (or block = [...] in the launch spec)");
  // An unknown or ambiguous name fails here, listing the kernels; a demangled name
  // (`--kernel transposeNaive`) becomes the mangled one.
  const ptx::Kernel& kernel = exec::find_kernel(w.module, w.kernel);
  w.kernel = kernel.name;
  // A __constant__ array never set reads zeros (cudaMemcpyToSymbol has no PTX trace): say so.
  for (const std::string& c : exec::check_symbol_inits(w, kernel))
    note(
        fmt::format("kernel reads __constant__ '{}', which has no initializer in the PTX and no "
                    "[symbols.{}] entry in {}: it reads zeros",
                    c, c, o.launch));
  w.description = fmt::format("{} from {} with {}", ptx::demangle(w.kernel), o.target, o.launch);
  return w;
}

}  // namespace

exec::Workload prepare_workload(const LaunchOptions& o) {
  set_printf_stream(o.json ? stderr : stdout);
  exec::Workload w = prepare(o);
  check_outputs({}, &w, &o);  // a buffer's write must not replace the PTX file or the spec
  if (const Embedding* e = embedding(); e && e->prepared) e->prepared(w);
  return w;
}

void arch_from_target(ArchOptions& a, LaunchOptions& o, const exec::Workload& w) {
  o.arch_note.clear();
  if (a.chosen() || o.target.starts_with("builtin:")) return;
  const std::string ptx = std::filesystem::path(w.module.filename).filename().string();
  const TargetPreset p = preset_for_target(w.module.target);
  if (!p.name.empty()) a.name = p.name;
  if (p.note.empty())
    o.arch_note = fmt::format("arch {}: the preset for {}'s .target {} (--arch NAME for another)",
                              a.name, ptx, w.module.target);
  else
    o.arch_note =
        fmt::format("arch {}: {}'s .target {}: {}{} (--arch NAME for another)", a.name, ptx,
                    w.module.target, p.note, p.name.empty() ? "; the default preset" : "");
}

void print_arch_choice(const LaunchOptions& o) {
  // Under --json the document's "arch" names the preset, and stdout and stderr stay quiet.
  if (!o.arch_note.empty() && !o.json) fmt::print("{}\n", o.arch_note);
}

TargetWarning::TargetWarning(const LaunchOptions& o, const exec::Workload& w, const Arch& arch) {
  // The suite's builtins run on every preset by design; a JSON document stays alone; a preset
  // chosen from the .target has said what it is (arch_note).
  if (!o.target.starts_with("builtin:") && !o.json && o.arch_note.empty())
    text_ = exec::target_warning(w.module, arch);
}

TargetWarning::~TargetWarning() {
  if (!text_.empty() && std::uncaught_exceptions() == 0) fmt::print(stderr, "{}\n", text_);
}

void add_step_limit(CLI::App* cmd, LaunchOptions& o) {
  cmd->add_option("--max-steps", o.max_steps,
                  "stop with an error naming the unfinished warps after this many "
                  "warp-instructions (a kernel that never finishes)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 62))
      ->capture_default_str();
}

}  // namespace smemsim::cli

// `smemsim launch init`'s block and grid, chosen by running the skeleton (issue 47 item 5). The
// parameters say whether a kernel is 2D (param_use.hpp), not how many threads it was written
// for: a transpose written for 32 x 8 threads ran past its 32 x 32 shared tile on the 16 x 16
// block the skeleton guessed. So the skeleton is run, functionally and small, with each of a few
// usual blocks on one CTA, and the first that stays within the kernel's shared arrays and buffers
// is taken; then the grid that covers the guessed size is run whole, and where it runs past the
// buffers, the grid of square tiles (each CTA a block.x x block.x tile, as tiled kernels loop
// over their rows) is tried. What was tried is said in the comments. A kernel with .reqntid keeps
// it; one no trial runs keeps the plain guess.
#include <fmt/format.h>

#include <regex>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/workloads.hpp"
#include "workloads/launch_init.hpp"
#include "workloads/param_use.hpp"

namespace smemsim::exec {
namespace {

constexpr std::uint64_t kTrialSteps = 4'000'000;  // warp-instructions a trial may take
constexpr std::uint64_t kTrialBytes = 64 << 20;   // what a trial's buffers may take

struct Dims {
  std::uint32_t x, y;  // y = 0: a 1D block or grid
};

std::string dims_text(Dims d) {
  return d.y ? fmt::format("{} x {}", d.x, d.y) : fmt::format("{}", d.x);
}
std::string dims_toml(Dims d) {
  return d.y ? fmt::format("[{}, {}]", d.x, d.y) : fmt::format("[{}]", d.x);
}

// The first line of a trial's error, cut short: "" when the skeleton ran (or only ran long).
std::string trial(const ptx::Module& m, const ptx::Kernel& k, const std::string& text,
                  const Arch& arch) {
  try {
    Workload w;
    w.module = m;
    w.kernel = k.name;
    bool grid = false, block = false;
    apply_launch_spec_text(text, "trial", w, grid, block, kTrialBytes);
    Executor ex(w.module, find_kernel(w.module, w.kernel), arch, w.launch, w.memory);
    ex.set_max_steps(kTrialSteps);
    ex.run();
    return "";
  } catch (const InputError& e) {
    std::string what = e.what();
    if (what.find("did not finish within") != std::string::npos) return "";  // inconclusive
    what = what.substr(0, what.find('\n'));
    // "k.ptx:278: out-of-bounds shared store of 4 bytes at byte offset 4096 (the block's ...) by
    // thread (0,8,0) ... (transpose.cu:77) in `...`" -> its reason and CUDA line.
    if (const auto p = what.find(".ptx:"); p != std::string::npos)
      if (const auto c = what.find(": ", p); c != std::string::npos) what = what.substr(c + 2);
    std::string cuda;
    static const std::regex kCudaLine(R"(\(([^() ]+\.cu[h]?:[0-9]+)\))");
    if (std::smatch mt; std::regex_search(what, mt, kCudaLine)) cuda = " at " + mt[1].str();
    for (const char* cut : {" (the block", " by thread", " in `"})
      if (const auto c = what.find(cut); c != std::string::npos) what = what.substr(0, c);
    what += cuda;
    return what.size() > 90 ? what.substr(0, 87) + "..." : what;
  }
}

}  // namespace

std::string launch_spec_skeleton(const ptx::Module& m, const ptx::Kernel& k,
                                 const std::string& ptx_path, const std::string& spec_path) {
  const KernelUse use = param_uses(k);
  const bool clusters = k.cluster[0] * std::max(1u, k.cluster[1]) * std::max(1u, k.cluster[2]) > 1;
  if (k.reqntid[0] || clusters) return skeleton_text(m, k, ptx_path, spec_path, nullptr);
  const TargetPreset target = preset_for_target(m.target);
  const Arch arch = find_preset(target.name.empty() ? "volta-v100" : target.name);
  const bool two_d = use.two_dimensional;
  const std::vector<Dims> blocks =
      two_d ? std::vector<Dims>{{16, 16}, {32, 8}, {8, 8}, {32, 4}, {8, 32}, {32, 32}, {64, 4}}
            : std::vector<Dims>{{256, 0}, {128, 0}, {64, 0}, {512, 0}, {1024, 0}, {32, 0}};
  const auto shape_of = [&](Dims block, Dims grid, std::string block_note, std::string grid_note) {
    return LaunchShape{"grid = " + dims_toml(grid), std::move(grid_note),
                       "block = " + dims_toml(block), std::move(block_note)};
  };
  // The block: one CTA of each candidate, until one runs.
  std::string refused;
  const Dims one = two_d ? Dims{1, 1} : Dims{1, 0};
  Dims chosen{0, 0};
  for (const Dims b : blocks) {
    const LaunchShape s = shape_of(b, one, "", "");
    const std::string why = trial(m, k, skeleton_text(m, k, ptx_path, spec_path, &s), arch);
    if (why.empty()) {
      chosen = b;
      break;
    }
    refused += fmt::format("{}{} ({})", refused.empty() ? "" : "; ", dims_text(b), why);
  }
  if (!chosen.x) return skeleton_text(m, k, ptx_path, spec_path, nullptr);  // no trial ran
  const std::string block_note =
      refused.empty() ? fmt::format("guessed, and one CTA of it ran in a trial{}: check it",
                                    two_d ? " (the kernel is 2D)" : "")
                      : fmt::format(
                            "guessed by trial runs of one CTA: {} ran past the kernel's data: "
                            "{}; check it",
                            refused.find(';') == std::string::npos ? "this" : "these", refused);
  // The grid: a thread per element of the guessed 1,024 (32 x 32), else square tiles.
  const std::uint32_t side = 32, count = 1024;
  const Dims per_element =
      two_d ? Dims{(side + chosen.x - 1) / chosen.x, (side + chosen.y - 1) / chosen.y}
            : Dims{(count + chosen.x - 1) / chosen.x, 0};
  std::vector<std::pair<Dims, std::string>> grids = {
      {per_element, two_d ? "guessed: 32 x 32 threads, one per element of 1,024"
                          : "guessed: a thread per element of 1,024 (blocks: [x] or [x, y, z])"}};
  if (two_d && chosen.x != chosen.y)
    grids.push_back({{(side + chosen.x - 1) / chosen.x, (side + chosen.x - 1) / chosen.x},
                     fmt::format("guessed: square tiles of {0} x {0} elements, one per CTA of {1} "
                                 "(a thread per element ran past the buffers)",
                                 chosen.x, dims_text(chosen))});
  std::string first_why;
  for (const auto& [g, note] : grids) {
    const LaunchShape s = shape_of(chosen, g, block_note, note);
    const std::string text = skeleton_text(m, k, ptx_path, spec_path, &s);
    const std::string why = trial(m, k, text, arch);
    if (why.empty()) return text;
    if (first_why.empty()) first_why = why;
  }
  // No grid ran whole: the first, saying so.
  const LaunchShape s = shape_of(chosen, grids.front().first, block_note,
                                 grids.front().second + "; a trial run of it failed (" + first_why +
                                     "): check grid and sizes");
  return skeleton_text(m, k, ptx_path, spec_path, &s);
}

}  // namespace smemsim::exec

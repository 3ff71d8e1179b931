// smemsim classify (--trace FILE | --pattern LIST ...): access classes of seed 002 §3.1 and
// strides.

#include "cli_common.hpp"
#include "input_common.hpp"
#include "smemsim/classify.hpp"

namespace smemsim::cli {
namespace {

struct ClassifyOptions {
  ArchOptions arch;
  AccessInput input;
  bool json = false;
};

}  // namespace

void add_classify_command(CLI::App& app) {
  auto o = std::make_shared<ClassifyOptions>();
  auto* cmd = app.add_subcommand(
      "classify", "classify warp accesses as linear, stride S, block or random (seed 002 §3.1)");
  add_access_input(cmd, o->input);
  add_arch_options(cmd, o->arch, false);
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  cmd->footer(
      "Examples:\n"
      "  smemsim classify --pattern 0..31 --pattern 0,16,32,48,64,80,96,112\n"
      "  smemsim gen stride --stride 6 --count 4 -o s6.trace && smemsim classify --trace s6.trace");
  cmd->callback([o] {
    const Arch arch = resolve_arch(o->arch);
    ClassCounts counts;
    const std::uint64_t n = for_each_access(
        o->input, arch, [&](const WarpAccess& wa) { counts.add(classify_access(wa)); });
    if (n == 0) throw InputError("classify: no accesses (every access filtered out by --op)");
    if (o->json) {
      nlohmann::json out = json::document("classify");
      out.update(json::to_json(counts));
      out["arch"] = json::to_json(arch);
      print_json(out);
      return;
    }
    fmt::print("{} accesses (seed 002 §3.1 classes)\n", counts.total());
    fmt::print("  linear {:>12}\n  stride {:>12}\n  block  {:>12}\n  random {:>12}\n",
               counts.linear, counts.stride, counts.block, counts.random);
    if (!counts.strides.empty()) {
      fmt::print("strides found (linear is stride 1):\n");
      for (const auto& [s, c] : counts.strides)
        fmt::print("  S = {:<8} k = {:<3} {:>12} accesses\n", s, stride_k(s), c);
    }
    if (!counts.blocks.empty()) {
      fmt::print("block patterns (addr = o + Sx * (lane % bx) + Sy * (lane / bx)):\n");
      for (const auto& [k, c] : counts.blocks)
        fmt::print("  Sx = {:<6} Sy = {:<6} bx = {:<4} {:>12} accesses\n", std::get<0>(k),
                   std::get<1>(k), std::get<2>(k), c);
    }
  });
}

}  // namespace smemsim::cli

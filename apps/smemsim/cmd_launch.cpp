// smemsim launch init: a commented launch spec skeleton for a kernel of a PTX file (issue 15).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "launch_options.hpp"
#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::cli {
namespace {

struct InitCli {
  std::string ptx, kernel, output;
  bool force = false;
};

void run_init(const InitCli& o) {
  const ptx::Module m = read_ptx(o.ptx);
  if (m.kernels.empty()) throw InputError(fmt::format("{}: the module has no kernel", o.ptx));
  std::string name = o.kernel;
  if (name.empty()) {
    if (m.kernels.size() != 1) {
      std::string list;
      for (const ptx::Kernel& k : m.kernels)
        list += (list.empty() ? "" : "; ") + ptx::demangle(k.name);
      throw InputError(fmt::format("{}: give --kernel NAME (the module has {} kernels: {})", o.ptx,
                                   m.kernels.size(), list));
    }
    name = m.kernels[0].name;
  }
  const ptx::Kernel& k = exec::find_kernel(m, name);
  const std::string spec = exec::launch_spec_skeleton(
      m, k, o.ptx, o.output.empty() || o.output == "-" ? "SPEC.toml" : o.output);
  if (o.output.empty() || o.output == "-") {
    std::cout << spec;
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(o.output, ec))
    throw InputError(fmt::format("-o: '{}' is a directory", o.output));
  if (const std::string over = output_over_input({{"-o", o.output}}, {{"PTX file", o.ptx}});
      !over.empty())
    throw InputError(over);  // even with --force (issue 48)
  if (!o.force && std::filesystem::exists(o.output, ec))
    throw InputError(fmt::format("-o: '{}' exists (give --force to replace it)", o.output));
  write_output_file(o.output, "-o", spec);
  fmt::print(stderr, "wrote {}: set the sizes, then: smemsim run {} --launch {}\n", o.output, o.ptx,
             o.output);
}

}  // namespace

void add_launch_command(CLI::App& app) {
  auto* launch = app.add_subcommand("launch", "launch specs for your own kernels: init");
  launch->require_subcommand(1);
  const char* example =
      "Example (your own kernel, start to end):\n"
      "  nvcc -ptx -lineinfo -arch=sm_75 scale.cu -o scale.ptx\n"
      "  smemsim launch init scale.ptx -o scale.toml     # edit count, grid, block, args\n"
      "  smemsim profile scale.ptx --launch scale.toml";
  launch->footer(example);
  auto o = std::make_shared<InitCli>();
  auto* init = launch->add_subcommand(
      "init", "write a commented launch spec skeleton for a kernel of a PTX file");
  init->add_option("ptx", o->ptx, "the PTX file (nvcc -ptx -lineinfo k.cu -o k.ptx)")->required();
  init->add_option("--kernel", o->kernel,
                   "the kernel: its C++ name (transposeNaive, reduce<256>) or mangled name; "
                   "needed when the module has several");
  init->add_option("-o,--output", o->output, "write the spec to FILE (default: standard output)")
      ->check(non_empty_path());
  init->add_flag("--force", o->force, "replace an existing -o FILE");
  init->footer(
      "The spec runs as written: 1 block of 256 threads, 1,024-element random buffers for the\n"
      "pointer parameters (typed from the C++ signature), zero scalars, a struct passed by value\n"
      "as its zero bytes (give its members instead: { fields = [{ type = \"f32\", value = 1.0 },\n"
      "{ buffer = \"d\" }, ...] }, docs/exec.md). Set the sizes, then run.\n" +
      std::string(example));
  init->callback([o] { run_init(*o); });
}

}  // namespace smemsim::cli

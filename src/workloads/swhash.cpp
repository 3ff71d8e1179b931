// Software hashes for the kernel suite (seed 002 §6, §7.2) and module variables set by drivers.
#include <fmt/format.h>

#include <algorithm>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

// K -> K_sw, with the arguments completed: K_sw's parameters are K's, ending with (k2, mask).
void to_sw(const ptx::Module& m, std::string& kernel, Launch& l, std::uint32_t k2,
           std::uint32_t mask, const std::string& who) {
  const ptx::Kernel* base = m.find_kernel(kernel);
  const ptx::Kernel* sw = m.find_kernel(kernel + "_sw");
  if (!base || !sw)
    throw InputError(
        fmt::format("{}: kernel '{}' has no software-hash variant '{}_sw'", who, kernel, kernel));
  const std::size_t nb = base->params.size(), ns = sw->params.size();
  if (ns == nb + 2) {
    l.args.push_back(Arg::integer(k2));
    l.args.push_back(Arg::integer(mask));
  } else if (ns == nb && l.args.size() == nb && nb >= 2) {
    l.args[nb - 2] = Arg::integer(k2);
    l.args[nb - 1] = Arg::integer(mask);
  } else {
    throw std::logic_error(
        fmt::format("{}_sw does not take {}'s parameters and k2, mask", kernel, kernel));
  }
  kernel += "_sw";
}

}  // namespace

void apply_software_hash(Workload& w, std::uint32_t k2, std::uint32_t mask) {
  if (k2 < 1 || k2 > 31 || mask > 31)
    throw InputError(fmt::format(
        "{}: software hash k2 = {}, mask = {}: k2 must be in 1..31 and mask in 0..31 (then "
        "i ^ ((i >> k2) & mask) is a bijection on every aligned group of 32 words)",
        w.name, k2, mask));
  if (w.pipeline.empty()) {
    to_sw(w.module, w.kernel, w.launch, k2, mask, w.name);
  } else {
    for (Workload::Step& s : w.pipeline) to_sw(w.module, s.kernel, s.launch, k2, mask, w.name);
    w.kernel = w.pipeline.front().kernel;
    w.launch = w.pipeline.front().launch;
  }
  w.description += fmt::format(", software hash i ^ ((i >> {}) & {})", k2, mask);
}

void set_module_variable(Workload& w, const std::string& name, const void* data,
                         std::size_t bytes) {
  const auto* src = static_cast<const std::uint8_t*>(data);
  bool found = false;
  for (ptx::Symbol& g : w.module.globals)
    if (g.name == name) {
      if (bytes > g.size_bytes())
        throw std::logic_error(fmt::format("{} bytes do not fit in '{}'", bytes, name));
      g.init.assign(g.size_bytes(), 0);
      std::copy(src, src + bytes, g.init.begin());
      found = true;
      for (ptx::Kernel& k : w.module.kernels)
        for (ptx::Symbol& s : k.symbols)
          if (s.module_level && s.name == name) s.init = g.init;
    }
  if (!found) throw std::logic_error(fmt::format("the module has no variable '{}'", name));
}

}  // namespace smemsim::exec

// `smemsim arch import`: a GPGPU-Sim configuration file (gpgpusim.config: one `-option value` per
// line, `#` comments) mapped onto an arch (issue 10, item 7). Only the options that describe what
// smemsim models are mapped; every other option is listed as ignored, with the reason.
#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"

namespace smemsim {
namespace {

std::vector<std::int64_t> integers(const std::string& v, char sep, const std::string& where,
                                   const std::string& opt) {
  std::vector<std::int64_t> out;
  std::size_t p = 0;
  while (p <= v.size()) {
    const std::size_t q = std::min(v.find(sep, p), v.size());
    std::int64_t x = 0;
    const auto [end, ec] = std::from_chars(v.data() + p, v.data() + q, x);
    if (ec != std::errc() || end != v.data() + q || p == q)
      throw InputError(fmt::format("{}: {}: '{}' is not {} integers", where, opt, v,
                                   sep == ',' ? "comma-separated" : "colon-separated"));
    out.push_back(x);
    p = q + 1;
  }
  return out;
}

std::int64_t one(const std::string& v, const std::string& where, const std::string& opt) {
  const auto xs = integers(v, ',', where, opt);
  if (xs.size() != 1)
    throw InputError(fmt::format("{}: {}: '{}' is not an integer", where, opt, v));
  return xs[0];
}

}  // namespace

GpgpuSimImport import_gpgpusim(std::string_view text, const std::string& origin, const Arch& base) {
  GpgpuSimImport r;
  r.arch = base;
  std::int64_t clusters = -1, cores = -1;
  std::string clusters_where;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream words(line);
    std::string opt, value;
    if (!(words >> opt)) continue;
    const std::string where = fmt::format("{}:{}", origin, n);
    if (opt[0] != '-') throw InputError(fmt::format("{}: '{}' is not an -option", where, opt));
    if (!(words >> value)) throw InputError(fmt::format("{}: {} has no value", where, opt));
    Arch& a = r.arch;
    auto set = [&](const std::string& key, std::int64_t v) {
      apply_override(a, fmt::format("{}={}", key, v));
      r.mapped.push_back(fmt::format("{} {} -> {} = {}", opt, value, key, v));
    };
    try {
      if (opt == "-gpgpu_n_clusters") {
        clusters = one(value, where, opt);
        clusters_where = where;
      } else if (opt == "-gpgpu_n_cores_per_cluster") {
        cores = one(value, where, opt);
      } else if (opt == "-gpgpu_shader_core_pipeline") {
        const auto xs = integers(value, ':', where, opt);  // <threads>:<warp size>[:...]
        if (xs.size() < 2)
          throw InputError(
              fmt::format("{}: {}: '{}' is not <threads>:<warp size>", where, opt, value));
        set("sm.max_threads", xs[0]);
        set("warp.size", xs[1]);
        set("sm.max_warps", xs[0] / std::max<std::int64_t>(1, xs[1]));
      } else if (opt == "-gpgpu_shader_registers") {
        set("sm.registers", one(value, where, opt));
      } else if (opt == "-gpgpu_shader_cta") {
        set("sm.max_ctas", one(value, where, opt));
      } else if (opt == "-gpgpu_shmem_size") {
        set("memory.size_bytes", one(value, where, opt));
      } else if (opt == "-gpgpu_shmem_num_banks") {
        set("memory.banks", one(value, where, opt));
      } else if (opt == "-gpgpu_shmem_warp_parts") {
        // GPGPU-Sim checks bank conflicts per 1/parts of a warp: smemsim's transaction.
        const std::int64_t parts = one(value, where, opt);
        if (parts < 1 || a.warp_size % parts)
          throw InputError(fmt::format("{}: {}: {} does not divide the warp size {}", where, opt,
                                       parts, a.warp_size));
        set("warp.transaction_lanes", a.warp_size / parts);
      } else if (opt == "-gpgpu_smem_latency") {
        const std::int64_t l = one(value, where, opt);
        set("timing.ld_base", l);
        set("timing.st_base", l);
        const std::int64_t floor = a.sm.min_latency();
        set("sm.lat_shared_ld", std::max(l, floor));
        set("sm.lat_shared_st", std::max(l, floor));
        if (l < floor)
          r.notes.push_back(fmt::format(
              "{}: {} {} is below smemsim's pipeline (sm.frontend_stages + sm.mem_stages + 2 = "
              "{}): sm.lat_shared_ld/st set to {}",
              where, opt, l, floor, floor));
      } else if (opt == "-gpgpu_scheduler") {
        const std::string s = value.substr(0, value.find(':'));
        if (s == "lrr" || s == "gto") {
          a.sm.scheduler = s;
          r.mapped.push_back(fmt::format("{} {} -> sm.scheduler = {}", opt, value, s));
        } else {
          r.ignored.push_back(
              fmt::format("{}: {} {} (smemsim has lrr, gto and the bank-aware "
                          "schedulers)",
                          where, opt, value));
        }
      } else if (opt == "-ptx_opcode_latency_int") {
        const auto xs = integers(value, ',', where, opt);  // add, mul, mad, div, ...
        const std::int64_t floor = a.sm.min_latency();
        set("sm.lat_alu", std::max(xs.front(), floor));
        if (xs.front() < floor)
          r.notes.push_back(
              fmt::format("{}: {} {}: the ALU latency {} is below smemsim's "
                          "pipeline ({}): sm.lat_alu set to {}",
                          where, opt, value, xs.front(), floor, floor));
      } else {
        r.ignored.push_back(fmt::format("{}: {} {}", where, opt, value));
      }
    } catch (const InputError& e) {
      const std::string msg = e.what();
      if (msg.rfind(origin, 0) == 0) throw;
      throw InputError(fmt::format("{}: {}: {}", where, opt, msg));
    }
  }
  if ((clusters >= 0) != (cores >= 0))
    throw InputError(fmt::format(
        "{}: -gpgpu_n_clusters and -gpgpu_n_cores_per_cluster must be given together", origin));
  if (clusters >= 0) {
    try {
      apply_override(r.arch, fmt::format("sm.count={}", clusters * cores));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster: {}",
                                   clusters_where, e.what()));
    }
    r.mapped.push_back(
        fmt::format("-gpgpu_n_clusters {} x -gpgpu_n_cores_per_cluster {} -> "
                    "sm.count = {}",
                    clusters, cores, clusters * cores));
  }
  try {
    validate(r.arch);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: the imported arch is impossible: {}", origin, e.what()));
  }
  r.arch.description = fmt::format("imported from GPGPU-Sim configuration {}", origin);
  mark_derived(r.arch, base);
  return r;
}

}  // namespace smemsim

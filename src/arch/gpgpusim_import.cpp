// `smemsim arch import`: a GPGPU-Sim configuration file (gpgpusim.config: one `-option value` per
// line, `#` comments) mapped onto an arch (issue 10, item 7). Only the options that describe what
// smemsim models are mapped; every other option is listed as ignored, with the reason.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "arch/gpgpusim_words.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "util/names.hpp"

namespace smemsim {
namespace {

// The imported arch's title: the configuration file's name without its extension, or, for the
// conventional "gpgpusim.config", its folder's (GPGPU-Sim's tested configurations are
// SM7_QV100/gpgpusim.config, SM86_RTX3070/gpgpusim.config, ...). Printable characters only.
std::string import_title(const std::string& origin) {
  const std::filesystem::path p(origin);
  std::string stem = p.stem().string();
  if (stem == "gpgpusim" && p.has_parent_path() && p.parent_path().has_filename())
    stem = p.parent_path().filename().string();
  std::string out;
  for (const char c : stem)
    if (std::isprint(static_cast<unsigned char>(c)) && out.size() < 64) out += c;
  return out.empty() ? "imported" : out;
}

std::vector<std::int64_t> integers(const std::string& v, char sep, const std::string& where,
                                   const std::string& opt) {
  std::vector<std::int64_t> out;
  std::size_t p = 0;
  while (p <= v.size()) {
    const std::size_t q = std::min(v.find(sep, p), v.size());
    std::int64_t x = 0;
    const auto [end, ec] = std::from_chars(v.data() + p, v.data() + q, x);
    if (ec == std::errc::result_out_of_range)
      throw InputError(fmt::format("{}: {}: '{}' is out of range (a 64-bit integer)", where, opt,
                                   printable(std::string_view(v).substr(p, q - p), 80)));
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

// apply_override's message without its "--set: " (an import sets keys from the file's lines).
std::string no_set(std::string msg) {
  if (msg.rfind("--set: ", 0) == 0) msg.erase(0, 7);
  return msg;
}

// A count of something the GPU has (clusters, cores, units): at least `least`.
std::int64_t count(const std::string& v, const std::string& where, const std::string& opt,
                   std::int64_t least = 1) {
  const std::int64_t x = one(v, where, opt);
  if (x < least)
    throw InputError(fmt::format("{}: {}: {} is not a count (at least {})", where, opt, x, least));
  return x;
}

// a x b, or InputError "WHERE: WHAT: A x B overflows a 64-bit integer" (issue 48: 2^62 + 1
// clusters of 4 cores became sm.count = 4).
std::int64_t checked_product(std::int64_t a, std::int64_t b, const std::string& where,
                             const std::string& what) {
  std::int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p))
    throw InputError(fmt::format("{}: {}: {} x {} overflows a 64-bit integer", where, what, a, b));
  return p;
}

// -gpgpu_n_clusters and -gpgpu_n_cores_per_cluster, which multiply into sm.count (line 0: not
// given).
struct ClusterOptions {
  int clusters_line = 0, cores_line = 0;
  std::int64_t clusters = 0, cores = 0;
};

// One option line being mapped: sets keys on the arch and records what it did.
class OptionMapper {
 public:
  OptionMapper(GpgpuSimImport& r, int line, std::string opt, std::string value)
      : r_(r),
        where_(fmt::format("{}:{}", r.origin, line)),
        entry_{line, std::move(opt), std::move(value), "", "", ""} {}

  // Maps the option (InputError "file:line: option: why" on a bad value); false when smemsim has
  // no key for it. Cluster counts are kept in `clusters`/`cores` (they multiply).
  bool map(ClusterOptions& c);

 private:
  std::int64_t value() const { return one(entry_.value, where_, entry_.option); }
  void set(const std::string& key, std::int64_t v) {
    apply_override(r_.arch, fmt::format("{}={}", key, v));
    add_mapped(key, std::to_string(v));
  }
  void add_mapped(const std::string& key, const std::string& setting) {
    GpgpuSimImport::Entry e = entry_;
    e.key = key;
    e.setting = setting;
    r_.mapped.push_back(std::move(e));
  }
  // A latency below the pipeline's minimum is raised to it, with a note.
  void set_latency(const std::string& key, std::int64_t v, const std::string& what) {
    const std::int64_t floor = r_.arch.sm.min_latency();
    set(key, std::max(v, floor));
    if (v >= floor) return;
    GpgpuSimImport::Entry e = entry_;
    e.key = key;
    e.setting = std::to_string(floor);
    e.why = fmt::format(
        "{} {} is below smemsim's pipeline (sm.frontend_stages + sm.mem_stages + 2 = {}): {} set "
        "to {}",
        what, v, floor, key, floor);
    r_.notes.push_back(std::move(e));
  }
  void map_scheduler();

  GpgpuSimImport& r_;
  std::string where_;
  GpgpuSimImport::Entry entry_;
};

void OptionMapper::map_scheduler() {
  const std::string s = entry_.value.substr(0, entry_.value.find(':'));
  if (s == "lrr" || s == "gto") {
    r_.arch.sm.scheduler = s;
    add_mapped("sm.scheduler", s);
    return;
  }
  GpgpuSimImport::Entry e = entry_;
  e.why = "smemsim has lrr, gto and the bank-aware schedulers";
  r_.ignored.push_back(std::move(e));
}

bool OptionMapper::map(ClusterOptions& c) {
  const std::string& opt = entry_.option;
  if (opt == "-gpgpu_n_clusters") {
    c.clusters = count(entry_.value, where_, opt);
    c.clusters_line = entry_.line;
  } else if (opt == "-gpgpu_n_cores_per_cluster") {
    c.cores = count(entry_.value, where_, opt);
    c.cores_line = entry_.line;
  } else if (opt == "-gpgpu_shader_core_pipeline") {
    const auto xs = integers(entry_.value, ':', where_, opt);  // <threads>:<warp size>[:...]
    if (xs.size() < 2)
      throw InputError(
          fmt::format("{}: {}: '{}' is not <threads>:<warp size>", where_, opt, entry_.value));
    set("sm.max_threads", xs[0]);
    set("warp.size", xs[1]);
    set("sm.max_warps", xs[0] / std::max<std::int64_t>(1, xs[1]));
  } else if (opt == "-gpgpu_shader_registers") {
    set("sm.registers", value());
  } else if (opt == "-gpgpu_shader_cta") {
    set("sm.max_ctas", value());
  } else if (opt == "-gpgpu_shmem_size") {
    set("memory.size_bytes", value());
  } else if (opt == "-gpgpu_shmem_num_banks") {
    set("memory.banks", value());
  } else if (opt == "-gpgpu_ptx_force_max_capability") {
    // The GPU's generation (issue 47); `arch import` also takes its base preset from it.
    set("compute_capability", value());
  } else if (opt == "-gpgpu_shmem_warp_parts") {
    // GPGPU-Sim checks bank conflicts per 1/parts of a warp: smemsim's transaction.
    const std::int64_t parts = value();
    if (parts < 1 || r_.arch.warp_size % parts)
      throw InputError(fmt::format("{}: {}: {} does not divide the warp size {}", where_, opt,
                                   parts, r_.arch.warp_size));
    set("warp.transaction_lanes", r_.arch.warp_size / parts);
  } else if (opt == "-gpgpu_smem_latency") {
    const std::int64_t l = value();
    set("timing.ld_base", l);
    set("timing.st_base", l);
    set_latency("sm.lat_shared_ld", l, "the shared-memory latency");
    set_latency("sm.lat_shared_st", l, "the shared-memory latency");
  } else if (opt == "-gpgpu_scheduler") {
    map_scheduler();
  } else if (opt == "-ptx_opcode_latency_int") {
    const auto xs = integers(entry_.value, ',', where_, opt);  // add, mul, mad, div, ...
    set_latency("sm.lat_alu", xs.front(), "the ALU latency");
  } else if (opt == "-ptx_opcode_latency_sfu") {
    set_latency("sm.lat_sfu", integers(entry_.value, ',', where_, opt).front(), "the SFU latency");
  } else if (opt == "-ptx_opcode_latency_fp") {
    set_latency("sm.lat_fma", integers(entry_.value, ',', where_, opt).front(), "the FP32 latency");
  } else if (opt == "-ptx_opcode_latency_dp") {
    set_latency("sm.lat_fp64", integers(entry_.value, ',', where_, opt).front(),
                "the FP64 latency");
  } else {
    return false;
  }
  return true;
}

// Options smemsim reads but has no key for yet, with the reason a user sees among the ignored
// (the rest are listed without one: they describe what smemsim does not model at all).
// The options this importer maps (OptionMapper and UnitOptions): an ignored option within two edits
// of one is most likely a typo of it, which GPGPU-Sim itself would have refused (issue 47).
constexpr std::string_view kMappedOptions[] = {"-gpgpu_n_clusters",
                                               "-gpgpu_n_cores_per_cluster",
                                               "-gpgpu_num_sched_per_core",
                                               "-gpgpu_num_tensor_core_units",
                                               "-gpgpu_ptx_force_max_capability",
                                               "-gpgpu_scheduler",
                                               "-gpgpu_shader_core_pipeline",
                                               "-gpgpu_shader_cta",
                                               "-gpgpu_shader_registers",
                                               "-gpgpu_shmem_num_banks",
                                               "-gpgpu_shmem_size",
                                               "-gpgpu_shmem_warp_parts",
                                               "-gpgpu_smem_latency",
                                               "-gpgpu_sub_core_model",
                                               "-ptx_opcode_initiation_tensor",
                                               "-ptx_opcode_latency_dp",
                                               "-ptx_opcode_latency_fp",
                                               "-ptx_opcode_latency_int",
                                               "-ptx_opcode_latency_sfu",
                                               "-ptx_opcode_latency_tensor",
                                               "-ptx_opcode_latency_tesnor",
                                               "-trace_opcode_latency_initiation_tensor",
                                               "-ptx_opcode_initiation_int",
                                               "-ptx_opcode_initiation_fp",
                                               "-ptx_opcode_initiation_dp",
                                               "-ptx_opcode_initiation_sfu",
                                               "-gpgpu_num_int_units",
                                               "-gpgpu_num_sp_units",
                                               "-gpgpu_num_dp_units",
                                               "-gpgpu_num_sfu_units"};

std::string typo_reason(const std::string& opt) {
  std::vector<std::string_view> near;
  for (const std::string_view m : kMappedOptions)
    if (edit_distance(opt, m) <= 2) near.push_back(m);
  const std::string s = did_you_mean(opt, near);
  return s.empty() ? s : "not an option smemsim maps: " + s;
}

const char* unmodeled_reason(const std::string& opt) {
  static const std::pair<const char*, const char*> kReasons[] = {
      {"-gpgpu_dual_issue_diff_exec_units",
       "two schedulers of one SM issue to different units whenever the units have the lanes "
       "(sm.unit_scope = sm): always on"},
      {"-gpgpu_pipeline_widths",
       "one latch per stage: the widths of GPGPU-Sim's operand "
       "collector stages are not modeled"},
      {"-gpgpu_l1_latency",
       "not imported: sm.l1_latency is what an L1 hit adds to the shared load's path, calibrated "
       "from a chase (docs/timing.md \"Caches\"), not the L1's own pipeline"},
      {"-gpgpu_clock_domains", "smemsim counts SM cycles; clock domains are not modeled"},
  };
  for (const auto& [o, why] : kReasons)
    if (opt == o) return why;
  return "";
}

// The sub-core structure's options, mapped once the whole file is read (they combine): the
// schedulers per SM and the sub-core model give sm.subcores and sm.unit_scope; a unit's lanes are
// the warp's threads times the unit instances a scheduler has over GPGPU-Sim's initiation interval
// (its first value, ADD's): QV100's 4 INT units over 4 sub-cores at interval 2 are 16 lanes per
// sub-core, GTX480's 2 SP units shared by both schedulers at interval 1 are 64 lanes.
class UnitOptions {
 public:
  // Records one of the options; false for any other.
  bool read(const std::string& opt, const std::string& value, int line, const std::string& where) {
    static const char* const kII[] = {"-ptx_opcode_initiation_int", "-ptx_opcode_initiation_fp",
                                      "-ptx_opcode_initiation_dp", "-ptx_opcode_initiation_sfu"};
    static const char* const kCount[] = {"-gpgpu_num_int_units", "-gpgpu_num_sp_units",
                                         "-gpgpu_num_dp_units", "-gpgpu_num_sfu_units"};
    for (std::size_t u = 0; u < 4; ++u) {
      if (opt == kII[u]) {
        const std::int64_t ii = integers(value, ',', where, opt).front();
        if (ii < 1)
          throw InputError(fmt::format("{}: {}: {} is not a positive interval", where, opt, ii));
        ii_[u] = {line, opt, value, ii};
        return true;
      }
      if (opt == kCount[u]) {
        count_[u] = {line, opt, value, count(value, where, opt, 0)};
        return true;
      }
    }
    // The tensor core: its latency (GPGPU-Sim spells it "tesnor"), its interval, or Accel-Sim's
    // pair, and the units per SM.
    if (opt == "-ptx_opcode_latency_tesnor" || opt == "-ptx_opcode_latency_tensor") {
      tlat_ = {line, opt, value, integers(value, ',', where, opt).front()};
      return true;
    }
    if (opt == "-ptx_opcode_initiation_tensor") {
      tii_ = {line, opt, value, integers(value, ',', where, opt).front()};
      return true;
    }
    if (opt == "-trace_opcode_latency_initiation_tensor") {
      const std::vector<std::int64_t> v = integers(value, ',', where, opt);
      if (v.size() != 2)
        throw InputError(fmt::format("{}: {}: '{}' is not LATENCY,INTERVAL", where, opt, value));
      tlat_ = {line, opt, value, v[0]};
      tii_ = {line, opt, value, v[1]};
      return true;
    }
    if (opt == "-gpgpu_num_tensor_core_units") {
      tunits_ = {line, opt, value, count(value, where, opt, 0)};
      return true;
    }
    if (opt == "-gpgpu_num_sched_per_core") {
      sched_ = {line, opt, value, count(value, where, opt)};
      return true;
    }
    if (opt == "-gpgpu_sub_core_model") {
      model_ = {line, opt, value, one(value, where, opt)};
      return true;
    }
    return false;
  }

  void apply(GpgpuSimImport& r, const std::array<std::uint32_t, 3>& shape) const {
    apply_units(r);
    apply_tensor(r, shape);
  }

 private:
  // An mma of m x n x k multiply-adds holds a unit I cycles and is ready L cycles after issue; a
  // sub-core has units / schedulers of them (sub-core model) or the SM's schedulers share them:
  // tensor_fmas = m n k x units / I, and lat_tensor = L - I + 1 (smemsim's mma latency is
  // lat_tensor + I - 1).
  void apply_tensor(GpgpuSimImport& r, const std::array<std::uint32_t, 3>& shape) const {
    const bool given = shape[0] && shape[1] && shape[2];
    if (!given || !tlat_.line || !tii_.line) {
      const char* why = !given
                            ? "its mma shape is not named: give --tensor-shape MxNxK (16x16x16 for "
                              "GPGPU-Sim's wmma, 16x8x16 for an sm_80+ HMMA.16816 trace)"
                            : "the file gives the tensor core's latency or interval, not both";
      for (const Opt* o : {&tlat_, &tii_, &tunits_})
        if (o->line && (o != &tii_ || tii_.line != tlat_.line))
          r.ignored.push_back({o->line, o->opt, o->value, "", "", why});
      return;
    }
    const std::int64_t sched = sched_.line ? sched_.v : 1;
    const bool sub = model_.line && model_.v != 0;
    std::int64_t units = tunits_.line ? tunits_.v : (sub ? sched : 1);
    if (sub) units /= std::max<std::int64_t>(1, sched);
    units = std::max<std::int64_t>(1, units);
    if (tii_.v < 1)
      throw InputError(fmt::format("{}:{}: {}: {} is not a positive interval", r.origin, tii_.line,
                                   tii_.opt, tii_.v));
    const std::int64_t mnk = std::int64_t(shape[0]) * shape[1] * shape[2];
    const std::int64_t fmas = std::max<std::int64_t>(
        1, (checked_product(mnk, units,
                            fmt::format("{}:{}", r.origin, tunits_.line ? tunits_.line : tii_.line),
                            "the mma's multiply-adds x tensor units") +
            tii_.v / 2) /
               tii_.v);
    set(r, tii_, "sm.tensor_fmas", std::to_string(fmas));
    // A unit that is not pipelined (latency = interval, GPGPU-Sim's default 64 and 64) leaves less
    // than the pipeline's shortest latency: clamped, with a note.
    const std::int64_t lat = tlat_.v - tii_.v + 1, floor = r.arch.sm.min_latency();
    set(r, tlat_, "sm.lat_tensor", std::to_string(std::max(lat, floor)));
    if (lat < floor)
      r.notes.push_back({tlat_.line, tlat_.opt, tlat_.value, "sm.lat_tensor", std::to_string(floor),
                         fmt::format("latency {} less interval {} + 1 = {} is below smemsim's "
                                     "pipeline ({}): sm.lat_tensor set to {}",
                                     tlat_.v, tii_.v, lat, floor, floor)});
    // GPGPU-Sim's latency is the whole op's: the base preset's steps (Volta's HMMA.884) go, and
    // the user is told.
    if (r.arch.sm.tensor_step_fmas) {
      r.notes.push_back({tlat_.line, tlat_.opt, tlat_.value, "sm.tensor_step_fmas", "0",
                         fmt::format("the file's latency is a whole mma's: the base's tensor steps "
                                     "(sm.tensor_step_fmas = {}) are cleared",
                                     r.arch.sm.tensor_step_fmas)});
      r.arch.sm.tensor_step_fmas = 0;
    }
    if (tunits_.line)
      r.mapped.push_back(
          {tunits_.line, tunits_.opt, tunits_.value, "sm.tensor_fmas", std::to_string(fmas), ""});
  }

  void apply_units(GpgpuSimImport& r) const {
    const std::int64_t sched = sched_.line ? sched_.v : 1;
    const bool sub = model_.line && model_.v != 0;
    if (sched_.line && (sched < 1 || r.arch.sm.max_warps % sched != 0))
      throw InputError(fmt::format(
          "{}:{}: {}: {} schedulers do not divide the SM's {} warp slots (sm.subcores: every "
          "sub-core needs the same number)",
          r.origin, sched_.line, sched_.opt, sched, r.arch.sm.max_warps));
    set(r, sched_, "sm.subcores", std::to_string(sched));
    if (sched_.line || model_.line)
      set(r, model_.line ? model_ : sched_, "sm.unit_scope", sub ? "subcore" : "sm");
    static const char* const kLanes[] = {"sm.lanes_alu", "sm.lanes_fma", "sm.lanes_fp64",
                                         "sm.lanes_sfu"};
    for (std::size_t u = 0; u < 4; ++u) {
      if (!ii_[u].line) continue;
      // INT runs on the SP units where there are no INT units (GTX480: -gpgpu_num_int_units 0).
      const Opt& c = u == 0 && (!count_[0].line || count_[0].v == 0) ? count_[1] : count_[u];
      std::int64_t instances = c.line ? c.v : 1;
      if (sub) instances = instances / std::max<std::int64_t>(1, sched);
      instances = std::max<std::int64_t>(1, instances);
      const std::int64_t threads =
          checked_product(std::int64_t(r.arch.warp_size), instances,
                          fmt::format("{}:{}", r.origin, c.line ? c.line : ii_[u].line),
                          fmt::format("{} x the warp size", c.line ? c.opt : "one unit"));
      const std::int64_t lanes = std::clamp<std::int64_t>(threads / ii_[u].v, 1, 64);
      set(r, ii_[u], kLanes[u], std::to_string(lanes));
      if (c.line)
        r.mapped.push_back({c.line, c.opt, c.value, kLanes[u], std::to_string(lanes), ""});
    }
    for (std::size_t u = 0; u < 4; ++u) {
      const bool used = ii_[u].line || (u == 1 && ii_[0].line && (!count_[0].line || !count_[0].v));
      if (count_[u].line && !used)
        r.ignored.push_back({count_[u].line, count_[u].opt, count_[u].value, "", "",
                             "no initiation interval for this unit in the file: its lanes stay"});
    }
  }

 private:
  struct Opt {
    int line = 0;
    std::string opt, value;
    std::int64_t v = 0;
  };
  static void set(GpgpuSimImport& r, const Opt& o, const std::string& key, const std::string& v) {
    if (!o.line) return;
    try {
      apply_override(r.arch, key + "=" + v);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:{}: {}: {}", r.origin, o.line, o.opt, no_set(e.what())));
    }
    r.mapped.push_back({o.line, o.opt, o.value, key, v, ""});
  }
  std::array<Opt, 4> ii_, count_;
  Opt sched_, model_, tlat_, tii_, tunits_;
};

}  // namespace

std::string GpgpuSimImport::describe(const Entry& e, bool as_mapping) const {
  if (as_mapping) return fmt::format("{} {} -> {} = {}", e.option, e.value, e.key, e.setting);
  return fmt::format("{}:{}: {} {}{}", origin, e.line, e.option, e.value,
                     e.why.empty() ? "" : fmt::format(" ({})", e.why));
}

GpgpuSimImport import_gpgpusim(std::string_view text, const std::string& origin, const Arch& base,
                               std::array<std::uint32_t, 3> tensor_shape) {
  GpgpuSimImport r;
  r.origin = origin;
  r.arch = base;
  ClusterOptions clusters;
  UnitOptions units;
  std::map<std::string, int> seen;  // option -> the line it was last given on
  const std::vector<gpgpusim::Word> words = gpgpusim::config_words(text, origin);
  for (std::size_t k = 0; k < words.size(); k += 2) {
    const std::string& opt = words[k].text;
    const int n = words[k].line;
    const std::string where = fmt::format("{}:{}", origin, n);
    if (!gpgpusim::is_option(opt)) {
      if (k > 0 && words[k - 1].line == n)  // a second value on the line of an option
        throw InputError(
            fmt::format("{}: {}: '{}' after its value '{}' (an option takes one value)", where,
                        words[k - 2].text, opt, words[k - 1].text));
      throw InputError(fmt::format("{}: '{}' is not an -option", where, opt));
    }
    if (k + 1 >= words.size() || gpgpusim::is_option(words[k + 1].text))
      throw InputError(fmt::format("{}: {} has no value", where, opt));
    const std::string& value = words[k + 1].text;
    // GPGPU-Sim's option parser lets a later value replace an earlier one; smemsim does too, and
    // says so (issue 48: the second won silently).
    if (const auto [it, first] = seen.try_emplace(opt, n); !first) {
      r.notes.push_back({n, opt, value, "", "",
                         fmt::format("also given on line {}: this later value is used, as "
                                     "GPGPU-Sim uses it",
                                     it->second)});
      it->second = n;
    }
    try {
      if (units.read(opt, value, n, where)) continue;
      if (!OptionMapper(r, n, opt, value).map(clusters))
        r.ignored.push_back({n, opt, value, "", "", [&] {
                               const std::string typo = typo_reason(opt);
                               return typo.empty() ? std::string(unmodeled_reason(opt)) : typo;
                             }()});
    } catch (const InputError& e) {
      const std::string msg = no_set(e.what());
      if (msg.rfind(origin, 0) == 0) throw;
      throw InputError(fmt::format("{}: {}: {}", where, opt, msg));
    }
  }
  if ((clusters.clusters_line > 0) != (clusters.cores_line > 0))
    throw InputError(fmt::format(
        "{}:{}: -gpgpu_n_clusters and -gpgpu_n_cores_per_cluster must be given together", origin,
        std::max(clusters.clusters_line, clusters.cores_line)));
  if (clusters.clusters_line) {
    const std::string where = fmt::format("{}:{}", origin, clusters.clusters_line);
    const std::string what = "-gpgpu_n_clusters x -gpgpu_n_cores_per_cluster";
    const std::int64_t sms = checked_product(clusters.clusters, clusters.cores, where, what);
    try {
      apply_override(r.arch, fmt::format("sm.count={}", sms));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}: {}", where, what, no_set(e.what())));
    }
    r.mapped.push_back({clusters.clusters_line, what,
                        fmt::format("{} x {}", clusters.clusters, clusters.cores), "sm.count",
                        std::to_string(sms), ""});
  }
  units.apply(r, tensor_shape);
  try {
    validate(r.arch);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: the imported arch is impossible: {}", origin, e.what()));
  }
  r.arch.description = fmt::format("imported from GPGPU-Sim configuration {}", origin);
  r.arch.title = import_title(origin);
  mark_derived(r.arch, base);
  return r;
}

}  // namespace smemsim

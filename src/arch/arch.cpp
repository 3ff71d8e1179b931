// Arch helpers and validation (DESIGN.md principle 2: configuration is checked once).
#include <bit>
#include <charconv>

#include <fmt/format.h>

#include "lower/rules.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/conflict.hpp"
#include "smemsim/error.hpp"
#include "smemsim/index_function.hpp"
#include "smemsim/latency_model.hpp"

namespace smemsim {
namespace {

int ceil_log2(std::uint32_t v) {
  return v <= 1 ? 0 : std::bit_width(v - 1);
}

[[noreturn]] void bad(const char* key, const std::string& why) {
  throw InputError(fmt::format("arch key '{}': {}", key, why));
}

}  // namespace

int Arch::bank_bits() const {
  return std::countr_zero(banks);
}
int Arch::lock_bits() const {
  return locks == 0 ? 0 : std::countr_zero(locks);
}
int Arch::bank_addr_bits() const {
  return ceil_log2(bank_units());
}
int Arch::word_addr_bits() const {
  return ceil_log2(memory_words());
}

std::vector<std::uint32_t> carveout_list(const Arch& a) {
  std::vector<std::uint32_t> kib;
  const std::string& s = a.sm.carveouts;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    const std::string item = s.substr(at, comma - at);
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || v > (1u << 20))
      bad("sm.carveouts", fmt::format("'{}' is not a list of KiB such as 0,8,16,32,64,96", s));
    if (!kib.empty() && v <= kib.back())
      bad("sm.carveouts", fmt::format("'{}' is not ascending", s));
    kib.push_back(v);
    at = comma + 1;
  }
  for (const std::uint32_t v : kib)
    if (a.sm.l1_unified_bytes && std::uint64_t(v) * 1024 > a.sm.l1_unified_bytes)
      bad("sm.carveouts",
          fmt::format("{} KiB is more than sm.l1_unified_bytes = {}", v, a.sm.l1_unified_bytes));
  return kib;
}

std::uint64_t l1_capacity(const Arch& a, std::uint64_t shared_in_use) {
  if (!a.sm.l1_unified_bytes) return 0;
  std::uint64_t carve = a.memory_bytes;
  for (const std::uint32_t kib : carveout_list(a))
    if (std::uint64_t(kib) * 1024 >= shared_in_use) {
      carve = std::uint64_t(kib) * 1024;
      break;
    }
  return a.sm.l1_unified_bytes > carve ? a.sm.l1_unified_bytes - carve : 0;
}

void validate(const Arch& a) {
  if (a.bank_width_bytes != 4 && a.bank_width_bytes != 8)
    bad("memory.bank_width_bytes", fmt::format("{} is not 4 or 8", a.bank_width_bytes));
  if (a.banks == 0 || !std::has_single_bit(a.banks) || a.banks > kMaxBanks)
    bad("memory.banks",
        fmt::format("{} is not a power of two between 1 and {}", a.banks, kMaxBanks));
  if (a.memory_bytes == 0 || a.memory_bytes % (a.banks * a.bank_width_bytes) != 0)
    bad("memory.size_bytes",
        fmt::format("{} is not a positive multiple of banks x bank width ({} bytes)",
                    a.memory_bytes, a.banks * a.bank_width_bytes));
  if (a.memory_bytes > (16u << 20)) bad("memory.size_bytes", "larger than 16 MiB");
  if (a.warp_size == 0 || a.warp_size > kMaxLanes)
    bad("warp.size", fmt::format("{} is not between 1 and {}", a.warp_size, kMaxLanes));
  if (a.transaction_lanes == 0 || a.warp_size % a.transaction_lanes != 0)
    bad("warp.transaction_lanes",
        fmt::format("{} does not divide the warp size {}", a.transaction_lanes, a.warp_size));
  if (a.locks != 0 && !std::has_single_bit(a.locks))
    bad("atomics.locks",
        fmt::format("{} is not a power of two (or 0 for one lock per word)", a.locks));
  if (a.locks > a.memory_words())
    bad("atomics.locks",
        fmt::format("{} locks exceed the {} words of memory", a.locks, a.memory_words()));
  bool model_ok = false;
  for (const auto& m : latency_models())
    if (m.atomic && m.name == a.atomic_model) model_ok = true;
  if (!model_ok) bad("atomics.model", fmt::format("unknown atomic model '{}'", a.atomic_model));
  visit_arch(a, [](std::string_view key, const ArchValue& v) {
    if (!key.starts_with("timing.")) return;
    const std::int64_t x = std::get<std::int64_t>(v);
    if (x < 0 || x > 1'000'000)
      bad(std::string(key).c_str(), fmt::format("{} is not between 0 and 1000000", x));
  });
  // The SM of the cycle-level model (docs/timing.md): ranges from the key table (in the order of
  // visit_arch), then the relations.
  {
    const auto& info = arch_key_info();
    std::size_t i = 0;
    visit_arch(a, [&](std::string_view key, const ArchValue& v) {
      const ArchKeyInfo& k = info[i++];
      if (k.min == 0 && k.max == 0) return;
      const std::int64_t x = std::get<std::int64_t>(v);
      if (x < k.min || x > k.max)
        bad(std::string(key).c_str(), fmt::format("{} is not between {} and {}", x, k.min, k.max));
    });
  }
  const SmConfig& sm = a.sm;
  if (sm.simd_width > a.warp_size || a.warp_size % sm.simd_width != 0)
    bad("sm.simd_width",
        fmt::format("{} does not divide the warp size {}", sm.simd_width, a.warp_size));
  if (sm.max_threads < a.warp_size)
    bad("sm.max_threads",
        fmt::format("{} is less than one warp of {} threads", sm.max_threads, a.warp_size));
  if (sm.smem_ports > a.banks)
    bad("sm.smem_ports", fmt::format("{} exceeds the {} banks", sm.smem_ports, a.banks));
  const std::pair<const char*, std::uint32_t> lats[] = {{"sm.lat_alu", sm.lat_alu},
                                                        {"sm.lat_sfu", sm.lat_sfu},
                                                        {"sm.lat_branch", sm.lat_branch},
                                                        {"sm.lat_shared_ld", sm.lat_shared_ld},
                                                        {"sm.lat_shared_st", sm.lat_shared_st},
                                                        {"sm.lat_shared_atom", sm.lat_shared_atom},
                                                        {"sm.lat_const", sm.lat_const}};
  for (const auto& [key, v] : lats)
    if (v < sm.min_latency())
      bad(key, fmt::format("{} cycles is shorter than the pipeline: sm.frontend_stages + "
                           "sm.mem_stages + 2 = {}",
                           v, sm.min_latency()));
  // 0 stands for sm.lat_alu.
  const std::pair<const char*, std::uint32_t> optional_lats[] = {
      {"sm.lat_fma", sm.lat_fma},     {"sm.lat_fp16", sm.lat_fp16},
      {"sm.lat_imad", sm.lat_imad},   {"sm.lat_fp64", sm.lat_fp64},
      {"sm.lat_cvt64", sm.lat_cvt64}, {"sm.lat_tensor", sm.lat_tensor}};
  for (const auto& [key, v] : optional_lats)
    if (v && v < sm.min_latency())
      bad(key, fmt::format("{} cycles is shorter than the pipeline: sm.frontend_stages + "
                           "sm.mem_stages + 2 = {}",
                           v, sm.min_latency()));
  if (sm.gpc_sms) {  // clusters (issue 46): their keys together
    if (!sm.max_cluster || sm.max_cluster > sm.gpc_sms)
      bad("sm.max_cluster",
          fmt::format("{} CTAs a cluster is not between 1 and sm.gpc_sms = {} (a cluster's CTAs "
                      "run on different SMs of one GPC)",
                      sm.max_cluster, sm.gpc_sms));
    if (sm.lat_dsm < sm.lat_shared_ld || sm.lat_dsm < sm.lat_shared_atom)
      bad("sm.lat_dsm",
          fmt::format("{} cycles is shorter than a local shared access (sm.lat_shared_ld = {}, "
                      "sm.lat_shared_atom = {})",
                      sm.lat_dsm, sm.lat_shared_ld, sm.lat_shared_atom));
    if (!sm.dsm_bytes_per_cycle)
      bad("sm.dsm_bytes_per_cycle", "clusters (sm.gpc_sms) need a network rate of 1 or more");
  }
  if (sm.l1_unified_bytes && !sm.l1_latency)
    bad("sm.l1_latency", "an L1 (sm.l1_unified_bytes) needs a hit latency of 1 or more");
  if (sm.l2_slices) {
    if (!sm.l2_slice_bytes_per_cycle)
      bad("sm.l2_slice_bytes_per_cycle",
          "a shared L2 (sm.l2_slices) needs a slice rate of 1 or more");
    if (sm.dram_channels > sm.l2_slices)
      bad("sm.dram_channels", fmt::format("{} channels for {} L2 slices: at most one a slice",
                                          sm.dram_channels, sm.l2_slices));
  }
  if (sm.l2_hash != "xor" && sm.l2_hash != "mod")
    bad("sm.l2_hash", fmt::format("'{}' is not xor or mod", sm.l2_hash));
  if (sm.l2_bytes && !sm.l2_latency)
    bad("sm.l2_latency", "an L2 (sm.l2_bytes) needs a hit latency of 1 or more");
  (void)carveout_list(a);  // names the key when the list is malformed
  if (sm.max_warps % sm.subcores != 0)
    bad("sm.subcores", fmt::format("{} does not divide sm.max_warps = {}: every sub-core needs "
                                   "the same number of warp slots",
                                   sm.subcores, sm.max_warps));
  // An instruction takes one entry per subwarp, all at its issue.
  if (sm.mio_queue && sm.mio_queue < a.warp_size / sm.simd_width)
    bad("sm.mio_queue",
        fmt::format("{} entries cannot hold one instruction's {} subwarps (warp.size / "
                    "sm.simd_width); 0 turns the queue off",
                    sm.mio_queue, a.warp_size / sm.simd_width));
  if (sm.unit_scope != "subcore" && sm.unit_scope != "sm")
    bad("sm.unit_scope", fmt::format("'{}' is not subcore or sm", sm.unit_scope));
  // The cycle model's registries (timing::pipelines(), timing::schedulers()), repeated here so that
  // an arch file is checked where it is read, whatever the command (tests/arch_keys_test.cpp keeps
  // the lists equal).
  if (sm.pipeline != "unified" && sm.pipeline != "split" && sm.pipeline != "elastic")
    bad("sm.pipeline",
        fmt::format("unknown pipeline '{}' (known: unified, split, elastic)", sm.pipeline));
  if ((sm.dispatch_ctas == 0) != (sm.dispatch_cycles == 0))
    bad(sm.dispatch_ctas ? "sm.dispatch_cycles" : "sm.dispatch_ctas",
        "sm.dispatch_ctas and sm.dispatch_cycles are set together (a rate: CTAs per cycles) or "
        "both 0 (no limit)");
  if (sm.lat_imad && !sm.lat_fma)
    bad("sm.lat_imad", "an integer multiply's own latency needs the FMA pipe (sm.lat_fma > 0)");
  if (sm.tensor_step_fmas && !sm.tensor_fmas)
    bad("sm.tensor_step_fmas", "a tensor step needs a tensor unit (sm.tensor_fmas > 0)");
  if (sm.lanes_imad > sm.lanes_fma)
    bad("sm.lanes_imad", fmt::format("{} is more than the FMA unit's sm.lanes_fma = {}",
                                     sm.lanes_imad, sm.lanes_fma));
  if (sm.scheduler != "lrr" && sm.scheduler != "gto" && sm.scheduler != "bank-aware" &&
      sm.scheduler != "bank-aware-fill")
    bad("sm.scheduler",
        fmt::format("unknown scheduler '{}' (known: lrr, gto, bank-aware, bank-aware-fill)",
                    sm.scheduler));
  if (sm.barrel != "strict" && sm.barrel != "relaxed")
    bad("sm.barrel", fmt::format("'{}' is not strict or relaxed", sm.barrel));
  if (sm.premem != "eq3" && sm.premem != "none")
    bad("sm.premem", fmt::format("'{}' is not eq3 or none", sm.premem));
  if (sm.nonmem_ready != "exe" && sm.nonmem_ready != "fixed")
    bad("sm.nonmem_ready", fmt::format("'{}' is not exe or fixed", sm.nonmem_ready));
  if (sm.bank_aware_base != "lrr" && sm.bank_aware_base != "gto")
    bad("sm.bank_aware_base", fmt::format("'{}' is not lrr or gto", sm.bank_aware_base));
  if (sm.relaxed_commit != "out-of-order" && sm.relaxed_commit != "in-order")
    bad("sm.relaxed_commit",
        fmt::format("'{}' is not out-of-order or in-order", sm.relaxed_commit));
  if (sm.relaxed_commit == "in-order" && !sm.scheduler.starts_with("bank-aware"))
    bad("sm.relaxed_commit",
        "in-order needs a bank-aware sm.scheduler: it holds a warp on the scheduler's conflict "
        "prediction (004 §6)");
  lower::parse_rules(sm.lower);  // throws naming sm.lower
  // GPU-LocalTM (docs/tm.md): the named choices must exist (a typo would silently mean the
  // default).
  const TmConfig& tm = a.tm;
  if (tm.detector != "bloom" && tm.detector != "exact")
    bad("tm.detector", fmt::format("'{}' is not bloom or exact", tm.detector));
  if (tm.bloom_index != "position" && tm.bloom_index != "word")
    bad("tm.bloom_index", fmt::format("'{}' is not position or word", tm.bloom_index));
  if (a.shared_float_atomics != "native" && a.shared_float_atomics != "cas")
    bad("atomics.shared_float", fmt::format("'{}' is not native or cas", a.shared_float_atomics));
  if (a.wide_access != "phases" && a.wide_access != "words" && a.wide_access != "pairs")
    bad("memory.wide_access", fmt::format("'{}' is not phases, pairs or words", a.wide_access));
  if (tm.timing != "paper" && tm.timing != "perfect")
    bad("tm.timing", fmt::format("'{}' is not paper or perfect", tm.timing));
  // The hash specs must parse for this geometry.
  try {
    make_index_function(a.bank_hash, {a.bank_bits(), a.bank_addr_bits()});
  } catch (const InputError& e) {
    bad("memory.bank_hash", e.what());
  }
  if (a.lock_hash_bits != "in-bank" && a.lock_hash_bits != "all")
    bad("atomics.lock_hash_bits", fmt::format("'{}' is not in-bank or all", a.lock_hash_bits));
  if (a.locks != 0) {
    try {
      make_lock_function(a);
    } catch (const InputError& e) {
      bad("atomics.lock_hash", e.what());
    }
  }
}

}  // namespace smemsim

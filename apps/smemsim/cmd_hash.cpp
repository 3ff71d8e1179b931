// smemsim hash {list, count, search, apply}: the configurable hash functions of seed 002.
#include "cli_common.hpp"
#include "input_common.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/hash_search.hpp"

namespace smemsim::cli {
namespace {

// ---- list -------------------------------------------------------------------------------------
void add_hash_list(CLI::App* hash) {
  auto json = std::make_shared<bool>(false);
  auto* c = hash->add_subcommand("list", "the index-function families and their spec syntax");
  c->footer("Example: smemsim hash list   # then e.g. --bank-hash 'bits:0,3,4' on analyze");
  c->add_flag("--json", *json, "machine-readable output");
  c->callback([json] {
    if (*json) {
      nlohmann::json out = json::document("hash-list");
      out["families"] = nlohmann::json::array();
      for (const IndexFamily& f : index_families()) out["families"].push_back(json::to_json(f));
      print_json(out);
      return;
    }
    fmt::print(
        "index-function families (any of them can index banks or locks; bank bit 0 is the\n"
        "first bit a spec selects; m = index bits, n = address bits):\n");
    for (const IndexFamily& f : index_families())
      fmt::print("  {:<24} {}\n  {:<24} [{}]\n", f.syntax, f.description, "", f.source);
  });
}

// ---- count ------------------------------------------------------------------------------------
void add_count(CLI::App* hash) {
  struct Opt {
    int n = 14, m = 5;
    bool json = false;
  };
  auto o = std::make_shared<Opt>();
  auto* c = hash->add_subcommand("count", "sizes of the hash-function classes (seed 002 Table 1)");
  c->add_option("--addr-bits", o->n, "address bits n")->capture_default_str();
  c->add_option("--bank-bits", o->m, "index (bank) bits m")->capture_default_str();
  c->add_flag("--json", o->json, "machine-readable output");
  c->footer("Example: smemsim hash count --addr-bits 14 --bank-bits 5   # Fermi, 002 Table 1");
  c->callback([o] {
    const HashCount h = hash_count(o->n, o->m);
    if (o->json) {
      nlohmann::json out = json::document("hash-count");
      out.update(json::hash_count_json(h, o->n, o->m));
      print_json(out);
      return;
    }
    const auto show = [](double v) {
      return v < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:.2g}", v);
    };
    fmt::print(
        "hash functions mapping n = {} address bits to m = {} bank bits (seed 002 Table 1):\n",
        o->n, o->m);
    fmt::print("  all functions               (2^m)^(2^n)        10^{:.1f}\n",
               h.all_functions_log10);
    fmt::print("  XOR-based                   2^(nm)             {}\n", show(h.xor_based));
    fmt::print("  unique XOR-based            Eq. 9              {}\n", show(h.unique_xor));
    fmt::print("  bit-vector permutation      n-m+1              {}\n",
               show(h.bitvector_permutation));
    fmt::print("  bit-vector XOR              (n-m+1) n 2^m      {}\n", show(h.bitvector_xor));
    fmt::print("  bitwise permutation         C(n, m)            {}\n",
               show(h.bitwise_permutation));
    fmt::print("  bitwise XOR                 C(n(n+1)/2, m)     {}\n", show(h.bitwise_xor));
  });
}

// ---- apply ------------------------------------------------------------------------------------
struct ApplyCli {
  ArchOptions arch;
  AccessInput input;
  bool json = false;
};

void run_apply(const ApplyCli& o) {
  if (o.arch.bank_hash.empty() && o.arch.lock_hash.empty())
    throw InputError("hash apply: give --bank-hash SPEC and/or --lock-hash SPEC");
  const Arch arch = resolve_arch(o.arch);
  ArchOptions base_opt = o.arch;
  base_opt.bank_hash = "mod";
  base_opt.lock_hash = arch.locks ? "mod" : "";
  const Arch base = resolve_arch(base_opt);
  AccessEvaluator ev(arch), ev0(base);
  StreamStats s, s0;
  for_each_access(o.input, arch, [&](const WarpAccess& wa) {
    s.add(wa, ev.evaluate(wa));
    s0.add(wa, ev0.evaluate(wa));
  });
  if (o.json) {
    nlohmann::json out = json::document("hash-apply");
    out["bank_hash"] = arch.bank_hash;
    out["lock_hash"] = arch.locks ? nlohmann::json(arch.lock_hash) : nlohmann::json(nullptr);
    out["hashed"] = json::to_json(s.all);
    out["baseline"] = json::to_json(s0.all);
    out["per_pc"] = json::per_pc_json(s, s0);
    out["arch"] = json::to_json(arch);
    print_json(out);
    return;
  }
  const auto row = [](const char* name, const Totals& t) {
    fmt::print("  {:<10} {:>14} {:>10.3f} {:>10.3f} {:>12.1f} {:>14}\n", name, t.bank_conflicts,
               t.mean(t.sum_bank_degree), t.mean(t.sum_lock_degree), t.mean(t.total_latency),
               t.total_latency);
  };
  fmt::print("{}\n", arch_summary(arch));
  fmt::print("{} accesses; bank hash {} and lock hash {} against the mod baseline\n",
             s.all.accesses, arch.bank_hash, arch.locks ? arch.lock_hash : "-");
  fmt::print("  {:<10} {:>14} {:>10} {:>10} {:>12} {:>14}\n", "", "bank_conflicts", "mean_bank",
             "mean_lock", "mean_cycles", "total_cycles");
  row("baseline", s0.all);
  row("hashed", s.all);
  if (s0.all.bank_conflicts > 0)
    fmt::print("  bank conflicts removed: {:.1f}%\n",
               100.0 * double(s0.all.bank_conflicts - s.all.bank_conflicts) /
                   double(s0.all.bank_conflicts));
  if (!s.per_pc.empty()) {
    fmt::print("per instruction (baseline -> hashed):\n  {:>8} {:>10} {:>24} {:>26}\n", "pc",
               "accesses", "bank_conflicts", "mean_cycles");
    for (const auto& [pc, t] : s.per_pc) {
      const Totals& b = s0.per_pc[pc];
      fmt::print("  {:>8} {:>10} {:>11} -> {:<10} {:>12.1f} -> {:<10.1f}\n", pc, t.accesses,
                 b.bank_conflicts, t.bank_conflicts, b.mean(b.total_latency),
                 t.mean(t.total_latency));
    }
  }
}

void add_apply(CLI::App* hash) {
  auto o = std::make_shared<ApplyCli>();
  auto* c = hash->add_subcommand("apply",
                                 "conflicts and latency of a trace under a hash, against "
                                 "the mod baseline (per instruction when the trace has pc=)");
  add_access_input(c, o->input);
  add_arch_options(c, o->arch, true);
  c->add_flag("--json", o->json, "machine-readable output");
  c->footer("Example: smemsim hash apply --trace k.trace --bank-hash 'bvxor:k1=0,k2=5,mask=7'");
  c->callback([o] { run_apply(*o); });
}

}  // namespace

void add_hash_command(CLI::App& app) {
  auto* hash = app.add_subcommand("hash",
                                  "configurable bank/lock hash functions (seed 002): list, "
                                  "count, search, apply");
  hash->require_subcommand(1);
  hash->footer(
      "Examples:\n"
      "  smemsim hash list\n"
      "  smemsim gen block --matrix 0,1,1,0 --cols 16 --block-x 16 --count 8 -o t.trace\n"
      "  smemsim hash search --family bvxor --trace t.trace --emit cuda   # a swizzle to paste\n"
      "  smemsim hash apply --trace t.trace --bank-hash 'bvxor:k1=0,k2=4,mask=14'");
  add_hash_list(hash);
  add_count(hash);
  add_hash_search(hash);
  add_apply(hash);
}

}  // namespace smemsim::cli

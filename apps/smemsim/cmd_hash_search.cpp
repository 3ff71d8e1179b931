// smemsim hash search (seed 002 §5): the search over a trace or patterns, its summary and JSON,
// the emitted code, and the line guard's per-instruction check (issue 26).
#include <bit>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

#include "cli_common.hpp"
#include "input_common.hpp"
#include "smemsim/emit.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/hash_search.hpp"

namespace smemsim::cli {
namespace {

// ---- search -----------------------------------------------------------------------------------
struct SearchCli {
  ArchOptions arch;
  AccessInput input;
  std::string family, heuristic, target = "bank", emit, output, max_memory = "2G";
  std::uint32_t banks = 0;
  int addr_bits = 0;
  bool json = false;
  bool bijective = false;
  bool stats = false;
  bool allow_worse = false;
};

// "41.2 MiB peak of a 2 GiB budget" (+ ", 3 segments (1.9 GiB) spilled to TMPDIR").
std::string memory_line(const ReferenceSets& s) {
  std::string line = fmt::format("{} peak of a {} budget", format_size(s.peak_bytes()),
                                 format_size(s.memory_budget()));
  if (s.spilled_segments())
    line += fmt::format(", {} segments ({}) spilled to TMPDIR", s.spilled_segments(),
                        format_size(s.spilled_bytes()));
  return line;
}

HashTarget parse_target(const std::string& t) {
  if (t == "bank") return HashTarget::Bank;
  if (t == "lock") return HashTarget::Lock;
  throw InputError(fmt::format("--target: '{}' is not bank or lock", t));
}

// The search's index geometry: the arch's, or --banks and --addr-bits.
IndexGeometry search_geometry(const SearchCli& o, const Arch& arch, HashTarget target) {
  IndexGeometry g = target_geometry(arch, target);
  if (o.banks) {
    if (!std::has_single_bit(o.banks) || o.banks < 2)
      throw InputError(fmt::format("--banks {} is not a power of two >= 2", o.banks));
    g.out_bits = std::countr_zero(o.banks);
  }
  if (o.addr_bits) g.addr_bits = o.addr_bits;
  return g;
}

// Checks the options that combine; returns the memory budget of the reference sets.
std::uint64_t check_search_options(const SearchCli& o) {
  if (!o.emit.empty() && o.emit != "cuda" && o.emit != "cute")
    throw InputError(fmt::format("--emit: '{}' is not cuda or cute", o.emit));
  if (o.family.empty()) throw InputError("hash search: --family is required");
  if (!o.output.empty() && o.emit.empty())
    throw InputError("-o: give --emit cuda or --emit cute (-o writes the emitted code)");
  if (o.input.trace != "-")
    if (const std::string over = output_over_input({{"-o", o.output}}, {{"trace", o.input.trace}});
        !over.empty())
      throw InputError(over);  // issue 48
  const std::uint64_t budget = parse_size(o.max_memory, "--max-memory");
  if (budget < (std::uint64_t{16} << 20))
    throw InputError(
        fmt::format("--max-memory: {} is below the 16 MiB a search needs", format_size(budget)));
  return budget;
}

struct SearchOutcome {
  SearchResult r;
  Emission em;
  LineCheck lines;              // with two or more instructions (pcs) in the input
  bool too_many_lines = false;  // more than SearchLineSets::kMaxLines: checked as a whole only
  double read_s = 0, search_s = 0;
};

// The input's reference sets per instruction (pc != 0), for the line guard; at most kMaxLines
// lines are kept apart (a trace of more is checked as a whole, and the summary says so).
class SearchLineSets {
 public:
  static constexpr std::size_t kMaxLines = 512;
  SearchLineSets(const Arch& arch, HashTarget target, IndexGeometry g)
      : arch_(arch), target_(target), g_(g) {}
  void add(const WarpAccess& wa) {
    if (wa.pc == 0 || overflow_) return;
    auto it = sets_.find(wa.pc);
    if (it == sets_.end()) {
      if (sets_.size() == kMaxLines) {
        overflow_ = true;
        sets_.clear();
        return;
      }
      it = sets_
               .emplace(std::piecewise_construct, std::forward_as_tuple(wa.pc),
                        std::forward_as_tuple(arch_, target_, g_))
               .first;
    }
    it->second.add(wa);
  }
  bool overflow() const { return overflow_; }
  std::vector<std::pair<std::uint32_t, const ReferenceSets*>> lines() const {
    std::vector<std::pair<std::uint32_t, const ReferenceSets*>> out;
    for (const auto& [pc, s] : sets_) out.emplace_back(pc, &s);
    return out;
  }

 private:
  const Arch& arch_;
  HashTarget target_;
  IndexGeometry g_;
  std::map<std::uint32_t, ReferenceSets> sets_;
  bool overflow_ = false;
};

nlohmann::json line_json(const std::vector<LineConflicts>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const LineConflicts& l : v)
    a.push_back({{"pc", l.pc}, {"before", l.before}, {"after", l.after}});
  return a;
}

std::string lines_text(const std::vector<LineConflicts>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 8) return s + fmt::format(", ... ({} lines)", v.size());
    s += fmt::format("{}pc {} {} -> {}", i ? ", " : "", v[i].pc, v[i].before, v[i].after);
  }
  return s;
}

void print_search_json(const SearchCli& o, const SearchOutcome& x, const ReferenceSets& sets,
                       const Arch& arch) {
  nlohmann::json out = json::document("hash-search");
  out.update(json::to_json(x.r, sets));
  out["pc"] = o.input.pc.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.input.pc);
  out["read_seconds"] = x.read_s;
  out["search_seconds"] = x.search_s;
  out["arch"] = json::to_json(arch);
  if (!o.emit.empty()) out["emit"] = json::emission_json(o.emit, x.em, o.output);
  out["lines"] = line_json(x.lines.lines);
  out["refused"] = x.lines.refused_spec.empty()
                       ? nlohmann::json(nullptr)
                       : nlohmann::json{{"spec", x.lines.refused_spec},
                                        {"conflicts", x.lines.refused_conflicts},
                                        {"worse", line_json(x.lines.refused_worse)}};
  print_json(out);
}

// The summary for people; with --emit (and no -o) it goes to stderr and the code alone to stdout,
// so that `... --emit cuda > hash.cuh` is a file that compiles.
void print_search_summary(const SearchCli& o, const SearchOutcome& x, const ReferenceSets& sets) {
  const SearchResult& r = x.r;
  std::FILE* sum = !o.emit.empty() && o.output.empty() ? stderr : stdout;
  fmt::print(sum,
             "{} {} over {} accesses{} ({} transactions, {} unique reference sets), {} index "
             "bits over {} address bits\n",
             r.family, r.heuristic, sets.accesses(),
             o.input.pc.empty() ? "" : fmt::format(" of pc {}", o.input.pc), sets.transactions(),
             sets.unique_sets(), sets.geometry().out_bits, sets.geometry().addr_bits);
  fmt::print(sum, "  spec                 {}\n", r.spec);
  fmt::print(sum, "  candidates evaluated {}{}\n", r.candidates_evaluated,
             r.pruned ? " (seed 002 §5.1 pruning: every access linear or strided)" : "");
  fmt::print(sum, "  conflicts            {} (mod baseline {}), {:.1f}% removed\n", r.conflicts,
             r.baseline_conflicts, 100.0 * r.reduction);
  // Per line: the summary never claims a total gain without naming a line made worse (issue 26).
  const LineCheck& lc = x.lines;
  if (!lc.refused_spec.empty())
    fmt::print(sum,
               "  refused              {} ({} conflicts) made {} line{} worse: {}; the best that "
               "makes no line worse is above (--allow-worse takes it)\n",
               lc.refused_spec, lc.refused_conflicts, lc.refused_worse.size(),
               lc.refused_worse.size() == 1 ? "" : "s", lines_text(lc.refused_worse));
  if (const auto worse = lc.worse(); !worse.empty())
    fmt::print(sum, "  WORSE lines          {} (taken with --allow-worse)\n", lines_text(worse));
  if (lc.lines.size() > 1)
    fmt::print(sum, "  per line             {}\n", lines_text(lc.lines));
  else if (x.too_many_lines)
    fmt::print(sum, "  per line             not checked: more than {} instructions in the input\n",
               SearchLineSets::kMaxLines);
  fmt::print(sum, "  xor gates            {}\n", r.matrix.xor_gates());
  fmt::print(sum, "  bijective            {} (as a software hash; see docs/hashing.md)\n",
             r.bijective ? "yes" : "no");
  fmt::print(sum, "  time                 {:.3f} s reading, {:.3f} s searching\n", x.read_s,
             x.search_s);
  fmt::print(sum, "  memory               {}\n", memory_line(sets));
  fmt::print(sum, "  use it: --bank-hash '{}'{}\n", r.spec,
             sets.target() == HashTarget::Lock ? " (as --lock-hash)" : "");
  if (x.em.ok && o.output.empty()) {
    std::fflush(sum);
    fmt::print("{}", x.em.code);
  }
}

// -o FILE: the emitted code alone.
void write_emitted(const SearchCli& o, const Emission& em) {
  write_output_file(o.output, "-o", em.code);
  if (!o.json) fmt::print("  code                 {} ({})\n", o.output, o.emit);
}

void run_search(const SearchCli& o) {
  const Arch arch = resolve_arch(o.arch);
  const HashTarget target = parse_target(o.target);
  const IndexGeometry g = search_geometry(o, arch, target);
  const std::uint64_t budget = check_search_options(o);
  const auto t0 = std::chrono::steady_clock::now();
  ReferenceSets sets(arch, target, g);
  sets.set_memory_budget(budget);
  SearchLineSets by_line(arch, target, g);
  for_each_access(o.input, arch, [&](const WarpAccess& wa) {
    sets.add(wa);
    by_line.add(wa);
  });
  const auto t1 = std::chrono::steady_clock::now();
  SearchOutcome x;
  // Emitting needs a software hash that loses no data: --emit implies --bijective.
  const SearchOptions so{o.family, o.heuristic, o.bijective || !o.emit.empty()};
  x.r = search_hash(sets, so);
  const auto lines = by_line.lines();
  if (lines.size() > 1) x.lines = guard_lines(sets, lines, x.r, so, o.allow_worse);
  x.too_many_lines = by_line.overflow();
  const auto t2 = std::chrono::steady_clock::now();
  x.read_s = std::chrono::duration<double>(t1 - t0).count();
  x.search_s = std::chrono::duration<double>(t2 - t1).count();
  if (o.emit == "cuda")
    x.em = emit_cuda(x.r.matrix, x.r.spec);
  else if (o.emit == "cute")
    x.em = emit_cute(x.r.matrix, x.r.spec);
  if (o.json)
    print_search_json(o, x, sets, arch);
  else
    print_search_summary(o, x, sets);
  if (o.stats)
    fmt::print(stderr,
               "smemsim: {} accesses read in {:.3f} s ({:.2f} M accesses/s), searched in {:.3f} s; "
               "sets {}\n",
               sets.accesses(), x.read_s, double(sets.accesses()) / std::max(x.read_s, 1e-9) / 1e6,
               x.search_s, memory_line(sets));
  if (x.em.ok && !o.output.empty()) write_emitted(o, x.em);
  if (!o.emit.empty() && !x.em.ok) {
    std::cout.flush();
    fmt::print(stderr, "smemsim: cannot emit {}: {}\n", o.emit, x.em.reason);
    std::exit(1);
  }
}

}  // namespace

void add_hash_search(CLI::App* hash) {
  auto o = std::make_shared<SearchCli>();
  auto* c = hash->add_subcommand("search",
                                 "find the hash configuration with the fewest conflicts "
                                 "(seed 002 §5)");
  c->add_option("--family", o->family, "bv | bvxor | bits | bitsxor | xormask")->required();
  c->add_option("--heuristic", o->heuristic,
                "exhaustive (bv, bvxor, bits) | givargis | mih (bits, bitsxor; default mih) | "
                "local (xormask)");
  add_access_input(c, o->input);
  c->add_option("--target", o->target, "bank or lock")->capture_default_str();
  add_arch_options(c, o->arch, false);
  c->add_option("--banks", o->banks,
                "index values: banks (or locks with --target lock); default "
                "the arch's")
      ->check(positive());
  c->add_option("--addr-bits", o->addr_bits,
                "address bits n of the search (default: the arch's "
                "memory)")
      ->check(positive());
  c->add_flag("--json", o->json, "machine-readable output");
  c->add_flag("--bijective", o->bijective,
              "only candidates that are bijections as software hashes (implied by --emit)");
  c->add_option("--emit", o->emit,
                "print code: cuda (a __device__ software hash) or cute (a cute::Swizzle); the "
                "code alone goes to stdout (the summary to stderr), or to -o FILE");
  c->add_option("-o,--output", o->output, "with --emit: write the code to FILE")
      ->check(non_empty_path());
  c->add_option("--max-memory", o->max_memory,
                "memory for the reference sets (e.g. 512M, 4G); past half of it they are "
                "spilled to a file in TMPDIR, with the same result")
      ->capture_default_str();
  c->add_flag("--stats", o->stats, "print the reading rate, search time and memory on stderr");
  c->add_flag("--allow-worse", o->allow_worse,
              "take the best total even when it makes some instruction's conflicts worse (by "
              "default such a result is refused for the best that makes no line worse)");
  c->footer(
      "The objective is the total conflicts (sum of degree-1 over transactions); ties go to fewer "
      "XOR\n"
      "gates, then to the earlier candidate (docs/hashing.md). On a trace of several instructions "
      "(pc=)\n"
      "a result that makes any one of them worse is refused for the best that makes none worse;\n"
      "the summary lists every line before and after.\n"
      "Examples:\n"
      "  smemsim gen stride --stride 4 --count 8 -o s4.trace\n"
      "  smemsim hash search --family bvxor --trace s4.trace --emit cuda > swizzle.cuh\n"
      "  smemsim hash search --family bvxor --trace s4.trace --emit cute -o swizzle.hpp\n"
      "  smemsim hash search --family bitsxor --heuristic mih --trace s4.trace --json\n"
      "  smemsim hash search --family bvxor --trace big.trace --max-memory 512M --stats\n"
      "  smemsim profile builtin:transpose --emit-trace t.trace   # PTX line 76 conflicts\n"
      "  smemsim hash search --family bvxor --trace t.trace --pc 76 --emit cuda   # its swizzle\n"
      "  smemsim hash search --family bvxor --trace t.trace --allow-worse   # names worse lines\n"
      "  smemsim profile builtin:gemm --arch ampere-a100 --emit-trace g.trace\n"
      "  smemsim hash search --family bvxor --trace g.trace --op ld --emit cute   # CuTe swizzle\n"
      "  smemsim hash search --family bits --heuristic mih --banks 8 --addr-bits 5 \\\n"
      "      --pattern 27,12,6,19,11,4,28,3          # seed 002 Fig. 6: bits:0,3,4");
  c->callback([o] { run_search(*o); });
}

}  // namespace smemsim::cli

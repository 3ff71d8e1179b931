// The one JSON form of every result smemsim reports (docs/json.md; machine-readable schemas in
// docs/schema/). Every document the CLI prints or a study writes starts with
//   {"schema": 1, "kind": "analyze-pattern", ...}
// `schema` is the version of these forms (raised when a field changes meaning or is removed) and
// `kind` names the document type, whose fields docs/json.md lists and docs/schema/KIND.schema.json
// checks. The CLI only prints what these functions build (DESIGN.md, "The cycle-level layer").
//
// Naming: one name per quantity everywhere. A quantity, then its unit where it has one, then the
// statistic of an aggregate: `bank_degree` (one access), `bank_degree_mean`, `bank_degree_max`,
// `latency_cycles`, `latency_cycles_mean`, `latency_cycles_total`; counts are plural nouns
// (`accesses`, `bank_conflicts`); wall time is `seconds`; sizes are `*_bytes`. Source locations
// are {"file": ..., "line": ...}. Anything keyed by a number is an array of objects (sorted by
// that number), never an object with numeric keys (JSON objects sort their keys as strings).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "smemsim/classify.hpp"
#include "smemsim/emit.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/hash_search.hpp"
#include "smemsim/index_function.hpp"
#include "smemsim/latency_model.hpp"
#include "smemsim/line_hints.hpp"
#include "smemsim/tm.hpp"

namespace smemsim::json {

using Json = nlohmann::json;

// The version of every document's form (docs/json.md, "Versions").
inline constexpr int kSchemaVersion = 1;

// {"schema": kSchemaVersion, "kind": kind}: the head of every document.
inline Json document(std::string_view kind) {
  return {{"schema", kSchemaVersion}, {"kind", std::string(kind)}};
}

// A source location.
inline Json location(std::string_view file, std::uint64_t line) {
  return {{"file", std::string(file)}, {"line", line}};
}

// The resolved architecture, nested by the dotted keys of the arch table ({"memory": {"banks": 32,
// ...}, "timing": {...}}), plus "label" (arch_label: "fermi-gtx580 derived (memory.banks=16),
// uncalibrated").
Json to_json(const Arch& a);

// A GPGPU-Sim import: the arch, and the options mapped, ignored and adjusted, each with its
// location in the configuration file.
Json to_json(const GpgpuSimImport& r);

// One access's cost: bank/position/lock degree, bank conflicts, latency_cycles, transactions.
Json to_json(const AccessResult& r);
// Aggregates over accesses: counts, degree means and maxima, latency mean and total.
Json to_json(const Totals& t);
// The keys of to_json(Totals) in reading order (CSV columns; JSON objects sort their keys).
const std::vector<std::string>& totals_fields();
// The lock rounds of the transaction an analyzer holds (seed 001 Algorithm 1).
Json lock_rounds_json(const ConflictAnalyzer& a);
// Per transaction of `wa` (analyze --pattern): first_lane, lanes, its degrees and lock rounds.
Json transactions_json(const WarpAccess& wa, AccessEvaluator& ev);
// A trace's statistics: {"totals", "accesses_by_op", "per_pc"} (per_pc: the Totals fields and
// "pc", by pc).
Json to_json(const StreamStats& s);
// Per instruction of two evaluations of one trace (hash apply): [{"pc", "hashed", "baseline"}].
Json per_pc_json(const StreamStats& hashed, const StreamStats& baseline);

// Access classes of seed 002 §3.1, with the strides and block patterns found.
Json to_json(const ClassCounts& c);

// Seed 002 Table 1 sizes for n address bits and m bank bits.
Json hash_count_json(const HashCount& h, int addr_bits, int bank_bits);
// A search's result with the reference sets it ran on (counts and memory).
Json to_json(const SearchResult& r, const ReferenceSets& sets);

// The code `hash search --emit` produced: {"language", "code", "error", "path"}.
Json emission_json(const std::string& language, const Emission& em, const std::string& path);
// A profile line's swizzle hint (line_hints.hpp).
Json to_json(const SwizzleHint& h);

// The transactional counts of GPU-LocalTM (seed 003), as run, profile and sim report them.
Json to_json(const tm::TmStats& t);

// Registry entries, as the list commands print them.
Json to_json(const IndexFamily& f);
Json to_json(const LatencyModelInfo& m);

}  // namespace smemsim::json

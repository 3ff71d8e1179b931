// Internal to the launch-spec reader (launch_spec.cpp, launch_textures.cpp): where the spec came
// from, its budget, and errors that name the spec's line.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {

struct SpecContext {
  std::string origin;
  std::filesystem::path dir;                   // relative input files are resolved here
  std::uint64_t max_bytes = kLaunchSpecBytes;  // the buffers' budget
  std::vector<std::string>* notes = nullptr;   // Workload::notes: what the commands print

  [[noreturn]] void fail(const toml::node* n, const std::string& what) const {
    const std::uint64_t line = n ? n->source().begin.line : 0;
    throw InputError(located(origin, line, what));
  }
  [[noreturn]] void fail(const toml::table& t, const std::string& what) const {
    throw InputError(located(origin, t.source().begin.line, what));
  }
};

// Element values (spec_values.cpp). store: number `f` (a float value) or `n` (an integer) as
// element i of b. num: the table's number `key` (dflt when absent), finite, within the 64-bit range
// when `integral`. check_fits: `v`, given for an element of type t, fits it (an integer either
// reading of its bits; a float below the magnitude that rounds to infinity), else an error naming
// `what` and the spec's line.
void store(Buffer& b, std::uint64_t i, double f, std::int64_t n, bool is_float_value);
// `nonfinite`: inf, -inf and nan are values too (a float buffer's fill value: FlashAttention starts
// its row maximum at -inf).
double num(const SpecContext& c, const toml::table& t, const char* key, double dflt,
           bool integral = false, bool nonfinite = false);
// An integer buffer's key, exactly (TOML integers to 2^63; a whole float within 2^53): 2^53 + 1 in
// a u64 buffer stays 2^53 + 1 (issue 27).
std::int64_t inum(const SpecContext& c, const toml::table& t, const char* key, std::int64_t dflt);
void check_fits(const SpecContext& c, const toml::node* n, const std::string& what, ElemType t,
                long double v);

// args = [...] (spec_args.cpp): `an` the array, `owner` the table it belongs to (the spec or a
// [[launch]]), for the message when it is missing.
std::vector<Arg> parse_args(const SpecContext& c, const toml::node* an, const toml::node& owner,
                            const Workload& w);

// A place in a buffer named in the spec (spec_args.cpp): `offset` elements of its type, or bytes
// (`in_bytes`), from 0 to the buffer's end; else an error naming `what` and the node's line.
struct BufferPlace {
  std::uint32_t buffer = 0;
  std::int64_t bytes = 0;
};
BufferPlace buffer_place(const SpecContext& c, const Workload& w, const toml::node& at,
                         const std::string& what, const std::string& name, std::int64_t offset,
                         bool in_bytes);

// The same from a table { buffer = "d", offset = N | offset_bytes = N } (the caller checks its
// other keys).
BufferPlace buffer_table(const SpecContext& c, const Workload& w, const toml::table& t,
                         const std::string& what);

// A struct or array passed by value, { fields = [...] } or { bytes = [...] } (spec_struct.cpp):
// argument `index` (from 0) as Arg::Kind::Bytes.
Arg struct_arg(const SpecContext& c, const toml::table& t, std::size_t index, const Workload& w);

// [textures.NAME] tables (launch_textures.cpp): texture objects over the spec's buffers, appended
// to w.memory.textures. Throws InputError naming the spec's line.
void parse_textures(const SpecContext& c, const toml::node& n, Workload& w);
// [tensor_maps.NAME] (launch_tensor_maps.cpp): CUtensorMap parameters (issue 46).
void parse_tensor_maps(const SpecContext& c, const toml::node& n, Workload& w);

}  // namespace smemsim::exec

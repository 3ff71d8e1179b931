// Pieces every smemsim command shares: architecture options, JSON of the resolved configuration,
// and the command registration hooks (one per file, called from main.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "smemsim/arch.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/json.hpp"
#include "util/file.hpp"
#include "util/output_file.hpp"

namespace smemsim::cli {

struct ArchOptions {
  std::string name = "fermi-gtx580";
  std::string file;
  std::vector<std::string> sets;
  std::string bank_hash;  // empty: the arch's
  std::string lock_hash;
  std::string model;  // empty: the arch's atomic model
  // Set by add_arch_options: whether --arch or --arch-file was given (run, profile and sim take a
  // PTX file's preset from its .target when neither was).
  const CLI::Option* name_option = nullptr;
  const CLI::Option* file_option = nullptr;
  bool chosen() const {
    return (name_option && name_option->count()) || (file_option && file_option->count());
  }
};

// --arch, --arch-file, --set (and optionally --bank-hash, --lock-hash, --model).
void add_arch_options(CLI::App* cmd, ArchOptions& o, bool hashes_and_model = true);
// Preset (or file on top of it), then --set overrides, hashes and model; validated once.
Arch resolve_arch(const ArchOptions& o);

// Prints a document the library built (json::document + the result's forms) on stdout.
void print_json(const nlohmann::json& doc);
// Writes `rows` (JSON objects) as CSV to `path`: the header is `keys`, a dotted key ("cuda.line")
// names a nested field, null is an empty field; fields with commas, quotes or newlines are quoted.
// InputError naming `option` when it cannot.
void write_csv(const std::string& path, const std::vector<std::string>& keys,
               const std::vector<nlohmann::json>& rows, std::string_view option);

// A terse one-line description: "fermi-gtx580: 48 KiB, 32 banks x 4 B, ...".
std::string arch_summary(const Arch& a);

void add_arch_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_study_command(CLI::App& app);
void add_hash_command(CLI::App& app);
void add_hash_search(CLI::App* hash);  // cmd_hash_search.cpp
void add_classify_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_racecheck_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_fix_command(CLI::App& app);  // cmd_fix.cpp
void add_launch_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);  // cmd_calibrate.cpp

// Option checks with short messages (CLI11's own number ranges print the double limits).
// An output path must be given (an empty one would silently write nothing) and must not be a
// directory, device, FIFO or socket (issue 28: `-o /dev/null` was replaced by a regular file):
// checked when the options are read, before any work.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& s) {
        if (s.empty()) return std::string("empty path");
        return output_path_problem(s);
      },
      "FILE");
}
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& s) {
        return s.rfind('-', 0) == 0 ? std::string("must not be negative") : "";
      },
      "N >= 0");
}
// Every integer and floating-point option of `app` and its subcommands gets a syntax and 64-bit
// range check before CLI11 converts it (CLI11 saturates 99999999999999999999 to 2^64 - 1): a clear
// message naming the option (issue 11). Call once, after every option is added.
void check_numeric_options(CLI::App& app);
// CLI11's "Could not convert: --size = 99999999999" (a value too large for a narrower field) as
// "--size: 99999999999 is out of range for this option"; other messages unchanged.
std::string explain_parse_error(const std::string& what);
// The same for any CLI11 parse error of `app`, in smemsim's words, naming the command the parser
// was in: "unknown option '--nosuch' for smemsim analyze", "smemsim arch needs a command: list,
// show, import", "--pattern is given 2 times; it takes one value", "--regs: 300 is not between 0
// and 255", "--count needs a value".
std::string explain_parse_error(const std::string& what, const CLI::App& app);

// A memory size: bytes, or a number with K, M, G or T (binary: 2G = 2^31 bytes; "KiB", "MB" and
// lower case are accepted). InputError naming `option` for anything else, for zero, and past 2^60.
std::uint64_t parse_size(const std::string& text, std::string_view option);
// "2 GiB", "1.1 GiB", "512 MiB", "1000 bytes": exact when whole, else to one decimal.
std::string format_size(std::uint64_t bytes);
// What the command is doing and how to make it smaller, for the one-line error when an
// allocation fails anyway (main.cpp catches std::bad_alloc): "preparing builtin:kmeans's inputs:
// lower its size options".
void set_activity(std::string what);
const std::string& activity();

inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& s) {
        return s.rfind('-', 0) == 0 || s.find_first_not_of("0") == std::string::npos
                   ? std::string("must be at least 1")
                   : "";
      },
      "N >= 1");
}

}  // namespace smemsim::cli

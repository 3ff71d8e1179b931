// Error types shared by the library and the CLI.
//
// InputError: bad usage or bad input (a malformed file, an unknown key, an impossible value). The
// CLI prints it as `smemsim: error: <what>` and exits 2. Its message already carries `file:line:`
// where an input file is involved.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace smemsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Formats "file:line: message" (line omitted when 0).
std::string located(const std::string& file, std::uint64_t line, const std::string& message);

}  // namespace smemsim

// `smemsim profile --html FILE` (issue 29 item 4): the profile as one self-contained HTML page, a
// source view as Nsight Compute users know it: the kernel's CUDA source with every line coloured
// by its share of the bank conflicts (and, with --timing, of the warps' stalls), its degree and
// its hint; the PTX on demand; the kernel's summary and the arch. No script, no network: it reads
// offline in any browser.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "smemsim/ptx.hpp"

namespace smemsim::cli {

// `doc`: the profile's --json document (its cuda_lines, rows, totals, timing); `hints`: the hint
// line under each of doc["cuda_lines"] ("" for none), as the table prints it.
std::string profile_html(const nlohmann::json& doc, const std::vector<std::string>& hints,
                         const ptx::Module& module, const ptx::Kernel& kernel);

}  // namespace smemsim::cli

// Where the kernel suite's PTX is found (kernels/ptx/, shipped in the repository: issue 24).
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

#ifndef SMEMSIM_PTX_DIR
#define SMEMSIM_PTX_DIR ""
#endif

namespace smemsim::exec {

namespace fs = std::filesystem;

std::string suite_ptx_dir() {
  if (const char* env = std::getenv("SMEMSIM_PTX_DIR"); env && *env) return env;
  std::error_code ec;
  const std::string source = SMEMSIM_PTX_DIR;  // the source tree's kernels/ptx
  if (!source.empty() && fs::is_directory(source, ec)) return source;
  // An installed binary: <prefix>/bin/smemsim beside <prefix>/share/smemsim/ptx.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "smemsim" / "ptx";
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  return source;
}

ptx::Module load_suite_ptx(const std::string& dir, const std::string& stem,
                           const std::string& who) {
  const std::string path = dir + "/" + stem + ".ptx";
  std::error_code ec;
  if (dir.empty() || !fs::is_regular_file(path, ec))
    throw InputError(fmt::format(
        "{}: the kernel suite PTX '{}' is missing: it ships in the repository as "
        "kernels/ptx/{}.ptx (scripts/gen-ptx.sh makes it from kernels/{}.cu); --ptx-dir or "
        "SMEMSIM_PTX_DIR names another folder",
        who, path, stem, stem));
  return ptx::parse_file(path);
}

}  // namespace smemsim::exec

// The study runner's files: CSV lines, atomic writes, the output folder and its lock, the report.
#include "runner_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "plot.hpp"
#include "smemsim/error.hpp"
#include "smemsim/json.hpp"
#include "util/output_file.hpp"

namespace smemsim::study {
namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? p : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

void write_atomic(const std::string& path, const std::string& text) {
  write_output_file(path, fmt::format("study file '{}'", fs::path(path).filename().string()), text,
                    /*durable=*/true);
}

Output build_csv(const std::vector<std::string>& columns,
                 const std::map<std::size_t, std::string>& points) {
  Output o;
  o.table.columns.push_back("point");
  for (const auto& c : columns) o.table.columns.push_back(c);
  o.csv = fmt::format("{}\n", fmt::join(o.table.columns, ","));
  for (const auto& [idx, payload] : points)
    for (const std::string& r : split(payload, '|')) {
      const std::string line = fmt::format("{},{}", idx, r);
      o.csv += line + "\n";
      o.table.rows.push_back(split(line, ','));
    }
  return o;
}

namespace {
bool has_pdf(const std::string& png) {
  std::error_code ec;
  return fs::is_regular_file(png.substr(0, png.size() - 4) + ".pdf", ec);
}
}  // namespace

void finalize(const StudyInfo& info, Report rep, const Arch& study_arch, const Table& table,
              const std::string& dir, const RunOptions& o, RunSummary& s) {
  std::string md = fmt::format(
      "# Study `{}`\n\n{}\n\nSource: {}. Arch: `{}` ({}). Configuration: `config.json`, "
      "`arch.toml`; every point: `points.csv`.\n\n",
      info.name, info.description, info.source, arch_label(study_arch),
      sources_summary(study_arch));
  md += rep.markdown;
  if (!rep.figures.empty()) md += "\n## Figures\n\n";
  for (Figure f : rep.figures) {
    // The caption names what produced the figure: the study, the arch, and what the figure adds
    // (a sweep's keys).
    std::string caption =
        fmt::format("smemsim study {}, arch {}", info.name, arch_label(study_arch));
    if (!f.caption.empty()) caption += "; " + f.caption;
    f.caption = std::move(caption);
    const std::string png = o.plots ? render_figure(f, dir, o.log) : std::string();
    if (!png.empty()) s.pngs.push_back(png);
    md += fmt::format("### {}\n\n", f.title);
    if (!o.plots)
      md += "(not drawn: --no-plots)\n\n";
    else if (png.empty())
      md += fmt::format(
          "(no picture: gnuplot is missing or failed; script `{0}.gp`, data `{0}.dat`)\n\n",
          f.name);
    else
      md += fmt::format(
          "![{0}]({1}.png)\n\n(vector: `{1}.svg`{2}; gnuplot script `{1}.gp`, data `{1}.dat`)\n\n",
          f.title, f.name, has_pdf(png) ? fmt::format(", `{}.pdf`", f.name) : "");
  }
  write_atomic(dir + "/report.md", md);
  nlohmann::json summary = json::document("study-summary");
  summary["study"] = info.name;
  summary["arch"] = arch_label(study_arch);
  summary["rows"] = table.rows.size();
  summary["results"] = rep.summary;
  write_atomic(dir + "/summary.json", summary.dump(2) + "\n");
  s.report_markdown = rep.markdown;
  s.finalized = true;
  s.summary = std::move(summary);
}

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

std::string output_dir(const std::string& root, const std::string& name) {
  if (root.empty()) throw InputError("--out: empty path (give a folder, e.g. --out study-out)");
  const fs::path p(root);
  if (p.has_root_path() && p.relative_path().empty())
    throw InputError(fmt::format("--out: '{}' is a filesystem root; give a folder under it", root));
  const std::string dir = root + "/" + name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(fmt::format("--out: cannot create the folder '{}': {}", dir,
                                 ec ? ec.message() : "a file of that name exists"));
  return dir;
}

FolderLock::FolderLock(const std::string& dir) {
  const std::string path = dir + "/.lock";
  path_ = path;
  fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(fmt::format("cannot create the lock file '{}'", path));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw InputError(fmt::format(
        "{} is in use by another smemsim study run (lock file {}); wait for it to finish or "
        "choose another --out",
        dir, path));
  }
}

FolderLock::~FolderLock() {
  ::unlink(path_.c_str());  // while still held
  ::close(fd_);
}

}  // namespace smemsim::study

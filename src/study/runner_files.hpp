// The study runner's files (src/study/runner.cpp, merge.cpp): CSV lines, atomic writes, the
// output folder and its lock, and the report a finished run or a merge writes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "smemsim/study.hpp"

namespace smemsim::study {

std::vector<std::string> split(const std::string& s, char sep);
// Writes a temporary file, syncs it and renames it over `path` (atomic on POSIX).
void write_atomic(const std::string& path, const std::string& text);

// points.csv (its text, and the table a report reads) from the points' payloads.
struct Output {
  std::string csv;
  Table table;
};
Output build_csv(const std::vector<std::string>& columns,
                 const std::map<std::size_t, std::string>& points);
// The report: report.md (with the figures rendered) and summary.json; fills s's report fields.
// `rep` is the study's report of the table (made before, so that a merge checks it before writing).
void finalize(const StudyInfo& info, Report rep, const Arch& study_arch, const Table& table,
              const std::string& dir, const RunOptions& o, RunSummary& s);
bool stderr_is_terminal();
// OUT/NAME, created: an empty OUT or a filesystem root is refused (issue 11: `--out ""` wrote to
// /NAME), and a folder that cannot be made is an InputError, not a filesystem exception.
std::string output_dir(const std::string& root, const std::string& name);

// An advisory lock on DIR/.lock for the whole run: a second run on the same folder is refused
// (the kernel drops the lock when a process dies, so a killed run can be resumed). The file is
// removed when the lock is released, by a run that finishes or fails (issue 48: a failed run left
// `.lock` behind); only a killed process leaves it, and the next run takes it over.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace smemsim::study

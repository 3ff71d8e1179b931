// Every file smemsim writes goes through OutputFile (issue 48): the bytes go to a temporary file in
// the target's folder, and only a complete, flushed file is renamed over the target. A run that
// fails (a kernel that faults, a full disk, a file-size limit, an exception anywhere) leaves the
// target as it was (absent, or the previous good file) and no temporary behind, and the error
// gives the operating system's reason ("No space left on device", "File too large").
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace smemsim {

class OutputFile {
 public:
  // `what` names the output in messages: "--html", "-o", "buffer 'out' (write)". The temporary,
  // ".NAME.PID-N.partial" beside the target, is created at once, so a folder that cannot be
  // written is an error before any work. Throws InputError.
  OutputFile(std::string path, std::string what);
  ~OutputFile();  // not committed: the temporary is removed and the target is left untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return *stream_; }
  void write(std::string_view bytes) {
    stream_->write(bytes.data(), std::streamsize(bytes.size()));
  }
  // Forces the data to the disk before the rename (the study runner's state files: a machine
  // that loses power keeps the old file or the new one, never an empty one).
  void set_durable(bool durable) { durable_ = durable; }
  // Flushes, closes and renames the temporary over the target; on any failure removes it and
  // throws InputError "WHAT: cannot write 'PATH': REASON ('PATH' is unchanged)".
  void commit();
  // Drops what was written (the target is left untouched); also what the destructor does.
  void discard() noexcept;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }

 private:
  class FdBuf;
  [[noreturn]] void fail(int err);
  std::string path_, what_, temp_;
  int fd_ = -1;
  bool durable_ = false, done_ = false;
  std::unique_ptr<FdBuf> buf_;
  std::unique_ptr<std::ostream> stream_;
};

// The whole of `bytes` as the file `path`, through an OutputFile.
void write_output_file(const std::string& path, const std::string& what, std::string_view bytes,
                       bool durable = false);

// Makes a write beyond the process's file-size limit (`ulimit -f`) fail with EFBIG, reported by
// OutputFile, instead of killing the process with SIGXFSZ (and a core dump) midway. Python does the
// same at start-up; the CLI calls it in main.
void ignore_file_size_signal();

}  // namespace smemsim

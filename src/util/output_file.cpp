// OutputFile: a temporary beside the target, written through a file descriptor (so each failure
// keeps its errno), renamed over the target only when complete.
#include "util/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/file.hpp"

namespace smemsim {
namespace fs = std::filesystem;

// A write-only stream buffer over a file descriptor: 64 KiB of buffer, writes larger than that
// go straight through; the first failure's errno is kept and every later write fails.
class OutputFile::FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(std::size_t{1} << 16) {
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  int error() const { return err_; }
  bool drain() {
    const bool ok = put(pbase(), std::size_t(pptr() - pbase()));
    setp(buf_.data(), buf_.data() + buf_.size());
    return ok;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, std::size_t(n));
      pbump(int(n));
      return n;
    }
    if (!drain() || !put(s, std::size_t(n))) return 0;
    return n;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool put(const char* p, std::size_t n) {
    if (err_) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        err_ = w < 0 ? errno : EIO;
        return false;
      }
      p += w;
      n -= std::size_t(w);
    }
    return true;
  }
  int fd_;
  int err_ = 0;
  std::vector<char> buf_;
};

namespace {

std::atomic<unsigned> g_temp_counter{0};

// The target a write lands on: a symbolic link to a file is written through (the link stays).
std::string resolved_target(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path real = fs::weakly_canonical(path, ec);
    if (!ec) return real.string();
  }
  return path;
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  if (path_.empty()) throw InputError(fmt::format("{}: the path is empty", what_));
  if (const std::string why = output_path_problem(path_); !why.empty())
    throw InputError(fmt::format("{}: {}", what_, why));
  const fs::path target(resolved_target(path_));
  const fs::path folder = target.parent_path();
  const std::string tag = fmt::format("{}-{}.partial", ::getpid(),
                                      g_temp_counter.fetch_add(1, std::memory_order_relaxed));
  temp_ = (folder / fmt::format(".{}.{}", target.filename().string(), tag)).string();
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0 && errno == ENAMETOOLONG) {  // a name near NAME_MAX: a short temporary instead
    temp_ = (folder / fmt::format(".smemsim-{}", tag)).string();
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd_ < 0) {
    const int err = errno;
    throw InputError(fmt::format("{}: cannot write '{}': {}", what_, path_, std::strerror(err)));
  }
  // A replaced file keeps its permissions (a new one gets 0666 less the umask, as any file).
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd_, st.st_mode & 07777);
  buf_ = std::make_unique<FdBuf>(fd_);
  stream_ = std::make_unique<std::ostream>(buf_.get());
}

OutputFile::~OutputFile() {
  discard();
}

void OutputFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
}

void OutputFile::fail(int err) {
  discard();
  std::error_code ec;
  const bool existed = fs::exists(path_, ec);
  throw InputError(fmt::format("{}: cannot write '{}': {} ({})", what_, path_, std::strerror(err),
                               existed ? "the file is unchanged" : "no file was made"));
}

void OutputFile::commit() {
  if (done_) throw InputError(fmt::format("{}: '{}' was already written", what_, path_));
  stream_->flush();
  if (buf_->error()) fail(buf_->error());
  if (!*stream_) fail(EIO);
  if (durable_ && ::fdatasync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);  // NFS and quotas report a full disk here
  if (::rename(temp_.c_str(), resolved_target(path_).c_str()) != 0) fail(errno);
  done_ = true;
}

void write_output_file(const std::string& path, const std::string& what, std::string_view bytes,
                       bool durable) {
  OutputFile f(path, what);
  f.set_durable(durable);
  f.write(bytes);
  f.commit();
}

void ignore_file_size_signal() {
#ifdef SIGXFSZ
  std::signal(SIGXFSZ, SIG_IGN);
#endif
}

}  // namespace smemsim
